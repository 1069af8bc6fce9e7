#include "ops/activation/activation_common.h"

#include "common/error.h"

namespace opsnn::ops {

GluHalves glu_halves(const aclTensor *x, const char *x_name, int64_t dim, bool interleaved) {
  const int nd = x->ndim;
  if (nd == 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have at least one dimension to be split in halves", x_name);
  GluHalves h;
  h.dim = core::wrap_dim(dim, nd, "dim");
  const int64_t n = x->dims[h.dim];
  if (n % 2 != 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s size %lld along dim %d is odd; it must split in two equal halves",
                x_name, static_cast<long long>(n), h.dim);
  const int64_t half = n / 2;
  if (interleaved) {
    h.first = narrow_view(*x, h.dim, 0, half, 2);
    h.second = narrow_view(*x, h.dim, 1, half, 2);
  } else {
    h.first = narrow_view(*x, h.dim, 0, half);
    h.second = narrow_view(*x, h.dim, half, half);
  }
  h.out_shape = core::Shape::of(*x);
  h.out_shape.dims[h.dim] = half;
  return h;
}

void check_glu_out(const aclTensor *out, const char *name, const aclTensor &x, const GluHalves &h) {
  core::check_tensor(out, name);
  core::check_shape_equals(*out, name, h.out_shape);
  if (!core::is_floating(out->dtype) || !core::can_cast(x.dtype, out->dtype))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s dtype %s cannot hold the %s result", name, core::dtype_name(out->dtype),
                core::dtype_name(x.dtype));
}

}  // namespace opsnn::ops
