#include "ops/matmul/mxmm_phase1.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "common/error.h"
#include "core/fractal_layout.h"
#include "core/outputs_apart.h"
#include "core/thread_pool.h"
#include "core/verbose.h"
#include "kernels/quant/low_float.h"
#include "ops/matmul/matmul_common.h"
#include "ops/matmul/mxmm_steps.h"
#include "ops/matmul/weight_nz.h"
#include "ops/quant/mx_quant_phase1.h"

namespace opsnn::ops {
namespace {

using core::NamedTensor;
using core::Shape;

long long ll(int64_t v) { return static_cast<long long>(v); }
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

void require_filled(const NamedTensor &t) {
  if (t.t->numel() == 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is empty (shape %s); empty tensors are not supported", t.name,
                core::shape_string(*t.t).c_str());
}

Shape shape_of(std::initializer_list<int64_t> dims, const Shape *batch = nullptr) {
  Shape s;
  if (batch != nullptr)
    for (int d = 0; d < batch->ndim; ++d) s.dims[s.ndim++] = batch->dims[d];
  for (int64_t v : dims) s.dims[s.ndim++] = v;
  return s;
}

Shape batch_of(const aclTensor &t) {
  Shape s;
  for (int d = 0; d + 2 < t.ndim; ++d) s.dims[s.ndim++] = t.dims[d];
  return s;
}

// A matrix operand read as `rows` rows of k: its view [batch..., R, C] has k along C (k_last) or R; plain
// strides or, with nz, FRACTAL_NZ blocks of the view's matrices (their transposes for a swapped-stride view).
kernels::MxDequantDesc codes_desc(const NamedTensor &x, bool k_last, bool nz, kernels::LowFloat fmt) {
  const aclTensor &t = *x.t;
  const int nd = t.ndim;
  kernels::MxDequantDesc d;
  d.fmt = fmt;
  d.rows = t.dims[nd - (k_last ? 2 : 1)];
  d.k = t.dims[nd - (k_last ? 1 : 2)];
  d.batch = 1;
  d.batch_nd = nd - 2;
  for (int i = 0; i + 2 < nd; ++i) {
    d.batch *= t.dims[i];
    d.batch_dims[i] = t.dims[i];
    d.batch_strides[i] = t.strides[i];
  }
  if (!nz) {
    d.row_stride = t.strides[nd - (k_last ? 2 : 1)];
    d.k_stride = t.strides[nd - (k_last ? 1 : 2)];
    return d;
  }
  d.nz = true;
  d.nz_rows_major = k_last != core::fractal_nz_transposed(t);
  d.nz_c0 = core::fractal_c0(t.dtype);
  const int64_t stored_rows = d.nz_rows_major ? d.rows : d.k, stored_cols = d.nz_rows_major ? d.k : d.rows;
  d.nz_r16 = core::round_up(stored_rows, core::kFractalRows);
  // the NZ matrices follow each other in the storage, row-major over the batch dims
  int64_t mat = d.nz_r16 * core::round_up(stored_cols, d.nz_c0);
  for (int i = d.batch_nd - 1; i >= 0; --i) {
    d.batch_strides[i] = mat;
    mat *= d.batch_dims[i];
  }
  return d;
}

// The E8M0 scales of an operand's blocks of 32 along k: [batch..., rows, ceil(k / 64), 2] (k_last) or
// [batch..., ceil(k / 64), rows, 2], any strides.
void bind_block_scales(const NamedTensor &s, bool k_last, const Shape &batch, kernels::MxDequantDesc *d) {
  core::check_dtype_in(s.t, s.name, {ACL_FLOAT8_E8M0});
  const int64_t pairs = ceil_div(d->k, 64);
  core::check_shape_equals(*s.t, s.name, k_last ? shape_of({d->rows, pairs, 2}, &batch) : shape_of({pairs, d->rows, 2}, &batch));
  const int nd = s.t->ndim;
  d->s_row = s.t->strides[nd - (k_last ? 3 : 2)];
  d->s_pair = s.t->strides[nd - (k_last ? 2 : 3)];
  d->s_half = s.t->strides[nd - 1];
  for (int i = 0; i < batch.ndim; ++i) d->s_batch_strides[i] = s.t->strides[i];
}

int64_t tasks_for(int64_t rows) { return std::max<int64_t>(1, std::min<int64_t>(core::num_threads(), rows)); }

// The operands' decoding step: op 0 (x1, rows m) and op 1 (x2, rows n) into fp32 workspace blocks. Slots
// (registered by the caller in prototype order): the codes, their E8M0 scales, the level-0 scales (-1: none).
struct DequantSlots {
  int codes[2], scales[2], l0[2] = {-1, -1};
};
// The inputs registered in prototype order: x1, x2, (level0: the level-0 scales,) the block scales, bias.
DequantSlots register_inputs(core::OpBuilder &b, const MxmmCall &c, bool level0, int *bias_slot) {
  DequantSlots s;
  s.codes[0] = b.input(c.a.t);
  s.codes[1] = b.input(c.b.t);
  if (level0) {
    s.l0[0] = b.input(c.a_l0.t);
    s.l0[1] = b.input(c.b_l0.t);
  }
  s.scales[0] = b.input(c.a_scale.t);
  s.scales[1] = b.input(c.b_scale.t);
  *bias_slot = b.input(c.bias.t);
  return s;
}

MxmmDequantStep &record_dequant(core::OpBuilder &b, const NamedTensor (&codes)[2], const DequantSlots &s,
                                kernels::MxDequantDesc (&desc)[2]) {
  auto &st = b.add_step<MxmmDequantStep>();
  const char *names[2] = {"mxmm.a", "mxmm.b"};
  for (int i = 0; i < 2; ++i) {
    MxmmDequant &o = st.op[i];
    desc[i].tasks = tasks_for(desc[i].batch * desc[i].rows);
    o.desc = desc[i];
    o.codes = mx_operand_ref(b, s.codes[i], codes[i]);
    o.scales = core::OperandRef::of_slot(s.scales[i], b.tensor(s.scales[i]));
    if (s.l0[i] >= 0) {
      o.l0 = core::OperandRef::of_slot(s.l0[i], b.tensor(s.l0[i]));
      o.has_l0 = true;
    }
    const int64_t row = std::max(desc[i].k, desc[i].out_k);
    o.out = b.book(names[i], static_cast<uint64_t>(desc[i].batch * desc[i].rows * row) * sizeof(float));
  }
  return st;
}

// The GEMM over the decoded blocks: A [batch, m, k], B stored [batch_b, n, k] (batch_b 1: shared).
GemmCall decoded_gemm(const MxmmDequantStep &st) {
  GemmCall call;
  kernels::GemmDesc &d = call.desc;
  const kernels::MxDequantDesc &a = st.op[0].desc, &bd = st.op[1].desc;
  d.batch = a.batch;
  d.m = a.rows;
  d.n = bd.rows;
  d.k = a.k;
  bind_scratch(call, kGemmA, st.op[0].out);
  bind_scratch(call, kGemmB, st.op[1].out);
  d.a = {ACL_FLOAT, d.k, 1, d.m * d.k};
  d.b = {ACL_FLOAT, 1, d.k, bd.batch > 1 ? d.n * d.k : 0};
  return call;
}

// A FLOAT bias (n,), or (batch, 1, n) when `batched_ok` (its batch = out's); returns whether it is the latter.
bool check_bias(const NamedTensor &bias, int64_t n, int64_t batch, bool batched_ok) {
  core::check_dtype_in(bias.t, bias.name, {ACL_FLOAT});
  const aclTensor &t = *bias.t;
  const bool batched = t.ndim == 3 && batched_ok;
  if (!(t.ndim == 1 && t.dims[0] == n) && !(batched && t.dims[0] == batch && t.dims[1] == 1 && t.dims[2] == n))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be (%lld,)%s", bias.name, core::shape_string(t).c_str(),
                ll(n), batched_ok ? (" or (" + std::to_string(batch) + ", 1, " + std::to_string(n) + ")").c_str() : "");
  return batched;
}

// The bias (check_bias) added in the GEMM's epilogue.
void bind_bias(core::OpBuilder &b, GemmCall &call, const NamedTensor &bias, int slot, int64_t n, int64_t batch,
               bool batched_ok) {
  if (bias.t == nullptr) return;
  const bool batched = check_bias(bias, n, batch, batched_ok);
  const aclTensor &t = *bias.t;
  bind_tensor(call, kGemmD, slot, &b.tensor(slot));
  call.desc.d = {ACL_FLOAT, 0, t.strides[t.ndim - 1], batched ? t.strides[0] : 0};
  call.desc.beta = 1.0f;
}

void record(const std::string &choice, core::ImplTrace *trace) {
  if (core::current_phase1_trace() != nullptr) core::record_choice(choice, trace);
}

// Two plans of `call` (fp32 operands as planned, and BF16), one of which runs per launch: the decoding step
// (dq, told to try BF16) picks BF16 when every value is exact there, and the decoded x2's source hands it to
// that plan's step only.
void record_two_plans(core::OpBuilder &b, MxmmDequantStep &dq, const GemmCall &call) {
  const core::WsKey path = b.book("mxmm.path", sizeof(int)), decoded_b = dq.op[1].out;
  dq.try_bf16 = true;
  dq.path = path;
  GemmCall call16 = call;
  call16.desc.a.dtype = call16.desc.b.dtype = ACL_BF16;
  record_gemms(b, {call}, std::make_shared<MxmmDecodedB>(path, decoded_b, false));
  record_gemms(b, {call16}, std::make_shared<MxmmDecodedB>(path, decoded_b, true));
}

// ---- kActQuant ----

kernels::GemmActivation activation_of(const char *a) {
  if (std::strcmp(a, "gelu_tanh") == 0) return kernels::GemmActivation::kGeluTanh;
  if (std::strcmp(a, "gelu_erf") == 0) return kernels::GemmActivation::kGeluErf;
  throw_error(ACLNN_ERR_PARAM_INVALID, "activationType \"%s\" is not supported; it must be \"gelu_tanh\" or \"gelu_erf\"", a);
}

void check_group_size(int64_t g) {
  const int64_t gk = g & 0xFFFF, gn = (g >> 16) & 0xFFFF, gm = (g >> 32) & 0xFFFF;
  if (!(gk == 0 && gn == 0 && gm == 0) && !(gk == 32 && gn == 1 && gm == 1))
    throw_error(ACLNN_ERR_PARAM_INVALID, "groupSize %lld gives [groupSizeM, N, K] = [%lld, %lld, %lld]; it must be "
                "[1, 1, 32] (or 0)", ll(g), ll(gm), ll(gn), ll(gk));
}

void act_quant(core::OpBuilder &b, const MxmmRule &rule, const MxmmCall &c) {
  const int bad = ACLNN_ERR_PARAM_INVALID;
  core::check_dtype_in(c.a.t, c.a.name, rule.dtypes);
  const aclDataType adt = c.a.t->dtype;
  const bool fp4 = adt == ACL_FLOAT4_E2M1;
  if (fp4 && c.trans_a) throw_error(bad, "transposeX1 must be false with FLOAT4_E2M1 x1");
  const bool nz = check_weight_nz(c.b.t, c.b.name, {fp4 ? ACL_FLOAT4_E2M1 : ACL_FLOAT8_E4M3FN});
  require_rank(c.a.t, c.a.name, 2, 6);
  require_rank(c.b.t, c.b.name, 2, 6);
  if (c.a_scale.t == nullptr)
    throw_error(ACLNN_ERR_PARAM_NULLPTR, "%s is null; the MX mode (the only one) needs it", c.a_scale.name);
  for (const NamedTensor *t : {&c.a, &c.b, &c.a_scale, &c.b_scale}) require_filled(*t);
  kernels::LowFloat afmt, bfmt;
  kernels::low_float_of(adt, &afmt);
  kernels::low_float_of(c.b.t->dtype, &bfmt);
  kernels::MxDequantDesc desc[2] = {codes_desc(c.a, !c.trans_a, false, afmt), codes_desc(c.b, c.trans_b, nz, bfmt)};
  const int64_t m = desc[0].rows, k = desc[0].k, n = desc[1].rows;
  if (desc[1].k != k)
    throw_error(bad, "%s's k = %lld differs from %s's k = %lld", c.b.name, ll(desc[1].k), c.a.name, ll(k));
  if (k < 2 || n < 2) throw_error(bad, "k = %lld and n = %lld must be at least 2", ll(k), ll(n));
  if (fp4 && (k % 2 != 0 || n % 2 != 0))
    throw_error(bad, "k = %lld and n = %lld must be even with FLOAT4_E2M1 operands", ll(k), ll(n));
  const Shape abatch = batch_of(*c.a.t), bbatch = batch_of(*c.b.t);
  if (bbatch.ndim > 0 && !(bbatch == abatch))
    throw_error(bad, "%s's batch dims %s must be absent or %s's %s", c.b.name, bbatch.str().c_str(), c.a.name,
                abatch.str().c_str());
  bind_block_scales(c.a_scale, !c.trans_a, abatch, &desc[0]);
  bind_block_scales(c.b_scale, c.trans_b, bbatch, &desc[1]);
  check_group_size(c.group_size);
  const kernels::GemmActivation act = activation_of(c.activation);
  if (std::strcmp(c.quant_mode, "mx") != 0)
    throw_error(bad, "quantMode \"%s\" is not supported; it must be \"mx\"", c.quant_mode);
  if (c.y.t->dtype != adt)
    throw_error(bad, "%s has dtype %s; it must be x1's dtype %s", c.y.name, core::dtype_name(c.y.t->dtype),
                core::dtype_name(adt));
  // The activated matmul result, [batch..., m, n] in fp32: what the MX checks see as x.
  aclTensor res = *c.a.t;
  res.dtype = ACL_FLOAT;
  res.format = ACL_FORMAT_ND;
  core::set_contiguous(res, shape_of({m, n}, &abatch));
  const NamedTensor res_named{&res, "the activated matmul result"};
  const MxLastDim mx = mx_last_dim_settings(adt, c.scale_alg, c.round_mode, res_named,
                                            c.scale_alg == 2 ? c.dst_type_max : 0.0);
  check_mx_last_dim_outputs(res_named, adt, c.y, c.y_scale);
  core::check_outputs_apart<NamedTensor>({&c.y, &c.y_scale}, {&c.a, &c.b, &c.a_scale, &c.b_scale, &c.bias, &c.y, &c.y_scale});

  int sbias = -1;
  const DequantSlots s = register_inputs(b, c, false, &sbias);
  const NamedTensor codes[2] = {c.a, c.b};
  MxmmDequantStep &dq = record_dequant(b, codes, s, desc);
  GemmCall call = decoded_gemm(dq);
  const int64_t batch = desc[0].batch;
  bind_bias(b, call, c.bias, sbias, n, batch, abatch.ndim == 1);
  call.desc.activation = act;
  const core::WsKey acc = b.book("mxmm.acc", static_cast<uint64_t>(batch * m * n) * sizeof(float));
  bind_scratch(call, kGemmC, acc);
  call.desc.c = {ACL_FLOAT, n, 1, m * n};
  record_two_plans(b, dq, call);  // BF16 operands in the usual case: <= 4 significant bits times powers of two

  auto &q = b.add_step<MxmmQuantStep>();
  q.fmt = mx.fmt;
  q.round = mx.round;
  q.rule = mx.rule;
  q.rows = batch * m;
  q.n = n;
  q.tasks = tasks_for(q.rows);
  q.acc = acc;
  q.y = mx_operand_ref(b, b.output(c.y.t), c.y);
  const int ss = b.output(c.y_scale.t);
  q.scale = core::OperandRef::of_slot(ss, b.tensor(ss));
  core::ImplTrace trace;
  const bool traced = core::current_phase1_trace() != nullptr;
  const char *tier = kernels::choose_mx_row_tier(&q.rows_k, traced ? &trace : nullptr);
  if (traced && nz) trace.add("x2 dense copy kept", "its E8M0 scales are read with it: decoded at every launch");
  record(std::string("mxmm:act_quant:decode") + (nz ? "(x2 nz)" : "") + "+gemm(bf16 when exact else fp32)+" +
             c.activation + "+mx_rows/" + tier +
             "/tasks=" + std::to_string(q.tasks),
         &trace);
}

// ---- kDualLevel ----

void dual_level(core::OpBuilder &b, const MxmmRule &rule, const MxmmCall &c) {
  const int bad = ACLNN_ERR_PARAM_INVALID;
  core::check_dtype_in(c.a.t, c.a.name, rule.dtypes);
  const bool nz = check_weight_nz(c.b.t, c.b.name, {ACL_FLOAT4_E2M1});
  require_rank(c.a.t, c.a.name, 2, 2);
  require_rank(c.b.t, c.b.name, 2, 2);
  for (const NamedTensor *t : {&c.a, &c.b, &c.a_l0, &c.b_l0, &c.a_scale, &c.b_scale}) require_filled(*t);
  if (c.trans_a) throw_error(bad, "transposeX1 must be false (x1 [m, k] only)");
  if (!c.trans_b) throw_error(bad, "transposeX2 must be true (x2 [n, k] only)");
  if (c.level0_group != 512) throw_error(bad, "level0GroupSize is %lld; it must be 512", ll(c.level0_group));
  if (c.level1_group != 32) throw_error(bad, "level1GroupSize is %lld; it must be 32", ll(c.level1_group));
  kernels::MxDequantDesc desc[2] = {codes_desc(c.a, true, false, kernels::LowFloat::kE2M1),
                                    codes_desc(c.b, true, nz, kernels::LowFloat::kE2M1)};
  const int64_t m = desc[0].rows, k = desc[0].k, n = desc[1].rows, groups = ceil_div(k, 512);
  if (desc[1].k != k)
    throw_error(bad, "%s's k = %lld differs from %s's k = %lld", c.b.name, ll(desc[1].k), c.a.name, ll(k));
  if (k % 2 != 0) throw_error(bad, "k = %lld must be even (FLOAT4_E2M1 rows of whole bytes)", ll(k));
  const Shape none_batch;
  bind_block_scales(c.a_scale, true, none_batch, &desc[0]);
  bind_block_scales(c.b_scale, true, none_batch, &desc[1]);
  core::check_dtype_in(c.a_l0.t, c.a_l0.name, {ACL_FLOAT});
  core::check_dtype_in(c.b_l0.t, c.b_l0.name, {ACL_FLOAT});
  core::check_shape_equals(*c.a_l0.t, c.a_l0.name, shape_of({m, groups}));
  core::check_shape_equals(*c.b_l0.t, c.b_l0.name, shape_of({groups, n}));
  if (c.bias.t != nullptr) check_bias(c.bias, n, 1, false);
  core::check_dtype_in(c.y.t, c.y.name, {ACL_FLOAT16, ACL_BF16});
  core::check_shape_equals(*c.y.t, c.y.name, shape_of({m, n}));
  core::check_outputs_apart<NamedTensor>({&c.y}, {&c.a, &c.b, &c.a_l0, &c.b_l0, &c.a_scale, &c.b_scale, &c.bias, &c.y});

  // The block-scaled operands decoded with k padded to whole groups of 512 (zeros), one GEMM batch per group:
  // P[g] = x1[:, group g] @ x2[:, group g]^T; then out = sum_g l0a l0b P[g] (+ bias), rounded once.
  int sbias = -1;
  DequantSlots s = register_inputs(b, c, true, &sbias);
  const int l0_slots[2] = {s.l0[0], s.l0[1]};
  s.l0[0] = s.l0[1] = -1;  // the level-0 scales are applied to the group sums, not in the decoding
  const int64_t kp = groups * 512;
  desc[0].out_k = desc[1].out_k = kp;
  const NamedTensor codes[2] = {c.a, c.b};
  MxmmDequantStep &dq = record_dequant(b, codes, s, desc);
  GemmCall call;
  kernels::GemmDesc &d = call.desc;
  d.batch = groups;
  d.m = m;
  d.n = n;
  d.k = 512;
  bind_scratch(call, kGemmA, dq.op[0].out);
  bind_scratch(call, kGemmB, dq.op[1].out);
  d.a = {ACL_FLOAT, kp, 1, 512};
  d.b = {ACL_FLOAT, 1, kp, 512};
  const core::WsKey acc = b.book("mxmm.groups", static_cast<uint64_t>(groups * m * n) * sizeof(float));
  bind_scratch(call, kGemmC, acc);
  d.c = {ACL_FLOAT, n, 1, m * n};
  record_two_plans(b, dq, call);
  auto &sum = b.add_step<MxmmGroupSumStep>();
  sum.m = m;
  sum.n = n;
  sum.groups = groups;
  sum.tasks = tasks_for(m);
  sum.acc = acc;
  sum.l0a = core::OperandRef::of_slot(l0_slots[0], b.tensor(l0_slots[0]));
  sum.l0b = core::OperandRef::of_slot(l0_slots[1], b.tensor(l0_slots[1]));
  sum.a_row = c.a_l0.t->strides[0];
  sum.a_grp = c.a_l0.t->strides[1];
  sum.b_grp = c.b_l0.t->strides[0];
  sum.b_col = c.b_l0.t->strides[1];
  if (sbias >= 0) {
    sum.has_bias = true;
    sum.bias = core::OperandRef::of_slot(sbias, b.tensor(sbias));
    sum.bias_col = c.bias.t->strides[0];
  }
  const int sy = b.output(c.y.t);
  sum.y = core::OperandRef::of_slot(sy, b.tensor(sy));
  sum.y_dtype = c.y.t->dtype;
  sum.y_row = c.y.t->strides[0];
  sum.y_col = c.y.t->strides[1];
  core::ImplTrace trace;
  if (core::current_phase1_trace() != nullptr && nz)
    trace.add("x2 dense copy kept", "its scales are read with it: decoded at every launch");
  record(std::string("mxmm:dual_level:decode") + (nz ? "(x2 nz)" : "") +
             "+gemm per 512 (bf16 when exact else fp32)+level0_sum/tasks=" +
             std::to_string(desc[0].tasks),
         &trace);
}

// ---- kEmuSplit ----

void emu_split(core::OpBuilder &b, const MxmmRule &rule, const MxmmCall &c) {
  const int bad = ACLNN_ERR_PARAM_INVALID;
  core::check_dtype_in(c.a.t, c.a.name, rule.dtypes);
  core::check_dtype_in(c.b.t, c.b.name, rule.dtypes);
  core::check_dtype_in(c.b_low.t, c.b_low.name, rule.dtypes);
  core::check_dtype_in(c.y.t, c.y.name, {ACL_FLOAT});
  for (const NamedTensor *t : {&c.a, &c.b, &c.b_low, &c.y}) require_rank(t->t, t->name, 2, 2);
  for (const NamedTensor *t : {&c.a, &c.b, &c.b_low}) require_filled(*t);
  const aclTensor &x = *c.a.t, &wh = *c.b.t;
  const int64_t m = x.dims[0], k = x.dims[1], n = wh.dims[1];
  check_inner_dims(c.a.t, c.a.name, k, c.b.t, c.b.name, wh.dims[0]);
  core::check_shape_equals(*c.b_low.t, c.b_low.name, Shape::of(wh));
  core::check_shape_equals(*c.y.t, c.y.name, shape_of({m, n}));
  if (!(c.low_scale == 0.00390625f))
    throw_error(bad, "wLowScale is %g; it must be 1/256 (0.00390625), the only value supported", c.low_scale);
  if (c.y_dtype != 0) throw_error(bad, "yDtype is %lld; it must be 0 (FLOAT)", ll(c.y_dtype));
  core::check_outputs_apart<NamedTensor>({&c.y}, {&c.a, &c.b, &c.b_low, &c.y});

  const int sx = b.input(c.a.t), sh = b.input(c.b.t), sl = b.input(c.b_low.t), sy = b.output(c.y.t);
  const aclTensor &y = *c.y.t, &wl = *c.b_low.t;
  GemmCall calls[2];
  for (int i = 0; i < 2; ++i) {
    kernels::GemmDesc &d = calls[i].desc;
    const aclTensor &w = i == 0 ? wh : wl;
    d.m = m;
    d.n = n;
    d.k = k;
    bind_tensor(calls[i], kGemmA, sx, &b.tensor(sx));
    bind_tensor(calls[i], kGemmB, i == 0 ? sh : sl, &b.tensor(i == 0 ? sh : sl));
    bind_tensor(calls[i], kGemmC, sy, &b.tensor(sy));
    d.a = {x.dtype, x.strides[0], x.strides[1], 0};
    d.b = {w.dtype, w.strides[0], w.strides[1], 0};
    d.c = {ACL_FLOAT, y.strides[0], y.strides[1], 0};
  }
  // the low part's product scaled and added to the high part's y (in order: the second call reads y)
  calls[1].desc.alpha = c.low_scale;
  calls[1].desc.beta = 1.0f;
  record_gemms(b, {calls[0], calls[1]});
  record("mxmm:emu_split:gemm(high)+gemm(low; alpha=wLowScale beta=1)", nullptr);
}

}  // namespace

void mxmm_phase1(core::OpBuilder &b, const MxmmRule &rule, const MxmmCall &c) {
  if (rule.scheme == MxmmScheme::kActQuant) act_quant(b, rule, c);
  else if (rule.scheme == MxmmScheme::kDualLevel) dual_level(b, rule, c);
  else emu_split(b, rule, c);
}

}  // namespace opsnn::ops
