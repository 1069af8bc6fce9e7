#include "kernels/quant/low_float_cast.h"

#include "core/thread_pool.h"
#include "kernels/quant/quant_rows.h"

namespace opsnn::kernels {
void low_float_cast_run(const LfCastPlan &p, const char *src, char *dst, float *buf) {
  const int64_t n = p.src.n;
  LowFloat sf = LowFloat::kE4M3, df = LowFloat::kE4M3;
  const bool src_low = low_float_of(p.src_dtype, &sf), dst_low = low_float_of(p.dst_dtype, &df);
  const bool src_nib = src_low && low_float_spec(sf).bits == 4, dst_nib = dst_low && low_float_spec(df).bits == 4;
  const int64_t ses = static_cast<int64_t>(core::dtype_size(p.src_dtype));
  const int64_t des = static_cast<int64_t>(core::dtype_size(p.dst_dtype));
  const auto *s8 = reinterpret_cast<const uint8_t *>(src);
  auto *d8 = reinterpret_cast<uint8_t *>(dst);
  core::parallel_tasks(p.tasks, [&](int64_t t) {
    float *row = buf + t * n;
    for (int64_t r = p.src.pre * t / p.tasks; r < p.src.pre * (t + 1) / p.tasks; ++r) {
      const int64_t so = p.src.offset(r, 0), dof = p.dst.offset(r, 0);
      if (src_low) {
        for (int64_t j = 0; j < n; ++j) {
          const int64_t e = so + j * p.src.axis_stride;
          const uint8_t c = src_nib ? static_cast<uint8_t>((s8[e >> 1] >> ((e & 1) * 4)) & 0xF) : s8[e];
          row[j] = lf_decode(c, sf);
        }
      } else {
        quant_load_row(src + so * ses, p.src_dtype, p.src.axis_stride, n, row);
      }
      if (!dst_low) {
        quant_store_floats(row, n, p.dst_dtype, dst + dof * des, p.dst.axis_stride);
        continue;
      }
      for (int64_t j = 0; j < n; ++j) {
        const uint8_t c = lf_encode(row[j], df, LfRound::kRint, /*saturate=*/false);
        const int64_t e = dof + j * p.dst.axis_stride;
        if (!dst_nib) {
          d8[e] = c;
        } else {
          uint8_t &byte = d8[e >> 1];
          byte = (e & 1) ? static_cast<uint8_t>((byte & 0x0F) | (c << 4)) : static_cast<uint8_t>((byte & 0xF0) | c);
        }
      }
    }
  });
}

}  // namespace opsnn::kernels
