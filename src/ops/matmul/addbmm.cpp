// aclnnAddbmm, aclnnInplaceAddbmm (aclnnop/aclnn_addbmm.h):
//   out = beta * self + alpha * sum_b batch1[b] @ batch2[b]          ([B, M, K] @ [B, K, N] -> [M, N])
// The batch sum runs as GEMMs in sequence, accumulating in fp32: into out itself when it is FLOAT,
// otherwise into an fp32 workspace matrix that the last GEMM's epilogue adds (rounding once).
#include "aclnnop/aclnn_addbmm.h"
#include "common/error.h"
#include "ops/matmul/matmul_common.h"

using namespace opsnn;

namespace {

void addbmm_phase1(core::OpBuilder &b, const aclTensor *self, const char *self_name, const aclTensor *batch1,
                   const aclTensor *batch2, const aclScalar *beta, const aclScalar *alpha, const aclTensor *out,
                   int8_t cube) {
  const bool inplace = out == nullptr;
  ops::check_matmul_dtype(self, self_name);
  ops::check_matmul_dtype(batch1, "batch1");
  ops::check_matmul_dtype(batch2, "batch2");
  if (!inplace) ops::check_matmul_dtype(out, "out");
  const float beta_v = ops::scalar_value(beta, "beta"), alpha_v = ops::scalar_value(alpha, "alpha");
  ops::check_cube_math_type(cube);
  ops::require_rank(batch1, "batch1", 3, 3);
  ops::require_rank(batch2, "batch2", 3, 3);
  if (batch1->dims[0] != batch2->dims[0])
    throw_error(ACLNN_ERR_PARAM_INVALID, "batch1 %s and batch2 %s must have the same batch size",
                core::shape_string(*batch1).c_str(), core::shape_string(*batch2).c_str());
  const int64_t B = batch1->dims[0], M = batch1->dims[1], K = batch1->dims[2], N = batch2->dims[2];
  ops::check_inner_dims(batch1, "batch1", K, batch2, "batch2", batch2->dims[1]);
  const core::Shape res = ops::make_shape({M, N});
  if (inplace) {
    core::check_shape_equals(*self, self_name, res);
    core::check_no_internal_overlap(*self, self_name);
  } else {
    ops::require_rank(self, self_name, 0, 2);
    ops::check_broadcasts_to(self, self_name, res);
    core::check_shape_equals(*out, "out", res);
    core::check_no_internal_overlap(*out, "out");
  }

  const int s_slot = inplace ? b.inout(self) : b.input(self);
  const int a_slot = b.input(batch1), b_slot = b.input(batch2);
  const int c_slot = inplace ? s_slot : b.output(out);
  const aclTensor *c = inplace ? self : out;
  if (c->numel() == 0) return;

  // The template: one product batch1[b] @ batch2[b] into C.
  ops::GemmCall base;
  kernels::GemmDesc &d = base.desc;
  ops::bind_tensor(base, ops::kGemmA, a_slot, batch1);
  ops::bind_tensor(base, ops::kGemmB, b_slot, batch2);
  ops::bind_tensor(base, ops::kGemmC, c_slot, c);
  d.m = M;
  d.n = N;
  d.k = B == 0 ? 0 : K;  // no batches: an empty sum
  d.a.row_stride = batch1->strides[1];
  d.a.col_stride = batch1->strides[2];
  d.b.row_stride = batch2->strides[1];
  d.b.col_stride = batch2->strides[2];
  d.c.row_stride = c->strides[0];
  d.c.col_stride = c->strides[1];
  d.alpha = alpha_v;
  d.input_rounding = ops::gemm_input_rounding(cube, batch1->dtype, batch2->dtype);
  const int64_t a_bstep = batch1->strides[0] * static_cast<int64_t>(core::dtype_size(batch1->dtype));
  const int64_t b_bstep = batch2->strides[0] * static_cast<int64_t>(core::dtype_size(batch2->dtype));
  auto at_batch = [&](ops::GemmCall call, int64_t bi) {
    call.ref[ops::kGemmA].offset_bytes += bi * a_bstep;
    call.ref[ops::kGemmB].offset_bytes += bi * b_bstep;
    return call;
  };
  // The first term: alpha * batch1[0] @ batch2[0] + beta * self (self read through broadcast strides;
  // in place it is C itself).
  auto with_self = [&](ops::GemmCall call) {
    call.desc.beta = beta_v;
    if (!inplace) {
      ops::bind_tensor(call, ops::kGemmD, s_slot, self);
      int64_t ds[core::kMaxDims];
      core::broadcast_strides(*self, res, ds);
      call.desc.d.row_stride = ds[0];
      call.desc.d.col_stride = ds[1];
    }
    return call;
  };

  std::vector<ops::GemmCall> calls;
  if (B <= 1 || K == 0) {
    calls.push_back(with_self(base));
  } else {
    const bool direct = c->dtype == ACL_FLOAT;
    ops::GemmCall acc = base;  // the accumulator: C, or fp32 scratch [M, N]
    if (!direct) {
      ops::bind_scratch(acc, ops::kGemmC, b.book("addbmm.accumulator", static_cast<uint64_t>(M * N) * 4));
      acc.desc.c.row_stride = N;
      acc.desc.c.col_stride = 1;
    }
    ops::GemmCall first = acc;
    if (!direct && inplace) {  // selfRef is the addend of the fp32 accumulator
      ops::bind_tensor(first, ops::kGemmD, s_slot, self);
      first.desc.d.row_stride = self->strides[0];
      first.desc.d.col_stride = self->strides[1];
      first.desc.beta = beta_v;
    } else {
      first = with_self(acc);
    }
    calls.push_back(first);
    // Middle terms accumulate in order (beta = 1 on the accumulator; outer loop over batches).
    const int64_t mid_end = direct ? B : B - 1;
    if (mid_end > 1) {
      ops::GemmCall mid = at_batch(acc, 1);
      mid.desc.beta = 1.0f;
      mid.outer_ndim = 1;
      mid.outer_shape[0] = mid_end - 1;
      mid.outer_stride[ops::kGemmA][0] = a_bstep;
      mid.outer_stride[ops::kGemmB][0] = b_bstep;
      calls.push_back(mid);
    }
    if (!direct) {  // the last term adds the accumulator and rounds once into out
      ops::GemmCall last = at_batch(base, B - 1);
      last.desc.beta = 1.0f;
      ops::bind_scratch(last, ops::kGemmD, acc.ref[ops::kGemmC].ws);
      last.desc.d.row_stride = N;
      last.desc.d.col_stride = 1;
      calls.push_back(last);
    }
  }
  ops::record_gemms(b, std::move(calls));
}

}  // namespace

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnAddbmmGetWorkspaceSize(const aclTensor *self, const aclTensor *batch1,
                                                                       const aclTensor *batch2, const aclScalar *beta,
                                                                       const aclScalar *alpha, aclTensor *out,
                                                                       int8_t cubeMathType, uint64_t *workspaceSize,
                                                                       aclOpExecutor **executor) {
  return core::phase1("aclnnAddbmm", workspaceSize, executor, [&](core::OpBuilder &b) {
    core::check_not_null(out, "out");
    addbmm_phase1(b, self, "self", batch1, batch2, beta, alpha, out, cubeMathType);
  });
}
OPSNN_DEFINE_LAUNCH(Addbmm)

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceAddbmmGetWorkspaceSize(aclTensor *selfRef, const aclTensor *batch1,
                                                                              const aclTensor *batch2,
                                                                              const aclScalar *beta,
                                                                              const aclScalar *alpha, int8_t cubeMathType,
                                                                              uint64_t *workspaceSize,
                                                                              aclOpExecutor **executor) {
  return core::phase1("aclnnInplaceAddbmm", workspaceSize, executor, [&](core::OpBuilder &b) {
    addbmm_phase1(b, selfRef, "selfRef", batch1, batch2, beta, alpha, nullptr, cubeMathType);
  });
}
OPSNN_DEFINE_LAUNCH(InplaceAddbmm)
