#include "ops/matmul/flce_phase1.h"

#include "common/error.h"
#include "core/outputs_apart.h"
#include "kernels/loss/vocab_linear.h"
#include "ops/copy/copy_common.h"
#include "ops/elementwise/elementwise_step.h"
#include "ops/loss/vocab_ce_step.h"
#include "ops/matmul/matmul_common.h"
#include "ops/reduction/reduce_step.h"

namespace opsnn::ops {
namespace {

struct PackMaskStep final : core::Step {
  core::OperandRef target, out;
  aclDataType target_dtype = ACL_INT64;
  int64_t target_stride = 0, out_stride = 0, rows = 0, start = 0, end = 0;
  int run(const core::LaunchArgs &args) const override {
    kernels::vocab_pack_mask(target.address(args), target_dtype, target_stride, rows, start, end,
                             reinterpret_cast<uint8_t *>(out.address(args)), out_stride);
    return 0;
  }
};

struct GradRowsStep final : core::Step {
  kernels::VocabGradRows rows;
  core::OperandRef grad, mask, target;
  core::WsKey g;
  int run(const core::LaunchArgs &args) const override {
    kernels::VocabGradRows a = rows;
    a.grad = grad.address(args);
    a.mask = reinterpret_cast<const uint8_t *>(mask.address(args));
    a.target = target.address(args);
    return kernels::vocab_grad_rows(a, reinterpret_cast<float *>(args.get(g)));
  }
};

core::Shape shape_of(std::initializer_list<int64_t> dims) {
  core::Shape s;
  for (int64_t d : dims) s.dims[s.ndim++] = d;
  return s;
}

void require_rank(const FlceArg &a, int ndim, const char *layout) {
  if (a.t->ndim != ndim)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be %s (%d-d), got shape %s", a.name, layout, ndim,
                core::shape_string(*a.t).c_str());
}

// The fp32 [rows, cols] scratch the GEMMs and row passes share.
struct Scratch {
  EwInput in;
  core::OperandRef ref() const { return core::OperandRef{-1, in.ws, 0}; }
};
Scratch book_scratch(core::OpBuilder &b, const char *name, int64_t rows, int64_t cols) {
  return {EwInput::scratch(b, name, shape_of({rows, cols}), ACL_FLOAT)};
}

void copy_into(core::OpBuilder &b, const EwInput &dst, const EwInput &src, aclDataType from, aclDataType to) {
  EwSpec spec;
  spec.op = kernels::EwOp::kIdentity;
  spec.compute_dtype = conversion_compute_dtype(from, to);
  record_elementwise(b, spec, dst, {src});
}

// C[m, n] = sum_k A[m, k] B[k, n] with the operands' (row, col) element strides; a slot -1 operand is `scratch`.
GemmCall gemm(core::OpBuilder &b, int64_t m, int64_t n, int64_t k, const int slots[3], const core::WsKey &scratch,
              const int64_t strides[3][2]) {
  GemmCall call;
  call.desc.m = m;
  call.desc.n = n;
  call.desc.k = k;
  kernels::GemmOperand *ops[3] = {&call.desc.a, &call.desc.b, &call.desc.c};
  for (int i = 0; i < 3; ++i) {
    if (slots[i] >= 0) bind_tensor(call, i, slots[i], &b.tensor(slots[i]));
    else bind_scratch(call, i, scratch);
    ops[i]->row_stride = strides[i][0];
    ops[i]->col_stride = strides[i][1];
  }
  return call;
}

void forward(core::OpBuilder &b, const FlceCall &c) {
  const aclTensor &x = *c.x.t, &w = *c.w.t;
  const int64_t BT = x.dims[0], H = x.dims[1], V = w.dims[0];
  core::check_dtype_in(c.target.t, c.target.name, {ACL_INT32, ACL_INT64});
  for (const FlceArg *a : {&c.max_out, &c.sum_out, &c.pred_out}) core::check_dtype_in(a->t, a->name, {ACL_FLOAT});
  core::check_dtype_in(c.mask_out.t, c.mask_out.name, {ACL_UINT8});
  core::check_dtype_in(c.mt_out.t, c.mt_out.name, {c.target.t->dtype});
  if (c.logits_out.t != nullptr) core::check_dtype_in(c.logits_out.t, c.logits_out.name, {x.dtype});
  if (c.start < 0 || c.end < c.start || c.end - c.start > V)
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "need 0 <= vocabStartIndex <= vocabEndIndex <= vocabStartIndex + %lld (weight's rows), got [%lld, %lld)",
                static_cast<long long>(V), static_cast<long long>(c.start), static_cast<long long>(c.end));
  const core::Shape rows = shape_of({BT});
  for (const FlceArg *a : {&c.target, &c.max_out, &c.sum_out, &c.pred_out, &c.mt_out})
    core::check_shape_equals(*a->t, a->name, rows);
  core::check_shape_equals(*c.mask_out.t, c.mask_out.name, shape_of({(BT + 7) / 8}));
  if (c.logits_out.t != nullptr) core::check_shape_equals(*c.logits_out.t, c.logits_out.name, shape_of({BT, V}));
  core::check_outputs_apart<FlceArg>(
      {&c.max_out, &c.sum_out, &c.pred_out, &c.mask_out, &c.mt_out, &c.logits_out},
      {&c.x, &c.w, &c.target, &c.max_out, &c.sum_out, &c.pred_out, &c.mask_out, &c.mt_out, &c.logits_out});

  const int sx = b.input(c.x.t), sw = b.input(c.w.t), st = b.input(c.target.t);
  const int smax = b.output(c.max_out.t), ssum = b.output(c.sum_out.t), spred = b.output(c.pred_out.t),
            smask = b.output(c.mask_out.t), smt = b.output(c.mt_out.t), slog = b.output(c.logits_out.t);
  if (BT == 0) return;
  const Scratch logits = book_scratch(b, "flce.logits", BT, V);
  if (H == 0) {
    record_zero_fill(b, logits.in);
  } else {  // logits = input @ weight^T
    const int slots[3] = {sx, sw, -1};
    const int64_t strides[3][2] = {{x.strides[0], x.strides[1]}, {w.strides[1], w.strides[0]}, {V, 1}};
    record_gemms(b, {gemm(b, BT, V, H, slots, logits.in.ws, strides)});
  }
  if (slog >= 0) copy_into(b, EwInput::tensor(slog), logits.in, ACL_FLOAT, x.dtype);
  ReduceSpec max;
  max.op = kernels::ReduceOp::kMax;
  record_reduction(b, max, logits.in, 2u, false, {EwInput::tensor(smax)});
  kernels::VocabCePlan P;
  VocabCeOperands refs;
  P.mode = kernels::VocabCeMode::kSumExp;
  P.rows = BT;
  P.vocab = V;
  P.start = c.start;
  P.range = c.end - c.start;
  P.op[kernels::kVcX] = {ACL_FLOAT, V, 0, 1};
  P.has[kernels::kVcX] = true;
  refs.ref[kernels::kVcX] = logits.ref();
  const int slots[] = {smax, st, spred, ssum, smt};
  const int roles[] = {kernels::kVcMax, kernels::kVcTarget, kernels::kVcPredicted, kernels::kVcSumExp,
                       kernels::kVcOffset};
  for (int k = 0; k < 5; ++k) set_vocab_operand(b, P, refs, roles[k], slots[k], 1);
  record_vocab_ce(b, P, refs);
  auto &pack = b.add_step<PackMaskStep>();
  pack.target = core::OperandRef::of_slot(st, b.tensor(st));
  pack.out = core::OperandRef::of_slot(smask, b.tensor(smask));
  pack.target_dtype = b.tensor(st).dtype;
  pack.target_stride = b.tensor(st).strides[0];
  pack.out_stride = b.tensor(smask).strides[0];
  pack.rows = BT;
  pack.start = c.start;
  pack.end = c.end;
}

void backward(core::OpBuilder &b, const FlceCall &c) {
  const aclTensor &x = *c.x.t, &w = *c.w.t;
  const int64_t BT = x.dims[0], H = x.dims[1], V = w.dims[0];
  const bool have_softmax = c.softmax.t != nullptr;
  if (!have_softmax) {  // the memory-saving form recomputes the softmax from the row statistics
    core::check_not_null(c.max.t, c.max.name);
    core::check_not_null(c.sum.t, c.sum.name);
  }
  core::check_dtype_in(c.grad.t, c.grad.name, {ACL_FLOAT});
  core::check_dtype_in(c.mask.t, c.mask.name, {ACL_UINT8});
  core::check_dtype_in(c.mt.t, c.mt.name, {ACL_INT32, ACL_INT64});
  core::check_dtype_in(c.dx.t, c.dx.name, {x.dtype});
  core::check_dtype_in(c.dw.t, c.dw.name, {x.dtype});
  if (c.smoothing != 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "labelSmoothing must be 0 (the only value the op defines), got %g",
                static_cast<double>(c.smoothing));
  const core::Shape rows = shape_of({BT});
  core::check_shape_equals(*c.grad.t, c.grad.name, rows);
  core::check_shape_equals(*c.mt.t, c.mt.name, rows);
  require_rank(c.mask, 1, "[>= (BT + 7) / 8] packed bits");
  if (c.mask.t->dims[0] * 8 < BT)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %lld bytes; %lld rows need at least %lld", c.mask.name,
                static_cast<long long>(c.mask.t->dims[0]), static_cast<long long>(BT),
                static_cast<long long>((BT + 7) / 8));
  if (have_softmax) {
    core::check_dtype_in(c.softmax.t, c.softmax.name, {ACL_FLOAT});
    core::check_shape_equals(*c.softmax.t, c.softmax.name, shape_of({BT, V}));
  } else {
    for (const FlceArg *a : {&c.max, &c.sum}) {
      core::check_dtype_in(a->t, a->name, {ACL_FLOAT});
      core::check_shape_equals(*a->t, a->name, rows);
    }
  }
  core::check_shape_equals(*c.dx.t, c.dx.name, shape_of({BT, H}));
  core::check_shape_equals(*c.dw.t, c.dw.name, shape_of({V, H}));
  core::check_outputs_apart<FlceArg>({&c.dx, &c.dw},
                                     {&c.grad, &c.x, &c.w, &c.mask, &c.mt, &c.max, &c.sum, &c.softmax, &c.dx, &c.dw});

  const int sg = b.input(c.grad.t), sx = b.input(c.x.t), sw = b.input(c.w.t), smask = b.input(c.mask.t),
            smt = b.input(c.mt.t), smax = b.input(c.max.t), ssum = b.input(c.sum.t), ssm = b.input(c.softmax.t);
  const int sdx = b.output(c.dx.t), sdw = b.output(c.dw.t);
  if (H == 0) return;  // both gradients are empty
  if (BT == 0) {       // no rows: the weight's gradient is an empty sum
    record_zero_fill(b, EwInput::tensor(sdw));
    return;
  }
  const Scratch g = book_scratch(b, "flce.grad_logits", BT, V);
  if (have_softmax) {
    copy_into(b, g.in, EwInput::tensor(ssm), ACL_FLOAT, ACL_FLOAT);
  } else {  // softmax = exp(input @ weight^T - logitsMax) / sumExpLogits, in place over the logits
    const int slots[3] = {sx, sw, -1};
    const int64_t strides[3][2] = {{x.strides[0], x.strides[1]}, {w.strides[1], w.strides[0]}, {V, 1}};
    record_gemms(b, {gemm(b, BT, V, H, slots, g.in.ws, strides)});
    kernels::VocabCePlan P;
    VocabCeOperands refs;
    P.mode = kernels::VocabCeMode::kLoss;
    P.rows = BT;
    P.vocab = V;
    for (int role : {kernels::kVcX, kernels::kVcSoftmax}) {
      P.op[role] = {ACL_FLOAT, V, 0, 1};
      P.has[role] = true;
      refs.ref[role] = g.ref();
    }
    set_vocab_operand(b, P, refs, kernels::kVcMax, smax, 1);
    set_vocab_operand(b, P, refs, kernels::kVcSumExp, ssum, 1);
    record_vocab_ce(b, P, refs);
  }
  auto &gr = b.add_step<GradRowsStep>();
  gr.rows.rows = BT;
  gr.rows.vocab = V;
  gr.rows.ld = V;
  gr.rows.grad_stride = b.tensor(sg).strides[0];
  gr.rows.mask_stride = b.tensor(smask).strides[0];
  gr.rows.target_dtype = b.tensor(smt).dtype;
  gr.rows.target_stride = b.tensor(smt).strides[0];
  gr.grad = core::OperandRef::of_slot(sg, b.tensor(sg));
  gr.mask = core::OperandRef::of_slot(smask, b.tensor(smask));
  gr.target = core::OperandRef::of_slot(smt, b.tensor(smt));
  gr.g = g.in.ws;
  // inputGradOut = G @ weight [BT, H]; weightGradOut = G^T @ input [V, H].
  const aclTensor &dx = b.tensor(sdx), &dw = b.tensor(sdw);
  const int dx_slots[3] = {-1, sw, sdx}, dw_slots[3] = {-1, sx, sdw};
  const int64_t dx_strides[3][2] = {{V, 1}, {w.strides[0], w.strides[1]}, {dx.strides[0], dx.strides[1]}};
  const int64_t dw_strides[3][2] = {{1, V}, {x.strides[0], x.strides[1]}, {dw.strides[0], dw.strides[1]}};
  record_gemms(b, {gemm(b, BT, H, V, dx_slots, g.in.ws, dx_strides), gemm(b, V, H, BT, dw_slots, g.in.ws, dw_strides)});
}

}  // namespace

void flce_phase1(core::OpBuilder &b, const FlceRule &rule, const FlceCall &c) {
  const FlceArg *required[] = {&c.x, &c.w};
  for (const FlceArg *a : required) core::check_not_null(a->t, a->name);
  const FlceArg *outs_fw[] = {&c.target, &c.max_out, &c.sum_out, &c.pred_out, &c.mask_out, &c.mt_out};
  const FlceArg *outs_bw[] = {&c.grad, &c.mask, &c.mt, &c.dx, &c.dw};
  if (rule.backward)
    for (const FlceArg *a : outs_bw) core::check_not_null(a->t, a->name);
  else
    for (const FlceArg *a : outs_fw) core::check_not_null(a->t, a->name);
  core::check_dtype_in(c.x.t, c.x.name, rule.dtypes);
  core::check_dtype_in(c.w.t, c.w.name, {c.x.t->dtype});
  require_rank(c.x, 2, "[BT, H]");
  require_rank(c.w, 2, "[V, H]");
  if (c.w.t->dims[1] != c.x.t->dims[1])
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; its columns must match %s's %lld (shape %s)", c.w.name,
                core::shape_string(*c.w.t).c_str(), c.x.name, static_cast<long long>(c.x.t->dims[1]),
                core::shape_string(*c.x.t).c_str());
  if (c.w.t->dims[0] == 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have at least one row (the shard's classes), got shape %s",
                c.w.name, core::shape_string(*c.w.t).c_str());
  if (rule.backward) backward(b, c);
  else forward(b, c);
}

}  // namespace opsnn::ops
