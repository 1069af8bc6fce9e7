#include "ops/attention/attention_phase1.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>

#include "common/error.h"
#include "core/op_checks.h"
#include "kernels/attention/flash_attention.h"
#include "kernels/attention/masked_softmax.h"
#include "kernels/attention/trisolve.h"

namespace opsnn::ops {
namespace {

using kernels::AttnOperand;

// NBSD: [N, B, S, D] (an output layout: BSH_NBSD ...); TND / NTD: every batch's rows packed along T
// (varlen: actualSeqLengths / actualSeqLengthsKv hold the cumulative row ends).
enum class Layout { kBSH, kBSND, kBNSD, kNBSD, kTND, kNTD };

const char *layout_name(Layout l) {
  switch (l) {
    case Layout::kBSH: return "BSH";
    case Layout::kBSND: return "BSND";
    case Layout::kBNSD: return "BNSD";
    case Layout::kNBSD: return "NBSD";
    case Layout::kTND: return "TND";
    case Layout::kNTD: return "NTD";
  }
  return "?";
}

// A tensor argument that is an aclTensor or a one-element aclTensorList (the vendor also takes one
// tensor per batch in the list; that form is refused).
const aclTensor *single_tensor(const void *arg, bool list, const char *name) {
  if (!list) {
    const aclTensor *t = static_cast<const aclTensor *>(arg);
    core::check_tensor(t, name);
    return t;
  }
  core::check_not_null(arg, name);
  const aclTensorList *l = static_cast<const aclTensorList *>(arg);
  if (l->tensors.size() != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "%s holds %zu tensors; one tensor holding every batch is supported (not a tensor per batch)", name,
                l->tensors.size());
  core::check_tensor(l->tensors[0], name);
  return l->tensors[0];
}

struct Dims {
  int64_t b, n, s, d;
};

// [B, N, S, D] dims and strides of a query / key / value / output in `layout`.
Dims read_layout(const aclTensor &t, const char *name, Layout layout, int64_t heads, AttnOperand *op) {
  const int want = layout == Layout::kBSH || layout == Layout::kTND || layout == Layout::kNTD ? 3 : 4;
  if (t.ndim != want)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be %d-D for layout %s, got shape %s", name, want,
                layout_name(layout), core::shape_string(t).c_str());
  op->dtype = t.dtype;
  Dims d{};
  switch (layout) {
    case Layout::kBSH:
      if (heads <= 0 || t.dims[2] % heads != 0)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s: hidden size %lld is not a multiple of %lld heads", name,
                    static_cast<long long>(t.dims[2]), static_cast<long long>(heads));
      d = {t.dims[0], heads, t.dims[1], t.dims[2] / heads};
      *op = {t.dtype, t.strides[0], d.d * t.strides[2], t.strides[1], t.strides[2]};
      break;
    case Layout::kBSND:
      d = {t.dims[0], t.dims[2], t.dims[1], t.dims[3]};
      *op = {t.dtype, t.strides[0], t.strides[2], t.strides[1], t.strides[3]};
      break;
    case Layout::kBNSD:
      d = {t.dims[0], t.dims[1], t.dims[2], t.dims[3]};
      *op = {t.dtype, t.strides[0], t.strides[1], t.strides[2], t.strides[3]};
      break;
    case Layout::kNBSD:
      d = {t.dims[1], t.dims[0], t.dims[2], t.dims[3]};
      *op = {t.dtype, t.strides[1], t.strides[0], t.strides[2], t.strides[3]};
      break;
    case Layout::kTND:  // one "batch" of T rows until the lengths split it (batch stride 0)
      d = {1, t.dims[1], t.dims[0], t.dims[2]};
      *op = {t.dtype, 0, t.strides[1], t.strides[0], t.strides[2]};
      break;
    case Layout::kNTD:
      d = {1, t.dims[0], t.dims[1], t.dims[2]};
      *op = {t.dtype, 0, t.strides[0], t.strides[1], t.strides[2]};
      break;
  }
  if (d.n != heads)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %lld heads (shape %s); expected %lld", name,
                static_cast<long long>(d.n), core::shape_string(t).c_str(), static_cast<long long>(heads));
  return d;
}

// Per-batch actual lengths: null = the full length; one value applies to every batch.
std::vector<int64_t> actual_lengths(const aclIntArray *a, const char *name, int64_t batch, int64_t full) {
  std::vector<int64_t> v(static_cast<size_t>(batch), full);
  if (a == nullptr) return v;
  const size_t n = a->values.size();
  if (n != static_cast<size_t>(batch) && n != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %zu values; expected the batch size %lld (or 1)", name, n,
                static_cast<long long>(batch));
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t x = a->values[n == 1 ? 0 : static_cast<size_t>(b)];
    if (x < 0 || x > full)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s[%lld] = %lld is outside [0, %lld]", name,
                  static_cast<long long>(n == 1 ? 0 : b), static_cast<long long>(x), static_cast<long long>(full));
    v[static_cast<size_t>(b)] = x;
  }
  return v;
}

// Packed layouts (TND / NTD): the cumulative row ends of every batch, non-decreasing from 0, the last
// one the T rows. Returns the per-batch lengths; starts[b] is the row the batch starts at.
std::vector<int64_t> cumulative_lengths(const aclIntArray *a, const char *name, int64_t rows,
                                        std::vector<int64_t> *starts) {
  core::check_not_null(a, name);
  if (a->values.empty())
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is empty; packed layouts (TND / NTD) need one cumulative row end per batch",
                name);
  std::vector<int64_t> len;
  int64_t prev = 0;
  for (size_t b = 0; b < a->values.size(); ++b) {
    const int64_t v = a->values[b];
    if (v < prev || v > rows)
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "%s[%zu] = %lld: packed layouts take cumulative row ends, non-decreasing and at most %lld",
                  name, b, static_cast<long long>(v), static_cast<long long>(rows));
    starts->push_back(prev);
    len.push_back(v - prev);
    prev = v;
  }
  if (prev != rows)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s ends at %lld; the packed tensor has %lld rows (T)", name,
                static_cast<long long>(prev), static_cast<long long>(rows));
  return len;
}

// A mask or pse view as [B, N, Sq, Skv] strides (broadcast dims: stride 0). Accepted shapes: [Sq,
// Skv], [B|1, Sq, Skv], [B|1, N|1, Sq, Skv] (pse: 4-D only), and for Sq = 1 also [B, Skv].
AttnOperand broadcast_view(const aclTensor &t, const char *name, const Dims &q, int64_t skv, bool four_only) {
  auto bad = [&]() {
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected %s[%lld, %lld] (B = %lld, N = %lld)", name,
                core::shape_string(t).c_str(), four_only ? "[B|1, N, Sq, Skv] = " : "[B|1, N|1, Sq, Skv] or ",
                static_cast<long long>(q.s), static_cast<long long>(skv), static_cast<long long>(q.b),
                static_cast<long long>(q.n));
  };
  AttnOperand o;
  o.dtype = t.dtype;
  const int nd = t.ndim;
  if (nd < 2 || nd > 4 || (four_only && nd != 4)) bad();
  if (t.dims[nd - 1] != skv) bad();
  o.d = t.strides[nd - 1];
  if (nd == 2 && q.s == 1 && t.dims[0] == q.b && q.b != 1) {  // decode [B, Skv]
    o.b = t.strides[0];
    return o;
  }
  if (t.dims[nd - 2] != q.s) bad();
  o.s = q.s == 1 ? 0 : t.strides[nd - 2];
  if (nd >= 3) {
    const int64_t bd = t.dims[0];
    if (bd != q.b && bd != 1) bad();
    o.b = bd == 1 ? 0 : t.strides[0];
  }
  if (nd == 4) {
    const int64_t nd1 = t.dims[1];
    if (nd1 != q.n && (nd1 != 1 || four_only)) bad();
    o.n = nd1 == 1 ? 0 : t.strides[1];
  }
  return o;
}

class AttentionStep : public core::Step {
 public:
  // aq: the slots of the key's scale / offset and the value's (the same slots in the combined form,
  // whose value half starts at a byte offset recorded in `offsets`).
  AttentionStep(kernels::AttnPlan plan, int q, int k, int v, int mask, int pse, int out, int lse, int table,
                const int aq[4], core::WsKey ws, std::vector<int64_t> offsets)
      : plan_(std::move(plan)), q_(q), k_(k), v_(v), mask_(mask), pse_(pse), out_(out), lse_(lse), table_(table),
        aq_{aq[0], aq[1], aq[2], aq[3]}, ws_(ws), off_(std::move(offsets)) {}
  int run(const core::LaunchArgs &a) const override {
    auto at = [&](int slot, size_t i) -> char * {
      return slot < 0 ? nullptr : static_cast<char *>(a.addrs[slot]) + off_[i];
    };
    const void *scale[2] = {at(aq_[0], 8), at(aq_[2], 10)}, *offset[2] = {at(aq_[1], 9), at(aq_[3], 11)};
    return kernels::flash_attention_run(plan_, at(q_, 0), at(k_, 1), at(v_, 2), at(mask_, 3), at(pse_, 4),
                                        at(out_, 5), reinterpret_cast<float *>(at(lse_, 6)),
                                        reinterpret_cast<const int32_t *>(at(table_, 7)),
                                        plan_.workspace_bytes > 0 ? a.get(ws_) : nullptr, scale, offset);
  }

 private:
  kernels::AttnPlan plan_;
  int q_, k_, v_, mask_, pse_, out_, lse_, table_, aq_[4];
  core::WsKey ws_;
  std::vector<int64_t> off_;  // byte offsets of the views' first elements
};

class TriSolveStep : public core::Step {
 public:
  TriSolveStep(kernels::TriSolvePlan plan, int a, int b, int x, int m, core::WsKey ws, std::vector<int64_t> off)
      : plan_(std::move(plan)), a_(a), b_(b), x_(x), m_(m), ws_(ws), off_(std::move(off)) {}
  int run(const core::LaunchArgs &la) const override {
    auto at = [&](int slot, size_t i) -> char * { return static_cast<char *>(la.addrs[slot]) + off_[i]; };
    kernels::trisolve_run(plan_, at(a_, 0), at(b_, 1), at(x_, 2), at(m_, 3),
                          plan_.workspace_bytes > 0 ? la.get(ws_) : nullptr);
    return 0;
  }

 private:
  kernels::TriSolvePlan plan_;
  int a_, b_, x_, m_;
  core::WsKey ws_;
  std::vector<int64_t> off_;
};

// torch.triangular_solve(self, A, upper, transpose, unitriangular) -> (xOut, mOut).
void trisolve_phase1(core::OpBuilder &b, const AttentionRule &rule, const AttentionCall &c) {
  core::check_tensor(c.self, c.self_name);
  core::check_tensor(c.a, c.a_name);
  core::check_tensor(c.x_out, c.x_out_name);
  core::check_tensor(c.m_out, c.m_out_name);
  core::check_dtype_in(c.self, c.self_name, rule.dtypes);
  for (auto [t, name] : {std::pair{c.a, c.a_name}, std::pair{c.x_out, c.x_out_name}, std::pair{c.m_out, c.m_out_name}})
    if (t->dtype != c.self->dtype)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; expected self's %s", name, core::dtype_name(t->dtype),
                  core::dtype_name(c.self->dtype));
  const aclTensor &B = *c.self, &A = *c.a;
  if (B.ndim < 2) throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have at least 2 dims, got shape %s", c.self_name, core::shape_string(B).c_str());
  if (A.ndim < 2) throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have at least 2 dims, got shape %s", c.a_name, core::shape_string(A).c_str());
  const int64_t m = A.dims[A.ndim - 1];
  if (A.dims[A.ndim - 2] != m)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be square in its last two dims, got shape %s", c.a_name,
                core::shape_string(A).c_str());
  if (B.dims[B.ndim - 2] != m)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %lld rows (shape %s); A is %lld x %lld", c.self_name,
                static_cast<long long>(B.dims[B.ndim - 2]), core::shape_string(B).c_str(), static_cast<long long>(m),
                static_cast<long long>(m));
  const int64_t k = B.dims[B.ndim - 1];
  // Broadcast batch dims (aligned from the right).
  const int nb = std::max(A.ndim, B.ndim) - 2;
  kernels::TriSolveDesc d;
  d.dtype = B.dtype;
  d.m = m;
  d.k = k;
  d.upper = c.upper;
  d.transpose = c.transpose;
  d.unit = c.unit;
  core::Shape xs, ms;
  xs.ndim = ms.ndim = nb + 2;
  for (int i = 0; i < nb; ++i) {
    const int ia = i - (nb - (A.ndim - 2)), ib = i - (nb - (B.ndim - 2));
    const int64_t da = ia >= 0 ? A.dims[ia] : 1, db = ib >= 0 ? B.dims[ib] : 1;
    if (da != db && da != 1 && db != 1)
      throw_error(ACLNN_ERR_PARAM_INVALID, "the batch dims of %s %s and %s %s do not broadcast", c.self_name,
                  core::shape_string(B).c_str(), c.a_name, core::shape_string(A).c_str());
    const int64_t n = da == 1 ? db : da;
    xs.dims[i] = ms.dims[i] = n;
    d.batch_dims.push_back(n);
    d.a_bs.push_back(ia >= 0 && da != 1 ? A.strides[ia] : 0);
    d.b_bs.push_back(ib >= 0 && db != 1 ? B.strides[ib] : 0);
  }
  xs.dims[nb] = m;
  xs.dims[nb + 1] = k;
  ms.dims[nb] = ms.dims[nb + 1] = m;
  core::check_shape_equals(*c.x_out, c.x_out_name, xs);
  core::check_shape_equals(*c.m_out, c.m_out_name, ms);
  for (int i = 0; i < nb; ++i) {
    d.x_bs.push_back(c.x_out->strides[i]);
    d.m_bs.push_back(c.m_out->strides[i]);
  }
  d.a_rs = A.strides[A.ndim - 2];
  d.a_cs = A.strides[A.ndim - 1];
  d.b_rs = B.strides[B.ndim - 2];
  d.b_cs = B.strides[B.ndim - 1];
  d.x_rs = c.x_out->strides[nb];
  d.x_cs = c.x_out->strides[nb + 1];
  d.mo_rs = c.m_out->strides[nb];
  d.mo_cs = c.m_out->strides[nb + 1];
  const int bs = b.input(c.self), as = b.input(c.a), xo = b.output(c.x_out), mo = b.output(c.m_out);
  if (c.x_out->numel() == 0 && c.m_out->numel() == 0) return;
  kernels::TriSolvePlan plan;
  kernels::trisolve_plan(d, &plan);
  core::WsKey ws{};
  if (plan.workspace_bytes > 0) ws = b.book("trisolve.columns", plan.workspace_bytes);
  auto off = [&](int slot) {
    const aclTensor &t = b.tensor(slot);
    return t.offset * static_cast<int64_t>(core::dtype_size(t.dtype));
  };
  b.add_step<TriSolveStep>(std::move(plan), as, bs, xo, mo, ws, std::vector<int64_t>{off(as), off(bs), off(xo), off(mo)});
}

class MaskedSoftmaxStep : public core::Step {
 public:
  MaskedSoftmaxStep(kernels::MaskedSoftmaxPlan plan, int in, int in2, int mask, int out, core::WsKey ws,
                    std::vector<int64_t> off)
      : plan_(std::move(plan)), in_(in), in2_(in2), mask_(mask), out_(out), ws_(ws), off_(std::move(off)) {}
  int run(const core::LaunchArgs &la) const override {
    auto at = [&](int slot, size_t i) -> char * {
      return slot < 0 ? nullptr : static_cast<char *>(la.addrs[slot]) + off_[i];
    };
    kernels::masked_softmax_run(plan_, at(in_, 0), at(in2_, 1), at(mask_, 2), at(out_, 3),
                                plan_.workspace_bytes > 0 ? la.get(ws_) : nullptr);
    return 0;
  }

 private:
  kernels::MaskedSoftmaxPlan plan_;
  int in_, in2_, mask_, out_;
  core::WsKey ws_;
  std::vector<int64_t> off_;
};

// ScaledMaskedSoftmax (x, mask, scale, fixedTriuMask, y) and its backward (gradOutput, y, mask,
// scale, fixTriuMask, out).
void masked_softmax_phase1(core::OpBuilder &b, const AttentionRule &rule, const AttentionCall &c) {
  const bool bwd = c.backward;
  const aclTensor *in = bwd ? c.grad : c.x;
  const char *in_name = bwd ? c.grad_name : c.x_name;
  const aclTensor *out = bwd ? c.out : c.y;
  const char *out_name = bwd ? c.out_name : c.y_name;
  core::check_tensor(in, in_name);
  if (bwd) core::check_tensor(c.y, c.y_name);
  core::check_tensor(out, out_name);
  core::check_dtype_in(in, in_name, rule.dtypes);
  const std::vector<std::pair<const aclTensor *, const char *>> same =
      bwd ? std::vector<std::pair<const aclTensor *, const char *>>{{c.y, c.y_name}, {out, out_name}}
          : std::vector<std::pair<const aclTensor *, const char *>>{{out, out_name}};
  for (auto [t, name] : same)
    if (t->dtype != in->dtype)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; expected %s's %s", name, core::dtype_name(t->dtype),
                  in_name, core::dtype_name(in->dtype));
  if (in->ndim != 4)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be 4-D [B, N, S1, S2], got shape %s", in_name,
                core::shape_string(*in).c_str());
  const core::Shape shape = core::Shape::of(*in);
  if (bwd) core::check_shape_equals(*c.y, c.y_name, shape);
  core::check_shape_equals(*out, out_name, shape);
  if (!std::isfinite(c.scale)) throw_error(ACLNN_ERR_PARAM_INVALID, "scale must be finite, got %g", c.scale);
  kernels::MaskedSoftmaxDesc d;
  d.backward = bwd;
  for (int i = 0; i < 4; ++i) {
    d.dims[i] = in->dims[i];
    d.in.st[i] = in->strides[i];
    d.out.st[i] = out->strides[i];
    if (bwd) d.in2.st[i] = c.y->strides[i];
  }
  d.in.dtype = in->dtype;
  d.out.dtype = out->dtype;
  if (bwd) d.in2.dtype = c.y->dtype;
  d.scale = static_cast<float>(c.scale);
  d.triu = c.triu;
  if (c.mask != nullptr && !c.triu) {
    core::check_dtype_in(c.mask, c.mask_name, {ACL_BOOL});
    const aclTensor &m = *c.mask;
    bool ok = m.ndim == 4 && m.dims[2] == d.dims[2] && m.dims[3] == d.dims[3];
    for (int i = 0; ok && i < 2; ++i) ok = m.dims[i] == d.dims[i] || m.dims[i] == 1;
    if (!ok)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected [B|1, N|1, S1, S2] broadcasting to %s",
                  c.mask_name, core::shape_string(m).c_str(), shape.str().c_str());
    d.has_mask = true;
    d.mask.dtype = ACL_BOOL;
    for (int i = 0; i < 4; ++i) d.mask.st[i] = m.dims[i] == 1 && i < 2 ? 0 : m.strides[i];
  }
  int s_in, s_y = -1;
  if (bwd) {
    s_in = b.input(in);
    s_y = b.input(c.y);
  } else {
    s_in = b.input(in);
  }
  const int s_mask = b.input(c.mask);
  const int s_out = b.output(out);
  if (out->numel() == 0) return;
  kernels::MaskedSoftmaxPlan plan;
  kernels::masked_softmax_plan(d, &plan);
  core::WsKey ws{};
  if (plan.workspace_bytes > 0) ws = b.book("masked_softmax.rows", plan.workspace_bytes);
  auto off = [&](int slot) -> int64_t {
    if (slot < 0) return 0;
    const aclTensor &t = b.tensor(slot);
    return t.offset * static_cast<int64_t>(core::dtype_size(t.dtype));
  };
  b.add_step<MaskedSoftmaxStep>(std::move(plan), s_in, s_y, d.has_mask ? s_mask : -1, s_out, ws,
                                std::vector<int64_t>{off(s_in), off(s_y), off(s_mask), off(s_out)});
}

}  // namespace

void attention_phase1(core::OpBuilder &b, const AttentionRule &rule, AttentionCall &c) {
  if (rule.kind == AttentionKind::kTriSolve) return trisolve_phase1(b, rule, c);
  if (rule.kind == AttentionKind::kMaskedSoftmax) return masked_softmax_phase1(b, rule, c);
  // Presence, in prototype order.
  core::check_tensor(c.query, c.query_name);
  const aclTensor *key = single_tensor(c.key, c.key_list, c.key_name);
  const aclTensor *value = single_tensor(c.value, c.key_list, c.value_name);
  core::check_tensor(c.out, c.out_name);
  core::check_not_null(c.layout, "inputLayout");
  for (const Unsupported &u : c.unsupported)
    if (u.arg != nullptr && !u.handled)
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "%s is not supported on the CPU (quantisation, antiquant, padding and shared-prefix inputs are "
                  "refused); pass nullptr",
                  u.name);
  const bool want_lse = c.lse_flag;
  if (want_lse) core::check_tensor(c.lse, c.lse_name);

  // Dtypes.
  core::check_dtype_in(c.query, c.query_name, rule.dtypes);
  // INT8 key / value: the antiquant (fake-quantised KV cache) form, with antiquantScale.
  const bool separate = c.kaq_scale != nullptr || c.vaq_scale != nullptr;
  if (separate && c.aq_scale != nullptr)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s and %s are both given; pass the key / value scales in one form",
                c.aq_scale_name, c.kaq_scale != nullptr ? c.kaq_scale_name : c.vaq_scale_name);
  if (separate && (c.kaq_scale == nullptr || c.vaq_scale == nullptr))
    throw_error(ACLNN_ERR_PARAM_NULLPTR, "%s is given without %s", c.kaq_scale ? c.kaq_scale_name : c.vaq_scale_name,
                c.kaq_scale ? c.vaq_scale_name : c.kaq_scale_name);
  for (auto [o, sc, on, sn] : {std::tuple{c.kaq_offset, c.kaq_scale, c.kaq_offset_name, c.kaq_scale_name},
                               std::tuple{c.vaq_offset, c.vaq_scale, c.vaq_offset_name, c.vaq_scale_name}})
    if (o != nullptr && sc == nullptr) throw_error(ACLNN_ERR_PARAM_NULLPTR, "%s is given without %s", on, sn);
  if (separate && key->dtype != ACL_INT8)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is given but %s has dtype %s (antiquant takes an INT8 key / value)",
                c.kaq_scale_name, c.key_name, core::dtype_name(key->dtype));
  const bool kv_int8 = key->dtype == ACL_INT8 && (c.aq_scale != nullptr || separate);
  if (kv_int8 && value->dtype != ACL_INT8)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; an INT8 key needs an INT8 value", c.value_name,
                core::dtype_name(value->dtype));
  if (c.aq_scale != nullptr && key->dtype != ACL_INT8)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is given but %s has dtype %s (antiquant takes an INT8 key / value)",
                c.aq_scale_name, c.key_name, core::dtype_name(key->dtype));
  if (c.aq_offset != nullptr && c.aq_scale == nullptr)
    throw_error(ACLNN_ERR_PARAM_NULLPTR, "%s is given without %s", c.aq_offset_name, c.aq_scale_name);
  for (auto [t, name] : {std::pair{key, c.key_name}, std::pair{value, c.value_name}, std::pair{c.out, c.out_name}})
    if (t->dtype != c.query->dtype && !(kv_int8 && t != c.out))
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; expected the query's %s", name,
                  core::dtype_name(t->dtype), core::dtype_name(c.query->dtype));

  // Layout and heads.
  // The inputs' layout, and the output's (BNSD_BSND: BNSD in, BSND out).
  Layout layout, out_layout;
  const std::string ls = c.layout;
  if (ls == "BSH")
    layout = out_layout = Layout::kBSH;
  else if (ls == "BSND")
    layout = out_layout = Layout::kBSND;
  else if (ls == "BNSD")
    layout = out_layout = Layout::kBNSD;
  else if (ls == "BNSD_BSND")
    layout = Layout::kBNSD, out_layout = Layout::kBSND;
  else if (ls == "BSH_NBSD")
    layout = Layout::kBSH, out_layout = Layout::kNBSD;
  else if (ls == "BSND_NBSD")
    layout = Layout::kBSND, out_layout = Layout::kNBSD;
  else if (ls == "BNSD_NBSD")
    layout = Layout::kBNSD, out_layout = Layout::kNBSD;
  else if (ls == "TND")
    layout = out_layout = Layout::kTND;
  else if (ls == "NTD_TND")
    layout = Layout::kNTD, out_layout = Layout::kTND;
  else
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "inputLayout \"%s\" is not supported (BSH, BSND, BNSD, TND, BNSD_BSND, BSH_NBSD, BSND_NBSD, "
                "BNSD_NBSD or NTD_TND)",
                c.layout);
  const bool varlen = layout == Layout::kTND || layout == Layout::kNTD;
  if (c.num_heads <= 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "numHeads must be > 0, got %lld", static_cast<long long>(c.num_heads));
  const int64_t kv_heads = c.num_kv_heads == 0 ? c.num_heads : c.num_kv_heads;
  if (kv_heads < 0 || c.num_heads % kv_heads != 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "numKeyValueHeads %lld must be 0 or divide numHeads %lld",
                static_cast<long long>(c.num_kv_heads), static_cast<long long>(c.num_heads));

  kernels::AttnDesc d;
  Dims q = read_layout(*c.query, c.query_name, layout, c.num_heads, &d.q);
  const Dims q_packed = q;  // TND / NTD: the T rows as one sequence
  const bool paged = c.block_table != nullptr;
  if (varlen && paged)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s (paged KV) is not supported with the packed layout %s", c.block_table_name,
                c.layout);
  Dims k{};
  if (paged) {
    // Paged KV: the cache is [blocks, blockSize, Nkv * D] or [blocks, Nkv, blockSize, D]; the table
    // INT32 [B, max blocks per sequence]; the logical KV length is max blocks * blockSize.
    core::check_dtype_in(c.block_table, c.block_table_name, {ACL_INT32});
    const aclTensor &t = *c.block_table;
    if (t.ndim != 2 || t.dims[0] != c.query->dims[0])
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be [B, max blocks] with B = %lld, got shape %s",
                  c.block_table_name, static_cast<long long>(c.query->dims[0]), core::shape_string(t).c_str());
    if (c.block_size <= 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "blockSize must be > 0 with %s, got %lld", c.block_table_name,
                  static_cast<long long>(c.block_size));
    if (c.act_kv == nullptr)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s is required with %s (paged KV)", c.act_kv_name, c.block_table_name);
    const aclTensor &kc = *key;
    const int64_t bs = c.block_size;
    if (kc.ndim == 3 && kc.dims[1] == bs && kc.dims[2] % kv_heads == 0) {
      const int64_t dd = kc.dims[2] / kv_heads;
      d.k = {kc.dtype, kc.strides[0], dd * kc.strides[2], kc.strides[1], kc.strides[2]};
      k = {kc.dims[0], kv_heads, t.dims[1] * bs, dd};
    } else if (kc.ndim == 4 && kc.dims[1] == kv_heads && kc.dims[2] == bs) {
      d.k = {kc.dtype, kc.strides[0], kc.strides[1], kc.strides[2], kc.strides[3]};
      k = {kc.dims[0], kv_heads, t.dims[1] * bs, kc.dims[3]};
    } else {
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "%s (paged cache) has shape %s; expected [blocks, %lld, %lld * D] or [blocks, %lld, %lld, D]",
                  c.key_name, core::shape_string(kc).c_str(), static_cast<long long>(bs),
                  static_cast<long long>(kv_heads), static_cast<long long>(kv_heads), static_cast<long long>(bs));
    }
    const aclTensor &vc = *value;
    d.v = vc.ndim == 3 ? AttnOperand{vc.dtype, vc.strides[0], k.d * vc.strides[2], vc.strides[1], vc.strides[2]}
                       : AttnOperand{vc.dtype, vc.strides[0], vc.strides[1], vc.strides[2], vc.strides[3]};
    d.paged = true;
    d.block_size = bs;
    d.num_blocks = kc.dims[0];
    d.table_b = t.strides[0];
    d.table_c = t.strides[1];
    if (k.d != q.d)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s (paged cache) of shape %s has head dim %lld; the query's is %lld",
                  c.key_name, core::shape_string(kc).c_str(), static_cast<long long>(k.d),
                  static_cast<long long>(q.d));
  } else {
    k = read_layout(*key, c.key_name, layout, kv_heads, &d.k);
    read_layout(*value, c.value_name, layout, kv_heads, &d.v);
  }
  if (varlen) {  // split the packed rows into batches
    d.q_len = cumulative_lengths(c.act_q, c.act_q_name, q.s, &d.q_start);
    d.kv_len = cumulative_lengths(c.act_kv, c.act_kv_name, k.s, &d.kv_start);
    if (d.q_len.size() != d.kv_len.size())
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %zu batches; %s has %zu", c.act_kv_name, d.kv_len.size(),
                  c.act_q_name, d.q_len.size());
    d.varlen = true;
    q.b = k.b = static_cast<int64_t>(d.q_len.size());
    q.s = *std::max_element(d.q_len.begin(), d.q_len.end());
    k.s = *std::max_element(d.kv_len.begin(), d.kv_len.end());
  }
  core::Shape want_out = core::Shape::of(*c.query);
  if (out_layout == Layout::kBSND) want_out = core::Shape{4, {q.b, q.s, q.n, q.d}};  // BNSD_BSND
  if (out_layout == Layout::kNBSD) want_out = core::Shape{4, {q.n, q.b, q.s, q.d}};  // *_NBSD
  if (out_layout == Layout::kTND && layout == Layout::kNTD) want_out = core::Shape{3, {q_packed.s, q.n, q.d}};
  if (!(core::Shape::of(*c.out) == want_out))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected %s", c.out_name,
                core::shape_string(*c.out).c_str(), want_out.str().c_str());
  read_layout(*c.out, c.out_name, out_layout, c.num_heads, &d.out);
  if (!paged && (k.b != q.b || k.d != q.d))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s of shape %s does not match the query %s (batch %lld, head dim %lld)",
                c.key_name, core::shape_string(*key).c_str(), core::shape_string(*c.query).c_str(),
                static_cast<long long>(q.b), static_cast<long long>(q.d));
  if (!(core::Shape::of(*value) == core::Shape::of(*key)))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected the key's %s", c.value_name,
                core::shape_string(*value).c_str(), core::shape_string(*key).c_str());
  d.batch = q.b;
  d.heads = q.n;
  d.kv_heads = kv_heads;
  d.sq = q.s;
  d.skv = k.s;
  d.dim = q.d;

  int64_t aq_value_bytes = 0;  // the combined form: the value half's byte offset in scale / offset
  if (kv_int8) {
    // The key's / value's scale (and offset: same dtype, shape and strides) in one of the forms.
    auto half = [&](const aclTensor *t, const aclTensor *off, const char *name, const char *off_name, int64_t mode,
                    const char *mode_name, bool combined, kernels::AttnDesc::Antiquant *aq) {
      if (mode != 0 && mode != 1)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be 0 (per channel) or 1 (per token), got %lld", mode_name,
                    static_cast<long long>(mode));
      core::check_dtype_in(t, name, {ACL_FLOAT16, ACL_BF16, ACL_FLOAT});
      if (off != nullptr) {
        core::check_dtype_in(off, off_name, {t->dtype});
        if (!(core::Shape::of(*off) == core::Shape::of(*t)) || !std::equal(t->strides, t->strides + t->ndim, off->strides))
          throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have %s's shape %s and strides", off_name, name,
                      core::shape_string(*t).c_str());
      }
      aq->per_token = mode == 1;
      aq->has_offset = off != nullptr;
      aq->dtype = t->dtype;
      // Leading dims: [2, ...] in the combined form; none or one 1 in the separate form.
      auto fits = [&](int lead) {
        const int nd = t->ndim - lead;
        const int64_t *dm = t->dims + lead, *st = t->strides + lead;
        if (aq->per_token) {
          if (nd != 2 || dm[0] != q.b || dm[1] != k.s) return false;
          aq->a = st[0], aq->c = st[1];
        } else if (nd == 1) {
          if (dm[0] != kv_heads * k.d) return false;
          aq->a = k.d * st[0], aq->c = st[0];
        } else if (nd == 2) {
          if (dm[0] != kv_heads || dm[1] != k.d) return false;
          aq->a = st[0], aq->c = st[1];
        } else {
          if (nd != 3 || dm[0] != kv_heads || dm[1] != 1 || dm[2] != k.d) return false;
          aq->a = st[0], aq->c = st[2];
        }
        return true;
      };
      const bool ok = combined ? t->ndim >= 2 && t->dims[0] == 2 && fits(1)
                               : fits(0) || (t->ndim >= 2 && t->dims[0] == 1 && fits(1));
      const std::string lead = combined ? "2, " : "";
      if (!ok)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; %s %lld takes %s", name, core::shape_string(*t).c_str(),
                    mode_name, static_cast<long long>(mode),
                    aq->per_token ? ("[" + lead + "B, Skv] = [" + lead + std::to_string(q.b) + ", " + std::to_string(k.s) + "]").c_str()
                                  : ("[" + lead + "Nkv * D], [" + lead + "Nkv, D] or [" + lead + "Nkv, 1, D] with Nkv = " +
                                     std::to_string(kv_heads) + ", D = " + std::to_string(k.d)).c_str());
    };
    d.kv_int8 = true;
    if (!separate) {  // one scale / offset, first dim 2: key (0) and value (1)
      half(c.aq_scale, c.aq_offset, c.aq_scale_name, c.aq_offset_name, c.aq_mode, "antiquantMode", true, &d.aq[0]);
      d.aq[1] = d.aq[0];
      aq_value_bytes = c.aq_scale->strides[0] * static_cast<int64_t>(core::dtype_size(c.aq_scale->dtype));
    } else {
      half(c.kaq_scale, c.kaq_offset, c.kaq_scale_name, c.kaq_offset_name, c.kaq_mode, "keyAntiquantMode", false, &d.aq[0]);
      half(c.vaq_scale, c.vaq_offset, c.vaq_scale_name, c.vaq_offset_name, c.vaq_mode, "valueAntiquantMode", false,
           &d.aq[1]);
    }
    if (k.d > 1024)
      throw_error(ACLNN_ERR_PARAM_INVALID, "head dim %lld > 1024 is not supported with an INT8 key / value",
                  static_cast<long long>(k.d));
  }

  // Scalars.
  if (!std::isfinite(c.scale))
    throw_error(ACLNN_ERR_PARAM_INVALID, "scaleValue must be finite, got %g", c.scale);
  d.scale = static_cast<float>(c.scale);
  if (c.sparse_mode < 0 || c.sparse_mode > 4)
    throw_error(ACLNN_ERR_PARAM_INVALID, "sparseMode must be 0..4, got %lld", static_cast<long long>(c.sparse_mode));
  if (c.inner_precise < 0 || c.inner_precise > 3)
    throw_error(ACLNN_ERR_PARAM_INVALID, "innerPrecise must be 0..3, got %lld",
                static_cast<long long>(c.inner_precise));
  d.sparse = static_cast<kernels::AttnSparse>(c.sparse_mode);
  constexpr int64_t kFar = int64_t{1} << 40;
  d.pre_tokens = std::clamp<int64_t>(c.pre_tokens, -kFar, kFar);
  d.next_tokens = std::clamp<int64_t>(c.next_tokens, -kFar, kFar);
  d.band = !(rule.decode && q.s == 1);
  if ((d.sparse == kernels::AttnSparse::kDefault && d.band) || d.sparse == kernels::AttnSparse::kBand) {
    if (d.pre_tokens + d.next_tokens < 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "preTokens %lld + nextTokens %lld < 0: the window is empty",
                  static_cast<long long>(c.pre_tokens), static_cast<long long>(c.next_tokens));
  }
  if (!varlen) {
    d.q_len = actual_lengths(c.act_q, c.act_q_name, q.b, q.s);
    d.kv_len = actual_lengths(c.act_kv, c.act_kv_name, q.b, k.s);
  }

  // Mask (sparse modes 0 and 1; modes 2-4 take the vendor's compressed causal mask, whose content
  // the pattern determines: it is not read) and pse.
  const bool mask_used = c.mask != nullptr && (d.sparse == kernels::AttnSparse::kDefault ||
                                               d.sparse == kernels::AttnSparse::kAllMask);
  if (c.mask != nullptr) {
    core::check_dtype_in(c.mask, c.mask_name, {ACL_BOOL, ACL_INT8, ACL_UINT8});
    if (mask_used) {
      d.has_mask = true;
      d.mask = broadcast_view(*c.mask, c.mask_name, q, k.s, false);
    }
  }
  if (c.pse != nullptr) {
    core::check_dtype_in(c.pse, c.pse_name, {ACL_FLOAT16, ACL_BF16, ACL_FLOAT});
    d.has_pse = true;
    d.pse = broadcast_view(*c.pse, c.pse_name, q, k.s, true);
  }
  if (want_lse) {
    core::check_dtype_in(c.lse, c.lse_name, {ACL_FLOAT});
    const core::Shape want = varlen ? core::Shape{3, {q_packed.s, q.n, 1}} : core::Shape{4, {q.b, q.n, q.s, 1}};
    if (!(core::Shape::of(*c.lse) == want))
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected %s", c.lse_name,
                  core::shape_string(*c.lse).c_str(), want.str().c_str());
    d.has_lse = true;
    d.lse = varlen ? AttnOperand{ACL_FLOAT, 0, c.lse->strides[1], c.lse->strides[0], 0}
                   : AttnOperand{ACL_FLOAT, c.lse->strides[0], c.lse->strides[1], c.lse->strides[2], 0};
  }

  // Registration, in prototype order (inputs, then outputs).
  const int qs = b.input(c.query);
  int ks, vs;
  if (c.key_list) {
    ks = b.input_list(1, static_cast<const aclTensorList *>(c.key))[0];
    vs = b.input_list(2, static_cast<const aclTensorList *>(c.value))[0];
  } else {
    ks = b.input(key);
    vs = b.input(value);
  }
  const int ps = b.input(c.pse);
  const int ms = b.input(c.mask);
  int table_slot = -1;
  int aq_slots[4] = {-1, -1, -1, -1};  // key scale, key offset, value scale, value offset
  const aclTensor *aq_args[4] = {separate ? c.kaq_scale : c.aq_scale, separate ? c.kaq_offset : c.aq_offset,
                                 separate ? c.vaq_scale : c.aq_scale, separate ? c.vaq_offset : c.aq_offset};
  for (const Unsupported &u : c.unsupported)
    if (u.tensor) {
      const int slot = b.input(u.handled ? static_cast<const aclTensor *>(u.arg) : nullptr);
      if (u.handled && u.arg == c.block_table) table_slot = slot;
      for (int i = 0; i < 4 && kv_int8; ++i)
        if (u.handled && u.arg != nullptr && u.arg == aq_args[i]) aq_slots[i] = slot;
    }
  const int os = b.output(c.out);
  int lse_slot = -1;
  if (c.lse != nullptr || want_lse) lse_slot = b.output(c.lse);
  if (!want_lse) lse_slot = -1;
  if (c.out->numel() == 0) return;

  kernels::AttnPlan plan;
  if (!kernels::flash_attention_plan(d, &plan)) throw_error(last_error_code(), "%s", last_error_message());
  core::WsKey ws{};
  if (plan.workspace_bytes > 0) ws = b.book("attention.scratch", plan.workspace_bytes);
  auto off = [&](int slot) -> int64_t {
    if (slot < 0) return 0;
    const aclTensor &t = b.tensor(slot);
    return t.offset * static_cast<int64_t>(core::dtype_size(t.dtype));
  };
  b.add_step<AttentionStep>(
      std::move(plan), qs, ks, vs, mask_used ? ms : -1, ps, os, lse_slot, table_slot, aq_slots, ws,
      std::vector<int64_t>{off(qs), off(ks), off(vs), off(ms), off(ps), off(os), off(lse_slot), off(table_slot),
                           off(aq_slots[0]), off(aq_slots[1]), off(aq_slots[2]) + aq_value_bytes,
                           off(aq_slots[3]) + aq_value_bytes});
}

}  // namespace opsnn::ops
