#include "ops/norm/norm_quant_step.h"

#include <algorithm>
#include <cstdint>

#include "core/thread_pool.h"
#include "kernels/quant/mx_quant.h"
#include "kernels/quant/quant_rows.h"

namespace opsnn::ops {

using kernels::QuantRound;

namespace {

char *row_at(const core::LaunchArgs &a, const QuantOperand &t, int64_t r, int64_t elem_bytes) {
  return t.base(a) + t.row_offset(r) * elem_bytes;
}

}  // namespace

// Row r of the block (v: n fp32 values, beta not yet added when it comes after the norm's outputs).
void NormQuantStep::quantise_row(const core::LaunchArgs &a, int64_t r, float *v, const float *const *p, float *in,
                                 int32_t *q, float *line) const {
  // A per-channel parameter of a group norm row: each of the group's channels over its hxw positions.
  auto row_of = [&](int i) -> const float * {
    if (p[i] == nullptr || !per_channel[i]) return p[i];
    const float *pc = p[i] + (r % groups) * cg;
    for (int64_t c = 0; c < cg; ++c) std::fill(line + c * hxw, line + (c + 1) * hxw, pc[c]);
    return line;
  };
  if (p[kBeta] != nullptr)
    for (int64_t j = 0; j < n; ++j) v[j] += p[kBeta][j];
  if (mx.on) {
    kernels::mx_quant_line(mx.rows, v, n, 32, mx.fmt, mx.round, mx.rule,
                           reinterpret_cast<uint8_t *>(mx.y.address(a)) + r * mx.y_row,
                           reinterpret_cast<uint8_t *>(mx.scale.address(a)) + r * mx.scale_row);
    return;
  }
  for (int k = 0; k < 2; ++k) {
    if (!active[k]) continue;
    const QuantOperand &yk = y[k];
    char *yr = row_at(a, yk, r, 1);
    const int64_t ys = yk.strides[yk.nd - 1];
    if (dynamic) {
      float ext[3] = {0.0f, 0.0f, 0.0f};  // max |in|, min, max
      const float *sm = p[k == 0 ? kSmooth1 : kSmooth2];
      token.prep(reinterpret_cast<const char *>(v), ACL_FLOAT, reinterpret_cast<const char *>(sm), n, in, ext);
      const float scale = ext[0] / qmax;
      if (fp8) {  // a row of zeros: scale 0 and codes 0 (+0), as the INT8 rows
        uint8_t *yb = reinterpret_cast<uint8_t *>(yr);
        for (int64_t j = 0; j < n; ++j)
          yb[j * ys] = scale == 0.0f ? 0 : kernels::lf_encode(in[j] / scale, fp8_fmt, kernels::LfRound::kRint, true);
      } else if (ys == 1) {
        token.int8(in, n, scale, 0.0f, reinterpret_cast<int8_t *>(yr));
      } else {
        for (int64_t j = 0; j < n; ++j)
          q[j] = scale == 0.0f ? 0 : kernels::quant_round_sat(in[j] / scale, QuantRound::kHalfEven, -128, 127);
        kernels::quant_store_ints(q, n, ACL_INT8, false, 0, yr, ys);
      }
      *reinterpret_cast<float *>(row_at(a, scale_out[k], r, 4)) = scale;
    } else {
      const float *s = row_of(k == 0 ? kScale1 : kScale2), *o = p[k == 0 ? kOffset1 : kOffset2];
      if (divide) kernels::quant_divide_row(v, n, s, 1, o, 1, QuantRound::kHalfEven, -128, 127, q);
      else kernels::quant_affine_row(v, n, s, 1, o, 1, false, QuantRound::kHalfEven, -128, 127, q);
      kernels::quant_store_ints(q, n, ACL_INT8, false, 0, yr, ys);
    }
  }
}

int NormQuantStep::run(const core::LaunchArgs &a) const {
  if (rows == 0) return 0;
  // The parameters as fp32 rows of n (one value repeated for a per-tensor one).
  float *prow = reinterpret_cast<float *>(a.get(params_ws));
  const float *p[kParams] = {};
  for (int i = 0; i < kParams; ++i) {
    const QuantOperand &t = param[i];
    if (!t.present) continue;
    float *dst = prow + i * param_len;
    if (t.step != 0) {
      kernels::quant_load_row(t.base(a), t.dt, t.step, per_channel[i] ? groups * cg : n, dst);
    } else {
      kernels::quant_load_row(t.base(a), t.dt, 1, 1, dst);
      std::fill(dst + 1, dst + n, dst[0]);
    }
    p[i] = dst;
  }
  const char *ins[kernels::kDimwiseMaxIo] = {};
  char *outs[kernels::kDimwiseMaxIo] = {};
  for (int k = 0; k < loop.nin; ++k) ins[k] = in[k].address(a);
  for (int k = 1; k < loop.nout; ++k) outs[k] = out[k].address(a);
  char *ws = a.get(tasks_ws);
  const int64_t row_bytes = n * 4;
  core::parallel_tasks(tasks, [&](int64_t t) {
    char *w = ws + t * static_cast<int64_t>(task_bytes);
    float *block = reinterpret_cast<float *>(w + block_offset);
    float *in_row = reinterpret_cast<float *>(w + row_offset);
    int32_t *q = reinterpret_cast<int32_t *>(w + q_offset);
    float *line = reinterpret_cast<float *>(w + line_offset);
    char *task_outs[kernels::kDimwiseMaxIo];
    std::copy(outs, outs + kernels::kDimwiseMaxIo, task_outs);
    const int64_t end = rows * (t + 1) / tasks;
    for (int64_t r0 = rows * t / tasks; r0 < end; r0 += block_rows) {
      const int64_t r1 = std::min(end, r0 + block_rows);
      // Output 0 is addressed by the line index: the block's rows [r0, r1) land at its start.
      task_outs[0] = reinterpret_cast<char *>(reinterpret_cast<uintptr_t>(block) - static_cast<uintptr_t>(r0 * row_bytes));
      const char *task_ins[kernels::kDimwiseMaxIo];
      std::copy(ins, ins + kernels::kDimwiseMaxIo, task_ins);
      for (int k = 0; k < nstaged; ++k) {  // inputs 0 (and 1) from the staging rows, addressed like the block
        float *stage = reinterpret_cast<float *>(w + stage_offset[k]);
        const QuantOperand &src = staged_src[k];
        float ext[3];
        for (int64_t r = r0; r < r1; ++r)
          token.prep(row_at(a, src, r, 2), src.dt, nullptr, n, stage + (r - r0) * n, ext);
        task_ins[k] = reinterpret_cast<const char *>(reinterpret_cast<uintptr_t>(stage) -
                                                     static_cast<uintptr_t>(r0 * row_bytes));
      }
      kernels::run_dimwise_lines(loop, task_ins, task_outs, w, r0, r1);
      for (int64_t r = r0; r < r1; ++r) quantise_row(a, r, block + (r - r0) * n, p, in_row, q, line);
    }
  });
  return 0;
}

}  // namespace opsnn::ops
