// Test helpers: device tensors with random contents of any dtype, arbitrary shapes/strides/offsets,
// poisoned outputs with a guard region after them, float64 views of the data, the precision.md
// comparison, and a phase-1/phase-2 runner.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

namespace opsnn::test {

std::mt19937_64 &rng();
// Deterministic per-test seed (from the test name), printed on failure via SCOPED_TRACE by callers.
void reseed_for_current_test();

// OPSNN_TEST_THIN=n (CI's qemu stage, where the long sweeps cost minutes): the sweeps and long
// problems keep every n-th input or a smaller set; their special cases stay. Unset or 1: all.
int test_thin();

size_t elem_size(aclDataType dt);
double read_elem(aclDataType dt, const void *p);        // storage element -> double
void write_elem(aclDataType dt, void *p, double v);     // double -> storage element (rounded)
double round_to(aclDataType dt, double v);               // v as the dtype would store it

// A device buffer holding a strided view, with a guard zone after the storage.
class DeviceTensor {
 public:
  // Contiguous tensor of `shape`.
  DeviceTensor(std::vector<int64_t> shape, aclDataType dt);
  // View with explicit element strides and offset over a storage of `storage_elems` elements
  // (0: just large enough).
  DeviceTensor(std::vector<int64_t> shape, aclDataType dt, std::vector<int64_t> strides, int64_t offset,
               int64_t storage_elems = 0);
  ~DeviceTensor();
  DeviceTensor(const DeviceTensor &) = delete;
  DeviceTensor &operator=(const DeviceTensor &) = delete;

  aclTensor *get() const { return tensor_; }
  operator aclTensor *() const { return tensor_; }
  void *data() const { return dev_; }
  aclDataType dtype() const { return dtype_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  const std::vector<int64_t> &strides() const { return strides_; }
  int64_t numel() const;

  // Fill every storage element with random values in [lo, hi] (integers: rounded), as stored.
  void fill_random(double lo, double hi);
  // Fill storage with a NaN / 0xFF pattern so unwritten elements fail comparisons.
  void poison();
  void set_values(const std::vector<double> &view_values);  // row-major view order
  std::vector<double> values() const;                        // row-major view order, as double
  // Storage elements not covered by the view, and the guard after the storage, are unchanged
  // since the last fill/poison/set (an out-of-view write fails).
  ::testing::AssertionResult untouched_outside_view() const;

 private:
  void create_descriptor();
  int64_t offset_of(int64_t linear) const;  // element offset of the linear (row-major) view index
  std::vector<int64_t> shape_, strides_;
  int64_t offset_ = 0, storage_elems_ = 0;
  aclDataType dtype_;
  void *dev_ = nullptr;
  aclTensor *tensor_ = nullptr;
  std::vector<unsigned char> snapshot_;  // storage + guard bytes at the last fill
};

constexpr int64_t kGuardBytes = 256;

// precision.md: MERE < T, MARE < 10 T for floating outputs; exact for integer / bool.
::testing::AssertionResult meets_precision(aclDataType out_dtype, const std::vector<double> &actual,
                                           const std::vector<double> &golden);
double precision_threshold(aclDataType out_dtype);
// precision.md's absolute-bound variant (a dot product's relative error is unbounded near zero):
// rel_i = |out_i - value_i| / (bound_i + 1e-7), bound_i the sum of the terms' magnitudes; MERE < T,
// MARE < 10 T; a value that is not finite in out's dtype must come out exactly (NaN as NaN); and
// nothing written outside out's view.
::testing::AssertionResult meets_absolute_bound(const DeviceTensor &out, const std::vector<double> &value,
                                                const std::vector<double> &bound);

// Runs phase 1 (the lambda), allocates the workspace, launches on `stream` (nullptr: default),
// synchronizes and returns the first failing status (phase 1, phase 2 or sync).
int run_op(const std::function<int(uint64_t *, aclOpExecutor **)> &phase1,
           const std::function<int(void *, uint64_t, aclOpExecutor *, aclrtStream)> &phase2,
           aclrtStream stream = nullptr);

// Convenience: phase 1 fails with `code` and the message contains every `needle`.
::testing::AssertionResult fails_with(int status, int code, std::initializer_list<const char *> needles);

// Index helpers.
std::vector<int64_t> contiguous_strides(const std::vector<int64_t> &shape);
// A device tensor of `shape` whose storage holds the dims in reverse order (the first dim is the
// fastest), 3 elements into its storage: a non-contiguous view with an offset.
std::unique_ptr<DeviceTensor> transposed_view(const std::vector<int64_t> &shape, aclDataType dt);
// Every dim padded by one element (row-major), `offset` elements into its storage.
std::unique_ptr<DeviceTensor> padded_view(const std::vector<int64_t> &shape, aclDataType dt, int64_t offset = 3);
int64_t numel_of(const std::vector<int64_t> &shape);
// Row-major multi-index of linear index `i`.
std::vector<int64_t> unravel(int64_t i, const std::vector<int64_t> &shape);
// Linear index into `from_shape` of the element that broadcasts to `idx` of `to_shape`.
int64_t broadcast_source(const std::vector<int64_t> &idx, const std::vector<int64_t> &to_shape,
                         const std::vector<int64_t> &from_shape);

}  // namespace opsnn::test
