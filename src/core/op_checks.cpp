#include "core/op_checks.h"

#include <algorithm>

#include "common/error.h"
#include "core/packed_dtype.h"

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

namespace {
// `listed`: the op lists t's dtype (even outside OpsNN's general tensor dtypes, e.g. the UINT64 /
// INT64 words of aclnnTransQuantParam); the format check applies either way. `expected` lists
// the accepted dtypes for the message.
template <class ExpectedList>
void check_listed_dtype(const aclTensor *t, const char *name, bool listed, ExpectedList &&expected) {
  check_not_null(t, name);
  if (listed) {
    if (!is_plain_format(t->format))
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has format %s; this op accepts plain formats (ND, NCHW, ...)", name,
                  format_name(t->format));
    return;
  }
  check_tensor(t, name);
  const std::string list = expected();
  throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; expected one of %s", name, dtype_name(t->dtype), list.c_str());
}
}  // namespace

void check_dtype_in(const aclTensor *t, const char *name, std::initializer_list<aclDataType> allowed) {
  const bool listed = t != nullptr && std::find(allowed.begin(), allowed.end(), t->dtype) != allowed.end();
  check_listed_dtype(t, name, listed, [&] {
    std::string list;
    for (aclDataType dt : allowed) list += std::string(list.empty() ? "" : ", ") + dtype_name(dt);
    return list;
  });
}

std::string dtype_list(DtypeMask m) {
  std::string list;
  for (int dt = 0; dt < 64; ++dt)
    if (dtype_in(static_cast<aclDataType>(dt), m))
      list += std::string(list.empty() ? "" : ", ") + dtype_name(static_cast<aclDataType>(dt));
  return list;
}

void check_dtype_in(const aclTensor *t, const char *name, DtypeMask allowed) {
  check_listed_dtype(t, name, t != nullptr && dtype_in(t->dtype, allowed), [&] { return dtype_list(allowed); });
}

void check_scalar(const aclScalar *s, const char *name) {
  check_not_null(s, name);
  if (!dtype_is_supported(s->dtype) && s->dtype != ACL_UINT16 && s->dtype != ACL_UINT32 && s->dtype != ACL_UINT64)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s, which OpsNN does not support", name, dtype_name(s->dtype));
}

double scalar_value(const aclScalar *s, const char *name) {
  check_scalar(s, name);
  return s->to_double();
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

namespace {
// Byte range [begin, end) a view reaches, relative to its data pointer.
void byte_range(const aclTensor &t, __int128 *begin, __int128 *end) {
  __int128 last = t.offset;
  for (int i = 0; i < t.ndim; ++i) last += static_cast<__int128>(t.dims[i] - 1) * t.strides[i];
  if (dtype_packs_two(t.dtype)) {
    *begin = t.offset / 2;
    *end = (last + 2) / 2;
    return;
  }
  const __int128 es = static_cast<__int128>(dtype_size(t.dtype) > 0 ? dtype_size(t.dtype) : 1);
  *begin = t.offset * es;
  *end = (last + 1) * es;
}
// Its elements fill its range exactly, each once (a permuted contiguous layout).
bool dense(const aclTensor &t) {
  int64_t expected = 1;
  bool used[kMaxDims] = {};
  for (int k = 0; k < t.ndim; ++k) {  // find the dim of the next stride, innermost first
    int best = -1;
    for (int i = 0; i < t.ndim; ++i)
      if (!used[i] && t.dims[i] > 1 && (best < 0 || t.strides[i] < t.strides[best])) best = i;
    if (best < 0) return true;
    used[best] = true;
    if (t.strides[best] != expected) return false;
    expected *= t.dims[best];
  }
  return true;
}
}  // namespace

Overlap memory_overlap(const aclTensor &a, const aclTensor &b) {
  if (a.data == nullptr || b.data == nullptr || a.numel() == 0 || b.numel() == 0) return Overlap::kNone;
  __int128 ab, ae, bb, be;
  byte_range(a, &ab, &ae);
  byte_range(b, &bb, &be);
  const __int128 pa = reinterpret_cast<uintptr_t>(a.data), pb = reinterpret_cast<uintptr_t>(b.data);
  ab += pa, ae += pa, bb += pb, be += pb;
  if (ae <= bb || be <= ab) return Overlap::kNone;
  bool same = ab == bb && a.ndim == b.ndim && dtype_size(a.dtype) == dtype_size(b.dtype);
  for (int i = 0; same && i < a.ndim; ++i) same = a.dims[i] == b.dims[i] && a.strides[i] == b.strides[i];
  if (same) return Overlap::kFull;
  return dense(a) && dense(b) ? Overlap::kPartial : Overlap::kTooHard;
}

void set_contiguous(aclTensor &t, const Shape &shape) {
  t.ndim = shape.ndim;
  int64_t st = 1;
  for (int d = shape.ndim - 1; d >= 0; --d) {
    t.dims[d] = shape.dims[d];
    t.strides[d] = st;
    // A backstop: the shapes that reach here are checked (< 2^62 elements) where they are made.
    if (__builtin_mul_overflow(st, shape.dims[d], &st))
      throw_error(ACLNN_ERR_PARAM_INVALID, "a contiguous tensor of shape %s would hold 2^63 elements or more",
                  shape.str().c_str());
  }
}

int wrap_dim(int64_t dim, int ndim, const char *what) {
  const int64_t span = ndim == 0 ? 1 : ndim;
  if (dim < -span || dim >= span)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s: dim %lld is out of range [%lld, %lld] for a tensor with %d dims", what,
                static_cast<long long>(dim), static_cast<long long>(-span), static_cast<long long>(span - 1), ndim);
  return static_cast<int>(dim < 0 ? dim + span : dim);
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
  // Each operand holds < 2^62 elements (tensor.cpp), their broadcast need not: [2^40, 1] with
  // [1, 2^40]. Scratch tensors and loops of that shape would overflow int64 (size-0 dims count as 1,
  // as in tensor.cpp, so strides stay representable too).
  __int128 n = 1;
  for (int i = 0; i < out.ndim; ++i) {
    n *= out.dims[i] > 0 ? out.dims[i] : 1;
    if (n >= (__int128(1) << 62))
      throw_error(ACLNN_ERR_PARAM_INVALID, "shapes of %s %s and %s %s broadcast to %s: 2^62 elements or more", a_name,
                  a.str().c_str(), b_name, b.str().c_str(), out.str().c_str());
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
