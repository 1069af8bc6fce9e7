// The 2:4 sparse weight's encoder and decoder (kernels/quant/sparse4to2.h).
#include "kernels/quant/sparse4to2.h"

#include <cstring>

namespace opsnn::kernels {

namespace {

// The block of row r at k block k1: the offsets of its first kept value and its first code byte.
int64_t block_index(const Sparse4to2Dims &d, int64_t k1, int64_t r) { return k1 * d.n_blocks() * 16 + r; }

// One group of 4 (elements past k read as 0): its two kept values and its nibble. False: 3 or 4 non-zeros.
bool encode_group(const int8_t *g, int64_t valid, int8_t kept[2], uint8_t *nibble) {
  int nz[4], count = 0;
  for (int e = 0; e < 4; ++e)
    if (e < valid && g[e] != 0) nz[count++] = e;
  if (count > 2) return false;
  int first = 0, second = 0;  // codes
  kept[0] = kept[1] = 0;
  if (count == 2) {
    first = nz[0];
    second = nz[1] - 1;
    kept[0] = g[nz[0]];
    kept[1] = g[nz[1]];
  } else if (count == 1 && nz[0] == 3) {
    second = 2;
    kept[1] = g[3];
  } else if (count == 1) {
    first = nz[0];
    kept[0] = g[nz[0]];
  }
  *nibble = static_cast<uint8_t>(first | (second << 2));
  return true;
}

}  // namespace

bool sparse4to2_encode(const int8_t *dense, const Sparse4to2Dims &d, int8_t *values, uint8_t *codes, int64_t *bad_row,
                       int64_t *bad_col) {
  std::memset(values, 0, static_cast<size_t>(d.value_bytes()));
  std::memset(codes, 0, static_cast<size_t>(d.code_bytes()));
  for (int64_t r = 0; r < d.n; ++r)
    for (int64_t c = 0; c < d.k; c += 4) {  // c: the group's first column
      const int64_t k1 = c / 64, octet = (c % 64) / 8, half = (c % 8) / 4;
      const int64_t blk = block_index(d, k1, r);
      int8_t kept[2];
      uint8_t nibble;
      if (!encode_group(dense + r * d.k + c, d.k - c, kept, &nibble)) {
        *bad_row = r;
        *bad_col = c;
        return false;
      }
      values[blk * 32 + octet * 4 + half * 2] = kept[0];
      values[blk * 32 + octet * 4 + half * 2 + 1] = kept[1];
      codes[blk * 8 + octet] = static_cast<uint8_t>(codes[blk * 8 + octet] | (nibble << (4 * half)));
    }
  return true;
}

void sparse4to2_decode(const int8_t *values, const uint8_t *codes, const Sparse4to2Dims &d, int8_t *dense) {
  std::memset(dense, 0, static_cast<size_t>(d.n * d.k));
  for (int64_t r = 0; r < d.n; ++r)
    for (int64_t c = 0; c < d.k; c += 4) {
      const int64_t k1 = c / 64, octet = (c % 64) / 8, half = (c % 8) / 4;
      const int64_t blk = block_index(d, k1, r);
      const int nibble = (codes[blk * 8 + octet] >> (4 * half)) & 0xF;
      const int8_t *kept = values + blk * 32 + octet * 4 + half * 2;
      const int64_t pos[2] = {c + (nibble & 3), c + 1 + (nibble >> 2)};
      for (int s = 0; s < 2; ++s)
        if (kept[s] != 0 && pos[s] < c + 4 && pos[s] < d.k) dense[r * d.k + pos[s]] = kept[s];
    }
}

}  // namespace opsnn::kernels
