#include "ops/matmul/mxmm_steps.h"

#include "core/thread_pool.h"

namespace opsnn::ops {

int MxmmDequantStep::run(const core::LaunchArgs &args) const {
  for (const MxmmDequant &o : op) {
    const auto *codes = reinterpret_cast<const uint8_t *>(o.codes.address(args));
    const auto *scales = reinterpret_cast<const uint8_t *>(o.scales.address(args));
    const float *l0 = o.has_l0 ? reinterpret_cast<const float *>(o.l0.address(args)) : nullptr;
    kernels::mx_dequant_rows(o.desc, codes, scales, l0, reinterpret_cast<float *>(args.get(o.out)));
  }
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
