#include "kernels/quant/mx_act.h"

#include "core/thread_pool.h"
#include "kernels/elementwise/functors/activation.h"
#include "kernels/elementwise/functors/activation_grad.h"
#include "kernels/quant/quant_rows.h"

namespace opsnn::kernels {
namespace {

// One line's h outputs from its 2h loaded values.
void gate_line(const MxActPlan &p, const float *v, int64_t h, float *out, int64_t out_stride) {
  const Scalars<float> s{{p.p[0], p.p[1], p.p[2]}};
  for (int64_t j = 0; j < h; ++j) {
    const float first = v[j], second = v[h + j];
    const float g = p.left ? first : second, u = p.left ? second : first;
    float r;
    switch (p.gate) {
      case MxGate::kClippedPairs: r = ClippedSwigluOp::apply(v[2 * j], v[2 * j + 1], 0.0f, s); break;
      case MxGate::kClippedHalves: r = ClippedSwigluOp::apply(g, u, 0.0f, s); break;
      case MxGate::kClippedPost: r = ClippedSwigluPostOp::apply(g, u, 0.0f, s); break;
      case MxGate::kSitu: r = SituGluOp::apply(g, u, 0.0f, s); break;
      default: r = SwiGluOp::apply(g, u, 0.0f, s);
    }
    out[j * out_stride] = r;
  }
}

// kSwigluGrad: one line's 2h gradients (in x's places) from its 2h x values and h output gradients.
void gate_grad_line(const MxActPlan &p, const float *v, const float *dy, int64_t h, float *out, int64_t out_stride) {
  const Scalars<float> s{{0.0f, 0.0f, 0.0f}};
  const int64_t gi = p.left ? 0 : h, ui = p.left ? h : 0;  // where the glu and linear halves start
  for (int64_t j = 0; j < h; ++j) {
    const float g = v[gi + j], u = v[ui + j];
    out[(gi + j) * out_stride] = SwiGluBackwardActOp::apply(dy[j], g, u, s);
    out[(ui + j) * out_stride] = SwiGluBackwardLinOp::apply(dy[j], g, u, s);
  }
}

}  // namespace

void mx_act_run(const MxActPlan &p, const char *x, const char *dy, float *act, float *buf) {
  const MxLines &L = p.x;
  const int64_t n = L.n, h = n / 2;
  const int64_t es = static_cast<int64_t>(core::dtype_size(p.x_dtype));
  const bool grad = p.gate == MxGate::kSwigluGrad;
  const int64_t out_n = grad ? n : h;
  core::parallel_tasks(p.tasks, [&](int64_t t) {
    float *line = buf + t * (n + h), *dline = line + n;
    for (int64_t pi = L.pre * t / p.tasks; pi < L.pre * (t + 1) / p.tasks; ++pi)
      for (int64_t q = 0; q < L.post; ++q) {
        float *out = act + pi * out_n * L.post + q;
        if (p.valid_pre >= 0 && pi >= p.valid_pre) {  // past the grouped rows: zeros, which quantise to 0
          for (int64_t i = 0; i < out_n; ++i) out[i * L.post] = 0.0f;
          continue;
        }
        quant_load_row(x + L.offset(pi, q) * es, p.x_dtype, L.axis_stride, n, line);
        if (!grad) {
          gate_line(p, line, h, out, L.post);
          continue;
        }
        quant_load_row(dy + p.dy.offset(pi, q) * es, p.x_dtype, p.dy.axis_stride, h, dline);
        gate_grad_line(p, line, dline, h, out, L.post);
      }
  });
}

}  // namespace opsnn::kernels
