// The connectionist temporal classification loss (PyTorch's _ctc_loss / _ctc_loss_backward) over raw
// pointers and element strides, in double. logProbs [T, N, C]; targets [N, S] (padded) or the
// concatenated 1-d form; per batch b an input length Tb <= T and a target length Lb. With the
// extended target l' = (blank, t1, blank, t2, ..., tL, blank) (2 Lb + 1 symbols):
//   alpha[0][0] = lp[0][blank], alpha[0][1] = lp[0][t1]; alpha[t][s] = lse(alpha[t-1][s], alpha[t-1][s-1],
//   alpha[t-1][s-2] when l'(s) != blank and l'(s-2) != l'(s)) + lp[t][l'(s)];
//   nll = -lse(alpha[Tb-1][2Lb], alpha[Tb-1][2Lb-1]) (Tb = 0: 0 for Lb = 0, else inf);
//   logAlpha [N, T, 2 max(L) + 1] receives alpha, -inf where undefined (t >= Tb or s > 2Lb).
// Backward (beta the mirror recursion from Tb - 1): grad[t][b][c] = (exp(lp) - exp(lse over s with
// l'(s) = c of (alpha + beta)[t][s] + nll - lp)) * gradOut[b] for t < Tb, 0 beyond; with zeroInfinity
// a batch whose nll is inf gets 0. The forward ignores zeroInfinity (as PyTorch's _ctc_loss).
// Target values are checked at launch (161002 outside [0, C), nothing written). One task per batch
// range; each batch computed by one task: results never depend on the thread count.
#pragma once

#include <cstdint>
#include <vector>

#include "acl/acl_base.h"

namespace opsnn::kernels {

struct CtcPlan {
  bool backward = false;
  int64_t T = 0, N = 0, C = 0, blank = 0, max_len = 0;  // max_len: max target length (logAlpha: 2 max_len + 1)
  bool zero_infinity = false;
  std::vector<int64_t> input_lengths, target_lengths, target_offsets;  // offsets: element index of b's first target
  int64_t target_step = 1;  // element stride between one batch's targets
  aclDataType lp_dtype = ACL_FLOAT, target_dtype = ACL_INT64;
  int64_t lp_strides[3] = {};
  // forward: nll out, alpha out; backward: nll in, alpha in, grad in, grad out.
  aclDataType nll_dtype = ACL_FLOAT, alpha_dtype = ACL_FLOAT, gout_dtype = ACL_FLOAT, out_dtype = ACL_FLOAT;
  int64_t nll_stride = 0, alpha_strides[3] = {}, gout_stride = 0, out_strides[3] = {};
  int tasks = 1;
  uint64_t workspace_bytes() const {
    const uint64_t S = 2 * static_cast<uint64_t>(max_len) + 1, t = static_cast<uint64_t>(T);
    return static_cast<uint64_t>(tasks) * (2 * t * S + t * static_cast<uint64_t>(C) + S) * 8 + 64;
  }
};

struct CtcArgs {
  const char *lp = nullptr, *targets = nullptr, *nll_in = nullptr, *alpha_in = nullptr, *gout = nullptr;
  char *nll_out = nullptr, *alpha_out = nullptr, *out = nullptr;
  void *workspace = nullptr;
};

// Returns 0, or 161002 after opsnn::set_last_error for a target value outside [0, C).
int ctc_run(const CtcPlan &plan, const CtcArgs &args);

}  // namespace opsnn::kernels
