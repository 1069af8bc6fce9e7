#include "ops/vfusion/msda_phase1.h"

#include "common/error.h"
#include "core/outputs_apart.h"
#include "kernels/vfusion/msda.h"

namespace opsnn::ops {
namespace {

struct MsdaStep final : core::Step {
  kernels::MsdaPlan plan;
  core::OperandRef value, shapes, starts, loc, attn, out, dy, dvalue, dloc, dattn;  // slot -1: not used
  int run(const core::LaunchArgs &args) const override {
    auto at = [&](const core::OperandRef &r) { return r.slot >= 0 ? r.address(args) : nullptr; };
    kernels::MsdaArgs a;
    a.value = at(value);
    a.shape = at(shapes);
    a.start = at(starts);
    a.loc = at(loc);
    a.attn = at(attn);
    a.dy = at(dy);
    a.out = at(out);
    a.dvalue = at(dvalue);
    a.dloc = at(dloc);
    a.dattn = at(dattn);
    return kernels::msda_run(plan, a);
  }
};

void require_rank(const MsdaArg &a, int ndim, const char *layout) {
  if (a.t->ndim != ndim)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be %s (%d dims), got shape %s", a.name, layout, ndim,
                core::shape_string(*a.t).c_str());
}

core::Shape shape_of(std::initializer_list<int64_t> dims) {
  core::Shape s;
  for (int64_t d : dims) s.dims[s.ndim++] = d;
  return s;
}

}  // namespace

void msda_phase1(core::OpBuilder &b, const MsdaRule &rule, const MsdaCall &c) {
  const MsdaArg *ins[6] = {&c.value, &c.shapes, &c.starts, &c.loc, &c.attn, rule.backward ? &c.dy : nullptr};
  const MsdaArg *outs[3] = {rule.backward ? &c.dvalue : &c.out, rule.backward ? &c.dloc : nullptr,
                            rule.backward ? &c.dattn : nullptr};
  for (const MsdaArg *a : ins)
    if (a != nullptr) core::check_not_null(a->t, a->name);
  for (const MsdaArg *a : outs)
    if (a != nullptr) core::check_not_null(a->t, a->name);
  core::check_dtype_in(c.value.t, c.value.name, rule.dtypes);
  const aclDataType dt = c.value.t->dtype;
  for (const MsdaArg *a : {&c.loc, &c.attn, &c.out, &c.dy, &c.dvalue, &c.dloc, &c.dattn})
    if (a->t != nullptr) core::check_dtype_in(a->t, a->name, {dt});
  core::check_dtype_in(c.shapes.t, c.shapes.name, {ACL_INT32, ACL_INT64});
  core::check_dtype_in(c.starts.t, c.starts.name, {ACL_INT32, ACL_INT64});
  require_rank(c.value, 4, "[bs, num_keys, num_heads, channels]");
  require_rank(c.shapes, 2, "[num_levels, 2]");
  require_rank(c.starts, 1, "[num_levels]");
  require_rank(c.loc, 6, "[bs, num_queries, num_heads, num_levels, num_points, 2]");
  require_rank(c.attn, 5, "[bs, num_queries, num_heads, num_levels, num_points]");
  kernels::MsdaPlan P;
  P.bs = c.value.t->dims[0];
  P.keys = c.value.t->dims[1];
  P.heads = c.value.t->dims[2];
  P.channels = c.value.t->dims[3];
  P.levels = c.shapes.t->dims[0];
  P.queries = c.loc.t->dims[1];
  P.points = c.loc.t->dims[4];
  P.dtype = dt;
  P.shape_dtype = c.shapes.t->dtype;
  P.start_dtype = c.starts.t->dtype;
  P.backward = rule.backward;
  core::check_shape_equals(*c.shapes.t, c.shapes.name, shape_of({P.levels, 2}));
  core::check_shape_equals(*c.starts.t, c.starts.name, shape_of({P.levels}));
  const core::Shape loc = shape_of({P.bs, P.queries, P.heads, P.levels, P.points, 2});
  const core::Shape attn = shape_of({P.bs, P.queries, P.heads, P.levels, P.points});
  const core::Shape out = shape_of({P.bs, P.queries, P.heads * P.channels});
  core::check_shape_equals(*c.loc.t, c.loc.name, loc);
  core::check_shape_equals(*c.attn.t, c.attn.name, attn);
  if (rule.backward) {
    core::check_shape_equals(*c.dy.t, c.dy.name, out);
    core::check_shape_equals(*c.dvalue.t, c.dvalue.name, core::Shape::of(*c.value.t));
    core::check_shape_equals(*c.dloc.t, c.dloc.name, loc);
    core::check_shape_equals(*c.dattn.t, c.dattn.name, attn);
    core::check_outputs_apart<MsdaArg>({&c.dvalue, &c.dloc, &c.dattn},
                                       {&c.value, &c.shapes, &c.starts, &c.loc, &c.attn, &c.dy, &c.dvalue, &c.dloc, &c.dattn});
  } else {
    core::check_shape_equals(*c.out.t, c.out.name, out);
    core::check_outputs_apart<MsdaArg>({&c.out}, {&c.value, &c.shapes, &c.starts, &c.loc, &c.attn, &c.out});
  }
  // Registration in prototype order: the five inputs (+ gradOutput), then the output(s).
  auto &st = b.add_step<MsdaStep>();
  auto reg = [&](const MsdaArg &a, bool output, core::OperandRef *r, int64_t *strides) {
    const int slot = output ? b.output(a.t) : b.input(a.t);
    const aclTensor &t = b.tensor(slot);
    *r = core::OperandRef::of_slot(slot, t);
    for (int d = 0; d < t.ndim; ++d) strides[d] = t.strides[d];
  };
  int64_t start_stride[1] = {};
  reg(c.value, false, &st.value, P.value);
  reg(c.shapes, false, &st.shapes, P.shape);
  reg(c.starts, false, &st.starts, start_stride);
  reg(c.loc, false, &st.loc, P.loc);
  reg(c.attn, false, &st.attn, P.attn);
  P.start = start_stride[0];
  if (rule.backward) {
    reg(c.dy, false, &st.dy, P.out);
    reg(c.dvalue, true, &st.dvalue, P.dvalue);
    reg(c.dloc, true, &st.dloc, P.dloc);
    reg(c.dattn, true, &st.dattn, P.dattn);
  } else {
    reg(c.out, true, &st.out, P.out);
  }
  st.plan = P;
}

}  // namespace opsnn::ops
