// Phase-1 pieces of the hand-written activation gradients (the element-wise ones are rows of
// activation_backward.ops over the n-ary phase 1).
//
// glu_grad_prepare: the GLU-family gradients, whose input x is split in two halves along `dim`
// (or interleaved) and whose gradient is written half by half: checks, registration, and the
// views of both halves of x and of the gradient (EwInput::tensor_view over the registered slots).
#pragma once

#include <string>
#include <vector>

#include "core/op_builder.h"
#include "kernels/elementwise/ops.h"
#include "ops/elementwise/elementwise_step.h"

namespace opsnn::ops {

inline const std::vector<aclDataType> kGradFloatTypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};

// Tensor not null, supported, dtype in the list (PreluBackward, the GLU gradients).
void check_grad_tensor(const aclTensor *t, const char *name, const std::vector<aclDataType> &dtypes);


struct GluGradArgs {
  const aclTensor *grad = nullptr;
  const char *grad_name = "gradOutput";
  const aclTensor *x = nullptr;
  const char *x_name = "self";
  const aclTensor *extra = nullptr;  // an input with grad's shape and x's dtype (GeGlu's gelu), or null
  const char *extra_name = nullptr;
  bool group_arg = false;                  // the prototype has ClippedSwigluGrad's groupIndexOptional
  const aclTensor *group_index = nullptr;  // (INT64, 1-D; may be null)
  const aclTensor *out = nullptr;
  const char *out_name = "gradInput";
  int64_t dim = -1;
  bool interleaved = false;  // halves are the even / odd positions (ClippedSwiglu), else first / second
  bool merge_tail = false;   // dims dim.. are flattened into one before splitting (ClippedSwiglu)
  std::vector<aclDataType> dtypes = kGradFloatTypes;
  int shape_error = ACLNN_ERR_PARAM_INVALID;  // status of a shape mismatch
};

struct GluGradPlan {
  aclDataType dtype = ACL_FLOAT;
  int grad_slot = -1, x_slot = -1, extra_slot = -1, group_slot = -1, out_slot = -1;
  aclTensor grad, extra;             // (merged) descriptors of grad and extra
  aclTensor x_half[2], out_half[2];  // the halves of x and of the gradient
  aclTensor out_full;                // the whole gradient (merged like the halves)
  int split_dim = 0;                 // in the (merged) descriptors
  bool empty = false;
};

GluGradPlan glu_grad_prepare(core::OpBuilder &b, const GluGradArgs &a);

// Records out_half[which] = op(grad, x_half[0], x_half[1]) (arity 3) in `plan.dtype`; with `swap`,
// op(grad, x_half[1], x_half[0]).
void glu_grad_record(core::OpBuilder &b, const GluGradPlan &plan, EwSpec spec, int which, bool swap = false);
// Records out_half[which] = op(grad, extra) (arity 2; GeGlu's linear half: gradOutput * gelu).
void glu_grad_record_with_extra(core::OpBuilder &b, const GluGradPlan &plan, EwSpec spec, int which);
// The ClippedSwiglu family's groupIndex (1-D INT64, read at launch): sum(groupIndex) clamped to
// [0, rows], rows being the product of view's dims [0, row_dims).
int64_t group_index_rows(const core::LaunchArgs &args, int group_slot, const aclTensor &group, const aclTensor &view,
                         int row_dims);

// ClippedSwigluGrad with groupIndex: zeroes the rows at and after sum(groupIndex) at run time.
void glu_grad_zero_rows_after_groups(core::OpBuilder &b, const GluGradPlan &plan);

}  // namespace opsnn::ops
