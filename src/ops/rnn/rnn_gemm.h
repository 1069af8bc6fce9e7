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

// `record`: report the choice to the verbose trace (false for plans that only probe the engine).
kernels::GemmPlan plan_gemm(const kernels::GemmDesc &d, bool record = true);

// The GEMM of every recurrent step, C = A @ B with B a weight: W_hh^T (forward, h_prev @ W_hh^T) or
// W_hh (backward, dG_t @ W_hh). Read in place, W_hh^T is a transposed view (column stride H) and
// W_hh's rows may be a multiple of 2 KiB apart; the engine's small-M in-place paths reject both, and
// its tiles would then re-pack the whole weight at every step. In that case the weight is laid out
// once per launch as fp32 rows [K, N] in the workspace (row stride `ld_copy`, off multiples of 2 KiB)
// and every step reads that copy in place.
struct StepGemm {
  kernels::GemmPlan plans[2];  // per A row stride (the forward's first step reads h0 rows of stride H)
  int64_t ld_copy = 0;         // 0: B read in place
  bool transposed = false;     // B is the weight's transpose
  int64_t copy_floats() const;  // workspace of the copy
  int64_t tmp_floats() const;   // scratch of the transposing load
  // B for this launch: the weight itself, or `copy` filled from it (`tmp`: tmp_floats()).
  const void *b(const core::LaunchArgs &a, const Io &w, float *copy, float *tmp) const;
};
// m x n x k, A fp32 rows of stride a_ld[0] / a_ld[1]; `d`, `beta` as gemm_desc's.
StepGemm plan_step_gemm(int64_t m, int64_t n, int64_t k, const int64_t a_ld[2], const Io &w, bool transposed,
                        const Io *d, float beta);

}  // namespace opsnn::ops::rnn
