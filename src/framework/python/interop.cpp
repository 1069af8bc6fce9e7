#include "interop.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "dlpack_abi.h"
#include "opsnn/call.h"

namespace dl = opsnn::dlpack;

namespace {

struct ExportCtx {
  opsnn::Tensor keep;  // holds the storage
  std::vector<int64_t> shape, strides;
  dl::DLManagedTensor managed{};
};

dl::DLDataType dl_dtype(aclDataType d) {
  switch (d) {
    case ACL_FLOAT: return {dl::kDLFloat, 32, 1};
    case ACL_FLOAT16: return {dl::kDLFloat, 16, 1};
    case ACL_BF16: return {dl::kDLBfloat, 16, 1};
    case ACL_DOUBLE: return {dl::kDLFloat, 64, 1};
    case ACL_INT8: return {dl::kDLInt, 8, 1};
    case ACL_INT32: return {dl::kDLInt, 32, 1};
    case ACL_INT64: return {dl::kDLInt, 64, 1};
    case ACL_BOOL: return {dl::kDLBool, 8, 1};
    default: throw py::type_error(std::string("opsnn: no DLPack dtype for ") + opsnn::dtype_name(d));
  }
}

aclDataType acl_dtype(const dl::DLDataType &t) {
  if (t.lanes == 1) {
    if (t.code == dl::kDLFloat && t.bits == 32) return ACL_FLOAT;
    if (t.code == dl::kDLFloat && t.bits == 16) return ACL_FLOAT16;
    if (t.code == dl::kDLBfloat && t.bits == 16) return ACL_BF16;
    if (t.code == dl::kDLInt && t.bits == 8) return ACL_INT8;
    if (t.code == dl::kDLInt && t.bits == 32) return ACL_INT32;
    if (t.code == dl::kDLInt && t.bits == 64) return ACL_INT64;
    if (t.code == dl::kDLBool && t.bits == 8) return ACL_BOOL;
  }
  throw py::type_error("opsnn.from_dlpack: unsupported dtype (type code " + std::to_string(t.code) + ", " +
                       std::to_string(t.bits) + " bits, " + std::to_string(t.lanes) +
                       " lanes); opsnn takes float32, float16, bfloat16, int8, int32, int64 and bool");
}

void delete_export(dl::DLManagedTensor *self) { delete static_cast<ExportCtx *>(self->manager_ctx); }

}  // namespace

py::capsule tensor_to_dlpack(const opsnn::Tensor &t) {
  opsnn::synchronize();  // the consumer reads the memory directly
  auto ctx = std::make_unique<ExportCtx>();
  ctx->keep = t;
  ctx->shape = t.shape();
  ctx->strides = t.strides();
  dl::DLTensor &d = ctx->managed.dl_tensor;
  d.data = t.storage()->data();
  d.device = {dl::kDLCPU, 0};
  d.ndim = static_cast<int32_t>(t.dim());
  d.dtype = dl_dtype(t.dtype());
  d.shape = ctx->shape.data();
  d.strides = ctx->strides.data();
  d.byte_offset = static_cast<uint64_t>(t.offset()) * t.element_size();
  ctx->managed.manager_ctx = ctx.get();
  ctx->managed.deleter = &delete_export;
  dl::DLManagedTensor *m = &ctx.release()->managed;
  // A capsule still named "dltensor" when it dies was never consumed: it owns the tensor.
  return py::capsule(m, "dltensor", [](PyObject *cap) {
    if (PyCapsule_IsValid(cap, "dltensor")) {
      auto *mt = static_cast<dl::DLManagedTensor *>(PyCapsule_GetPointer(cap, "dltensor"));
      if (mt != nullptr && mt->deleter != nullptr) mt->deleter(mt);
    }
  });
}

opsnn::Tensor tensor_from_dlpack(const py::object &obj) {
  py::object cap = obj;
  if (py::hasattr(obj, "__dlpack__")) {
    if (py::hasattr(obj, "__dlpack_device__")) {
      const auto dev = obj.attr("__dlpack_device__")().cast<std::pair<int, int>>();
      if (dev.first != dl::kDLCPU)
        throw py::value_error("opsnn.from_dlpack: the tensor is on device type " + std::to_string(dev.first) +
                              "; opsnn imports CPU memory only");
    }
    cap = obj.attr("__dlpack__")();
  }
  if (!PyCapsule_CheckExact(cap.ptr()) || !PyCapsule_IsValid(cap.ptr(), "dltensor"))
    throw py::type_error("opsnn.from_dlpack: expected an object with __dlpack__ or an unused \"dltensor\" capsule");
  auto *mt = static_cast<dl::DLManagedTensor *>(PyCapsule_GetPointer(cap.ptr(), "dltensor"));
  const dl::DLTensor &d = mt->dl_tensor;
  if (d.device.device_type != dl::kDLCPU)
    throw py::value_error("opsnn.from_dlpack: the tensor is on device type " + std::to_string(d.device.device_type) +
                          "; opsnn imports CPU memory only");
  const aclDataType dtype = acl_dtype(d.dtype);
  if (!opsnn::is_supported_dtype(dtype))
    throw py::type_error(std::string("opsnn.from_dlpack: dtype ") + opsnn::dtype_name(dtype) + " is not an opsnn tensor dtype");
  const size_t es = opsnn::dtype_size(dtype);
  if (d.ndim < 0 || d.ndim > 8) throw py::value_error("opsnn.from_dlpack: " + std::to_string(d.ndim) + " dims (at most 8)");
  opsnn::Shape shape(d.shape, d.shape + d.ndim), strides;
  strides = d.strides != nullptr ? opsnn::Shape(d.strides, d.strides + d.ndim) : opsnn::contiguous_strides(shape);
  if (d.byte_offset % es != 0) throw py::value_error("opsnn.from_dlpack: byte_offset is not a whole number of elements");
  // The storage spans the elements the view reaches (no negative strides: opsnn views have none).
  int64_t extent = 1;
  bool empty = false;
  for (int i = 0; i < d.ndim; ++i) {
    if (shape[static_cast<size_t>(i)] < 0 || strides[static_cast<size_t>(i)] < 0)
      throw py::value_error("opsnn.from_dlpack: negative sizes or strides are not supported");
    if (shape[static_cast<size_t>(i)] == 0) empty = true;
    else extent += (shape[static_cast<size_t>(i)] - 1) * strides[static_cast<size_t>(i)];
  }
  const int64_t offset = static_cast<int64_t>(d.byte_offset / es);
  const size_t bytes = static_cast<size_t>(empty ? offset : offset + extent) * es;
  PyCapsule_SetName(cap.ptr(), "used_dltensor");  // consumed: the capsule no longer frees it
  auto storage = std::make_shared<opsnn::Storage>(d.data, bytes, [mt] {
    if (mt->deleter != nullptr) {
      py::gil_scoped_acquire gil;  // producers' deleters (torch) may touch Python objects
      mt->deleter(mt);
    }
  });
  return opsnn::Tensor(storage, shape, strides, offset, dtype);
}

py::buffer_info tensor_buffer(const opsnn::Tensor &t) {
  // pybind11 calls this where an exception cannot propagate (it would terminate): nothing here
  // throws. Every opsnn dtype has a format; a failed launch surfaces at the next synchronize().
  std::string format;
  switch (t.dtype()) {
    case ACL_FLOAT: format = "f"; break;
    case ACL_DOUBLE: format = "d"; break;
    case ACL_FLOAT16: format = "e"; break;
    case ACL_BF16: format = "H"; break;  // no bfloat16 format exists: its 16-bit patterns
    case ACL_INT8: format = "b"; break;
    case ACL_INT32: format = "i"; break;
    case ACL_INT64: format = "q"; break;
    default: format = "?"; break;  // BOOL (the only other framework dtype)
  }
  aclrtSynchronizeStream(opsnn::stream());
  const auto es = static_cast<py::ssize_t>(t.element_size());
  std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end()), strides;
  for (int64_t s : t.strides()) strides.push_back(static_cast<py::ssize_t>(s) * es);
  char *base = static_cast<char *>(t.storage()->data()) + t.offset() * es;
  return py::buffer_info(base, es, format, static_cast<py::ssize_t>(shape.size()), shape, strides);
}
