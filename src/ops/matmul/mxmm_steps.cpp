#include "ops/matmul/mxmm_steps.h"

#include <cfloat>
#include <cmath>

#include "core/thread_pool.h"

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
