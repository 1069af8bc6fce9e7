#include "ops/matmul/matmul_common.h"

#include "common/error.h"
#include "core/op_checks.h"
#include "kernels/matmul/gemm.h"

namespace opsnn::ops {
namespace {

using core::dtype_name;
using core::kMaxDims;
using core::Shape;

// Runs one planned GEMM per combination of the outer batch dims that could not be merged into the
// GEMM's own batch dimension.
class MatmulStep final : public core::Step {
 public:
  kernels::GemmPlan plan;
  int slot[3] = {-1, -1, -1};        // a, b, c
  int64_t offset_bytes[3] = {};
  int outer_ndim = 0;
  int64_t outer_shape[kMaxDims] = {};
  int64_t outer_stride[3][kMaxDims] = {};  // bytes
  uint64_t workspace_offset = 0;

  int run(const core::LaunchArgs &args) const override {
    char *base[3];
    for (int i = 0; i < 3; ++i) base[i] = static_cast<char *>(args.addrs[slot[i]]) + offset_bytes[i];
    int64_t outer = 1;
    for (int d = 0; d < outer_ndim; ++d) outer *= outer_shape[d];
    for (int64_t o = 0; o < outer; ++o) {
      char *p[3] = {base[0], base[1], base[2]};
      int64_t rem = o;
      for (int d = outer_ndim - 1; d >= 0; --d) {
        const int64_t idx = rem % outer_shape[d];
        rem /= outer_shape[d];
        for (int i = 0; i < 3; ++i) p[i] += idx * outer_stride[i][d];
      }
      kernels::gemm_run(plan, p[0], p[1], p[2], args.workspace + workspace_offset);
    }
    return 0;
  }
};

void check_cube_math_type(int8_t cube, aclDataType a, aclDataType b) {
  if (cube < 0 || cube > 4)
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "cubeMathType is %d; expected 0 (KEEP_DTYPE), 1 (ALLOW_FP32_DOWN_PRECISION), 2 (USE_FP16), "
                "3 (USE_HF32) or 4 (USE_FP32_ADD)",
                static_cast<int>(cube));
  if (cube == 2 && (a == ACL_BF16 || b == ACL_BF16))
    throw_error(ACLNN_ERR_PARAM_INVALID, "cubeMathType USE_FP16 (2) cannot be used with BF16 inputs");
}

}  // namespace

void matmul_phase1(core::OpBuilder &b, MatmulKind kind, const aclTensor *self, const aclTensor *mat2,
                   const aclTensor *out, int8_t cube_math_type) {
  const auto float_types = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  core::check_dtype_in(self, "self", float_types);
  core::check_dtype_in(mat2, "mat2", float_types);
  core::check_dtype_in(out, "out", float_types);
  check_cube_math_type(cube_math_type, self->dtype, mat2->dtype);

  // Ranks per op.
  auto require_rank = [](const aclTensor *t, const char *name, int lo, int hi) {
    if (t->ndim < lo || t->ndim > hi) {
      if (lo == hi)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be %d-D; it has shape %s", name, lo, core::shape_string(*t).c_str());
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have %d to %d dims; it has shape %s", name, lo, hi,
                  core::shape_string(*t).c_str());
    }
  };
  switch (kind) {
    case MatmulKind::kMm: require_rank(self, "self", 2, 2); require_rank(mat2, "mat2", 2, 2); break;
    case MatmulKind::kBatchMatMul: require_rank(self, "self", 3, 3); require_rank(mat2, "mat2", 3, 3); break;
    case MatmulKind::kMatmul: require_rank(self, "self", 1, kMaxDims); require_rank(mat2, "mat2", 1, kMaxDims); break;
  }

  // torch.matmul shapes: a 1-D left operand is a row [1, K], a 1-D right operand a column [K, 1];
  // the temporary dimension is dropped from the result.
  const bool a_vec = self->ndim == 1, b_vec = mat2->ndim == 1;
  const int64_t M = a_vec ? 1 : self->dims[self->ndim - 2];
  const int64_t K = self->dims[self->ndim - 1];
  const int64_t K2 = b_vec ? mat2->dims[0] : mat2->dims[mat2->ndim - 2];
  const int64_t N = b_vec ? 1 : mat2->dims[mat2->ndim - 1];
  if (K != K2)
    throw_error(ACLNN_ERR_PARAM_INVALID, "self %s and mat2 %s cannot be multiplied: inner dims %lld and %lld differ",
                core::shape_string(*self).c_str(), core::shape_string(*mat2).c_str(), static_cast<long long>(K),
                static_cast<long long>(K2));
  Shape a_batch, b_batch;
  a_batch.ndim = a_vec ? 0 : self->ndim - 2;
  for (int i = 0; i < a_batch.ndim; ++i) a_batch.dims[i] = self->dims[i];
  b_batch.ndim = b_vec ? 0 : mat2->ndim - 2;
  for (int i = 0; i < b_batch.ndim; ++i) b_batch.dims[i] = mat2->dims[i];
  const Shape batch = core::broadcast_shapes(a_batch, "the batch dims of self", b_batch, "the batch dims of mat2");
  Shape out_shape = batch;
  if (!a_vec) out_shape.dims[out_shape.ndim++] = M;
  if (!b_vec) out_shape.dims[out_shape.ndim++] = N;
  if (out_shape.ndim > kMaxDims) throw_error(ACLNN_ERR_PARAM_INVALID, "the result would have more than 8 dims");
  core::check_shape_equals(*out, "out", out_shape);
  core::check_no_internal_overlap(*out, "out");

  const int a_slot = b.input(self), b_slot = b.input(mat2), c_slot = b.output(out);
  if (out->numel() == 0) return;

  // Batch strides of each operand over the broadcast batch shape (elements; 0 = broadcast).
  int64_t bstride[3][kMaxDims];
  {
    aclTensor a_b = *self, b_b = *mat2, c_b = *out;
    a_b.ndim = a_batch.ndim;
    b_b.ndim = b_batch.ndim;
    c_b.ndim = batch.ndim;
    core::broadcast_strides(a_b, batch, bstride[0]);
    core::broadcast_strides(b_b, batch, bstride[1]);
    core::broadcast_strides(c_b, batch, bstride[2]);
  }
  // Merge batch dims (drop size-1, join dims whose strides nest for all three operands); the
  // innermost merged dim becomes the GEMM batch, the rest an outer loop in the step.
  int nb = 0;
  int64_t mshape[kMaxDims], mstride[3][kMaxDims];
  for (int d = 0; d < batch.ndim; ++d) {
    if (batch.dims[d] == 1) continue;
    if (nb > 0) {
      bool nest = true;
      for (int i = 0; i < 3; ++i) nest &= mstride[i][nb - 1] == bstride[i][d] * batch.dims[d];
      if (nest) {
        mshape[nb - 1] *= batch.dims[d];
        for (int i = 0; i < 3; ++i) mstride[i][nb - 1] = bstride[i][d];
        continue;
      }
    }
    mshape[nb] = batch.dims[d];
    for (int i = 0; i < 3; ++i) mstride[i][nb] = bstride[i][d];
    ++nb;
  }

  kernels::GemmDesc desc;
  desc.batch = nb > 0 ? mshape[nb - 1] : 1;
  desc.m = M;
  desc.n = N;
  desc.k = K;
  desc.a = {self->dtype, a_vec ? 0 : self->strides[self->ndim - 2], self->strides[self->ndim - 1],
            nb > 0 ? mstride[0][nb - 1] : 0};
  desc.b = {mat2->dtype, b_vec ? mat2->strides[0] : mat2->strides[mat2->ndim - 2],
            b_vec ? 0 : mat2->strides[mat2->ndim - 1], nb > 0 ? mstride[1][nb - 1] : 0};
  const int c_m_dim = out->ndim - (b_vec ? 1 : 2);  // index of M in out (when present)
  desc.c = {out->dtype, a_vec ? 0 : out->strides[c_m_dim], b_vec ? 0 : out->strides[out->ndim - 1],
            nb > 0 ? mstride[2][nb - 1] : 0};
  desc.alpha = 1.0f;
  desc.beta = 0.0f;
  const bool fp32_inputs = self->dtype == ACL_FLOAT && mat2->dtype == ACL_FLOAT;
  desc.input_rounding = (cube_math_type == 2 && fp32_inputs) ? ACL_FLOAT16 : ACL_FLOAT;

  auto step = std::make_unique<MatmulStep>();
  if (!kernels::gemm_plan(desc, &step->plan))
    throw_error(ACLNN_ERR_INNER_TILING_ERROR, "GEMM planning failed: %s", last_error_message());
  step->slot[0] = a_slot;
  step->slot[1] = b_slot;
  step->slot[2] = c_slot;
  const aclTensor *t[3] = {self, mat2, out};
  for (int i = 0; i < 3; ++i) {
    const int64_t es = static_cast<int64_t>(core::dtype_size(t[i]->dtype));
    step->offset_bytes[i] = t[i]->offset * es;
    for (int d = 0; d + 1 < nb; ++d) step->outer_stride[i][d] = mstride[i][d] * es;
  }
  step->outer_ndim = nb > 0 ? nb - 1 : 0;
  for (int d = 0; d + 1 < nb; ++d) step->outer_shape[d] = mshape[d];
  step->workspace_offset = b.book_workspace(step->plan.workspace_bytes);
  b.add_step<MatmulStep>(std::move(*step));
}

}  // namespace opsnn::ops
