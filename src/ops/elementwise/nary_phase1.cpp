#include "ops/elementwise/nary_phase1.h"

#include <cstring>
#include <string>

#include "common/error.h"
#include "common/half.h"
#include "core/op_checks.h"
#include "ops/elementwise/elementwise_step.h"

namespace opsnn::ops {

using core::dtype_name;
using kernels::EwOp;

namespace {

constexpr core::DtypeMask kFloating = core::dtype_bit(ACL_FLOAT) | core::dtype_bit(ACL_FLOAT16) |
                                      core::dtype_bit(ACL_BF16) | core::dtype_bit(ACL_DOUBLE);

bool present(const EwOperand &o) { return o.is_scalar ? o.scalar != nullptr : o.tensor != nullptr; }
aclDataType dtype_of(const EwOperand &o) { return o.is_scalar ? o.scalar->dtype : o.tensor->dtype; }

// `s` with the value it takes in `dt` (FLOAT16 / BF16 rounding), as a scalar of that dtype.
aclScalar rounded_scalar(const aclScalar &s, aclDataType dt) {
  aclScalar r;
  r.dtype = dt;
  const float f = static_cast<float>(s.to_double());
  const uint16_t bits = dt == ACL_FLOAT16 ? float_to_half(f) : float_to_bf16(f);
  std::memcpy(r.bytes, &bits, sizeof(bits));
  return r;
}

}  // namespace

void nary_phase1(core::OpBuilder &b, const EwRule &rule, const EwArgs &args) {
  const int n = args.n_in;
  const char *written_name = args.inplace ? args.in[0].name : args.out_name;

  // 1. Null and dtype/format checks, in prototype order.
  for (int i = 0; i < n; ++i) {
    const EwOperand &o = args.in[i];
    if (o.optional && !present(o)) continue;
    if (o.is_scalar) core::check_scalar(o.scalar, o.name);
    else if (o.dtypes == kEwAllDtypes) core::check_tensor(o.tensor, o.name);
    else core::check_dtype_in(o.tensor, o.name, o.dtypes);
    if (o.zero_dim && !o.is_scalar && o.tensor->ndim != 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be a 0-dim tensor, got shape %s", o.name,
                  core::shape_string(*o.tensor).c_str());
  }
  if (args.extra_name) core::check_dtype_in(args.extra, args.extra_name, kFloating);
  if (args.param_name) core::check_scalar(args.param, args.param_name);
  if (!args.inplace) core::check_tensor(args.out, args.out_name);

  // 2. Result dtype (torch.result_type over the promoting operands), then the op's rule.
  core::ResultType rt;
  for (int i = 0; i < n; ++i) {
    const EwOperand &o = args.in[i];
    if (!present(o) || !o.promotes) continue;
    if (o.is_scalar) rt.add_scalar(o.scalar->dtype);
    else rt.add_tensor(o.tensor->dtype, o.tensor->ndim);
  }
  // For the messages only: built when one is thrown (phase 1 of a one-shot client is hot).
  auto operand_list = [&] {
    std::string list;
    for (int i = 0; i < n; ++i) {
      const EwOperand &o = args.in[i];
      if (!present(o) || !o.promotes) continue;
      if (!list.empty()) list += ", ";
      list += std::string(o.name) + " (" + dtype_name(dtype_of(o)) + ")";
    }
    return list;
  };
  if (args.same_dtype) {
    const EwOperand *first = nullptr;
    for (int i = 0; i < n; ++i) {
      const EwOperand &o = args.in[i];
      if (!present(o) || o.is_scalar) continue;
      if (!first) first = &o;
      else if (o.tensor->dtype != first->tensor->dtype)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s and %s must have the same dtype (got %s and %s)", first->name,
                    o.name, dtype_name(first->tensor->dtype), dtype_name(o.tensor->dtype));
    }
  }
  const aclDataType promoted = args.compute_in_self ? args.in[0].tensor->dtype : rt.get();
  if (promoted == ACL_DT_UNDEFINED)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s have no common dtype", operand_list().c_str());
  EwOp op = rule.op;
  const char *op_name = kernels::ew_op_name(rule.op);
  if (!core::dtype_in(promoted, rule.dtypes))
    throw_error(ACLNN_ERR_PARAM_INVALID, "the promoted dtype of %s is %s, which %s does not take (it takes %s)",
                operand_list().c_str(), dtype_name(promoted), op_name, core::dtype_list(rule.dtypes).c_str());
  if (promoted == ACL_BOOL && rule.bool_op != EwOp::kCount) op = rule.bool_op;
  aclDataType result = promoted;
  if (rule.result == EwResult::kBool) result = ACL_BOOL;
  else if (rule.result == EwResult::kFloating && core::is_integral(promoted, true)) result = ACL_FLOAT;
  const aclDataType compute = rule.result == EwResult::kBool ? promoted : result;
  if (args.param_name) {
    if (args.param->dtype == ACL_BOOL && compute != ACL_BOOL)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s is BOOL, which is only supported for BOOL results (result is %s)",
                  args.param_name, dtype_name(compute));
    if (core::is_integral(compute, true) && args.param->is_floating())
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s is a floating-point scalar but the result dtype %s is integral",
                  args.param_name, dtype_name(compute));
  }
  if (args.check) args.check(args, promoted);
  if (!kernels::ew_op_defined(op, core::compute_type_of(compute)))
    throw_error(ACLNN_ERR_PARAM_INVALID, "the promoted dtype of %s is %s, which %s does not compute", operand_list().c_str(),
                dtype_name(compute), kernels::ew_op_name(op));

  // 3. Shapes: broadcast the tensor operands; the written tensor must already have that shape.
  core::Shape shape;
  std::string shape_names;
  for (int i = 0; i < n; ++i) {
    const EwOperand &o = args.in[i];
    if (!present(o) || o.is_scalar) continue;
    const core::Shape s = core::Shape::of(*o.tensor);
    if (!args.broadcast && !shape_names.empty() && !(s == shape))
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s but %s has shape %s; they must be equal (no broadcast)",
                  shape_names.c_str(), shape.str().c_str(), o.name, s.str().c_str());
    if (shape_names.empty()) shape = s;
    else shape = core::broadcast_shapes(shape, shape_names.c_str(), s, o.name);
    if (!shape_names.empty()) shape_names += " and ";
    shape_names += o.name;
  }
  const aclTensor *written = args.inplace ? args.in[0].tensor : args.out;
  if (args.inplace) {
    const core::Shape self_shape = core::Shape::of(*written);
    if (!(shape == self_shape))
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s broadcast %s %s to %s; an in-place op cannot grow %s",
                  shape_names.c_str(), written_name, self_shape.str().c_str(), shape.str().c_str(), written_name);
  }
  core::check_shape_equals(*written, written_name, shape);
  if (args.out_same_dtype && written->dtype != result)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have the result dtype %s", written_name,
                dtype_name(written->dtype), dtype_name(result));
  if (!core::can_cast(result, written->dtype))
    throw_error(ACLNN_ERR_PARAM_INVALID, "the result dtype %s cannot be cast to %s dtype %s", dtype_name(result),
                written_name, dtype_name(written->dtype));

  // 4. Record: inputs first (prototype order), then the output.
  int slot[3] = {-1, -1, -1};
  for (int i = 0; i < n; ++i) {
    const EwOperand &o = args.in[i];
    if (!present(o) || o.is_scalar) continue;
    slot[i] = (i == 0 && args.inplace) ? b.inout(o.tensor) : b.input(o.tensor);
  }
  if (args.extra_name) b.input(args.extra);
  const int out_slot = args.inplace ? slot[0] : b.output(args.out);

  EwSpec spec;
  spec.op = op;
  spec.compute_dtype = compute;
  if (args.param) spec.set_scalar(0, args.param);
  for (int k = 0; k < args.n_values; ++k) spec.set_scalar(k, args.values[k]);
  aclScalar rounded[3];
  std::vector<EwInput> inputs;
  for (int k = 0; k < n; ++k) {
    const int i = args.order[k];
    const EwOperand &o = args.in[i];
    if (!present(o)) continue;
    if (!o.is_scalar) {
      inputs.push_back(EwInput::tensor(slot[i]));
    } else if (rule.round_scalars && (compute == ACL_FLOAT16 || compute == ACL_BF16)) {
      rounded[i] = rounded_scalar(*o.scalar, compute);
      inputs.push_back(EwInput::constant(&rounded[i]));
    } else {
      inputs.push_back(EwInput::constant(o.scalar));
    }
  }
  record_elementwise(b, spec, out_slot, inputs);
}

namespace ew_checks {

void pow_integer_exponent(const EwArgs &args, aclDataType promoted) {
  const aclScalar *exponent = args.in[1].scalar;
  if (core::is_integral(promoted, true) && !exponent->is_floating() && exponent->to_int64() < 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "integers to negative integer powers are not allowed (%s %s, %s %lld)",
                args.in[0].name, dtype_name(args.in[0].tensor->dtype), args.in[1].name,
                static_cast<long long>(exponent->to_int64()));
}

void addcdiv_integer_division(const EwArgs &args, aclDataType) {
  const aclTensor *t1 = args.in[1].tensor, *t2 = args.in[2].tensor;
  if (core::is_integral(t1->dtype, true) && core::is_integral(t2->dtype, true))
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "integer division with addcdiv is not supported (%s %s, %s %s); use a floating dtype",
                args.in[1].name, dtype_name(t1->dtype), args.in[2].name, dtype_name(t2->dtype));
}

}  // namespace ew_checks

}  // namespace opsnn::ops
