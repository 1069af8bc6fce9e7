#include "core/op_checks.h"

#include <algorithm>

#include "common/error.h"

namespace opsnn::core {

bool Shape::operator==(const Shape &o) const {
  if (ndim != o.ndim) return false;
  for (int i = 0; i < ndim; ++i)
    if (dims[i] != o.dims[i]) return false;
  return true;
}

Shape Shape::of(const aclTensor &t) {
  Shape s;
  s.ndim = t.ndim;
  for (int i = 0; i < t.ndim; ++i) s.dims[i] = t.dims[i];
  return s;
}

bool is_plain_format(aclFormat f) {
  switch (f) {
    case ACL_FORMAT_ND:
    case ACL_FORMAT_NCHW:
    case ACL_FORMAT_NHWC:
    case ACL_FORMAT_NCDHW:
    case ACL_FORMAT_NDHWC:
    case ACL_FORMAT_NCL:
    case ACL_FORMAT_NC:
    case ACL_FORMAT_HWCN: return true;
    default: return false;
  }
}

void check_not_null(const void *p, const char *name) {
  if (p == nullptr) throw_error(ACLNN_ERR_PARAM_NULLPTR, "%s is null", name);
}

void check_tensor(const aclTensor *t, const char *name) {
  check_not_null(t, name);
  if (!dtype_is_supported(t->dtype))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s, which OpsNN does not support", name, dtype_name(t->dtype));
  if (!is_plain_format(t->format))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has format %s; this op accepts plain formats (ND, NCHW, ...)", name,
                format_name(t->format));
}

void check_dtype_in(const aclTensor *t, const char *name, std::initializer_list<aclDataType> allowed) {
  check_not_null(t, name);
  // A dtype the op lists is one it handles, even outside OpsNN's general tensor dtypes (the UINT64 /
  // INT64 words of aclnnTransQuantParam); the format check applies either way.
  if (std::find(allowed.begin(), allowed.end(), t->dtype) != allowed.end()) {
    if (!is_plain_format(t->format))
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has format %s; this op accepts plain formats (ND, NCHW, ...)", name,
                  format_name(t->format));
    return;
  }
  check_tensor(t, name);
  std::string list;
  for (aclDataType dt : allowed) list += std::string(list.empty() ? "" : ", ") + dtype_name(dt);
  throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; expected one of %s", name, dtype_name(t->dtype), list.c_str());
}

void check_scalar(const aclScalar *s, const char *name) {
  check_not_null(s, name);
  if (!dtype_is_supported(s->dtype) && s->dtype != ACL_UINT16 && s->dtype != ACL_UINT32 && s->dtype != ACL_UINT64)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s, which OpsNN does not support", name, dtype_name(s->dtype));
}

void check_no_internal_overlap(const aclTensor &t, const char *name) {
  if (t.numel() <= 1) return;
  // Sort the non-trivial dims by stride; each stride must clear everything the inner dims reach.
  int idx[kMaxDims], n = 0;
  for (int i = 0; i < t.ndim; ++i)
    if (t.dims[i] > 1) idx[n++] = i;
  // At most kMaxDims entries: an insertion sort (std::sort's 16-element threshold also trips
  // GCC 12's -Warray-bounds on an 8-element array).
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && t.strides[idx[j]] < t.strides[idx[j - 1]]; --j) std::swap(idx[j], idx[j - 1]);
  int64_t reach = 0;  // max element offset reachable by the inner dims
  for (int k = 0; k < n; ++k) {
    const int d = idx[k];
    if (t.strides[d] <= reach)
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "%s (dims %s, strides %s) has overlapping elements; an output must not alias itself", name,
                  shape_string(t).c_str(), shape_string(t.strides, t.ndim).c_str());
    reach += t.strides[d] * (t.dims[d] - 1);
  }
}

void check_shape_equals(const aclTensor &t, const char *name, const Shape &expected) {
  if (!(Shape::of(t) == expected))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected %s", name, shape_string(t).c_str(),
                expected.str().c_str());
}

Shape broadcast_shapes(const Shape &a, const char *a_name, const Shape &b, const char *b_name) {
  Shape out;
  out.ndim = std::max(a.ndim, b.ndim);
  for (int i = 0; i < out.ndim; ++i) {
    const int ia = a.ndim - out.ndim + i, ib = b.ndim - out.ndim + i;
    const int64_t da = ia >= 0 ? a.dims[ia] : 1, db = ib >= 0 ? b.dims[ib] : 1;
    if (da != db && da != 1 && db != 1)
      throw_error(ACLNN_ERR_PARAM_INVALID, "shapes of %s %s and %s %s cannot be broadcast together", a_name,
                  a.str().c_str(), b_name, b.str().c_str());
    out.dims[i] = da == 1 ? db : da;
  }
  return out;
}

void broadcast_strides(const aclTensor &t, const Shape &shape, int64_t *strides) {
  for (int i = 0; i < shape.ndim; ++i) {
    const int it = t.ndim - shape.ndim + i;
    strides[i] = (it >= 0 && t.dims[it] != 1) ? t.strides[it] : 0;
  }
}

}  // namespace opsnn::core
