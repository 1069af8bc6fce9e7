// The phase 1 of the table-driven CTC losses (src/ops/loss/ctc_loss.ops): CtcLoss (negative
// log-likelihood and log-alpha per batch, PyTorch's _ctc_loss) and CtcLossBackward (the gradient
// with respect to logProbs, PyTorch's _ctc_loss_backward) on kernels/loss/ctc_loss.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"

namespace opsnn::ops {

struct CtcRule {
  bool backward;
  core::DtypeMask dtypes;         // logProbs and the floating inputs / outputs
  core::DtypeMask target_dtypes;  // targets
};

struct CtcCall {
  const aclTensor *gout = nullptr, *lp = nullptr, *targets = nullptr, *nll_in = nullptr, *alpha_in = nullptr;
  const char *gout_name = "gradOut", *lp_name = "logProbs", *targets_name = "targets",
             *nll_in_name = "negLogLikelihood", *alpha_in_name = "logAlpha";
  const aclIntArray *input_lengths = nullptr, *target_lengths = nullptr;
  const char *input_lengths_name = "inputLengths", *target_lengths_name = "targetLengths";
  int64_t blank = 0;
  bool zero_infinity = false;
  const aclTensor *nll_out = nullptr, *alpha_out = nullptr, *out = nullptr;
  const char *nll_out_name = "negLogLikelihoodOut", *alpha_out_name = "logAlphaOut", *out_name = "out";
};

void ctc_phase1(core::OpBuilder &b, const CtcRule &rule, const CtcCall &c);

}  // namespace opsnn::ops
