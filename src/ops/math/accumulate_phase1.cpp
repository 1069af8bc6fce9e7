// aclnnSum's phase 1 (ops/math/accumulate_phase1.h): checks, then element-wise Add steps in list order.
#include "ops/math/accumulate_phase1.h"

#include <string>
#include <vector>

#include "common/error.h"
#include "core/verbose.h"
#include "ops/elementwise/elementwise_step.h"

namespace opsnn::ops {

void accumulate_phase1(core::OpBuilder &b, const AccumulateRule &rule, const AccumulateCall &c) {
  core::check_not_null(c.tensors.t, c.tensors.name);
  core::check_not_null(c.out.t, c.out.name);
  const std::vector<aclTensor *> &ts = c.tensors.t->tensors;
  if (ts.empty()) throw_error(ACLNN_ERR_PARAM_INVALID, "%s is empty; the sum needs at least one tensor", c.tensors.name);
  core::check_dtype_in(c.out.t, c.out.name, rule.dtypes);
  const aclDataType dt = c.out.t->dtype;
  const core::Shape out_shape = core::Shape::of(*c.out.t);
  std::vector<std::string> names;
  for (size_t i = 0; i < ts.size(); ++i) names.push_back(std::string(c.tensors.name) + "[" + std::to_string(i) + "]");
  bool shares = false;
  for (size_t i = 0; i < ts.size(); ++i) {
    const char *name = names[i].c_str();
    core::check_not_null(ts[i], name);
    core::check_dtype_in(ts[i], name, rule.dtypes);
    if (ts[i]->dtype != dt)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must be %s's dtype %s", name,
                  core::dtype_name(ts[i]->dtype), c.out.name, core::dtype_name(dt));
    const core::Shape s = core::Shape::of(*ts[i]);
    if (!(core::broadcast_shapes(s, name, out_shape, c.out.name) == out_shape))
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must broadcast to %s's shape %s", name,
                  s.str().c_str(), c.out.name, out_shape.str().c_str());
    shares = shares || core::memory_overlap(*c.out.t, *ts[i]) != core::Overlap::kNone;
  }
  core::check_no_internal_overlap(*c.out.t, c.out.name);

  const std::vector<int> slots = b.input_list(0, c.tensors.t);
  const int out_slot = b.output(c.out.t);
  if (b.tensor(out_slot).numel() == 0) return;
  // Sums into out itself, or (out shares memory with a listed tensor: a later tensor would be read after
  // out was written) into a scratch copy of out's shape.
  const EwInput acc = shares ? EwInput::scratch(b, "sum.partial", out_shape, dt)
                             : EwInput::tensor_view(out_slot, b.tensor(out_slot));
  core::record_choice(shares ? "accumulate:sum/scratch_then_copy" : "accumulate:sum/in_out", nullptr);
  EwSpec spec;
  spec.compute_dtype = dt;
  if (ts.size() == 1) {
    spec.op = kernels::EwOp::kIdentity;
    record_elementwise(b, spec, acc, {EwInput::tensor(slots[0])});
  } else {
    spec.op = kernels::EwOp::kAdd;
    spec.set_scalar(0, 1.0);  // alpha
    record_elementwise(b, spec, acc, {EwInput::tensor(slots[0]), EwInput::tensor(slots[1])});
    for (size_t i = 2; i < slots.size(); ++i) record_elementwise(b, spec, acc, {acc, EwInput::tensor(slots[i])});
  }
  if (shares) {
    EwSpec copy;
    copy.op = kernels::EwOp::kIdentity;
    copy.compute_dtype = dt;
    record_elementwise(b, copy, EwInput::tensor_view(out_slot, b.tensor(out_slot)), {acc});
  }
}

}  // namespace opsnn::ops
