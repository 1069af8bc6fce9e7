// What the grouped matmul's steps (ops/matmul/gmm_phase1.cpp, gmm_int8_step.cpp) share at launch: the
// device group list read and checked before anything is written, and the rows no group covers zeroed.
#pragma once

#include <cstddef>
#include <cstdint>

namespace opsnn::ops {

// Copies the G cumulative group ends (element stride `stride`) into `ends`: 0 when they are
// non-decreasing and at most `limit` (x's rows, or its K for `what` "K"), else 161002 naming
// groupListOptional.
int gmm_read_group_ends(const int64_t *gl, int64_t stride, size_t groups, int64_t limit, const char *what,
                        int64_t *ends);

// Zeroes rows [r0, r1) of an [.., n] output (byte strides; every supported dtype's zero is all-zero bytes).
void gmm_zero_rows(char *y, int64_t r0, int64_t r1, int64_t n, int64_t row_bytes, int64_t col_bytes, size_t esize);

}  // namespace opsnn::ops
