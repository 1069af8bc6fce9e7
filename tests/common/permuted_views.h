// Index helpers of the Transpose*BatchMatMul tests (the given tensors are logical tensors permuted by
// permX1 / permX2 / permY), and an owning aclIntArray for their permutation arguments.
#pragma once

#include <cstdint>
#include <vector>

#include "aclnn/acl_meta.h"

namespace opsnn::test {

struct IntArray {
  aclIntArray *a;
  explicit IntArray(const std::vector<int64_t> &v) : a(aclCreateIntArray(v.data(), v.size())) {}
  IntArray(const IntArray &) = delete;
  IntArray &operator=(const IntArray &) = delete;
  ~IntArray() { aclDestroyIntArray(a); }
};

// The shape t.permute(p) has.
inline std::vector<int64_t> permute(const std::vector<int64_t> &s, const std::vector<int64_t> &p) {
  std::vector<int64_t> r;
  for (int64_t i : p) r.push_back(s[static_cast<size_t>(i)]);
  return r;
}
// The given shape of a tensor whose permute(p) is `logical`: given dim p[i] has the i-th logical size.
inline std::vector<int64_t> given_shape(const std::vector<int64_t> &logical, const std::vector<int64_t> &p) {
  std::vector<int64_t> g(logical.size());
  for (size_t i = 0; i < p.size(); ++i) g[static_cast<size_t>(p[i])] = logical[i];
  return g;
}
// The row-major index into the given tensor (shape `given`) of the logical index `idx` of its
// permute(p): logical dim i is given dim p[i].
inline int64_t given_index(const std::vector<int64_t> &idx, const std::vector<int64_t> &p,
                           const std::vector<int64_t> &given) {
  std::vector<int64_t> g(given.size());
  for (size_t i = 0; i < p.size(); ++i) g[static_cast<size_t>(p[i])] = idx[i];
  int64_t lin = 0;
  for (size_t d = 0; d < given.size(); ++d) lin = lin * given[d] + g[d];
  return lin;
}

}  // namespace opsnn::test
