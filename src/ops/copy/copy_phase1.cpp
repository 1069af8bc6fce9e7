#include "ops/copy/copy_phase1.h"

#include "common/error.h"
#include "core/op_checks.h"
#include "ops/copy/copy_common.h"
#include "ops/copy/low_float_cast.h"
#include "ops/elementwise/elementwise_step.h"
#include "ops/layout/layout_steps.h"

namespace opsnn::ops {

void copy_phase1(core::OpBuilder &b, const CopyRule &rule, const CopyCall &c) {
  if (is_low_float_cast(c)) {  // FLOAT8 / FLOAT4 on either side: their own checks and kernel
    low_float_cast_phase1(b, c);
    return;
  }
  // Presence in prototype order, then the op's own rules.
  const bool has_src = c.src_name != nullptr;
  if (c.src_first) core::check_tensor(c.src, c.src_name);
  core::check_tensor(c.dst, c.dst_name);
  if (has_src && !c.src_first) core::check_tensor(c.src, c.src_name);
  if (c.value_name != nullptr) core::check_scalar(c.value, c.value_name);
  if (c.has_dtype) {
    if (!core::dtype_is_supported(c.dtype))
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s (%d) is not supported", c.dtype_name, core::dtype_name(c.dtype),
                  static_cast<int>(c.dtype));
    if (c.dst->dtype != c.dtype)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s but %s is %s; they must be equal", c.dst_name,
                  core::dtype_name(c.dst->dtype), c.dtype_name, core::dtype_name(c.dtype));
  }
  const core::Shape shape = core::Shape::of(*c.dst);
  if (has_src) {
    const core::Shape from = core::Shape::of(*c.src);
    if (rule.one_element) {
      if (c.src->ndim > 1 || c.src->numel() != 1)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be 0-d or 1-D with one element", c.src_name,
                    from.str().c_str());
      if (!core::can_cast(c.src->dtype, c.dst->dtype))
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s, which cannot be cast to %s's dtype %s", c.src_name,
                    core::dtype_name(c.src->dtype), c.dst_name, core::dtype_name(c.dst->dtype));
    } else if (!rule.broadcast) {
      core::check_shape_equals(*c.dst, c.dst_name, from);
    } else if (!(core::broadcast_shapes(shape, c.dst_name, from, c.src_name) == shape)) {
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s cannot be broadcast to %s %s", c.src_name, from.str().c_str(),
                  c.dst_name, shape.str().c_str());
    }
  }

  // Registration in prototype order.
  int src_slot = -1;
  if (c.src_first) src_slot = b.input(c.src);
  const int dst_slot = c.inplace ? b.inout(c.dst) : b.output(c.dst);
  if (has_src && !c.src_first) src_slot = b.input(c.src);

  EwSpec spec;
  if (has_src) {
    spec.op = kernels::EwOp::kIdentity;
    spec.compute_dtype = conversion_compute_dtype(c.src->dtype, c.dst->dtype);
    if (rule.one_element) {  // its 0-d view broadcasts to every element
      aclTensor scalar_view = b.tensor(src_slot);
      scalar_view.ndim = 0;
      record_elementwise(b, spec, dst_slot, {EwInput::tensor_view(src_slot, scalar_view)});
    } else if (c.src->dtype == c.dst->dtype && core::Shape::of(*c.src) == shape &&
               record_blocked_copy(b, dst_slot, b.tensor(dst_slot), src_slot, b.tensor(src_slot))) {
      // a transposing copy (x.t().contiguous()): in tiles, as the layout family's permutes
    } else {
      record_elementwise(b, spec, dst_slot, {EwInput::tensor(src_slot)});
    }
    return;
  }
  // A fill: the value converted from its own dtype (an INT64 beyond 2^53 stays exact), or 0.
  spec.op = kernels::EwOp::kFill;
  spec.compute_dtype = conversion_compute_dtype(c.value ? c.value->dtype : c.dst->dtype, c.dst->dtype);
  if (c.value != nullptr) spec.set_scalar(0, c.value);
  else spec.set_scalar(0, 0.0);
  record_elementwise(b, spec, dst_slot, {});
}

}  // namespace opsnn::ops
