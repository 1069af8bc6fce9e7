// The DLPack exchange ABI (version 0.x, the one PyTorch 1.13 speaks), written from the published
// interface: a DLManagedTensor travels in a PyCapsule named "dltensor"; the consumer renames the
// capsule "used_dltensor" and calls `deleter` when it no longer needs the memory. Debian 12 ships
// no dlpack header, so the layout is declared here (it is a fixed C ABI).
#pragma once

#include <cstdint>

namespace opsnn::dlpack {

enum DeviceType : int32_t { kDLCPU = 1 };
enum TypeCode : uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLBool = 6 };

struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};

struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

struct DLTensor {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides;  // in elements; null: compact row-major
  uint64_t byte_offset;
};

struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(DLManagedTensor *self);
};

}  // namespace opsnn::dlpack
