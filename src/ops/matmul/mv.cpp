// aclnnMv (aclnnop/aclnn_mv.h): out[n] = self[n, m] @ vec[m]; aclnnAddmv (aclnnop/aclnn_addmv.h):
// out = beta * self + alpha * (mat @ vec).
//
// The product runs as a one-row GEMM, out^T = vec^T @ mat^T (M = 1, N = n, K = m): no work is spent
// on padding a single column to the register tile, and a column-major mat is read in place by the
// streaming small-M kernel. The addend of Addmv is the GEMM's epilogue operand.
#include "aclnnop/aclnn_addmv.h"
#include "aclnnop/aclnn_mv.h"
#include "ops/matmul/matmul_common.h"

using namespace opsnn;

namespace {

// addend == nullptr: Mv.
void mv_phase1(core::OpBuilder &b, const aclTensor *addend, const aclTensor *mat, const char *mat_name,
               const aclTensor *vec, const aclScalar *alpha, const aclScalar *beta, const aclTensor *out,
               int8_t cube) {
  if (addend != nullptr) ops::check_matmul_dtype(addend, "self");
  ops::check_matmul_dtype(mat, mat_name);
  ops::check_matmul_dtype(vec, "vec");
  ops::check_matmul_dtype(out, "out");
  float alpha_v = 1.0f, beta_v = 0.0f;
  if (addend != nullptr) {
    alpha_v = ops::scalar_value(alpha, "alpha");
    beta_v = ops::scalar_value(beta, "beta");
  }
  ops::check_cube_math_type(cube);
  ops::require_rank(mat, mat_name, 2, 2);
  ops::require_rank(vec, "vec", 1, 1);
  const int64_t n = mat->dims[0], m = mat->dims[1];
  ops::check_inner_dims(mat, mat_name, m, vec, "vec", vec->dims[0]);
  const core::Shape res = ops::make_shape({n});
  if (addend != nullptr) {
    ops::require_rank(addend, "self", 0, 1);
    ops::check_broadcasts_to(addend, "self", res);
  }
  core::check_shape_equals(*out, "out", res);
  core::check_no_internal_overlap(*out, "out");

  const int d_slot = addend != nullptr ? b.input(addend) : -1;
  const int a_slot = b.input(mat), v_slot = b.input(vec), c_slot = b.output(out);
  if (n == 0) return;

  ops::GemmCall call;
  kernels::GemmDesc &d = call.desc;
  ops::bind_tensor(call, ops::kGemmA, v_slot, vec);
  ops::bind_tensor(call, ops::kGemmB, a_slot, mat);
  ops::bind_tensor(call, ops::kGemmC, c_slot, out);
  d.m = 1;
  d.n = n;
  d.k = m;
  d.a.row_stride = 0;
  d.a.col_stride = vec->strides[0];
  d.b.row_stride = mat->strides[1];  // B = mat^T: rows along m
  d.b.col_stride = mat->strides[0];
  d.c.row_stride = 0;
  d.c.col_stride = out->strides[0];
  if (addend != nullptr) {
    ops::bind_tensor(call, ops::kGemmD, d_slot, addend);
    d.d.row_stride = 0;
    d.d.col_stride = addend->ndim == 1 && addend->dims[0] != 1 ? addend->strides[0] : 0;
  }
  d.alpha = alpha_v;
  d.beta = beta_v;
  d.input_rounding = ops::gemm_input_rounding(cube, mat->dtype, vec->dtype);
  ops::record_gemms(b, {call});
}

}  // namespace

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnMvGetWorkspaceSize(const aclTensor *self, const aclTensor *vec,
                                                                   aclTensor *out, int8_t cubeMathType,
                                                                   uint64_t *workspaceSize, aclOpExecutor **executor) {
  return core::phase1("aclnnMv", workspaceSize, executor, [&](core::OpBuilder &b) {
    mv_phase1(b, nullptr, self, "self", vec, nullptr, nullptr, out, cubeMathType);
  });
}
OPSNN_DEFINE_LAUNCH(Mv)

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnAddmvGetWorkspaceSize(const aclTensor *self, const aclTensor *mat,
                                                                      const aclTensor *vec, const aclScalar *alpha,
                                                                      const aclScalar *beta, aclTensor *out,
                                                                      int8_t cubeMathType, uint64_t *workspaceSize,
                                                                      aclOpExecutor **executor) {
  return core::phase1("aclnnAddmv", workspaceSize, executor, [&](core::OpBuilder &b) {
    core::check_not_null(self, "self");
    mv_phase1(b, self, mat, "mat", vec, alpha, beta, out, cubeMathType);
  });
}
OPSNN_DEFINE_LAUNCH(Addmv)
