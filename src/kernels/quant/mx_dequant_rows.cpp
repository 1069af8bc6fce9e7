#include "kernels/quant/mx_dequant_rows.h"

#include "core/fractal_layout.h"
#include "core/thread_pool.h"

namespace opsnn::kernels {

void mx_dequant_rows(const MxDequantDesc &d, const uint8_t *codes, const uint8_t *scales, const float *l0, float *out) {
  const bool nibbles = low_float_spec(d.fmt).bits == 4;
  float lut[256];  // every code's value, decoded once
  for (int c = 0; c < (nibbles ? 16 : 256); ++c) lut[c] = lf_decode(static_cast<uint8_t>(c), d.fmt);
  const int64_t total = d.batch * d.rows, k = d.k;
  core::parallel_tasks(d.tasks, [&](int64_t t) {
    for (int64_t row = total * t / d.tasks; row < total * (t + 1) / d.tasks; ++row) {
      const int64_t b = row / d.rows, r = row % d.rows;
      const uint8_t *srow = scales + b * d.s_batch + r * d.s_row;
      const float *l0row = l0 == nullptr ? nullptr : l0 + r * d.l0_row;
      float *o = out + row * k;
      for (int64_t j0 = 0; j0 < k; j0 += 32) {
        const int64_t j = j0 / 32;
        float s = e8m0_decode(srow[(j / 2) * d.s_pair + (j % 2) * d.s_half]);
        const int64_t end = j0 + 32 < k ? j0 + 32 : k;
        for (int64_t kk = j0; kk < end; ++kk) {
          int64_t idx = b * d.batch_stride;
          if (!d.nz) idx += r * d.row_stride + kk * d.k_stride;
          else if (d.nz_rows_major) idx += core::fractal_nz_offset(r, kk, d.nz_r16, d.nz_c0);
          else idx += core::fractal_nz_offset(kk, r, d.nz_r16, d.nz_c0);
          float v = lut[lf_code_at(codes, idx, nibbles)] * s;
          if (l0row != nullptr) v *= l0row[(kk / d.l0_group) * d.l0_grp];
          o[kk] = v;
        }
      }
    }
  });
}

}  // namespace opsnn::kernels
