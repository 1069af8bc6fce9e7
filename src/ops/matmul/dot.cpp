// aclnnDot (aclnnop/aclnn_dot.h): out[] = sum_i self[i] * tensor[i]; self, tensor and out share one
// dtype (FLOAT, FLOAT16 or BF16). A 1 x 1 GEMM over K = n: fp32 accumulation, rounded once.
#include "aclnnop/aclnn_dot.h"
#include "common/error.h"
#include "ops/matmul/matmul_common.h"

using namespace opsnn;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnDotGetWorkspaceSize(const aclTensor *self, const aclTensor *tensor,
                                                                    aclTensor *out, uint64_t *workspaceSize,
                                                                    aclOpExecutor **executor) {
  return core::phase1("aclnnDot", workspaceSize, executor, [&](core::OpBuilder &b) {
    ops::check_matmul_dtype(self, "self");
    ops::check_matmul_dtype(tensor, "tensor");
    ops::check_matmul_dtype(out, "out");
    if (tensor->dtype != self->dtype || out->dtype != self->dtype)
      throw_error(ACLNN_ERR_PARAM_INVALID, "self, tensor and out must have the same dtype; they are %s, %s and %s",
                  core::dtype_name(self->dtype), core::dtype_name(tensor->dtype), core::dtype_name(out->dtype));
    ops::require_rank(self, "self", 1, 1);
    ops::require_rank(tensor, "tensor", 1, 1);
    if (self->dims[0] != tensor->dims[0])
      throw_error(ACLNN_ERR_PARAM_INVALID, "self %s and tensor %s must have the same shape",
                  core::shape_string(*self).c_str(), core::shape_string(*tensor).c_str());
    ops::require_rank(out, "out", 0, 0);

    ops::GemmCall call;
    kernels::GemmDesc &d = call.desc;
    ops::bind_tensor(call, ops::kGemmA, b.input(self), self);
    ops::bind_tensor(call, ops::kGemmB, b.input(tensor), tensor);
    ops::bind_tensor(call, ops::kGemmC, b.output(out), out);
    d.m = 1;
    d.n = 1;
    d.k = self->dims[0];
    d.a.row_stride = 0;
    d.a.col_stride = self->strides[0];
    d.b.row_stride = tensor->strides[0];
    d.b.col_stride = 1;  // a single column; unit stride lets the streaming kernel read it in place
    d.c.row_stride = 0;
    d.c.col_stride = 1;
    ops::record_gemms(b, {call});
  });
}
OPSNN_DEFINE_LAUNCH(Dot)
