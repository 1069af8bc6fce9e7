#include "ops/serving/jagged_permute_phase1.h"

#include "common/error.h"
#include "core/outputs_apart.h"
#include "kernels/serving/jagged_permute.h"

namespace opsnn::ops {
namespace {

struct JaggedPermuteStep final : core::Step {
  kernels::JaggedPermutePlan plan;
  core::OperandRef permute, in_offsets, out_offsets, out;
  int run(const core::LaunchArgs &args) const override {
    return kernels::jagged_permute_run(plan, permute.address(args), in_offsets.address(args),
                                       out_offsets.address(args), out.address(args));
  }
};

// A 1-D tensor of n elements.
void check_vector(const JaggedArg &a, int64_t n) {
  if (a.t->ndim != 1 || a.t->dims[0] != n)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be [%lld]", a.name, core::shape_string(*a.t).c_str(),
                static_cast<long long>(n));
}

}  // namespace

void jagged_permute_phase1(core::OpBuilder &b, const JaggedRule &rule, const JaggedCall &c) {
  const JaggedArg *all[4] = {&c.permute, &c.in_offsets, &c.out_offsets, &c.out};
  for (const JaggedArg *a : all) core::check_not_null(a->t, a->name);
  core::check_dtype_in(c.permute.t, c.permute.name, rule.dtypes);
  for (const JaggedArg *a : all) core::check_dtype_in(a->t, a->name, {c.permute.t->dtype});
  if (c.permute.t->ndim != 1 || c.permute.t->dims[0] < 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be 1-D and not empty, got shape %s", c.permute.name,
                core::shape_string(*c.permute.t).c_str());
  const int64_t t = c.permute.t->dims[0];
  check_vector(c.in_offsets, t + 1);
  check_vector(c.out_offsets, t + 1);
  if (c.output_size < 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "outputSize must be >= 0, got %lld", static_cast<long long>(c.output_size));
  check_vector(c.out, c.output_size);
  core::check_outputs_apart<JaggedArg>({&c.out}, {all[0], all[1], all[2], all[3]});
  auto &st = b.add_step<JaggedPermuteStep>();
  kernels::JaggedPermutePlan &P = st.plan;
  P.dtype = c.permute.t->dtype;
  P.t = t;
  P.output_size = c.output_size;
  // Registration in prototype order.
  auto reg = [&](const JaggedArg &a, bool out, core::OperandRef *r, int64_t *stride) {
    const int slot = out ? b.output(a.t) : b.input(a.t);
    *r = core::OperandRef::of_slot(slot, b.tensor(slot));
    *stride = b.tensor(slot).strides[0];
  };
  reg(c.permute, false, &st.permute, &P.permute);
  reg(c.in_offsets, false, &st.in_offsets, &P.in_offsets);
  reg(c.out_offsets, false, &st.out_offsets, &P.out_offsets);
  reg(c.out, true, &st.out, &P.out);
}

}  // namespace opsnn::ops
