// The phase 1 of the tensor-list sum table (src/ops/math/accumulate.ops): aclnnSum.
//
// out = tensors[0] + tensors[1] + ... + tensors[n-1], added in list order: each partial sum is rounded to
// out's dtype (the public page's "each input added in turn"; integers wrap as the element-wise Add's do).
// Every listed tensor and out share one dtype of the row's list; each tensor broadcasts to out's shape
// (NumPy rules, at most 8 dims) and their broadcast shape is out's; any strides. One tensor: a copy.
// The steps are the element-wise engine's (core: ops/elementwise/elementwise_step.h): one Add of the first
// two into out, then one Add of out and the next tensor per further tensor. When out shares memory with a
// listed tensor the sums go to a workspace copy of out's shape first, then one copy into out.
// Errors: 161001 for a null list, entry or out; 161002 (naming the argument) for an empty list, a dtype
// outside the row's list or unlike out's, shapes that do not broadcast to out's.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"
#include "core/op_checks.h"

namespace opsnn::ops {

struct AccumulateRule {
  core::DtypeMask dtypes;  // the one dtype of every listed tensor and of out
};

struct AccumulateTensors {
  const aclTensorList *t = nullptr;
  const char *name = "";
};

struct AccumulateCall {
  AccumulateTensors tensors;
  core::NamedTensor out;
};

void accumulate_phase1(core::OpBuilder &b, const AccumulateRule &rule, const AccumulateCall &c);

}  // namespace opsnn::ops
