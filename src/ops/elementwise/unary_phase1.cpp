#include "ops/elementwise/unary_phase1.h"

#include "core/op_checks.h"
#include "ops/elementwise/elementwise_step.h"

namespace opsnn::ops {

void unary_check_tensor(const aclTensor *t, const char *name) { core::check_not_null(t, name); }

void unary_phase1(core::OpBuilder &b, const UnaryCall &c) {
  const UnaryRule &r = c.rule;
  core::check_dtype_in(c.self, c.self_name, c.inplace ? r.inplace_dtypes : r.dtypes);
  const aclDataType in_dt = c.self->dtype;
  const bool integral = !core::is_floating(in_dt);
  // What the op returns for this input, and the dtype it computes in.
  const aclDataType result_dt = r.float_result && integral ? ACL_FLOAT : in_dt;
  aclDataType compute = result_dt;
  if (integral && r.compute_integral != ACL_DT_UNDEFINED) compute = r.compute_integral;
  if (!c.inplace) {
    core::check_tensor(c.out, c.out_name);
    core::check_shape_equals(*c.out, c.out_name, core::Shape::of(*c.self));
    if (r.float_result && !core::is_floating(c.out->dtype))
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; the result is floating, so %s must be FLOAT, FLOAT16, "
                  "BF16 or DOUBLE", c.out_name, core::dtype_name(c.out->dtype), c.out_name);
    if (r.out_same_dtype && c.out->dtype != in_dt)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", c.out_name,
                  core::dtype_name(c.out->dtype), c.self_name, core::dtype_name(in_dt));
    if (!core::can_cast(result_dt, c.out->dtype))
      throw_error(ACLNN_ERR_PARAM_INVALID, "the %s result cannot be cast to %s dtype %s", core::dtype_name(result_dt),
                  c.out_name, core::dtype_name(c.out->dtype));
  }
  if (!kernels::ew_op_defined(c.kernel, core::compute_type_of(compute)))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s, which %s does not compute", c.self_name,
                core::dtype_name(in_dt), kernels::ew_op_name(c.kernel));

  const int in = c.inplace ? b.inout(c.self) : b.input(c.self);
  const int o = c.inplace ? in : b.output(c.out);
  EwSpec spec;
  spec.op = c.kernel;
  spec.compute_dtype = compute;
  for (int k = 0; k < c.nscalars; ++k) spec.set_scalar(k, c.scalars[k]);
  record_elementwise(b, spec, o, {EwInput::tensor(in)});
}

}  // namespace opsnn::ops
