// aclnnCast to and from FLOAT8_E4M3FN / FLOAT8_E5M2 / FLOAT4_E2M1 / FLOAT4_E1M2 (kernels/quant/low_float_cast.h
// says the conversion): the copy family's phase 1 hands a Cast with such a dtype on either side here. The other
// side is FLOAT / FLOAT16 / BF16 or another of them (HIFLOAT8 and the integer / DOUBLE / BOOL pairs: 161002
// naming the tensor); self and out of one shape, any strides (FLOAT4: contiguous, starting on a whole byte).
#pragma once

#include "core/op_builder.h"
#include "ops/copy/copy_phase1.h"

namespace opsnn::ops {

// The Cast names a low-precision float dtype (dtype, self's or out's).
bool is_low_float_cast(const CopyCall &c);

void low_float_cast_phase1(core::OpBuilder &b, const CopyCall &c);

}  // namespace opsnn::ops
