#include "ops/math/unary_math_common.h"

#include "common/error.h"
#include "core/dtype.h"

namespace opsnn::ops {

namespace {
constexpr std::initializer_list<aclDataType> kFloatTypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
constexpr std::initializer_list<aclDataType> kRealTypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16,  ACL_DOUBLE, ACL_INT8,
                                                          ACL_INT16, ACL_INT32,   ACL_INT64, ACL_UINT8};
constexpr std::initializer_list<aclDataType> kRealBoolTypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16,  ACL_DOUBLE,
                                                              ACL_INT8,  ACL_INT16,   ACL_INT32, ACL_INT64,
                                                              ACL_UINT8, ACL_BOOL};
}  // namespace

void unary_math_phase1(core::OpBuilder &b, const UnaryMathArgs &a) {
  core::check_tensor(a.self, a.self_name);
  if (!a.inplace) core::check_tensor(a.out, a.out_name);

  const aclDataType in_dt = a.self->dtype;
  const bool floating_in = core::is_floating(in_dt);
  switch (a.kind) {
    case UnaryMathKind::kFloatResult:
      if (a.inplace) core::check_dtype_in(a.self, a.self_name, kFloatTypes);
      else core::check_dtype_in(a.self, a.self_name, a.allow_bool ? kRealBoolTypes : kRealTypes);
      break;
    case UnaryMathKind::kSameType:
      core::check_dtype_in(a.self, a.self_name, a.allow_bool ? kRealBoolTypes : kRealTypes);
      break;
    case UnaryMathKind::kFloatOnly:
      core::check_dtype_in(a.self, a.self_name, kFloatTypes);
      break;
  }
  aclDataType compute = a.kind == UnaryMathKind::kFloatResult && !floating_in ? ACL_FLOAT : in_dt;
  if (a.compute_override != ACL_DT_UNDEFINED) compute = a.compute_override;

  if (!a.inplace) {
    core::check_shape_equals(*a.out, a.out_name, core::Shape::of(*a.self));
    if (a.kind == UnaryMathKind::kFloatResult) core::check_dtype_in(a.out, a.out_name, kFloatTypes);
    const aclDataType result_dt = a.kind == UnaryMathKind::kFloatResult && !floating_in ? ACL_FLOAT : in_dt;
    if (!core::can_cast(result_dt, a.out->dtype))
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s: the result dtype %s cannot be cast to %s dtype %s", a.out_name,
                  core::dtype_name(result_dt), a.out_name, core::dtype_name(a.out->dtype));
  }

  const int in = a.inplace ? b.inout(a.self) : b.input(a.self);
  const int o = a.inplace ? in : b.output(a.out);
  EwSpec spec;
  spec.op = a.op;
  spec.compute_dtype = compute;
  for (int k = 0; k < a.nscalars; ++k) spec.set_scalar(k, a.scalars[k]);
  record_elementwise(b, spec, o, {EwInput::tensor(in)});
}

}  // namespace opsnn::ops
