#include "ops/matmul/einsum_phase1.h"

#include <algorithm>
#include <string>
#include <vector>

#include "common/error.h"
#include "core/outputs_apart.h"
#include "ops/copy/copy_common.h"
#include "ops/elementwise/elementwise_step.h"
#include "ops/layout/layout_steps.h"
#include "ops/matmul/einsum_equation.h"
#include "ops/matmul/matmul_common.h"
#include "ops/reduction/reduce_step.h"

namespace opsnn::ops {
namespace {

// An operand seen through its labels: one (size, stride) per distinct label, a diagonal being the sum
// of its dims' strides and a broadcast label stride 0. Lives in a slot or in a workspace block.
struct Labeled {
  std::vector<int> labels;
  std::vector<int64_t> strides;  // elements, per entry of labels
  int slot = -1;
  core::WsKey ws;
  aclDataType dtype = ACL_FLOAT;
  int64_t offset = 0;  // elements
  int64_t stride_of(int l) const {
    return strides[static_cast<size_t>(std::find(labels.begin(), labels.end(), l) - labels.begin())];
  }
  bool has(int l) const { return std::find(labels.begin(), labels.end(), l) != labels.end(); }
};

using Labels = std::vector<int>;

bool contains(const Labels &v, int l) { return std::find(v.begin(), v.end(), l) != v.end(); }

Labels concat(std::initializer_list<const Labels *> parts) {
  Labels out;
  for (const Labels *p : parts) out.insert(out.end(), p->begin(), p->end());
  return out;
}

struct Planner {
  core::OpBuilder &b;
  const EinsumEquation &e;

  int64_t size(int l) const { return e.size[static_cast<size_t>(l)]; }

  aclTensor view(const Labeled &x, const Labels &order) const {
    if (static_cast<int>(order.size()) > core::kMaxDims)
      throw_error(ACLNN_ERR_PARAM_INVALID, "equation: an intermediate product has %zu indices (at most %d)",
                  order.size(), core::kMaxDims);
    aclTensor v{};
    v.dtype = x.dtype;
    v.ndim = static_cast<int>(order.size());
    v.offset = x.offset;
    for (size_t d = 0; d < order.size(); ++d) {
      v.dims[d] = size(order[d]);
      v.strides[d] = x.stride_of(order[d]);
    }
    return v;
  }
  EwInput input(const Labeled &x, const Labels &order) const {
    const aclTensor v = view(x, order);
    return x.slot >= 0 ? EwInput::tensor_view(x.slot, v) : EwInput::workspace(x.ws, v);
  }

  // The stride of `group` flattened to one dim when its labels nest in memory (size-1 labels ignored);
  // false otherwise.
  bool flat_stride(const Labeled &x, const Labels &group, int64_t *stride) const {
    int64_t inner = 0, span = 0;  // the stride and extent of what is flattened so far (from the inside)
    bool first = true;
    for (auto it = group.rbegin(); it != group.rend(); ++it) {
      if (size(*it) == 1) continue;
      const int64_t s = x.stride_of(*it);
      if (first) {
        inner = s;
        span = s * size(*it);
        first = false;
      } else {
        if (s != span) return false;
        span = s * size(*it);
      }
    }
    *stride = inner;
    return true;
  }

  // x laid out as `order` (contiguous fp32 scratch), the labels of `summed` summed away.
  Labeled materialise(const Labeled &x, const Labels &order, const Labels &summed) const {
    core::Shape shape;
    shape.ndim = static_cast<int>(order.size());
    if (shape.ndim > core::kMaxDims)
      throw_error(ACLNN_ERR_PARAM_INVALID, "equation: an intermediate product has %d indices (at most %d)", shape.ndim,
                  core::kMaxDims);
    for (int d = 0; d < shape.ndim; ++d) shape.dims[d] = size(order[static_cast<size_t>(d)]);
    const EwInput out = EwInput::scratch(b, "einsum.operand", shape, ACL_FLOAT);
    Labeled r;
    r.labels = order;
    r.ws = out.ws;
    r.offset = out.view.offset;
    for (int d = 0; d < shape.ndim; ++d) r.strides.push_back(out.view.strides[d]);
    const EwInput in = input(x, concat({&order, &summed}));
    if (in.view.numel() == 0 && out.view.numel() == 0) return r;
    if (!summed.empty()) {
      ReduceSpec spec;
      spec.op = kernels::ReduceOp::kSum;
      uint32_t mask = 0;
      for (size_t k = 0; k < summed.size(); ++k) mask |= 1u << (order.size() + k);
      record_reduction(b, spec, in, mask, false, {out});
    } else {
      EwSpec spec;
      spec.op = kernels::EwOp::kIdentity;
      spec.compute_dtype = conversion_compute_dtype(x.dtype, ACL_FLOAT);
      record_elementwise(b, spec, out, {in});
    }
    return r;
  }

  // x ready for the GEMM as the groups (each flattening to one dim): itself, or materialised.
  Labeled arrange(const Labeled &x, const std::vector<const Labels *> &groups, const Labels &summed) const {
    bool in_place = summed.empty();
    int64_t s = 0;
    for (const Labels *g : groups) in_place = in_place && flat_stride(x, *g, &s);
    if (in_place) return x;
    Labels order;
    for (const Labels *g : groups) order.insert(order.end(), g->begin(), g->end());
    return materialise(x, order, summed);
  }

  int64_t product(const Labels &g) const {
    int64_t p = 1;
    for (int l : g) p *= size(l);
    return p;
  }

  void bind(GemmCall &call, int which, const Labeled &x, const Labels &rows, const Labels &cols,
            const Labels &batch) const {
    if (x.slot >= 0) bind_tensor(call, which, x.slot, &b.tensor(x.slot));
    else bind_scratch(call, which, x.ws);
    call.ref[which].offset_bytes = x.offset * static_cast<int64_t>(core::dtype_size(x.dtype));
    kernels::GemmOperand &op = which == kGemmA ? call.desc.a : which == kGemmB ? call.desc.b : call.desc.c;
    flat_stride(x, rows, &op.row_stride);
    flat_stride(x, cols, &op.col_stride);
    flat_stride(x, batch, &op.batch_stride);
  }
};

}  // namespace

void einsum_phase1(core::OpBuilder &b, const EinsumRule &rule, const EinsumCall &c) {
  core::check_not_null(c.tensors.t, c.tensors.name);
  core::check_not_null(c.equation, "equation");
  core::check_not_null(c.output.t, c.output.name);
  const std::vector<aclTensor *> &ts = c.tensors.t->tensors;
  if (ts.empty()) throw_error(ACLNN_ERR_PARAM_INVALID, "tensors is empty; einsum needs at least one operand");
  std::vector<std::string> names;
  for (size_t i = 0; i < ts.size(); ++i) names.push_back("tensors[" + std::to_string(i) + "]");
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < ts.size(); ++i) {
    core::check_not_null(ts[i], names[i].c_str());
    core::check_dtype_in(ts[i], names[i].c_str(), rule.dtypes);
    core::check_dtype_in(ts[i], names[i].c_str(), {ts[0]->dtype});
    shapes.emplace_back(ts[i]->dims, ts[i]->dims + ts[i]->ndim);
  }
  const aclDataType dt = ts[0]->dtype;
  core::check_dtype_in(c.output.t, c.output.name, {dt});
  const EinsumEquation e = parse_einsum(c.equation, shapes);
  core::Shape want;
  want.ndim = static_cast<int>(e.output.size());
  if (want.ndim > core::kMaxDims)
    throw_error(ACLNN_ERR_PARAM_INVALID, "equation: the output has %d dims (at most %d)", want.ndim, core::kMaxDims);
  for (int d = 0; d < want.ndim; ++d) want.dims[d] = e.size[static_cast<size_t>(e.output[static_cast<size_t>(d)])];
  core::check_shape_equals(*c.output.t, c.output.name, want);
  {
    std::vector<core::NamedTensor> args;
    for (size_t i = 0; i < ts.size(); ++i) args.push_back({ts[i], names[i].c_str()});
    core::check_no_internal_overlap(*c.output.t, c.output.name);
    for (const core::NamedTensor &a : args)
      if (core::memory_overlap(*c.output.t, *a.t) != core::Overlap::kNone)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s overlaps %s in memory", c.output.name, a.name);
  }

  const std::vector<int> slots = b.input_list(0, c.tensors.t);
  const int out_slot = b.output(c.output.t);
  const aclTensor &out = b.tensor(out_slot);
  if (out.numel() == 0) return;
  Planner P{b, e};
  const size_t n = ts.size();
  std::vector<Labeled> ops(n);
  for (size_t i = 0; i < n; ++i) {
    const aclTensor &t = b.tensor(slots[i]);
    Labeled &x = ops[i];
    x.slot = slots[i];
    x.dtype = t.dtype;
    x.offset = t.offset;
    for (int d = 0; d < t.ndim; ++d) {
      const int l = e.inputs[i][static_cast<size_t>(d)];
      const int64_t s = t.dims[d] == 1 ? 0 : t.strides[d];  // size 1: broadcast (or nothing to step)
      if (!x.has(l)) {
        x.labels.push_back(l);
        x.strides.push_back(s);
      } else {
        x.strides[static_cast<size_t>(std::find(x.labels.begin(), x.labels.end(), l) - x.labels.begin())] += s;
      }
    }
  }
  // An empty sum: the output is zeros.
  for (size_t i = 0; i < n; ++i)
    for (int l : ops[i].labels)
      if (P.size(l) == 0) {
        record_zero_fill(b, EwInput::tensor(out_slot));
        return;
      }
  Labeled y;  // the output through its labels
  y.labels = e.output;
  y.slot = out_slot;
  y.dtype = out.dtype;
  y.offset = out.offset;
  for (int d = 0; d < out.ndim; ++d) y.strides.push_back(out.strides[d]);
  const Labels &ol = e.output;
  // Labels of operand i that no other operand and not the output use: summed when it is laid out.
  auto own_sums = [&](size_t i) {
    Labels r;
    for (int l : ops[i].labels) {
      bool used = contains(ol, l);
      for (size_t j = 0; j < n && !used; ++j) used = j != i && ops[j].has(l);
      if (!used) r.push_back(l);
    }
    return r;
  };
  if (n == 1) {
    const Labels summed = own_sums(0);
    const EwInput in = P.input(ops[0], concat({&ol, &summed}));
    if (!summed.empty()) {
      ReduceSpec spec;
      spec.op = kernels::ReduceOp::kSum;
      uint32_t mask = 0;
      for (size_t k = 0; k < summed.size(); ++k) mask |= 1u << (ol.size() + k);
      record_reduction(b, spec, in, mask, false, {EwInput::tensor(out_slot)});
    } else if (!record_blocked_copy(b, out_slot, out, in.slot, in.view)) {
      EwSpec spec;
      spec.op = kernels::EwOp::kIdentity;
      spec.compute_dtype = conversion_compute_dtype(dt, dt);
      record_elementwise(b, spec, out_slot, {in});
    }
    return;
  }
  // Sorted by the output's order, then labels only later operands use by id.
  auto order_key = [&](int l) {
    const auto it = std::find(ol.begin(), ol.end(), l);
    return it != ol.end() ? static_cast<int>(it - ol.begin()) : 1000 + l;
  };
  auto sorted = [&](Labels v) {
    std::sort(v.begin(), v.end(), [&](int p, int q) { return order_key(p) < order_key(q); });
    return v;
  };
  Labeled cur = ops[0];
  Labels cur_sums = own_sums(0);
  for (size_t s = 1; s < n; ++s) {
    const Labeled &rhs = ops[s];
    const Labels rhs_sums = own_sums(s);
    auto needed_later = [&](int l) {
      if (contains(ol, l)) return true;
      for (size_t j = s + 1; j < n; ++j)
        if (ops[j].has(l)) return true;
      return false;
    };
    Labels batch, m, k, nn;
    for (int l : cur.labels) {
      if (contains(cur_sums, l)) continue;
      if (rhs.has(l)) (needed_later(l) ? batch : k).push_back(l);
      else m.push_back(l);
    }
    for (int l : rhs.labels)
      if (!contains(rhs_sums, l) && !cur.has(l)) nn.push_back(l);
    batch = sorted(batch);
    m = sorted(m);
    k = sorted(k);
    nn = sorted(nn);
    const Labeled a = P.arrange(cur, {&batch, &m, &k}, cur_sums);
    const Labeled bm = P.arrange(rhs, {&batch, &k, &nn}, rhs_sums);
    const Labels result = concat({&batch, &m, &nn});
    GemmCall call;
    call.desc.batch = P.product(batch);
    call.desc.m = P.product(m);
    call.desc.n = P.product(nn);
    call.desc.k = P.product(k);
    P.bind(call, kGemmA, a, m, k, batch);
    P.bind(call, kGemmB, bm, k, nn, batch);
    int64_t unused = 0;
    const bool direct = s + 1 == n && result == ol && P.flat_stride(y, batch, &unused) &&
                        P.flat_stride(y, m, &unused) && P.flat_stride(y, nn, &unused);
    Labeled prod;
    if (direct) {
      prod = y;
    } else {
      core::Shape shape;
      shape.ndim = static_cast<int>(result.size());
      if (shape.ndim > core::kMaxDims)
        throw_error(ACLNN_ERR_PARAM_INVALID, "equation: an intermediate product has %d indices (at most %d)",
                    shape.ndim, core::kMaxDims);
      for (int d = 0; d < shape.ndim; ++d) shape.dims[d] = P.size(result[static_cast<size_t>(d)]);
      const EwInput scratch = EwInput::scratch(b, "einsum.product", shape, ACL_FLOAT);
      prod.labels = result;
      prod.ws = scratch.ws;
      prod.offset = scratch.view.offset;
      for (int d = 0; d < shape.ndim; ++d) prod.strides.push_back(scratch.view.strides[d]);
    }
    P.bind(call, kGemmC, prod, m, nn, batch);
    record_gemms(b, {call});
    cur = prod;
    cur_sums.clear();
    if (direct) return;
  }
  // The last product (fp32 scratch, every label in the output) into the output.
  EwSpec spec;
  spec.op = kernels::EwOp::kIdentity;
  spec.compute_dtype = conversion_compute_dtype(ACL_FLOAT, dt);
  record_elementwise(b, spec, out_slot, {P.input(cur, ol)});
}

}  // namespace opsnn::ops
