#include "ops/reduction/reduce_phase1.h"

#include <cmath>

#include "common/error.h"
#include "core/op_checks.h"
#include "ops/reduction/reduce_step.h"

namespace opsnn::ops {
namespace {

using kernels::ReduceOp;

// The dims to reduce as a bit mask over self's dims (161002 naming the parameter when one is out
// of range or repeated). A 0-d tensor accepts dim 0 and -1 and reduces nothing.
uint32_t reduce_mask(const ReduceCall &c, bool null_dims_all) {
  const int nd = c.self->ndim;
  const uint32_t all = nd == 0 ? 0u : (nd >= 32 ? ~0u : (1u << nd) - 1u);
  std::vector<int64_t> list;
  switch (c.dims_kind) {
    case ReduceCall::Dims::kAll: return all;
    case ReduceCall::Dims::kOne: list.push_back(c.dim); break;
    case ReduceCall::Dims::kList:
      if (c.dims == nullptr) {
        if (null_dims_all) return all;
        throw_error(ACLNN_ERR_PARAM_NULLPTR, "%s is null", c.dims_name);
      }
      if (c.dims->values.empty()) return all;
      list = c.dims->values;
      break;
  }
  uint32_t mask = 0;
  for (int64_t d : list) {
    const int n = core::wrap_dim(d, nd, c.dims_name);
    if (nd == 0) continue;
    if (mask >> n & 1u)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s: dim %lld appears more than once", c.dims_name,
                  static_cast<long long>(n));
    mask |= 1u << n;
  }
  return mask;
}

void check_result_dtype(const ReduceCall &c, int k, ReduceResult r) {
  const aclTensor *o = c.out[k];
  const char *name = c.out_name[k];
  const aclDataType dt = o->dtype;
  switch (r) {
    case ReduceResult::kSame:
      if (dt != c.self->dtype)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have self's dtype %s", name,
                    core::dtype_name(dt), core::dtype_name(c.self->dtype));
      return;
    case ReduceResult::kDtypeArg:
      if (dt != c.dtype)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have the dtype argument's %s", name,
                    core::dtype_name(dt), core::dtype_name(c.dtype));
      return;
    case ReduceResult::kFloat:
      if (!core::is_floating(dt))
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must be FLOAT, FLOAT16, BF16 or DOUBLE", name,
                    core::dtype_name(dt));
      return;
    case ReduceResult::kBool:
      if (dt != ACL_BOOL && dt != ACL_UINT8)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must be BOOL or UINT8", name, core::dtype_name(dt));
      return;
    case ReduceResult::kIndex:
      if (dt != ACL_INT32 && dt != ACL_INT64)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must be INT32 or INT64", name, core::dtype_name(dt));
      return;
    case ReduceResult::kInt64:
      if (dt != ACL_INT64)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must be INT64", name, core::dtype_name(dt));
      return;
  }
}

// The reducers that also compute exactly on integers (wrapping sums and products, as PyTorch).
bool integral_capable(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: case ReduceOp::kProd: case ReduceOp::kMax: case ReduceOp::kMin:
    case ReduceOp::kArgMax: case ReduceOp::kArgMin: case ReduceOp::kAll: case ReduceOp::kAny:
    case ReduceOp::kCountNonzero: case ReduceOp::kNansum: case ReduceOp::kAminmax:
      return true;
    default:
      return false;
  }
}

}  // namespace

void reduce_phase1(core::OpBuilder &b, const ReduceRule &rule, const ReduceCall &c) {
  core::check_tensor(c.self, c.self_name);
  const uint32_t mask = reduce_mask(c, rule.null_dims_all);
  kernels::ReduceParams params = c.params;
  if (rule.op == ReduceOp::kNorm) params.p = core::scalar_value(c.p_scalar, c.p_name);
  for (int k = 0; k < rule.nout; ++k) core::check_tensor(c.out[k], c.out_name[k]);
  core::check_dtype_in(c.self, c.self_name, rule.dtypes);
  if (rule.result[0] == ReduceResult::kDtypeArg) {
    if (!core::dtype_in(c.dtype, rule.dtypes) || !core::can_cast(c.self->dtype, c.dtype))
      throw_error(ACLNN_ERR_PARAM_INVALID, "dtype %s is not a result dtype for self of dtype %s",
                  core::dtype_name(c.dtype), core::dtype_name(c.self->dtype));
  }
  for (int k = 0; k < rule.nout; ++k) check_result_dtype(c, k, rule.result[k]);

  // Output shape: self's dims without the reduced ones (or with them as 1 when keepdim); a full
  // reduction without keepdim may also be written to a [1] tensor.
  core::Shape expect;
  int64_t reduced_extent = 1;
  for (int d = 0; d < c.self->ndim; ++d) {
    if (mask >> d & 1u) {
      reduced_extent *= c.self->dims[d];
      if (c.keepdim) expect.dims[expect.ndim++] = 1;
    } else {
      expect.dims[expect.ndim++] = c.self->dims[d];
    }
  }
  for (int k = 0; k < rule.nout; ++k) {
    const aclTensor &o = *c.out[k];
    const bool scalar_as_1 = expect.ndim == 0 && o.ndim == 1 && o.dims[0] == 1;
    if (!scalar_as_1) core::check_shape_equals(o, c.out_name[k], expect);
  }
  if (rule.needs_nonempty && reduced_extent == 0 && c.self->numel() == 0 && c.out[0]->numel() > 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s: cannot reduce a dim of size 0 (self has shape %s): the op has no identity",
                c.dims_name, core::shape_string(*c.self).c_str());
  if (rule.op == ReduceOp::kNorm && std::isinf(params.p) && reduced_extent == 0 &&
      c.out[0]->numel() > 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "the infinity norm of an empty dim is undefined (self has shape %s)",
                core::shape_string(*c.self).c_str());

  const aclDataType value_dtype = rule.result[0] == ReduceResult::kDtypeArg ? c.dtype : c.self->dtype;
  ReduceSpec spec;
  spec.op = rule.op;
  spec.params = params;
  spec.compute = integral_capable(rule.op) && !core::is_floating(value_dtype) && !core::is_floating(c.self->dtype)
                     ? core::ComputeType::kInt64
                     : core::ComputeType::kDouble;
  const int in = b.input(c.self);
  std::vector<EwInput> outs;
  for (int k = 0; k < rule.nout; ++k) outs.push_back(EwInput::tensor(b.output(c.out[k])));
  if (rule.op == ReduceOp::kAminmax) {  // torch.aminmax: amin into the first output, amax into the second
    spec.op = ReduceOp::kMin;
    record_reduction(b, spec, EwInput::tensor(in), mask, c.keepdim, {outs[0]});
    spec.op = ReduceOp::kMax;
    record_reduction(b, spec, EwInput::tensor(in), mask, c.keepdim, {outs[1]});
    return;
  }
  record_reduction(b, spec, EwInput::tensor(in), mask, c.keepdim, outs);
}

}  // namespace opsnn::ops
