// Weights in the blocked formats of the *WeightNz APIs, built in the tests from logical values by the
// publicly documented layouts (written here, independently of src/core/fractal_layout.cpp). The view
// is the logical shape with contiguous strides; the storage dims are the blocked shape; padding
// elements hold a non-zero pattern, so an op that reads them fails its comparison.
//   FRACTAL_NZ [..., R, C]: storage [..., ceil(C / C0), ceil(R / 16), 16, C0], C0 = 32 bytes / element
//   FRACTAL_Z_3D [N, C, D, H, W]: storage [D * ceil(C / C0) * H * W, ceil(N / 16), 16, C0]
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

namespace opsnn::test {

class FractalTensor {
 public:
  // A tensor with an explicit format and storage shape over `storage_elems` elements (error cases);
  // `transposed`: the view's last two strides swapped (the transpose of a stored matrix).
  FractalTensor(std::vector<int64_t> shape, aclDataType dt, aclFormat format, std::vector<int64_t> storage,
                int64_t storage_elems, bool transposed = false);
  ~FractalTensor();
  FractalTensor(const FractalTensor &) = delete;
  FractalTensor &operator=(const FractalTensor &) = delete;
  aclTensor *get() const { return tensor_; }
  operator aclTensor *() const { return tensor_; }
  void *data() const { return dev_; }

 private:
  void *dev_ = nullptr;
  aclTensor *tensor_ = nullptr;
};

// The documented storage shapes.
std::vector<int64_t> fractal_nz_storage(const std::vector<int64_t> &logical, aclDataType dt);
std::vector<int64_t> fractal_z3d_storage(const std::vector<int64_t> &logical, aclDataType dt);

// `values`: the logical tensor row-major. transposed: the view [..., R, C] is the transpose of the
// stored [..., C, R] matrix, whose NZ blocks the storage holds (a transposed weight).
std::unique_ptr<FractalTensor> make_fractal_nz(const std::vector<int64_t> &logical, aclDataType dt,
                                               const std::vector<double> &values, bool transposed = false);
std::unique_ptr<FractalTensor> make_fractal_z3d(const std::vector<int64_t> &logical, aclDataType dt, const std::vector<double> &values);

}  // namespace opsnn::test
