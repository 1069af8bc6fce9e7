// aclCreate* / aclDestroy* / aclGet* of aclnn/acl_meta.h.
#include <cstring>
#include <memory>
#include <type_traits>

#include "common/thread_cache.h"
#include "core/api_boundary.h"
#include "core/dtype.h"
#include "core/shape_publish.h"
#include "core/tensor.h"
#include "runtime/runtime.h"

using namespace opsnn;
using namespace opsnn::core;

#define OPSNN_API extern "C" ACL_FUNC_VISIBILITY

namespace {

// Creation functions return a pointer: run the body at the boundary and return null on failure.
template <class T, class Body>
T *create_or_null(const char *api, Body &&body) {
  T *result = nullptr;
  int rc = api_call(api, [&] {
    result = body();
    return ACLNN_SUCCESS;
  });
  return rc == ACLNN_SUCCESS ? result : nullptr;
}

template <class T>
aclnnStatus destroy(const T *p) {
  // Destroying null is a no-op success, like free(nullptr).
  delete p;
  return ACLNN_SUCCESS;
}

// Tensor descriptors and scalars are created and destroyed around every call by one-shot clients:
// they come from a per-thread cache (common/thread_cache.h), reset to a new object's state. Not
// in the checked mode, where every destroy frees (AddressSanitizer then reports a descriptor used
// or destroyed after its destroy).
using TensorCache = ThreadCache<aclTensor, 64>;
using ScalarCache = ThreadCache<aclScalar, 16>;

template <class Cache, class T>
T *take_cached() {
  T *p = rt::checked_mode() ? nullptr : Cache::take();
  if (!p) return new T;
  *p = T{};
  return p;
}

template <class Cache, class T>
aclnnStatus destroy_cached(const T *p) {
  if (p && (rt::checked_mode() || !Cache::give(const_cast<T *>(p)))) delete p;
  return ACLNN_SUCCESS;
}

aclnnStatus copy_dims_out(const char *api, const int64_t *src, int n, int64_t **out, uint64_t *num) {
  return api_call(api, [&] {
    require_not_null(out, "the output array pointer");
    require_not_null(num, "the output count pointer");
    *out = new int64_t[n > 0 ? n : 1];
    for (int i = 0; i < n; ++i) (*out)[i] = src[i];
    *num = static_cast<uint64_t>(n);
    return ACLNN_SUCCESS;
  });
}

}  // namespace

OPSNN_API aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                                     const int64_t *stride, int64_t offset, aclFormat format,
                                     const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData) {
  return create_or_null<aclTensor>("aclCreateTensor", [&] {
    std::unique_ptr<aclTensor> t(take_cached<TensorCache, aclTensor>());
    init_tensor(t.get(), viewDims, viewDimsNum, dataType, stride, offset, format, storageDims, storageDimsNum,
                tensorData);
    return t.release();
  });
}

OPSNN_API aclnnStatus aclInitTensor(aclTensor *tensor, const int64_t *viewDims, uint64_t viewDimsNum,
                                    aclDataType dataType, const int64_t *stride, int64_t offset, aclFormat format,
                                    const int64_t *storageDims, uint64_t storageDimsNum, void *tensorDataAddr) {
  return api_call("aclInitTensor", [&] {
    require_not_null(tensor, "tensor");
    shape_target_forget(tensor);
    aclTensor tmp;
    init_tensor(&tmp, viewDims, viewDimsNum, dataType, stride, offset, format, storageDims, storageDimsNum,
                tensorDataAddr);
    *tensor = tmp;
    return ACLNN_SUCCESS;
  });
}

OPSNN_API aclScalar *aclCreateScalar(void *value, aclDataType dataType) {
  return create_or_null<aclScalar>("aclCreateScalar", [&] {
    require_not_null(value, "value");
    if (!dtype_is_known(dataType))
      throw_error(ACLNN_ERR_PARAM_INVALID, "dataType %d is not a known aclDataType", static_cast<int>(dataType));
    size_t size = dtype_size(dataType);
    if (!dtype_is_supported(dataType) && dataType != ACL_UINT16 && dataType != ACL_UINT32 &&
        dataType != ACL_UINT64)
      throw_error(ACLNN_ERR_PARAM_INVALID, "dataType %s is not supported for scalars", dtype_name(dataType));
    auto s = take_cached<ScalarCache, aclScalar>();
    s->dtype = dataType;
    std::memcpy(s->bytes, value, size);
    return s;
  });
}

template <class Array, class T>
static Array *create_array(const char *api, const T *value, uint64_t size) {
  return create_or_null<Array>(api, [&] {
    if (size > 0) require_not_null(value, "value");
    // value + size must not wrap (and a copy of more than 2^31 elements is no argument list).
    if (size > (uint64_t{1} << 31))
      throw_error(ACLNN_ERR_PARAM_INVALID, "size %llu is too large (at most 2^31 elements)",
                  static_cast<unsigned long long>(size));
    auto a = new Array;
    if constexpr (std::is_same_v<T, bool>) {
      // Read each bool as its byte: any non-zero byte is true (a byte other than 0 / 1 read as
      // `bool` would be undefined behaviour).
      const auto *bytes = reinterpret_cast<const unsigned char *>(value);
      a->values.resize(size);
      for (uint64_t i = 0; i < size; ++i) a->values[i] = bytes[i] != 0;
    } else {
      a->values.assign(value, value + size);
    }
    return a;
  });
}

OPSNN_API aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size) {
  return create_array<aclIntArray>("aclCreateIntArray", value, size);
}
OPSNN_API aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size) {
  return create_array<aclFloatArray>("aclCreateFloatArray", value, size);
}
OPSNN_API aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size) {
  return create_array<aclBoolArray>("aclCreateBoolArray", value, size);
}

OPSNN_API aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size) {
  return create_or_null<aclTensorList>("aclCreateTensorList", [&] {
    if (size > 0) require_not_null(value, "value");
    if (size > (uint64_t{1} << 31))
      throw_error(ACLNN_ERR_PARAM_INVALID, "size %llu is too large (at most 2^31 elements)",
                  static_cast<unsigned long long>(size));
    for (uint64_t i = 0; i < size; ++i)
      if (value[i] == nullptr) throw_error(ACLNN_ERR_PARAM_NULLPTR, "value[%llu] is null", (unsigned long long)i);
    auto l = new aclTensorList;
    for (uint64_t i = 0; i < size; ++i) l->tensors.push_back(const_cast<aclTensor *>(value[i]));
    return l;
  });
}

OPSNN_API aclScalarList *aclCreateScalarList(const aclScalar *const *value, uint64_t size) {
  return create_or_null<aclScalarList>("aclCreateScalarList", [&] {
    if (size > 0) require_not_null(value, "value");
    if (size > (uint64_t{1} << 31))
      throw_error(ACLNN_ERR_PARAM_INVALID, "size %llu is too large (at most 2^31 elements)",
                  static_cast<unsigned long long>(size));
    for (uint64_t i = 0; i < size; ++i)
      if (value[i] == nullptr) throw_error(ACLNN_ERR_PARAM_NULLPTR, "value[%llu] is null", (unsigned long long)i);
    auto l = new aclScalarList;
    for (uint64_t i = 0; i < size; ++i) l->scalars.push_back(const_cast<aclScalar *>(value[i]));
    return l;
  });
}

OPSNN_API aclnnStatus aclDestroyTensor(const aclTensor *tensor) {
  if (tensor) shape_target_forget(tensor);
  return destroy_cached<TensorCache>(tensor);
}
OPSNN_API aclnnStatus aclDestroyScalar(const aclScalar *scalar) { return destroy_cached<ScalarCache>(scalar); }
OPSNN_API aclnnStatus aclDestroyIntArray(const aclIntArray *array) { return destroy(array); }
OPSNN_API aclnnStatus aclDestroyFloatArray(const aclFloatArray *array) {
  return destroy(array);
}
OPSNN_API aclnnStatus aclDestroyBoolArray(const aclBoolArray *array) { return destroy(array); }
OPSNN_API aclnnStatus aclDestroyTensorList(const aclTensorList *array) {
  // The list owns its tensors.
  if (array)
    for (aclTensor *t : array->tensors) delete t;
  return destroy(array);
}
OPSNN_API aclnnStatus aclDestroyScalarList(const aclScalarList *array) {
  if (array)
    for (aclScalar *s : array->scalars) delete s;
  return destroy(array);
}

OPSNN_API aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum) {
  if (!tensor) return fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetViewShape: tensor is null");
  return copy_dims_out("aclGetViewShape", tensor->dims, tensor->ndim, viewDims, viewDimsNum);
}
OPSNN_API aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims, uint64_t *storageDimsNum) {
  if (!tensor) return fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetStorageShape: tensor is null");
  return copy_dims_out("aclGetStorageShape", tensor->storage_dims, tensor->storage_ndim, storageDims, storageDimsNum);
}
OPSNN_API aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue, uint64_t *stridesNum) {
  if (!tensor) return fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetViewStrides: tensor is null");
  return copy_dims_out("aclGetViewStrides", tensor->strides, tensor->ndim, stridesValue, stridesNum);
}

#define OPSNN_GETTER(fn, Type, handle, OutType, out, expr)                                 \
  OPSNN_API aclnnStatus fn(const Type *handle, OutType *out) {                             \
    if (!handle) return fail(ACLNN_ERR_PARAM_NULLPTR, #fn ": " #handle " is null");        \
    if (!out) return fail(ACLNN_ERR_PARAM_NULLPTR, #fn ": " #out " is null");              \
    *out = (expr);                                                                         \
    return ACLNN_SUCCESS;                                                                  \
  }

OPSNN_GETTER(aclGetViewOffset, aclTensor, tensor, int64_t, offset, tensor->offset)
OPSNN_GETTER(aclGetFormat, aclTensor, tensor, aclFormat, format, tensor->format)
OPSNN_GETTER(aclGetDataType, aclTensor, tensor, aclDataType, dataType, tensor->dtype)
OPSNN_GETTER(aclGetIntArraySize, aclIntArray, array, uint64_t, size, array->values.size())
OPSNN_GETTER(aclGetFloatArraySize, aclFloatArray, array, uint64_t, size, array->values.size())
OPSNN_GETTER(aclGetBoolArraySize, aclBoolArray, array, uint64_t, size, array->values.size())
OPSNN_GETTER(aclGetTensorListSize, aclTensorList, tensorList, uint64_t, size, tensorList->tensors.size())
OPSNN_GETTER(aclGetScalarListSize, aclScalarList, scalarList, uint64_t, size, scalarList->scalars.size())
OPSNN_GETTER(aclGetRawTensorAddr, aclTensor, tensor, void *, addr, tensor->data)

OPSNN_API aclnnStatus aclSetRawTensorAddr(aclTensor *tensor, void *addr) {
  if (!tensor) return fail(ACLNN_ERR_PARAM_NULLPTR, "aclSetRawTensorAddr: tensor is null");
  tensor->data = addr;
  return ACLNN_SUCCESS;
}
