// aclnnGer (aclnnop/aclnn_ger.h): out[i, j] = self[i] * vec2[j], the outer product (torch.ger).
//
// A K = 1 GEMM: A = self as an [n, 1] column, B = vec2 as a [1, m] row, both read in place through
// their strides; every element is one product, rounded once into out's dtype.
#include "aclnnop/aclnn_ger.h"
#include "ops/matmul/matmul_common.h"

using namespace opsnn;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnGerGetWorkspaceSize(const aclTensor *self, const aclTensor *vec2,
                                                                    aclTensor *out, uint64_t *workspaceSize,
                                                                    aclOpExecutor **executor) {
  return core::phase1("aclnnGer", workspaceSize, executor, [&](core::OpBuilder &b) {
    ops::check_matmul_dtype(self, "self");
    ops::check_matmul_dtype(vec2, "vec2");
    ops::check_matmul_dtype(out, "out");
    ops::require_rank(self, "self", 1, 1);
    ops::require_rank(vec2, "vec2", 1, 1);
    const int64_t n = self->dims[0], m = vec2->dims[0];
    core::check_shape_equals(*out, "out", ops::make_shape({n, m}));
    core::check_no_internal_overlap(*out, "out");
    const int a_slot = b.input(self), b_slot = b.input(vec2), c_slot = b.output(out);
    if (n == 0 || m == 0) return;
    ops::GemmCall call;
    kernels::GemmDesc &d = call.desc;
    ops::bind_tensor(call, ops::kGemmA, a_slot, self);
    ops::bind_tensor(call, ops::kGemmB, b_slot, vec2);
    ops::bind_tensor(call, ops::kGemmC, c_slot, out);
    d.m = n;
    d.n = m;
    d.k = 1;
    d.a.row_stride = self->strides[0];
    d.a.col_stride = 1;
    d.b.row_stride = 1;
    d.b.col_stride = vec2->strides[0];
    d.c.row_stride = out->strides[0];
    d.c.col_stride = out->strides[1];
    d.input_rounding = ops::gemm_input_rounding(0, self->dtype, vec2->dtype);
    ops::record_gemms(b, {call});
  });
}
OPSNN_DEFINE_LAUNCH(Ger)
