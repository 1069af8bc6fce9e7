// Blocked-format weights for the *WeightNz tests (fractal_tensors.h).
#include "fractal_tensors.h"

#include <gtest/gtest.h>

#include <cstring>
#include <utility>

#include "test_util.h"

namespace opsnn::test {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t block_cols(aclDataType dt) { return 32 / static_cast<int64_t>(elem_size(dt)); }

int64_t product(const std::vector<int64_t> &v) {
  int64_t p = 1;
  for (int64_t e : v) p *= e;
  return p;
}

}  // namespace

FractalTensor::FractalTensor(std::vector<int64_t> shape, aclDataType dt, aclFormat format,
                             std::vector<int64_t> storage, int64_t storage_elems, bool transposed) {
  const size_t bytes = static_cast<size_t>(storage_elems) * elem_size(dt) + kGuardBytes;
  EXPECT_EQ(aclrtMalloc(&dev_, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  std::memset(dev_, 0x5A, bytes);  // padding: a non-zero pattern
  std::vector<int64_t> strides = contiguous_strides(shape);
  if (transposed && shape.size() >= 2) {
    const size_t r = shape.size();
    strides[r - 1] = shape[r - 2];
    strides[r - 2] = 1;
  }
  tensor_ = aclCreateTensor(shape.data(), shape.size(), dt, strides.data(), 0, format, storage.data(), storage.size(),
                            dev_);
  EXPECT_NE(tensor_, nullptr) << aclGetRecentErrMsg();
}

FractalTensor::~FractalTensor() {
  aclDestroyTensor(tensor_);
  aclrtFree(dev_);
}

std::vector<int64_t> fractal_nz_storage(const std::vector<int64_t> &logical, aclDataType dt) {
  const size_t nd = logical.size();
  std::vector<int64_t> s(logical.begin(), logical.end() - 2);
  s.push_back(ceil_div(logical[nd - 1], block_cols(dt)));
  s.push_back(ceil_div(logical[nd - 2], 16));
  s.push_back(16);
  s.push_back(block_cols(dt));
  return s;
}

std::vector<int64_t> fractal_z3d_storage(const std::vector<int64_t> &l, aclDataType dt) {
  const int64_t c0 = block_cols(dt);
  return {l[2] * ceil_div(l[1], c0) * l[3] * l[4], ceil_div(l[0], 16), 16, c0};
}

// Each logical element is written where the layout puts it: NZ keeps, per matrix, column blocks of
// C0 columns one after another, each block rows 0..R16-1 of C0 elements.
std::unique_ptr<FractalTensor> make_fractal_nz(const std::vector<int64_t> &logical, aclDataType dt,
                                               const std::vector<double> &values, bool transposed) {
  const size_t nd = logical.size();
  std::vector<int64_t> stored = logical;  // the matrix the blocks hold
  if (transposed) std::swap(stored[nd - 1], stored[nd - 2]);
  const std::vector<int64_t> storage = fractal_nz_storage(stored, dt);
  auto t = std::make_unique<FractalTensor>(logical, dt, ACL_FORMAT_FRACTAL_NZ, storage, product(storage), transposed);
  const int64_t rows = stored[nd - 2], cols = stored[nd - 1], c0 = block_cols(dt);
  const int64_t r16 = ceil_div(rows, 16) * 16, per = ceil_div(cols, c0) * r16 * c0;
  const int64_t mats = product(logical) / (rows * cols == 0 ? 1 : rows * cols);
  auto *base = static_cast<unsigned char *>(t->data());
  for (int64_t m = 0; m < mats; ++m)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        const int64_t block = c / c0, in_block = c % c0;
        const int64_t at = m * per + block * (r16 * c0) + r * c0 + in_block;
        // the logical element: (r, c) of the stored matrix, or (c, r) of its transpose
        const int64_t logical_at = transposed ? (m * cols + c) * rows + r : (m * rows + r) * cols + c;
        write_elem(dt, base + at * static_cast<int64_t>(elem_size(dt)), values[static_cast<size_t>(logical_at)]);
      }
  return t;
}

// FRACTAL_Z_3D: the first storage axis runs over (d, c1, h, w), d slowest; then N1 blocks of 16
// output channels, each 16 rows of C0 input channels.
std::unique_ptr<FractalTensor> make_fractal_z3d(const std::vector<int64_t> &l, aclDataType dt, const std::vector<double> &values) {
  const std::vector<int64_t> storage = fractal_z3d_storage(l, dt);
  auto t = std::make_unique<FractalTensor>(l, dt, ACL_FRACTAL_Z_3D, storage, product(storage));
  const int64_t n = l[0], c = l[1], kd = l[2], kh = l[3], kw = l[4], c0 = block_cols(dt);
  const int64_t c1 = ceil_div(c, c0), n16 = storage[1] * 16;
  auto *base = static_cast<unsigned char *>(t->data());
  size_t i = 0;
  for (int64_t o = 0; o < n; ++o)
    for (int64_t ci = 0; ci < c; ++ci)
      for (int64_t d = 0; d < kd; ++d)
        for (int64_t h = 0; h < kh; ++h)
          for (int64_t w = 0; w < kw; ++w) {
            const int64_t outer = ((d * c1 + ci / c0) * kh + h) * kw + w;
            const int64_t at = (outer * n16 + o) * c0 + ci % c0;
            write_elem(dt, base + at * static_cast<int64_t>(elem_size(dt)), values[i++]);
          }
  return t;
}

}  // namespace opsnn::test
