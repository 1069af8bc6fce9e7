// The 2:4 ("4 to 2") structured-sparse INT8 weight of aclnnTransSparse4to2Para /
// aclnnSparse4to2QuantMatmulWeightNz: a dense [n, k] weight whose every group of 4 consecutive
// values along k holds at most 2 non-zeros, kept as half the values plus 2-bit position codes.
//
// Layout (the documented storage shapes; k_half = ceil(k / 8) * 4, K1 = ceil(k_half / 32),
// N16 = ceil(n / 16) * 16):
//   values [K1, N16 / 16, 16, 32] INT8: block (k1, row r) holds the 32 kept values of the weight's
//          k range [64 * k1, 64 * k1 + 64) of row r, 4 per 8 original values (2 per group of 4);
//   codes  [K1, N16 / 16, 16, 8] UINT8: one byte per 8 original values, at the same (k1, r),
//          low nibble for the first group of 4, high nibble for the second.
// A nibble's low 2 bits place the group's first kept value at position code (0..2), its high 2
// bits the second at position 1 + code (1..3). Rows past n, and k past the weight's k, are 0.
// Encoding (the documented rule: a group's first kept value is its first non-zero among elements
// 0..2, the second its last non-zero among 1..3): two non-zeros p < q keep (w[p], w[q]) coded
// (p, q - 1); one non-zero q keeps it with a zero beside it, coded (q, 0) for q <= 2 and (0, 2) for
// q == 3; none keeps (0, 0) coded (0, 0).
#pragma once

#include <cstdint>

namespace opsnn::kernels {

struct Sparse4to2Dims {
  int64_t n = 0, k = 0;
  int64_t k_half() const { return (k + 7) / 8 * 4; }
  int64_t k_blocks() const { return (k_half() + 31) / 32; }
  int64_t n_blocks() const { return (n + 15) / 16; }
  int64_t value_bytes() const { return k_blocks() * n_blocks() * 16 * 32; }
  int64_t code_bytes() const { return k_blocks() * n_blocks() * 16 * 8; }
};

// Encodes the row-major dense weight [n, k] into values / codes (value_bytes() / code_bytes(),
// fully written). Returns false, leaving *bad_row / *bad_col at the first group of 4 with more
// than 2 non-zeros, when the weight is not 2:4 sparse.
bool sparse4to2_encode(const int8_t *dense, const Sparse4to2Dims &d, int8_t *values, uint8_t *codes,
                       int64_t *bad_row, int64_t *bad_col);

// Decodes into the row-major dense [n, k] (fully written). A kept 0 writes nothing, so a code
// naming an element twice keeps the non-zero; a second code of 3 (position 4) is ignored.
void sparse4to2_decode(const int8_t *values, const uint8_t *codes, const Sparse4to2Dims &d, int8_t *dense);

}  // namespace opsnn::kernels
