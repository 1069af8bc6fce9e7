// aclnnHeaviside (aclnnop/aclnn_heaviside.h): input == 0 ? values : (input > 0), broadcasting,
// computed in the promoted dtype of input and values.
#include "aclnnop/aclnn_heaviside.h"
#include "common/error.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

namespace {
constexpr std::initializer_list<aclDataType> kHeavisideTypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8,
                                                                ACL_UINT8, ACL_INT16,  ACL_INT32, ACL_INT64, ACL_BOOL};
}

OPSNN_ACTIVATION_OP(Heaviside, (const aclTensor *input, const aclTensor *values, aclTensor *out,
                                uint64_t *workspaceSize, aclOpExecutor **executor), {
  core::check_dtype_in(input, "input", kHeavisideTypes);
  core::check_dtype_in(values, "values", kHeavisideTypes);
  core::check_tensor(out, "out");
  core::ResultType rt;
  rt.add_tensor(input->dtype, input->ndim);
  rt.add_tensor(values->dtype, values->ndim);
  const aclDataType promoted = rt.get();
  const core::Shape shape =
      core::broadcast_shapes(core::Shape::of(*input), "input", core::Shape::of(*values), "values");
  core::check_shape_equals(*out, "out", shape);
  if (!core::can_cast(promoted, out->dtype))
    throw_error(ACLNN_ERR_PARAM_INVALID, "the result dtype %s cannot be cast to out dtype %s",
                core::dtype_name(promoted), core::dtype_name(out->dtype));
  const int i = b.input(input), v = b.input(values), o = b.output(out);
  ops::EwSpec spec;
  spec.op = EwOp::kHeaviside;
  spec.compute_dtype = promoted;
  ops::record_elementwise(b, spec, o, {ops::EwInput::tensor(i), ops::EwInput::tensor(v)});
})
