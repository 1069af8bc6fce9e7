// The layout ops' own steps, for what a view and a copy cannot express: the triangle masks of
// tril / triu, and the values of arange.
#pragma once

#include "core/op_builder.h"

namespace opsnn::ops {

// out = tril(in, diagonal) (lower) or triu(in, diagonal) over the last two dims; in and out have
// the same dtype and shape (they may be the same view: in place).
void record_triangle(core::OpBuilder &b, int in_slot, int out_slot, bool lower, int64_t diagonal);

// out[k] = start + k * step for the 1-D view out (computed in INT64 for integer outputs, else DOUBLE,
// then converted to out's dtype).
void record_arange(core::OpBuilder &b, int out_slot, double start, double step, int64_t istart, int64_t istep);

}  // namespace opsnn::ops
