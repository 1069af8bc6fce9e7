// ScaledMaskedSoftmax and its gradient over the last dim of a 4-D x [B, N, S1, S2]:
//   y = softmax(masked_fill(scale * x, mask, -10000))          (the Megatron fused-softmax convention)
//   dx = masked ? 0 : scale * y * (dy - sum(dy * y))
// mask BOOL, broadcast over B and N (stride 0), or the generated causal mask j > i (fixedTriuMask).
// Rows are converted to fp32, computed with the attention row operations (attention_rows.h) and
// rounded once; tasks are blocks of rows (bit-identical for any thread count).
#pragma once

#include <cstddef>
#include <cstdint>

#include "acl/acl_base.h"
#include "kernels/attention/attention_rows.h"

namespace opsnn::kernels {

struct MaskedSoftmaxDesc {
  bool backward = false;
  int64_t dims[4] = {};  // B, N, S1, S2
  struct View {
    aclDataType dtype = ACL_FLOAT;
    int64_t st[4] = {};  // element strides (mask: 0 along broadcast dims)
  };
  View in, in2, mask, out;  // forward: in = x; backward: in = dy, in2 = y
  bool has_mask = false, triu = false;
  float scale = 1.0f;
};

struct MaskedSoftmaxPlan {
  MaskedSoftmaxDesc desc;
  const AttnRowFns *rows = nullptr;
  int64_t row_block = 0, tasks = 0;
  size_t worker_bytes = 0, workspace_bytes = 0;
  int workers = 1;
};

void masked_softmax_plan(const MaskedSoftmaxDesc &d, MaskedSoftmaxPlan *plan);
void masked_softmax_run(const MaskedSoftmaxPlan &plan, const void *in, const void *in2, const void *mask, void *out,
                        void *workspace);

}  // namespace opsnn::kernels
