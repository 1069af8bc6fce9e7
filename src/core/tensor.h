// The descriptor objects behind the opaque handles of aclnn/acl_meta.h. Fixed-size arrays keep
// creation allocation-free apart from the object itself (clients create them on every call).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aclnn/acl_meta.h"

namespace opsnn::core {
constexpr int kMaxDims = 8;
}  // namespace opsnn::core

struct aclTensor {
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_ND;
  int ndim = 0;
  int storage_ndim = 0;
  int64_t dims[opsnn::core::kMaxDims] = {};
  int64_t strides[opsnn::core::kMaxDims] = {};  // elements
  int64_t storage_dims[opsnn::core::kMaxDims] = {};
  int64_t offset = 0;  // elements from the storage start to the first view element
  void *data = nullptr;

  int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < ndim; ++i) n *= dims[i];
    return n;
  }
  bool is_contiguous() const;
};

struct aclScalar {
  aclDataType dtype = ACL_FLOAT;
  alignas(8) unsigned char bytes[16] = {};

  double to_double() const;
  int64_t to_int64() const;
  bool to_bool() const;
  bool is_floating() const;
};

struct aclIntArray {
  std::vector<int64_t> values;
};
struct aclFloatArray {
  std::vector<float> values;
};
struct aclBoolArray {
  std::vector<bool> values;
};
struct aclTensorList {
  std::vector<aclTensor *> tensors;  // owned
};
struct aclScalarList {
  std::vector<aclScalar *> scalars;  // owned
};

namespace opsnn::core {

// Validates and fills `t` (shared by aclCreateTensor and aclInitTensor). Throws opsnn::Error
// (161002 / 161001) with a message naming the argument on bad input.
void init_tensor(aclTensor *t, const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                 const int64_t *stride, int64_t offset, aclFormat format, const int64_t *storageDims,
                 uint64_t storageDimsNum, void *tensorData);

// "[2, 3, 4]"
std::string shape_string(const int64_t *dims, int ndim);
inline std::string shape_string(const aclTensor &t) { return shape_string(t.dims, t.ndim); }

// The real bound of a view: when `t.data` lies in a live device allocation, every element the view
// reaches (from offset to its last element) must lie inside that allocation; otherwise throws
// 161002 naming `what`. A view may reach past its storageDims (clients describe the storage as the
// view's extent and add an offset; the vendor accepts that). Addresses outside any device
// allocation (host memory, null) are not checked.
void check_view_within_allocation(const aclTensor &t, const char *what);

bool format_is_known(aclFormat f);
const char *format_name(aclFormat f);

}  // namespace opsnn::core
