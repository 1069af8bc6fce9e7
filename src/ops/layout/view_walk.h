// Walking a view element by element in row-major order: the offsets (in elements) that the layout
// and embedding steps use where an index or a row is addressed one at a time.
#pragma once

#include <cstdint>
#include <cstring>

#include "core/tensor.h"

namespace opsnn::ops {

// Element offset of the row-major element `lin` of view t.
inline int64_t element_offset(const aclTensor &t, int64_t lin) {
  int64_t off = 0;
  for (int d = t.ndim - 1; d >= 0; --d) {
    off += (lin % t.dims[d]) * t.strides[d];
    lin /= t.dims[d];
  }
  return off;
}

// Element offset of row `row` (row-major over every dim but the last) of view t.
inline int64_t row_offset(const aclTensor &t, int64_t row) {
  int64_t off = 0;
  for (int d = t.ndim - 2; d >= 0; --d) {
    off += (row % t.dims[d]) * t.strides[d];
    row /= t.dims[d];
  }
  return off;
}

// The k-th value (row-major) of an INT32 / INT64 view whose data starts at base.
inline int64_t index_value(const aclTensor &t, const char *base, int64_t k) {
  const int64_t off = element_offset(t, k);
  if (t.dtype == ACL_INT32) {
    int32_t v;
    std::memcpy(&v, base + off * 4, 4);
    return v;
  }
  int64_t v;
  std::memcpy(&v, base + off * 8, 8);
  return v;
}

}  // namespace opsnn::ops
