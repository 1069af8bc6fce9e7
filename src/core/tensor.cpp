#include "core/tensor.h"

#include <cstring>
#include <string>

#include "common/error.h"
#include "common/half.h"
#include "core/api_boundary.h"
#include "core/dtype.h"
#include "core/packed_dtype.h"
#include "runtime/runtime.h"

using opsnn::core::kMaxDims;

bool aclTensor::is_contiguous() const {
  int64_t expected = 1;
  for (int i = ndim - 1; i >= 0; --i) {
    if (dims[i] != 1 && strides[i] != expected) return false;
    expected *= dims[i];
  }
  return true;
}

bool aclScalar::is_floating() const { return opsnn::core::is_floating(dtype); }

double aclScalar::to_double() const {
  switch (dtype) {
    case ACL_FLOAT: { float v; std::memcpy(&v, bytes, 4); return v; }
    case ACL_DOUBLE: { double v; std::memcpy(&v, bytes, 8); return v; }
    case ACL_FLOAT16: { uint16_t v; std::memcpy(&v, bytes, 2); return opsnn::half_to_float(v); }
    case ACL_BF16: { uint16_t v; std::memcpy(&v, bytes, 2); return opsnn::bf16_to_float(v); }
    case ACL_BOOL: return bytes[0] != 0 ? 1.0 : 0.0;
    default: return static_cast<double>(to_int64());
  }
}

int64_t aclScalar::to_int64() const {
  switch (dtype) {
    case ACL_INT8: { int8_t v; std::memcpy(&v, bytes, 1); return v; }
    case ACL_UINT8: return bytes[0];
    case ACL_INT16: { int16_t v; std::memcpy(&v, bytes, 2); return v; }
    case ACL_UINT16: { uint16_t v; std::memcpy(&v, bytes, 2); return v; }
    case ACL_INT32: { int32_t v; std::memcpy(&v, bytes, 4); return v; }
    case ACL_UINT32: { uint32_t v; std::memcpy(&v, bytes, 4); return v; }
    case ACL_INT64: { int64_t v; std::memcpy(&v, bytes, 8); return v; }
    case ACL_UINT64: { uint64_t v; std::memcpy(&v, bytes, 8); return static_cast<int64_t>(v); }
    case ACL_BOOL: return bytes[0] != 0;
    default: return opsnn::core::saturate_to_int64(to_double());
  }
}

bool aclScalar::to_bool() const {
  return is_floating() ? to_double() != 0.0 : to_int64() != 0;
}

namespace opsnn::core {

std::string shape_string(const int64_t *dims, int ndim) {
  std::string s = "[";
  for (int i = 0; i < ndim; ++i) {
    if (i) s += ", ";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

namespace {
struct FormatName {
  aclFormat f;
  const char *name;
};
constexpr FormatName kFormats[] = {
    {ACL_FORMAT_NCHW, "NCHW"}, {ACL_FORMAT_NHWC, "NHWC"}, {ACL_FORMAT_ND, "ND"},
    {ACL_FORMAT_NC1HWC0, "NC1HWC0"}, {ACL_FORMAT_FRACTAL_Z, "FRACTAL_Z"},
    {ACL_FORMAT_NC1HWC0_C04, "NC1HWC0_C04"}, {ACL_FORMAT_HWCN, "HWCN"}, {ACL_FORMAT_NDHWC, "NDHWC"},
    {ACL_FORMAT_FRACTAL_NZ, "FRACTAL_NZ"}, {ACL_FORMAT_NCDHW, "NCDHW"},
    {ACL_FORMAT_NDC1HWC0, "NDC1HWC0"}, {ACL_FRACTAL_Z_3D, "FRACTAL_Z_3D"}, {ACL_FORMAT_NC, "NC"},
    {ACL_FORMAT_NCL, "NCL"}, {ACL_FORMAT_FRACTAL_NZ_C0_16, "FRACTAL_NZ_C0_16"},
    {ACL_FORMAT_FRACTAL_NZ_C0_32, "FRACTAL_NZ_C0_32"}, {ACL_FORMAT_FRACTAL_NZ_C0_2, "FRACTAL_NZ_C0_2"},
    {ACL_FORMAT_FRACTAL_NZ_C0_4, "FRACTAL_NZ_C0_4"}, {ACL_FORMAT_FRACTAL_NZ_C0_8, "FRACTAL_NZ_C0_8"},
};
}  // namespace

bool format_is_known(aclFormat f) {
  for (const auto &x : kFormats)
    if (x.f == f) return true;
  return false;
}
const char *format_name(aclFormat f) {
  for (const auto &x : kFormats)
    if (x.f == f) return x.name;
  return "UNKNOWN";
}

void init_tensor(aclTensor *t, const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                 const int64_t *stride, int64_t offset, aclFormat format, const int64_t *storageDims,
                 uint64_t storageDimsNum, void *tensorData) {
  if (viewDimsNum > static_cast<uint64_t>(kMaxDims))
    throw_error(ACLNN_ERR_PARAM_INVALID, "viewDimsNum is %llu, more than the %d dims supported",
                static_cast<unsigned long long>(viewDimsNum), kMaxDims);
  if (storageDimsNum > static_cast<uint64_t>(kMaxDims))
    throw_error(ACLNN_ERR_PARAM_INVALID, "storageDimsNum is %llu, more than the %d dims supported",
                static_cast<unsigned long long>(storageDimsNum), kMaxDims);
  if (viewDimsNum > 0 && viewDims == nullptr)
    throw_error(ACLNN_ERR_PARAM_NULLPTR, "viewDims is null while viewDimsNum is %llu",
                static_cast<unsigned long long>(viewDimsNum));
  if (storageDimsNum > 0 && storageDims == nullptr)
    throw_error(ACLNN_ERR_PARAM_NULLPTR, "storageDims is null while storageDimsNum is %llu",
                static_cast<unsigned long long>(storageDimsNum));
  if (!dtype_is_known(dataType))
    throw_error(ACLNN_ERR_PARAM_INVALID, "dataType %d is not a known aclDataType", static_cast<int>(dataType));
  if (!format_is_known(format))
    throw_error(ACLNN_ERR_PARAM_INVALID, "format %d is not a known aclFormat", static_cast<int>(format));
  if (offset < 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "offset is %lld; it must be >= 0", static_cast<long long>(offset));

  const int nd = static_cast<int>(viewDimsNum);
  int64_t dims[kMaxDims], strides[kMaxDims];
  bool empty = false;
  for (int i = 0; i < nd; ++i) {
    if (viewDims[i] < 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "viewDims[%d] is %lld; dims must be >= 0", i,
                  static_cast<long long>(viewDims[i]));
    dims[i] = viewDims[i];
    empty |= dims[i] == 0;
  }
  // Checked size arithmetic: every element count, stride and extent below stays under 2^62 (extents
  // in bytes), so no product or sum of them wraps (a wrapped numel made [2^32, 2^32] look empty).
  // An empty view is checked as if its size-0 dims were 1: its other dims still enter the
  // arithmetic of phase 1 (contiguous strides, loop plans merging dims, size x stride), so
  // [0, 2^62] with strides [1, 1] or [0, 2^40, 2^40] are refused like their non-empty versions.
  {
    __int128 numel = 1;
    for (int i = 0; i < nd; ++i) {
      numel *= dims[i] > 0 ? dims[i] : 1;
      if (numel >= (static_cast<__int128>(1) << 62))
        throw_error(ACLNN_ERR_PARAM_INVALID, "viewDims %s hold 2^62 elements or more%s",
                    shape_string(dims, nd).c_str(), empty ? " (size-0 dims counted as 1)" : "");
    }
  }
  if (stride) {
    for (int i = 0; i < nd; ++i) {
      if (stride[i] < 0)
        throw_error(ACLNN_ERR_PARAM_INVALID, "stride[%d] is %lld; negative strides are not supported", i,
                    static_cast<long long>(stride[i]));
      strides[i] = stride[i];
    }
  } else {
    int64_t s = 1;  // < 2^62: the product of the dims (size-0 counted as 1) is
    for (int i = nd - 1; i >= 0; --i) {
      strides[i] = s;
      s *= dims[i] > 0 ? dims[i] : 1;
    }
  }

  // Offsets and strides in bytes stay below 2^62 even where they reach no element (empty views,
  // size-1 dims), so no kernel's pointer arithmetic on them can wrap.
  const __int128 es = static_cast<__int128>(dtype_size(dataType) > 0 ? dtype_size(dataType) : 1);
  if (offset * es >= (static_cast<__int128>(1) << 62))
    throw_error(ACLNN_ERR_PARAM_INVALID, "offset %lld is too large (2^62 bytes or more)", static_cast<long long>(offset));
  for (int i = 0; i < nd; ++i)
    if (strides[i] * es >= (static_cast<__int128>(1) << 62))
      throw_error(ACLNN_ERR_PARAM_INVALID, "stride[%d] is %lld, too large (2^62 bytes or more)", i,
                  static_cast<long long>(strides[i]));

  // Elements the view can reach (exclusive end; 0 for an empty view), and what the storage holds.
  // The reach is bounded in bytes for empty views too (size-0 dims counted as 1).
  int64_t extent = 0;
  {
    __int128 last = offset;
    for (int i = 0; i < nd; ++i)
      if (dims[i] > 0) last += static_cast<__int128>(dims[i] - 1) * strides[i];
    if ((last + 1) * es >= (static_cast<__int128>(1) << 62))
      throw_error(ACLNN_ERR_PARAM_INVALID, "the view %s with strides %s reaches 2^62 bytes or more%s",
                  shape_string(dims, nd).c_str(), shape_string(strides, nd).c_str(),
                  empty ? " (size-0 dims counted as 1)" : "");
    if (!empty) extent = static_cast<int64_t>(last) + 1;
  }
  // The storage shape is recorded for aclGetStorageShape, not used as a bound: the view may reach
  // past it (check_view_within_allocation holds the real bound).
  int64_t sdims[kMaxDims];
  int snd = static_cast<int>(storageDimsNum);
  if (storageDims) {
    for (int i = 0; i < snd; ++i) {
      if (storageDims[i] < 0)
        throw_error(ACLNN_ERR_PARAM_INVALID, "storageDims[%d] is %lld; dims must be >= 0", i,
                    static_cast<long long>(storageDims[i]));
      sdims[i] = storageDims[i];
    }
  } else {
    // No storage shape given: the storage is exactly what the view reaches.
    snd = 1;
    sdims[0] = extent;
  }

  t->dtype = dataType;
  t->format = format;
  t->ndim = nd;
  t->storage_ndim = snd;
  for (int i = 0; i < nd; ++i) {
    t->dims[i] = dims[i];
    t->strides[i] = strides[i];
  }
  for (int i = 0; i < snd; ++i) t->storage_dims[i] = sdims[i];
  t->offset = offset;
  t->data = tensorData;
}

void check_view_within_allocation(const aclTensor &t, const char *what) {
  if (t.data == nullptr || t.numel() == 0) return;
  const void *base = nullptr;
  size_t bytes = 0;
  if (!rt::find_device_allocation(t.data, &base, &bytes)) return;
  __int128 last = t.offset;
  for (int i = 0; i < t.ndim; ++i) last += static_cast<__int128>(t.dims[i] - 1) * t.strides[i];
  const __int128 view_bytes = dtype_packs_two(t.dtype) ? (last + 2) / 2 : (last + 1) * dtype_size(t.dtype);
  const __int128 start = static_cast<const char *>(t.data) - static_cast<const char *>(base);
  const __int128 end = start + view_bytes;  // bytes from the allocation's start
  if (end <= static_cast<__int128>(bytes)) return;
  throw_error(ACLNN_ERR_PARAM_INVALID,
              "%s (dims %s, strides %s, offset %lld, %s) at %p reaches byte %lld of its device allocation at %p, "
              "which has %zu bytes",
              what, shape_string(t).c_str(), shape_string(t.strides, t.ndim).c_str(), static_cast<long long>(t.offset),
              dtype_name(t.dtype), t.data, static_cast<long long>(end > (static_cast<__int128>(1) << 62)
                                                                      ? (static_cast<__int128>(1) << 62)
                                                                      : end),
              base, bytes);
}

}  // namespace opsnn::core
