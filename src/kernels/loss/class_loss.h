// The class-index losses: the negative log-likelihood of each position's target class, with class
// weights, an ignored class index and label smoothing, reduced or not, and the gradients of NLL
// and of cross-entropy (through log-softmax). Over raw pointers and element strides; knows nothing
// of aclTensor. Inputs are read in any floating dtype and computed in double; targets are checked
// at launch (an index outside [0, C) that is not the ignored one is 161002, nothing is read).
//
// Positions p run over `pos` dims ([N] or [N, d1, ...]); the class dim of x and of the gradient
// moves with `x_class` / `out_class`. With w[c] the weight (1 without one), t = target[p],
// ls the smoothing and lp = x (log-probabilities):
//   term[p] = 0 if t == ignore, else (1 - ls) * -w[t] lp[p, t] + ls / C * -sum_c w[c] lp[p, c]
//   total   = sum over non-ignored p of w[t]
//   forward: out = term (reduction none), sum term (sum) or sum term / total (mean)
//   NLL backward: out[p, c] = -w[t] g[p] / (mean ? total_in : 1) at c == t, 0 elsewhere
//   CE backward:  out[p, c] = g[p] s (exp(lp[p, c]) A - (1 - ls) w[t] [c == t] - ls / C w[c]),
//                 A = (1 - ls) w[t] + ls / C sum_c w[c], s = 1 / total for mean (1 otherwise)
// where g[p] is the gradient of the loss (one value when it was reduced).
// Terms are summed in position order in double, so results never depend on the thread count.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "kernels/elementwise/elementwise.h"  // kMaxLoopDims

namespace opsnn::kernels {

enum class ClassLossMode : uint8_t { kForward, kNllBackward, kCrossEntropyBackward };

struct ClassLossPlan {
  ClassLossMode mode = ClassLossMode::kForward;
  int reduction = 1;  // 0 none, 1 mean, 2 sum
  int64_t ignore_index = -100;
  double smoothing = 0;
  int64_t classes = 0;
  int npos = 0;  // position dims
  int64_t pos_shape[kMaxLoopDims] = {};
  int64_t positions = 0;
  // Element strides along the position dims and the class dim.
  int64_t x_pos[kMaxLoopDims] = {}, x_class = 0;
  int64_t target_pos[kMaxLoopDims] = {};
  int64_t grad_pos[kMaxLoopDims] = {};  // all 0 for a reduced loss's single gradient
  int64_t out_pos[kMaxLoopDims] = {}, out_class = 0;  // forward: out_pos only (none), else unused
  int64_t weight_stride = 0;
  aclDataType x_dtype = ACL_FLOAT, target_dtype = ACL_INT64, weight_dtype = ACL_FLOAT, grad_dtype = ACL_FLOAT,
              out_dtype = ACL_FLOAT, total_dtype = ACL_FLOAT;
  bool has_weight = false;
  bool has_total_out = false;  // forward: write total
  // Multilabel margin: the target's class stride and the isTarget output's strides and dtype.
  int64_t target_class = 0, is_target_pos = 0, is_target_class = 0;
  aclDataType is_target_dtype = ACL_FLOAT;
  int tasks = 1;               // position ranges run in parallel, each with its own class buffer
  // Workspace: weights (classes doubles), terms (positions doubles), tasks class buffers.
  uint64_t workspace_bytes() const;
};

struct ClassLossArgs {
  const char *x = nullptr, *target = nullptr, *weight = nullptr, *grad = nullptr, *total_in = nullptr;
  char *out = nullptr, *total_out = nullptr;
  void *workspace = nullptr;
};

// Phase 2. Returns 0, or 161002 after opsnn::set_last_error for a target out of range.
int class_loss_run(const ClassLossPlan &plan, const ClassLossArgs &args);

// The multilabel margin loss (torch.nn.functional.multilabel_margin_loss) over rows p of x [N, C]
// (npos 0 or 1) with a target row of class indices ended by the first -1 (every value must be in
// [-1, C): 161002 at launch, nothing written). With T the row's targets before the -1 (repeats
// kept) and isTarget[c] the number of times c is in T:
//   term[p] = sum over j in T, i with isTarget[i] == 0 of max(0, 1 - (x[T_j] - x[i])) / C
// (a NaN comparison adds nothing, as PyTorch's z > 0); out = term (none), sum, or sum / N (mean).
// Workspace: multilabel_workspace_bytes(); terms summed in row order (thread-count independent).
uint64_t multilabel_workspace_bytes(const ClassLossPlan &plan);
int multilabel_margin_run(const ClassLossPlan &plan, const ClassLossArgs &args, char *is_target);

}  // namespace opsnn::kernels
