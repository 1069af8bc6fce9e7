// aclnnClippedSwigluV2 (aclnnop/aclnn_clipped_swiglu_v2.h): ClippedSwiglu plus clampMode
// (1 = clamp after the activation: y = min(silu(A), limit) * clamp(B, -limit, limit)).
#include "aclnnop/aclnn_clipped_swiglu_v2.h"
#include "common/error.h"
#include "ops/activation/activation_common.h"
#include "ops/activation/clipped_swiglu.h"

using namespace opsnn;

OPSNN_ACTIVATION_OP(ClippedSwigluV2, (const aclTensor *x, const aclTensor *groupIndexOptional, int64_t dim,
                                      double alpha, double limit, double bias, bool interleaved, int64_t clampMode,
                                      const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor), {
  if (!(limit > 0)) throw_error(ACLNN_ERR_PARAM_INVALID, "limit must be positive, got %g", limit);
  ops::clipped_swiglu_phase1(b, x, groupIndexOptional, dim, alpha, limit, bias, interleaved, clampMode, out);
})
