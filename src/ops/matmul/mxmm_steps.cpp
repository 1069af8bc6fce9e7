#include "ops/matmul/mxmm_steps.h"

#include <cfloat>
#include <cmath>

#include "core/dtype.h"
#include "core/thread_pool.h"
#include "kernels/quant/quant_rows.h"

namespace opsnn::ops {

int MxmmDequantStep::run(const core::LaunchArgs &args) const {
  const uint8_t *codes[2], *scales[2];
  const float *l0[2];
  double min_product = 1.0;  // the smallest non-zero |x1 x2| product (NaN: BF16 not exact)
  for (int i = 0; i < 2; ++i) {
    codes[i] = reinterpret_cast<const uint8_t *>(op[i].codes.address(args));
    scales[i] = reinterpret_cast<const uint8_t *>(op[i].scales.address(args));
    l0[i] = op[i].has_l0 ? reinterpret_cast<const float *>(op[i].l0.address(args)) : nullptr;
    if (!try_bf16) continue;
    const float mn = kernels::mx_dequant_min_magnitude(op[i].desc, scales[i], l0[i]);
    min_product = mn >= FLT_MIN ? min_product * mn : NAN;  // a BF16 normal, else not exact
  }
  // BF16 when exact, and every product far enough above fp32's normal range (2^26) that the tiles' flush of
  // subnormal results can only drop a partial sum below the fp32 path's own rounding error
  const bool bf16 = try_bf16 && min_product >= std::ldexp(1.0, -100);
  if (try_bf16) *reinterpret_cast<int *>(args.get(path)) = bf16 ? 1 : 0;
  for (int i = 0; i < 2; ++i) kernels::mx_dequant_rows(op[i].desc, codes[i], scales[i], l0[i], args.get(op[i].out), bf16);
  return 0;
}

void MxmmDecodedB::with(const core::LaunchArgs &args, const std::function<void(const char *)> &use) const {
  if ((*reinterpret_cast<const int *>(args.get(path_)) != 0) == bf16_) use(args.get(b_));
}

int MxmmGroupSumStep::run(const core::LaunchArgs &args) const {
  float *p = reinterpret_cast<float *>(args.get(acc));
  const float *la = reinterpret_cast<const float *>(l0a.address(args));
  const float *lb = reinterpret_cast<const float *>(l0b.address(args));
  const float *bv = has_bias ? reinterpret_cast<const float *>(bias.address(args)) : nullptr;
  char *yb = y.address(args);
  const int64_t esz = static_cast<int64_t>(core::dtype_size(y_dtype));
  core::parallel_tasks(tasks, [&](int64_t t) {
    for (int64_t i = m * t / tasks; i < m * (t + 1) / tasks; ++i) {
      float *row = p + i * n;  // group 0's row: each element is read (all groups) before it is written
      for (int64_t j = 0; j < n; ++j) {
        float v = 0.0f;
        for (int64_t g = 0; g < groups; ++g) v += la[i * a_row + g * a_grp] * lb[g * b_grp + j * b_col] * p[(g * m + i) * n + j];
        row[j] = bv != nullptr ? v + bv[j * bias_col] : v;
      }
      kernels::quant_store_floats(row, n, y_dtype, yb + i * y_row * esz, y_col);
    }
  });
  return 0;
}

int MxmmQuantStep::run(const core::LaunchArgs &args) const {
  const float *v = reinterpret_cast<const float *>(args.get(acc));
  auto *yb = reinterpret_cast<uint8_t *>(y.address(args));
  auto *sb = reinterpret_cast<uint8_t *>(scale.address(args));
  const bool nibbles = kernels::low_float_spec(fmt).bits == 4;
  const int64_t y_row = nibbles ? n / 2 : n, s_row = 2 * ((n + 63) / 64);
  core::parallel_tasks(tasks, [&](int64_t t) {
    for (int64_t r = rows * t / tasks; r < rows * (t + 1) / tasks; ++r)
      kernels::mx_quant_line(rows_k, v + r * n, n, 32, fmt, round, rule, yb + r * y_row, sb + r * s_row);
  });
  return 0;
}

}  // namespace opsnn::ops
