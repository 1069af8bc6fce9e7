// aclnnGemm (aclnnop/aclnn_gemm.h): out = alpha * (op(A) @ op(B)) + beta * C, op = transpose when
// transA / transB is non-zero (A stored [K, M], B stored [N, K]). Transposes are read through
// strides; beta * C (broadcast to [M, N]) is the GEMM's epilogue addend.
#include "aclnnop/aclnn_gemm.h"
#include "ops/matmul/matmul_common.h"

using namespace opsnn;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnGemmGetWorkspaceSize(const aclTensor *A, const aclTensor *B,
                                                                     const aclTensor *C, float alpha, float beta,
                                                                     int64_t transA, int64_t transB, aclTensor *out,
                                                                     int8_t cubeMathType, uint64_t *workspaceSize,
                                                                     aclOpExecutor **executor) {
  return core::phase1("aclnnGemm", workspaceSize, executor, [&](core::OpBuilder &b) {
    ops::check_matmul_dtype(A, "A");
    ops::check_matmul_dtype(B, "B");
    ops::check_matmul_dtype(C, "C");
    ops::check_matmul_dtype(out, "out");
    ops::check_cube_math_type(cubeMathType);
    ops::require_rank(A, "A", 2, 2);
    ops::require_rank(B, "B", 2, 2);
    ops::require_rank(C, "C", 2, 2);
    const int ma = transA ? 1 : 0, mb = transB ? 1 : 0;  // dim of A holding M, dim of B holding K
    const int64_t M = A->dims[ma], K = A->dims[1 - ma], N = B->dims[1 - mb];
    ops::check_inner_dims(A, transA ? "A^T" : "A", K, B, transB ? "B^T" : "B", B->dims[mb]);
    const core::Shape res = ops::make_shape({M, N});
    ops::check_broadcasts_to(C, "C", res);
    core::check_shape_equals(*out, "out", res);
    core::check_no_internal_overlap(*out, "out");

    const int a_slot = b.input(A), b_slot = b.input(B), d_slot = b.input(C), c_slot = b.output(out);
    if (out->numel() == 0) return;
    ops::GemmCall call;
    kernels::GemmDesc &d = call.desc;
    ops::bind_tensor(call, ops::kGemmA, a_slot, A);
    ops::bind_tensor(call, ops::kGemmB, b_slot, B);
    ops::bind_tensor(call, ops::kGemmC, c_slot, out);
    ops::bind_tensor(call, ops::kGemmD, d_slot, C);
    d.m = M;
    d.n = N;
    d.k = K;
    d.a.row_stride = A->strides[ma];
    d.a.col_stride = A->strides[1 - ma];
    d.b.row_stride = B->strides[mb];
    d.b.col_stride = B->strides[1 - mb];
    d.c.row_stride = out->strides[0];
    d.c.col_stride = out->strides[1];
    int64_t ds[core::kMaxDims];
    core::broadcast_strides(*C, res, ds);
    d.d.row_stride = ds[0];
    d.d.col_stride = ds[1];
    d.alpha = alpha;
    d.beta = beta;
    d.input_rounding = ops::gemm_input_rounding(cubeMathType, A->dtype, B->dtype);
    ops::record_gemms(b, {call});
  });
}
OPSNN_DEFINE_LAUNCH(Gemm)
