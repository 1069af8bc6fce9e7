#include "ops/matmul/gmm_phase1.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "common/error.h"
#include "core/op_checks.h"
#include "kernels/elementwise/convert.h"
#include "kernels/matmul/gemm.h"
#include "ops/matmul/gmm_common.h"
#include "ops/matmul/gmm_int8_step.h"

namespace opsnn::ops {
namespace {

using kernels::GemmDesc;
using kernels::GemmOperand;
using kernels::GemmPlan;

// One group's operands: the byte offsets are added to the slot's view base at launch.
struct GmmGroup {
  int plan = 0;  // the split form: the first plan of the group's ladder
  core::OperandRef x, w, bias, y;  // bias.slot < 0: none
  // The antiquant form: the weight's K, N and byte strides, the scale / offset vectors (offset.slot < 0: none).
  int64_t k = 0, n = 0, w_rs = 0, w_cs = 0;
  core::OperandRef scale, offset;
  int64_t scale_stride = 0, offset_stride = 0;
};

class GmmStep : public core::Step {
 public:
  std::vector<GemmPlan> plans;
  std::vector<GmmGroup> groups;
  core::WsKey ws;
  bool has_ws = false;
  // The split form: x [M, K] and y [M, N] split along M by the cumulative group list.
  bool split = false;
  // The split form's plans per group: one per row count of the ladder (4, 16, 64, ... M), the
  // smallest that covers a group's rows runs it (gemm_run_rows), so a small group takes the
  // small-M paths a plan for all M rows would not.
  std::vector<int64_t> ladder;
  core::OperandRef group_list;
  core::WsKey ends_ws;  // the group ends as checked: the groups run from this copy
  int64_t gl_stride = 1, total_m = 0, n = 0;
  int64_t x_row_bytes = 0, y_row_bytes = 0, y_col_bytes = 0;  // byte strides of a row of x / y, a column of y
  size_t y_esize = 0;

  // The antiquant form: each group's INT8 weight is dequantised into an fp32 [K, N] block before its GEMM.
  bool antiquant = false;
  core::WsKey deq_ws;
  aclDataType aq_dtype = ACL_FLOAT;

  // The weight operand of group g: the view, or its dequantised copy.
  const char *weight(const GmmGroup &g, const core::LaunchArgs &a) const {
    const char *w = g.w.address(a);
    if (!antiquant) return w;
    float *deq = reinterpret_cast<float *>(a.get(deq_ws)), *scale = deq + g.k * g.n, *offset = scale + g.n;
    const int64_t es = static_cast<int64_t>(core::dtype_size(aq_dtype));
    kernels::load_as<float>(aq_dtype, g.scale.address(a), g.scale_stride * es, scale, g.n);
    if (g.offset.slot >= 0)
      kernels::load_as<float>(aq_dtype, g.offset.address(a), g.offset_stride * es, offset, g.n);
    else
      std::fill(offset, offset + g.n, 0.0f);
    for (int64_t p = 0; p < g.k; ++p) {
      float *row = deq + p * g.n;
      kernels::load_as<float>(ACL_INT8, w + p * g.w_rs, g.w_cs, row, g.n);
      for (int64_t j = 0; j < g.n; ++j) row[j] = (row[j] + offset[j]) * scale[j];
    }
    return reinterpret_cast<const char *>(deq);
  }

  int run(const core::LaunchArgs &a) const override {
    void *work = has_ws ? a.get(ws) : nullptr;
    auto at = [&](const core::OperandRef &r) -> char * { return r.slot >= 0 ? r.address(a) : nullptr; };
    if (!split) {
      for (const GmmGroup &g : groups)
        kernels::gemm_run(plans[static_cast<size_t>(g.plan)], at(g.x), weight(g, a), at(g.y), work, at(g.bias));
      return 0;
    }
    // Every group end checked before anything is written.
    int64_t *ends = reinterpret_cast<int64_t *>(a.get(ends_ws));
    const int rc = gmm_read_group_ends(reinterpret_cast<const int64_t *>(at(group_list)), gl_stride, groups.size(),
                                       total_m, "rows", ends);
    if (rc != 0) return rc;
    int64_t start = 0;
    for (size_t g = 0; g < groups.size(); ++g) {
      const GmmGroup &gr = groups[g];
      const int64_t end = ends[g], rows = end - start;
      size_t step = 0;
      while (ladder[step] < rows) ++step;  // the last rung is M >= rows
      if (rows > 0)
        kernels::gemm_run_rows(plans[static_cast<size_t>(gr.plan) + step], rows, at(gr.x) + start * x_row_bytes, weight(gr, a),
                               at(gr.y) + start * y_row_bytes, work, at(gr.bias));
      start = end;
    }
    // Rows after the last group belong to none: zero.
    gmm_zero_rows(at(groups[0].y), start, total_m, n, y_row_bytes, y_col_bytes, y_esize);
    return 0;
  }
};

std::string elem_name(const char *list, size_t i) { return std::string(list) + "[" + std::to_string(i) + "]"; }

const aclTensor *list_elem(const aclTensorList *l, size_t i, const char *name) {
  const aclTensor *t = l->tensors[i];
  // UINT64 is no dtype OpsNN computes with, but the int8 form's scale words are (their caller checks dtypes).
  if (t != nullptr && t->dtype == ACL_UINT64) return t;
  core::check_tensor(t, elem_name(name, i).c_str());
  return t;
}

// The row stride of a view whose leading dims (all but the last) merge into one row dim; 161002 otherwise.
int64_t merged_row_stride(const aclTensor &t, const std::string &name, int64_t *rows) {
  *rows = 1;
  std::vector<int> lead;  // the leading dims of size > 1
  for (int i = 0; i + 1 < t.ndim; ++i) {
    *rows *= t.dims[i];
    if (t.dims[i] != 1) lead.push_back(i);
  }
  if (lead.empty()) return t.strides[t.ndim - 2];
  for (size_t q = 0; q + 1 < lead.size() && *rows > 0; ++q)
    if (t.strides[lead[q]] != t.strides[lead[q + 1]] * t.dims[lead[q + 1]])
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s of shape %s: its leading dims do not merge into one row dim (dim %d's stride %lld)",
                  name.c_str(), core::shape_string(t).c_str(), lead[q], static_cast<long long>(t.strides[lead[q]]));
  return t.strides[lead.back()];
}

// A group's weight view [K, N]; off: elements from the view base (a [G, K, N] tensor's group).
struct WView {
  const aclTensor *t;
  int64_t k, n, rs, cs, off;
};

// A group's vector [N] (bias, antiquant scale or offset); t null: none.
struct VView {
  const aclTensor *t = nullptr;
  int64_t cs = 0, off = 0;
};

// Per-group vectors [N]: one tensor per group, or one [G, N] tensor beside a [G, K, N] weight; a null
// list gives none.
std::vector<VView> group_vectors(const aclTensorList *l, const char *list_name, const std::vector<WView> &wv,
                                 bool w_single) {
  const size_t G = wv.size();
  std::vector<VView> v(G);
  if (l == nullptr) return v;
  const bool single = l->tensors.size() == 1 && l->tensors[0]->ndim == 2;
  if (l->tensors.size() != G && !(w_single && single))  // one [G, N] tensor only beside a [G, K, N] weight
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s holds %zu tensors; expected one per group (%zu)", list_name,
                l->tensors.size(), G);
  for (size_t g = 0; g < G; ++g) {
    const aclTensor &t = *list_elem(l, single ? 0 : g, list_name);
    const std::string name = elem_name(list_name, single ? 0 : g);
    if (single ? !(t.dims[0] == static_cast<int64_t>(G) && t.dims[1] == wv[g].n) : !(t.ndim == 1 && t.dims[0] == wv[g].n))
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected %s", name.c_str(), core::shape_string(t).c_str(),
                  single ? ("[" + std::to_string(G) + ", " + std::to_string(wv[g].n) + "]").c_str()
                         : ("[" + std::to_string(wv[g].n) + "]").c_str());
    v[g] = {&t, t.strides[t.ndim - 1], single ? static_cast<int64_t>(g) * t.strides[0] : 0};
  }
  return v;
}

core::OperandRef ref_at(const aclTensor &view, int slot, int64_t elems) {
  core::OperandRef r = core::OperandRef::of_slot(slot, view);
  r.offset_bytes += elems * static_cast<int64_t>(core::dtype_size(view.dtype));
  return r;
}

// A group's rows of x or y: m rows of k columns, element strides, off: elements from the view base.
struct RView {
  int64_t m, k, rs, cs, off;
};

// The int8 quantised form's dtypes (x and weight INT8 are checked by the caller): y and scale of the row's
// int8_y / int8_scale (one dtype per list), bias INT32, offset FLOAT and only with an INT8 y; groupType -1 / 0.
void int8_dtypes(const GmmRule &rule, const GmmCall &c) {
  auto one_dtype = [](const aclTensorList *l, const char *name, core::DtypeMask allowed) {
    for (size_t i = 0; l != nullptr && i < l->tensors.size(); ++i) {
      const aclTensor *t = list_elem(l, i, name);
      core::check_dtype_in(t, elem_name(name, i).c_str(), allowed);
      if (t->dtype != l->tensors[0]->dtype)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; expected %s's %s", elem_name(name, i).c_str(),
                    core::dtype_name(t->dtype), elem_name(name, 0).c_str(), core::dtype_name(l->tensors[0]->dtype));
    }
  };
  using core::dtype_bit;
  one_dtype(c.y, c.y_name, rule.int8_y);
  one_dtype(c.bias, c.bias_name, dtype_bit(ACL_INT32));
  one_dtype(c.scale, c.scale_name, rule.int8_scale);
  one_dtype(c.offset, c.offset_name, dtype_bit(ACL_FLOAT));
  const aclDataType ydt = list_elem(c.y, 0, c.y_name)->dtype;
  if (c.offset != nullptr && ydt != ACL_INT8)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s needs an INT8 y (it offsets the requantised value), got y of dtype %s",
                c.offset_name, core::dtype_name(ydt));
  if (c.group_type == 2)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s (the int8 quantised form) takes groupType -1 or 0, got 2", c.scale_name);
}

// The registered slots of the lists, in prototype order.
struct Int8Slots {
  const std::vector<int> &x, &w, &y, &bias, &scale, &offset;
  int group_list;
};
// The per-group [N] vectors of the int8 form.
struct Int8Vectors {
  const std::vector<VView> &bias, &scale, &offset;
};

// The int8 form's step: per group an int8 GEMM plan (the split form: a ladder of row counts, see
// GmmInt8Step), its vectors' views; the groups run one after another in one workspace block.
void plan_int8(core::OpBuilder &b, const GmmCall &c, bool split, bool w_single, int64_t total_m,
               const std::vector<RView> &xv, const std::vector<RView> &yv, const std::vector<WView> &wv,
               const Int8Vectors &vec, const Int8Slots &slots) {
  GmmInt8Step *st = &b.add_step<GmmInt8Step>();
  const size_t G = wv.size();
  if (split) {
    for (int64_t m = 1; m <= std::min<int64_t>(16, total_m); ++m) st->ladder.push_back(m);
    for (int64_t m = 32; m <= total_m; m *= 2) st->ladder.push_back(m);
  }
  size_t ws_bytes = 0;
  for (size_t g = 0; g < G; ++g) {
    GmmInt8Group gr;
    gr.m = xv[g].m;
    gr.n = wv[g].n;
    if (wv[g].k > 0 && wv[g].n > 0 && (split || gr.m > 0)) {
      if (split && w_single && g > 0 && st->groups[0].plan >= 0) {
        gr.plan = st->groups[0].plan;  // one weight view per group, same shape: the same ladder
      } else {
        gr.plan = static_cast<int>(st->plans.size());
        kernels::IgemmDesc d;
        d.n = wv[g].n;
        d.k = wv[g].k;
        d.a_row = xv[g].rs;
        d.a_col = xv[g].cs;
        d.b_row = wv[g].rs;
        d.b_col = wv[g].cs;
        for (int64_t m : split ? st->ladder : std::vector<int64_t>{gr.m}) {
          d.m = m;
          kernels::IgemmPlan plan;
          if (!kernels::igemm_plan(d, &plan)) throw_error(last_error_code(), "%s", last_error_message());
          ws_bytes = std::max(ws_bytes, plan.workspace_bytes);
          st->plans.push_back(plan);
        }
      }
    }
    const int xslot = slots.x[split ? 0 : g], wslot = slots.w[w_single ? 0 : g], yslot = slots.y[c.split_item >= 2 ? 0 : g];
    gr.x = ref_at(b.tensor(xslot), xslot, xv[g].off);
    gr.w = ref_at(b.tensor(wslot), wslot, wv[g].off);
    gr.y = ref_at(b.tensor(yslot), yslot, yv[g].off);
    gr.x_row = xv[g].rs;
    gr.y_row = yv[g].rs;
    gr.y_col = yv[g].cs;
    auto vector_ref = [&](const VView &v, const std::vector<int> &vslots, const aclTensorList *l, core::OperandRef *r,
                          int64_t *stride) {
      if (v.t == nullptr) return;
      const int s = vslots[l->tensors.size() == 1 ? 0 : g];
      *r = ref_at(b.tensor(s), s, v.off);
      *stride = v.cs;
    };
    vector_ref(vec.bias[g], slots.bias, c.bias, &gr.bias, &gr.bias_stride);
    vector_ref(vec.scale[g], slots.scale, c.scale, &gr.scale, &gr.scale_stride);
    vector_ref(vec.offset[g], slots.offset, c.offset, &gr.offset, &gr.offset_stride);
    st->max_n = std::max(st->max_n, gr.n);
    st->groups.push_back(gr);
  }
  st->y_dtype = c.y->tensors[0]->dtype;
  st->scale_dtype = c.scale->tensors[0]->dtype;
  st->has_gemm_ws = ws_bytes > 0;
  if (ws_bytes > 0) st->ws_gemm = b.book("gmm.igemm", ws_bytes);
  // scale, offset (fp32), bias, zeros (int32): max_n each.
  st->ws_params = b.book("gmm.int8_params", static_cast<uint64_t>(std::max<int64_t>(st->max_n, 1)) * 16);
  if (split) {
    st->split = true;
    st->ws_ends = b.book("gmm.group_ends", G * sizeof(int64_t));
    st->group_list = core::OperandRef::of_slot(slots.group_list, b.tensor(slots.group_list));
    st->gl_stride = c.group_list->strides[0];
    st->total_m = total_m;
  }
}

// groupType 2 (K grouping): x [M, K] and weight [K, N] split along K by the cumulative group list, y
// [G, M, N]; y_g = x[:, k0:k1] @ weight[k0:k1, :]. A group's K is data, so phase 1 plans GEMMs of K = 1, 2,
// 4, ... (each accumulating, beta = 1, into one fp32 [M, N] block) and a group runs the plans of the bits
// of its K, highest first, then rounds the block once into y[g].
class GmmKStep : public core::Step {
 public:
  std::vector<GemmPlan> plans;  // plans[i]: K = 2^i
  core::OperandRef x, w, y, group_list;
  core::WsKey ws, acc_ws, ends_ws;
  bool has_ws = false;
  int64_t groups = 0, m = 0, n = 0, k = 0, gl_stride = 1;
  int64_t x_col_bytes = 0, w_row_bytes = 0, y_bytes[3] = {};
  aclDataType dt = ACL_FLOAT;

  int run(const core::LaunchArgs &a) const override {
    int64_t *ends = reinterpret_cast<int64_t *>(a.get(ends_ws));
    const int rc = gmm_read_group_ends(reinterpret_cast<const int64_t *>(group_list.address(a)), gl_stride,
                                       static_cast<size_t>(groups), k, "K =", ends);
    if (rc != 0) return rc;
    float *acc = reinterpret_cast<float *>(a.get(acc_ws));
    void *work = has_ws ? a.get(ws) : nullptr;
    const char *xb = x.address(a), *wb = w.address(a);
    char *yb = y.address(a);
    int64_t k0 = 0;
    for (int64_t g = 0; g < groups; ++g) {
      std::fill(acc, acc + m * n, 0.0f);
      for (size_t i = plans.size(); i-- > 0;) {
        const int64_t r = int64_t{1} << i;
        if (((ends[g] - k0) & r) == 0) continue;
        kernels::gemm_run(plans[i], xb + k0 * x_col_bytes, wb + k0 * w_row_bytes, acc, work);
        k0 += r;
      }
      for (int64_t i = 0; i < m; ++i)
        kernels::store_from<float>(acc + i * n, dt, yb + g * y_bytes[0] + i * y_bytes[1], y_bytes[2], n);
      k0 = ends[g];
    }
    return 0;
  }
};

void gmm_k_grouped(core::OpBuilder &b, GmmCall &c, aclDataType dt) {
  if (c.split_item != 2 && c.split_item != 3)
    throw_error(ACLNN_ERR_PARAM_INVALID, "groupType 2 (K grouping) needs y as one tensor (splitItem 2 or 3), got splitItem %lld",
                static_cast<long long>(c.split_item));
  if (c.x->tensors.size() != 1 || c.weight->tensors.size() != 1 || c.y->tensors.size() != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "groupType 2 (K grouping) needs x, weight and y as one tensor each, got %zu, %zu and %zu",
                c.x->tensors.size(), c.weight->tensors.size(), c.y->tensors.size());
  if (c.bias != nullptr)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is not supported with groupType 2 (K grouping); pass nullptr", c.bias_name);
  const aclTensor &x = *c.x->tensors[0], &w = *c.weight->tensors[0], &y = *c.y->tensors[0];
  if (x.ndim != 2 || w.ndim != 2 || x.dims[1] != w.dims[0])
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "groupType 2 (K grouping) needs x[0] [M, K] and weight[0] [K, N], got shapes %s and %s",
                core::shape_string(x).c_str(), core::shape_string(w).c_str());
  core::check_not_null(c.group_list, c.group_list_name);
  core::check_dtype_in(c.group_list, c.group_list_name, {ACL_INT64});
  const aclTensor &gl = *c.group_list;
  if (gl.ndim != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be [G] (one cumulative K end per group), got shape %s", c.group_list_name,
                core::shape_string(gl).c_str());
  const int64_t G = gl.dims[0], M = x.dims[0], K = x.dims[1], N = w.dims[1];
  const core::Shape want{3, {G, M, N}};
  if (!(core::Shape::of(y) == want))
    throw_error(ACLNN_ERR_PARAM_INVALID, "y[0] has shape %s; groupType 2 (K grouping) needs [G, M, N] = %s",
                core::shape_string(y).c_str(), want.str().c_str());
  core::check_no_internal_overlap(y, "y[0]");
  // Registration, in prototype order.
  const int xs = b.input_list(0, c.x)[0], wsl = b.input_list(1, c.weight)[0];
  b.input_list(2, c.bias);
  const int gls = b.input(c.group_list);
  const int ys = b.output_list(0, c.y)[0];
  GmmKStep *st = &b.add_step<GmmKStep>();
  size_t ws_bytes = 0;
  for (int64_t r = 1; r <= K && M > 0 && N > 0; r *= 2) {
    GemmDesc d;
    d.m = M;
    d.n = N;
    d.k = r;
    d.a = GemmOperand{dt, x.strides[0], x.strides[1], 0};
    d.b = GemmOperand{dt, w.strides[0], w.strides[1], 0};
    d.c = GemmOperand{ACL_FLOAT, N, 1, 0};
    d.beta = 1.0f;  // accumulate the group's K chunks
    GemmPlan plan;
    kernels::GemmOptions opt;
    opt.record = r == 1;
    if (!kernels::gemm_plan(d, &plan, opt)) throw_error(last_error_code(), "%s", last_error_message());
    ws_bytes = std::max(ws_bytes, plan.workspace_bytes);
    st->plans.push_back(std::move(plan));
  }
  st->has_ws = ws_bytes > 0;
  if (ws_bytes > 0) st->ws = b.book("gmm.gemm", ws_bytes);
  st->acc_ws = b.book("gmm.k_acc", static_cast<uint64_t>(std::max<int64_t>(M * N, 1)) * sizeof(float));
  st->ends_ws = b.book("gmm.group_ends", static_cast<uint64_t>(std::max<int64_t>(G, 1)) * sizeof(int64_t));
  st->x = core::OperandRef::of_slot(xs, b.tensor(xs));
  st->w = core::OperandRef::of_slot(wsl, b.tensor(wsl));
  st->y = core::OperandRef::of_slot(ys, b.tensor(ys));
  st->group_list = core::OperandRef::of_slot(gls, b.tensor(gls));
  st->groups = G;
  st->m = M;
  st->n = N;
  st->k = K;
  st->gl_stride = gl.strides[0];
  st->dt = dt;
  const int64_t es = static_cast<int64_t>(core::dtype_size(dt));
  st->x_col_bytes = x.strides[1] * es;
  st->w_row_bytes = w.strides[0] * es;
  for (int d = 0; d < 3; ++d) st->y_bytes[d] = y.strides[d] * es;
}

}  // namespace

void gmm_phase1(core::OpBuilder &b, const GmmRule &rule, GmmCall &c) {
  // Presence, in prototype order.
  core::check_not_null(c.x, c.x_name);
  core::check_not_null(c.weight, c.weight_name);
  core::check_not_null(c.y, c.y_name);
  for (const GmmUnsupported &u : c.unsupported)
    if (u.arg != nullptr)
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "%s is not supported on the CPU; pass nullptr",
                  u.name);
  if (c.x->tensors.empty()) throw_error(ACLNN_ERR_PARAM_INVALID, "%s is an empty tensor list", c.x_name);
  if (c.weight->tensors.empty()) throw_error(ACLNN_ERR_PARAM_INVALID, "%s is an empty tensor list", c.weight_name);
  if (c.y->tensors.empty()) throw_error(ACLNN_ERR_PARAM_INVALID, "%s is an empty tensor list", c.y_name);
  if (c.group_type == 1)
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "groupType 1 (N grouping) is not supported (GroupedMatmulV3 documents -1, 0 (M) and 2 (K))");
  if (c.group_type != -1 && c.group_type != 0 && c.group_type != 2)
    throw_error(ACLNN_ERR_PARAM_INVALID, "groupType must be -1, 0, 1 or 2, got %lld",
                static_cast<long long>(c.group_type));
  if (c.split_item < 0 || c.split_item > 3)
    throw_error(ACLNN_ERR_PARAM_INVALID, "splitItem must be 0..3, got %lld", static_cast<long long>(c.split_item));
  const bool y_single = c.split_item >= 2;

  // Dtypes: one float dtype throughout, a bias in it or FLOAT; or the int8 form (int8_dtypes).
  const aclTensor *x0 = list_elem(c.x, 0, c.x_name);
  const bool quant = c.scale != nullptr;
  if (quant && rule.int8_y == 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s (the int8 quantised form) is not supported by this op; pass nullptr", c.scale_name);
  if (c.offset != nullptr && !quant)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is given without %s", c.offset_name, c.scale_name);
  if (quant && c.aq_scale != nullptr)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s (the int8 quantised form) and %s (the weight-quantised form) exclude each other",
                c.scale_name, c.aq_scale_name);
  core::check_dtype_in(x0, elem_name(c.x_name, 0).c_str(), quant ? core::dtype_bit(ACL_INT8) : rule.dtypes);
  const aclDataType dt = x0->dtype;
  auto same_dtype = [&](const aclTensorList *l, const char *name) {
    for (size_t i = 0; i < l->tensors.size(); ++i) {
      const aclTensor *t = list_elem(l, i, name);
      if (t->dtype != dt)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; expected x's %s", elem_name(name, i).c_str(),
                    core::dtype_name(t->dtype), core::dtype_name(dt));
    }
  };
  same_dtype(c.x, c.x_name);
  if (quant) {
    same_dtype(c.weight, c.weight_name);
    int8_dtypes(rule, c);
  }
  // The antiquant form: INT8 weights, scale / offset lists in x's dtype.
  const bool antiquant = c.aq_scale != nullptr;
  if (c.aq_offset != nullptr && !antiquant)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is given without %s", c.aq_offset_name, c.aq_scale_name);
  if (antiquant) {
    for (size_t i = 0; i < c.weight->tensors.size(); ++i)
      core::check_dtype_in(list_elem(c.weight, i, c.weight_name), elem_name(c.weight_name, i).c_str(), {ACL_INT8});
    for (const aclTensorList *l : {c.aq_scale, c.aq_offset})
      if (l != nullptr) {
        const char *name = l == c.aq_scale ? c.aq_scale_name : c.aq_offset_name;
        for (size_t i = 0; i < l->tensors.size(); ++i)
          core::check_dtype_in(list_elem(l, i, name), elem_name(name, i).c_str(), {dt});
      }
    if (c.group_type == 2)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s (the weight-quantised form) takes groupType -1 or 0, got 2",
                  c.aq_scale_name);
  } else if (!quant) {
    same_dtype(c.weight, c.weight_name);
  }
  if (!quant) same_dtype(c.y, c.y_name);
  if (c.group_type == 2) return gmm_k_grouped(b, c, dt);
  if (c.bias != nullptr && !quant)
    for (size_t i = 0; i < c.bias->tensors.size(); ++i) {
      const aclTensor *t = list_elem(c.bias, i, c.bias_name);
      if (t->dtype != dt && t->dtype != ACL_FLOAT)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; expected x's %s or FLOAT",
                    elem_name(c.bias_name, i).c_str(), core::dtype_name(t->dtype), core::dtype_name(dt));
    }

  // Groups: weight one tensor per group ([K, N]) or one [G, K, N] tensor.
  const aclTensor *w0 = c.weight->tensors[0];
  const bool w_single = c.weight->tensors.size() == 1 && w0->ndim == 3;
  const size_t G = w_single ? static_cast<size_t>(w0->dims[0]) : c.weight->tensors.size();
  if (!w_single)
    for (size_t i = 0; i < G; ++i)
      if (c.weight->tensors[i]->ndim != 2)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be [K, N] (or the list one [G, K, N] tensor), got shape %s",
                    elem_name(c.weight_name, i).c_str(), core::shape_string(*c.weight->tensors[i]).c_str());
  if (G == 0) throw_error(ACLNN_ERR_PARAM_INVALID, "%s holds no group (shape %s)", c.weight_name, core::shape_string(*w0).c_str());
  const size_t nx = c.x->tensors.size();
  const bool split = nx == 1 && (G > 1 || c.group_list != nullptr);
  if (split) {
    if (c.group_type != 0)
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "x holds one tensor for %zu groups: it is split along M by groupListOptional, which needs "
                  "groupType 0, got %lld",
                  G, static_cast<long long>(c.group_type));
    core::check_not_null(c.group_list, c.group_list_name);
    if (!y_single)
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "x split along M needs y as one tensor (splitItem 2 or 3), got splitItem %lld",
                  static_cast<long long>(c.split_item));
  } else {
    if (nx != G)
      throw_error(ACLNN_ERR_PARAM_INVALID, "x holds %zu tensors; expected one per group (%zu, as weight) or one", nx, G);
    if (c.group_list != nullptr)
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "groupListOptional must be null when x holds one tensor per group (their rows are the groups)");
  }
  const size_t ny = c.y->tensors.size();
  if (y_single ? ny != 1 : ny != G)
    throw_error(ACLNN_ERR_PARAM_INVALID, "y holds %zu tensors; splitItem %lld needs %zu", ny,
                static_cast<long long>(c.split_item), y_single ? size_t{1} : G);

  // Per-group weight views [K, N].
  std::vector<WView> wv(G);
  for (size_t g = 0; g < G; ++g) {
    const aclTensor &t = w_single ? *w0 : *c.weight->tensors[g];
    const int d = t.ndim - 2;
    wv[g] = {&t, t.dims[d], t.dims[d + 1], t.strides[d], t.strides[d + 1],
             w_single ? static_cast<int64_t>(g) * t.strides[0] : 0};
  }
  // Per-group bias and antiquant scale / offset views [N].
  const std::vector<VView> bv = group_vectors(c.bias, c.bias_name, wv, w_single);
  const std::vector<VView> sv = group_vectors(c.aq_scale, c.aq_scale_name, wv, w_single);
  const std::vector<VView> ov = group_vectors(c.aq_offset, c.aq_offset_name, wv, w_single);
  const std::vector<VView> qsv = group_vectors(c.scale, c.scale_name, wv, w_single);
  const std::vector<VView> qov = group_vectors(c.offset, c.offset_name, wv, w_single);

  // Per-group x / y views.
  std::vector<RView> xv(G), yv(G);
  int64_t total_m = 0;
  const aclTensor *ys = y_single ? c.y->tensors[0] : nullptr;
  if (split) {
    const aclTensor &x = *x0;
    if (x.ndim != 2) throw_error(ACLNN_ERR_PARAM_INVALID, "x[0] must be [M, K] when split by groupListOptional, got shape %s", core::shape_string(x).c_str());
    total_m = x.dims[0];
    for (size_t g = 0; g < G; ++g) {
      if (wv[g].k != x.dims[1] || wv[g].n != wv[0].n)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; x[0] %s needs [%lld, N] with one N for every group",
                    elem_name(c.weight_name, w_single ? 0 : g).c_str(), core::shape_string(*wv[g].t).c_str(),
                    core::shape_string(x).c_str(), static_cast<long long>(x.dims[1]));
      xv[g] = {total_m, x.dims[1], x.strides[0], x.strides[1], 0};
    }
    core::check_dtype_in(c.group_list, c.group_list_name, {ACL_INT64});
    const aclTensor &gl = *c.group_list;
    if (gl.ndim != 1 || gl.dims[0] != static_cast<int64_t>(G))
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be [%zu] (one cumulative row end per group), got shape %s",
                  c.group_list_name, G, core::shape_string(gl).c_str());
  } else {
    for (size_t g = 0; g < G; ++g) {
      const aclTensor &x = *c.x->tensors[g];
      const std::string name = elem_name(c.x_name, g);
      if (x.ndim < 2 || x.ndim > 6 || (y_single && x.ndim != 2))
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have %s dims, got shape %s", name.c_str(),
                    y_single ? "2 ([M, K], as y is one tensor)" : "2 to 6", core::shape_string(x).c_str());
      if (x.dims[x.ndim - 1] != wv[g].k)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s of shape %s has K = %lld; %s of shape %s has K = %lld", name.c_str(),
                    core::shape_string(x).c_str(), static_cast<long long>(x.dims[x.ndim - 1]),
                    elem_name(c.weight_name, w_single ? 0 : g).c_str(), core::shape_string(*wv[g].t).c_str(),
                    static_cast<long long>(wv[g].k));
      int64_t rows = 0;
      const int64_t rs = merged_row_stride(x, name, &rows);
      xv[g] = {rows, wv[g].k, rs, x.strides[x.ndim - 1], 0};
      if (y_single && wv[g].n != wv[0].n)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has N = %lld; y as one tensor needs one N for every group (%lld)",
                    elem_name(c.weight_name, g).c_str(), static_cast<long long>(wv[g].n), static_cast<long long>(wv[0].n));
      total_m += rows;
    }
  }
  if (y_single) {
    const core::Shape want{2, {total_m, wv[0].n}};
    if (!(core::Shape::of(*ys) == want))
      throw_error(ACLNN_ERR_PARAM_INVALID, "y[0] has shape %s; expected %s", core::shape_string(*ys).c_str(),
                  want.str().c_str());
    int64_t r0 = 0;
    for (size_t g = 0; g < G; ++g) {
      yv[g] = {xv[g].m, wv[g].n, ys->strides[0], ys->strides[1], split ? 0 : r0 * ys->strides[0]};
      r0 += xv[g].m;
    }
  } else {
    for (size_t g = 0; g < G; ++g) {
      const aclTensor &x = *c.x->tensors[g], &y = *c.y->tensors[g];
      core::Shape want = core::Shape::of(x);
      want.dims[want.ndim - 1] = wv[g].n;
      if (!(core::Shape::of(y) == want))
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected %s", elem_name(c.y_name, g).c_str(),
                    core::shape_string(y).c_str(), want.str().c_str());
      int64_t rows = 0;
      yv[g] = {xv[g].m, wv[g].n, merged_row_stride(y, elem_name(c.y_name, g), &rows), y.strides[y.ndim - 1], 0};
    }
  }

  // Registration, in prototype order (inputs, then the output list).
  const std::vector<int> xs = b.input_list(0, c.x), wsl = b.input_list(1, c.weight);
  const std::vector<int> bs = b.input_list(2, c.bias);
  const std::vector<int> qss = b.input_list(3, c.scale), qos = b.input_list(4, c.offset);
  const std::vector<int> ss = b.input_list(5, c.aq_scale), os = b.input_list(6, c.aq_offset);
  const int gls = b.input(c.group_list);
  const std::vector<int> yslots = b.output_list(0, c.y);

  if (quant) {
    const Int8Slots slots{xs, wsl, yslots, bs, qss, qos, gls};
    return plan_int8(b, c, split, w_single, total_m, xv, yv, wv, {bv, qsv, qov}, slots);
  }

  // Plans: one per group (one ladder shared by every group of a [G, K, N] weight split along M: same
  // desc), the split form's a ladder of row counts.
  GmmStep *step = &b.add_step<GmmStep>();
  if (split) {
    for (int64_t m = 4; m < total_m; m *= 4) step->ladder.push_back(m);
    step->ladder.push_back(total_m);
  }
  size_t ws_bytes = 0;
  int64_t deq_floats = 0;
  for (size_t g = 0; g < G; ++g) {
    GemmDesc d;
    d.m = xv[g].m;
    d.n = wv[g].n;
    d.k = wv[g].k;
    d.a = GemmOperand{dt, xv[g].rs, xv[g].cs, 0};
    d.b = antiquant ? GemmOperand{ACL_FLOAT, wv[g].n, 1, 0} : GemmOperand{dt, wv[g].rs, wv[g].cs, 0};
    d.c = GemmOperand{dt, yv[g].rs, yv[g].cs, 0};
    if (bv[g].t != nullptr) {
      d.has_d = true;
      d.beta = 1.0f;
      d.d = GemmOperand{bv[g].t->dtype, 0, bv[g].cs, 0};
    }
    GmmGroup gr;
    if (split && w_single && g > 0 && bv[g].t == bv[0].t) {
      gr.plan = 0;
    } else {
      gr.plan = static_cast<int>(step->plans.size());
      const std::vector<int64_t> rows = split ? step->ladder : std::vector<int64_t>{d.m};
      for (int64_t m : rows) {
        GemmPlan plan;
        kernels::GemmOptions opt;
        opt.record = g == 0 && m == rows.back();
        d.m = m;
        if (!kernels::gemm_plan(d, &plan, opt)) throw_error(last_error_code(), "%s", last_error_message());
        ws_bytes = std::max(ws_bytes, plan.workspace_bytes);
        step->plans.push_back(std::move(plan));
      }
    }
    const int xslot = xs[split ? 0 : g], wslot = wsl[w_single ? 0 : g], yslot = yslots[y_single ? 0 : g];
    gr.x = ref_at(b.tensor(xslot), xslot, xv[g].off);
    gr.w = ref_at(b.tensor(wslot), wslot, wv[g].off);
    gr.y = ref_at(b.tensor(yslot), yslot, yv[g].off);
    if (bv[g].t != nullptr) {
      const int bslot = bs[c.bias->tensors.size() == 1 ? 0 : g];
      gr.bias = ref_at(b.tensor(bslot), bslot, bv[g].off);
    }
    if (antiquant) {
      gr.k = wv[g].k;
      gr.n = wv[g].n;
      gr.w_rs = wv[g].rs;  // INT8: elements are bytes
      gr.w_cs = wv[g].cs;
      const size_t vi = c.aq_scale->tensors.size() == 1 ? 0 : g;
      gr.scale = ref_at(b.tensor(ss[vi]), ss[vi], sv[g].off);
      gr.scale_stride = sv[g].cs;
      if (c.aq_offset != nullptr) {
        const size_t oi = c.aq_offset->tensors.size() == 1 ? 0 : g;
        gr.offset = ref_at(b.tensor(os[oi]), os[oi], ov[g].off);
        gr.offset_stride = ov[g].cs;
      }
      deq_floats = std::max(deq_floats, wv[g].k * wv[g].n + 2 * wv[g].n);
    }
    step->groups.push_back(gr);
  }
  if (antiquant) {
    step->antiquant = true;
    step->aq_dtype = dt;
    step->deq_ws = b.book("gmm.dequantised_weight", static_cast<uint64_t>(std::max<int64_t>(deq_floats, 1)) * sizeof(float));
  }
  // The groups run one after another: one block, the largest plan's.
  step->has_ws = ws_bytes > 0;
  if (ws_bytes > 0) step->ws = b.book("gmm.gemm", ws_bytes);
  if (split) {
    step->split = true;
    step->ends_ws = b.book("gmm.group_ends", G * sizeof(int64_t));
    step->group_list = core::OperandRef::of_slot(gls, b.tensor(gls));
    step->gl_stride = c.group_list->strides[0];
    step->total_m = total_m;
    step->n = wv[0].n;
    step->y_esize = core::dtype_size(dt);
    step->x_row_bytes = x0->strides[0] * static_cast<int64_t>(core::dtype_size(dt));
    step->y_row_bytes = ys->strides[0] * static_cast<int64_t>(step->y_esize);
    step->y_col_bytes = ys->strides[1] * static_cast<int64_t>(step->y_esize);
  }
}

}  // namespace opsnn::ops
