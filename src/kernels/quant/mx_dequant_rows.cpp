#include "kernels/quant/mx_dequant_rows.h"

#include <cmath>
#include <cstring>

#include "core/fractal_layout.h"
#include "core/thread_pool.h"

namespace opsnn::kernels {
namespace {

// Where element kk of row r of matrix b starts (codes' index), and the step to the next kk inside a block of
// 32 (a block never crosses an NZ column block: C0 is 32 or 64).
// Offset of matrix b (row-major over the batch dims) with the given strides.
int64_t batch_offset(const MxDequantDesc &d, int64_t b, const int64_t *strides) {
  int64_t off = 0;
  for (int i = d.batch_nd - 1; i >= 0; --i) {
    off += (b % d.batch_dims[i]) * strides[i];
    b /= d.batch_dims[i];
  }
  return off;
}

int64_t code_index(const MxDequantDesc &d, int64_t b, int64_t r, int64_t kk) {
  const int64_t idx = batch_offset(d, b, d.batch_strides);
  if (!d.nz) return idx + r * d.row_stride + kk * d.k_stride;
  if (d.nz_rows_major) return idx + core::fractal_nz_offset(r, kk, d.nz_r16, d.nz_c0);
  return idx + core::fractal_nz_offset(kk, r, d.nz_r16, d.nz_c0);
}

int64_t code_step(const MxDequantDesc &d) { return !d.nz ? d.k_stride : d.nz_rows_major ? 1 : d.nz_c0; }

// BF16 of an fp32 value that BF16 holds exactly: its top 16 bits.
uint16_t bf16_bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return static_cast<uint16_t>(b >> 16);
}

}  // namespace

float mx_dequant_min_magnitude(const MxDequantDesc &d, const uint8_t *scales, const float *l0) {
  if (l0 != nullptr) return NAN;
  const bool nibbles = low_float_spec(d.fmt).bits == 4;
  float vmin = INFINITY;  // the smallest non-zero magnitude of the format
  for (int c = 0; c < (nibbles ? 16 : 256); ++c) {
    const float v = std::fabs(lf_decode(static_cast<uint8_t>(c), d.fmt));
    if (v > 0.0f && v < vmin) vmin = v;
  }
  int smin = 255;
  const int64_t blocks = (d.k + 31) / 32;
  for (int64_t row = 0; row < d.batch * d.rows; ++row) {
    const uint8_t *srow = scales + batch_offset(d, row / d.rows, d.s_batch_strides) + (row % d.rows) * d.s_row;
    for (int64_t j = 0; j < blocks; ++j) {
      const uint8_t code = srow[(j / 2) * d.s_pair + (j % 2) * d.s_half];
      if (code == 255) return NAN;
      smin = code < smin ? code : smin;
    }
  }
  return vmin * e8m0_decode(static_cast<uint8_t>(smin));
}

namespace {

// The rows of d into out (Out: float, or uint16_t for BF16 bits).
template <class Out>
void decode_rows(const MxDequantDesc &d, const uint8_t *codes, const uint8_t *scales, const float *l0, Out *out) {
  const bool nibbles = low_float_spec(d.fmt).bits == 4;
  float lut[256];  // every code's value, decoded once
  for (int c = 0; c < (nibbles ? 16 : 256); ++c) lut[c] = lf_decode(static_cast<uint8_t>(c), d.fmt);
  const int64_t total = d.batch * d.rows, k = d.k, step = code_step(d), ok = d.out_k > k ? d.out_k : k;
  auto store = [](float v) {
    if constexpr (sizeof(Out) == 2) return bf16_bits(v);
    else return v;
  };
  core::parallel_tasks(d.tasks, [&](int64_t t) {
    for (int64_t row = total * t / d.tasks; row < total * (t + 1) / d.tasks; ++row) {
      const int64_t b = row / d.rows, r = row % d.rows;
      const uint8_t *srow = scales + batch_offset(d, b, d.s_batch_strides) + r * d.s_row;
      const float *l0row = l0 == nullptr ? nullptr : l0 + r * d.l0_row;
      Out *o = out + row * ok;
      for (int64_t j0 = 0; j0 < k; j0 += 32) {
        const int64_t j = j0 / 32, end = j0 + 32 < k ? j0 + 32 : k;
        // the block's factor: its power-of-two scale (times the level-0 scale of its group, exactly the same
        // product as scaling each element twice: a power of two multiplies exactly)
        float s = e8m0_decode(srow[(j / 2) * d.s_pair + (j % 2) * d.s_half]);
        if (l0row != nullptr) s *= l0row[(j0 / d.l0_group) * d.l0_grp];
        const int64_t i0 = code_index(d, b, r, j0);
        if (nibbles)
          for (int64_t kk = j0; kk < end; ++kk) o[kk] = store(lut[lf_code_at(codes, i0 + (kk - j0) * step, true)] * s);
        else
          for (int64_t kk = j0; kk < end; ++kk) o[kk] = store(lut[codes[i0 + (kk - j0) * step]] * s);
      }
      for (int64_t kk = k; kk < ok; ++kk) o[kk] = store(0.0f);
    }
  });
}

}  // namespace

void mx_dequant_rows(const MxDequantDesc &d, const uint8_t *codes, const uint8_t *scales, const float *l0, void *out,
                     bool bf16) {
  if (bf16) decode_rows(d, codes, scales, l0, static_cast<uint16_t *>(out));
  else decode_rows(d, codes, scales, l0, static_cast<float *>(out));
}

}  // namespace opsnn::kernels
