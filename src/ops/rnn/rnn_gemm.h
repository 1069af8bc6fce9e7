// The recurrent family's GEMM descriptions: fp32 workspace rows against the caller's weights and
// biases read in place (any dtype the engine packs, any strides).
#pragma once

#include "kernels/matmul/gemm.h"
#include "ops/rnn/rnn_parts.h"

namespace opsnn::ops::rnn {

// fp32 rows of `ld` floats (A, B or C).
inline kernels::GemmOperand f32_rows(int64_t ld) { return {ACL_FLOAT, ld, 1, 0}; }
// A weight W [N, K] as the B operand W^T (k along W's columns).
inline kernels::GemmOperand weight_t(const Io &w) { return {w.dtype, w.view.strides[1], w.view.strides[0], 0}; }
// A weight W [K, N] as the B operand itself.
inline kernels::GemmOperand weight(const Io &w) { return {w.dtype, w.view.strides[0], w.view.strides[1], 0}; }
// A [rows, K] fp32 block read transposed (the A operand X^T of a weight gradient, m along columns).
inline kernels::GemmOperand f32_cols(int64_t ld) { return {ACL_FLOAT, 1, ld, 0}; }

// C = A @ B (+ bias `d` broadcast over the rows, when given) (+ beta_c * C without it).
inline kernels::GemmDesc gemm_desc(int64_t m, int64_t n, int64_t k, kernels::GemmOperand a, kernels::GemmOperand b,
                                   kernels::GemmOperand c, const Io *d, float beta_c) {
  kernels::GemmDesc g;
  g.m = m, g.n = n, g.k = k, g.a = a, g.b = b, g.c = c;
  if (d != nullptr) {
    g.has_d = true;
    g.d = {d->dtype, 0, d->view.strides[0], 0};
    g.beta = 1.0f;
  } else {
    g.beta = beta_c;
  }
  return g;
}

kernels::GemmPlan plan_gemm(const kernels::GemmDesc &d);

}  // namespace opsnn::ops::rnn
