#include "ops/elementwise/binary_arith.h"

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

void ew_phase1(core::OpBuilder &b, const EwRule &rule, const EwArgs &args) {
  const int n = args.n_in;
  const char *written_name = args.inplace ? args.in[0].name : "out";

  // 1. Null and dtype/format checks, in prototype order.
  for (int i = 0; i < n; ++i) {
    const EwOperand &o = args.in[i];
    if (o.optional && !present(o)) continue;
    if (o.is_scalar) core::check_scalar(o.scalar, o.name);
    else core::check_tensor(o.tensor, o.name);
  }
  if (args.param_name) core::check_scalar(args.param, args.param_name);
  if (!args.inplace) core::check_tensor(args.out, "out");

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
  const aclDataType promoted = args.compute_in_self ? args.in[0].tensor->dtype : rt.get();
  if (promoted == ACL_DT_UNDEFINED)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s have no common dtype", operand_list().c_str());
  EwOp op = rule.op;
  const char *op_name = kernels::ew_op_name(rule.op);
  if (promoted == ACL_BOOL) {
    if (rule.bool_op != EwOp::kCount) op = rule.bool_op;
    else if (!rule.bool_ok)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s is not defined for BOOL operands: %s promote to BOOL", op_name,
                  operand_list().c_str());
  } else if (core::is_integral(promoted, false) && !rule.integral_ok) {
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is not defined for integer operands: %s promote to %s", op_name,
                operand_list().c_str(), dtype_name(promoted));
  } else if (core::is_floating(promoted) && !rule.floating_ok) {
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is only defined for integer and BOOL operands: %s promote to %s",
                op_name, operand_list().c_str(), dtype_name(promoted));
  }
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
  if (args.check) args.check(promoted);

  // 3. Shapes: broadcast the tensor operands; the written tensor must already have that shape.
  core::Shape shape;
  std::string shape_names;
  for (int i = 0; i < n; ++i) {
    const EwOperand &o = args.in[i];
    if (!present(o) || o.is_scalar) continue;
    const core::Shape s = core::Shape::of(*o.tensor);
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
  const int out_slot = args.inplace ? slot[0] : b.output(args.out);

  EwSpec spec;
  spec.op = op;
  spec.compute_dtype = compute;
  if (args.param) spec.set_scalar(0, args.param);
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

void binary_rule_phase1(core::OpBuilder &b, const EwRule &rule, const BinaryArgs &args) {
  EwArgs a;
  a.n_in = 2;
  a.in[0] = EwOperand::t(args.self, args.inplace ? "selfRef" : "self");
  a.in[1] = args.other ? EwOperand::t(args.other, "other") : EwOperand::s(args.other_scalar, "other");
  a.out = args.out;
  a.inplace = args.inplace;
  ew_phase1(b, rule, a);
}

void unary_rule_phase1(core::OpBuilder &b, const EwRule &rule, const aclTensor *self, const aclTensor *out,
                       bool inplace, const char *self_name) {
  EwArgs a;
  a.n_in = 1;
  a.in[0] = EwOperand::t(self, self_name ? self_name : inplace ? "selfRef" : "self");
  a.out = out;
  a.inplace = inplace;
  ew_phase1(b, rule, a);
}

void binary_arith_phase1(core::OpBuilder &b, EwOp op, const BinaryArgs &args) {
  EwRule rule{op};
  if (op == EwOp::kSub) rule.bool_ok = false;  // use a logical op for booleans
  if (op == EwOp::kDiv) rule.result = EwResult::kFloating;  // true division
  EwArgs a;
  a.n_in = 2;
  a.in[0] = EwOperand::t(args.self, args.inplace ? "selfRef" : "self");
  a.in[1] = args.other ? EwOperand::t(args.other, "other") : EwOperand::s(args.other_scalar, "other");
  if (op == EwOp::kAdd || op == EwOp::kSub) {
    a.param = args.alpha;
    a.param_name = "alpha";
  }
  a.out = args.out;
  a.inplace = args.inplace;
  ew_phase1(b, rule, a);
}

}  // namespace opsnn::ops
