// Shared by the GEMM engine tests (test_gemm.cpp, test_gemm_bf16.cpp): strided matrix stacks in byte
// buffers with a guard zone, operand layouts, the precision.md thresholds and the float64 epilogue.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/half.h"
#include "kernels/matmul/gemm.h"

namespace opsnn::kernels::gemm_test {

// precision.md's threshold T of an output dtype.
inline double tolerance(aclDataType t) {
  switch (t) {
    case ACL_FLOAT16: return std::ldexp(1.0, -10);
    case ACL_BF16: return std::ldexp(1.0, -7);
    default: return std::ldexp(1.0, -13);
  }
}
inline int64_t esize(aclDataType t) { return t == ACL_FLOAT ? 4 : 2; }

inline double to_double(aclDataType t, const uint8_t *p) {
  uint16_t h;
  float f;
  switch (t) {
    case ACL_FLOAT16: std::memcpy(&h, p, 2); return half_to_float(h);
    case ACL_BF16: std::memcpy(&h, p, 2); return bf16_to_float(h);
    default: std::memcpy(&f, p, 4); return f;
  }
}
inline void from_float(aclDataType t, uint8_t *p, float v) {
  uint16_t h;
  switch (t) {
    case ACL_FLOAT16: h = float_to_half(v); std::memcpy(p, &h, 2); break;
    case ACL_BF16: h = float_to_bf16(v); std::memcpy(p, &h, 2); break;
    default: std::memcpy(p, &v, 4); break;
  }
}

// The engine's activations in float64.
inline double act_ref(double x, GemmActivation act) {
  switch (act) {
    case GemmActivation::kRelu: return x > 0 ? x : 0.0;
    case GemmActivation::kGeluTanh: return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    case GemmActivation::kSilu: return x / (1.0 + std::exp(-x));
    case GemmActivation::kGeluErf: return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
    default: return x;
  }
}

constexpr size_t kGuardBytes = 256;
constexpr uint8_t kGuardByte = 0xA5;

// A strided matrix stack in a byte buffer with a guard zone after the last element.
struct Mat {
  aclDataType dtype = ACL_FLOAT;
  int64_t batch = 1, rows = 0, cols = 0;
  GemmOperand op;
  std::vector<uint8_t> bytes;  // span + guard

  size_t span_elems() const {
    if (batch == 0 || rows == 0 || cols == 0) return 0;
    return static_cast<size_t>((batch - 1) * op.batch_stride + (rows - 1) * op.row_stride +
                               (cols - 1) * op.col_stride + 1);
  }
  void alloc(uint8_t fill) {
    bytes.assign(span_elems() * esize(dtype) + kGuardBytes, fill);
    std::memset(bytes.data() + span_elems() * esize(dtype), kGuardByte, kGuardBytes);
  }
  int64_t off(int64_t b, int64_t i, int64_t j) const {
    return b * op.batch_stride + i * op.row_stride + j * op.col_stride;
  }
  uint8_t *at(int64_t b, int64_t i, int64_t j) { return bytes.data() + off(b, i, j) * esize(dtype); }
  const uint8_t *at(int64_t b, int64_t i, int64_t j) const {
    return bytes.data() + off(b, i, j) * esize(dtype);
  }
  double get(int64_t b, int64_t i, int64_t j) const { return to_double(dtype, at(b, i, j)); }
  void set(int64_t b, int64_t i, int64_t j, float v) { from_float(dtype, at(b, i, j), v); }
  bool guard_intact() const {
    for (size_t i = span_elems() * esize(dtype); i < bytes.size(); ++i)
      if (bytes[i] != kGuardByte) return false;
    return true;
  }
};

// The float64 golden value of C[bt, i, j] = act(alpha * sum_q A[bt, i, q] B[bt, q, j] + beta * old)
// and the bound of its error under precision.md's absolute criterion with the output threshold T:
// 1.5 T (|alpha| sum_q |A B| + |beta old|), plus a tiny floor for exact zeros.
struct Golden {
  double value, bound;
};
inline Golden golden_element(const Mat &a, const Mat &b, int64_t bt, int64_t i, int64_t j, int64_t k, double alpha,
                             double beta, double old, GemmActivation act, double T) {
  double s = 0, mag = 0;
  for (int64_t q = 0; q < k; ++q) {
    const double prod = a.get(bt, i, q) * b.get(bt, q, j);
    s += prod;
    mag += std::fabs(prod);
  }
  return {act_ref(alpha * s + beta * old, act), 1.5 * T * (std::fabs(alpha) * mag + std::fabs(beta * old)) + 1e-6 * T};
}

// precision.md's acceptance over the elements of one result: each |actual - golden| within its
// bound (a non-finite actual fails), and, for inputs drawn with a positive mean, MERE < T and
// MARE < 10 T with rel = |actual - golden| / (|golden| + 1e-7). The first 5 failures are reported.
struct Acceptance {
  std::string what;
  double T;
  int64_t bad = 0, count = 0;
  double sum_rel = 0, max_rel = 0;

  void add(int64_t bt, int64_t i, int64_t j, double actual, double golden, double bound) {
    const double err = std::fabs(actual - golden);
    if (!(std::isfinite(actual) && err <= bound) && ++bad <= 5)
      ADD_FAILURE() << what << ": C[" << bt << "," << i << "," << j << "] = " << actual << ", golden " << golden
                    << ", bound " << bound;
    const double rel = err / (std::fabs(golden) + 1e-7);
    sum_rel += rel;
    max_rel = std::max(max_rel, rel);
    ++count;
  }
  void finish(bool positive_mean) const {
    EXPECT_EQ(bad, 0) << what << ": " << bad << " elements outside the absolute bound";
    if (positive_mean && count > 0) {
      EXPECT_LT(sum_rel / count, T) << what << ": MERE";
      EXPECT_LT(max_rel, 10 * T) << what << ": MARE";
    }
  }
};

// A 64-byte aligned workspace of `bytes` with a guard zone after it.
struct Workspace {
  std::vector<uint8_t> raw;
  uint8_t *ptr = nullptr;
  size_t size = 0;
  explicit Workspace(size_t bytes) : size(bytes) {
    raw.assign(bytes + 64 + kGuardBytes, kGuardByte);
    ptr = raw.data() + (64 - reinterpret_cast<uintptr_t>(raw.data()) % 64) % 64;
  }
  bool guard_intact() const {
    for (size_t i = 0; i < kGuardBytes; ++i)
      if (ptr[size + i] != kGuardByte) return false;
    return true;
  }
};

enum class Layout { kRowMajor, kTransposed, kPadded, kStrided };

// Storage strides for a rows x cols operand; a batch stride of 0 when broadcast.
inline GemmOperand make_op(aclDataType t, int64_t rows, int64_t cols, Layout layout, bool broadcast) {
  GemmOperand op;
  op.dtype = t;
  int64_t mat = 0;
  switch (layout) {
    case Layout::kRowMajor: op.row_stride = cols; op.col_stride = 1; mat = rows * cols; break;
    case Layout::kTransposed: op.row_stride = 1; op.col_stride = rows; mat = rows * cols; break;
    case Layout::kPadded: op.row_stride = cols + 5; op.col_stride = 1; mat = rows * (cols + 5); break;
    case Layout::kStrided:  // column stride 3, rows further apart, odd batch gap
      op.row_stride = 3 * cols + 7; op.col_stride = 3; mat = rows * (3 * cols + 7); break;
  }
  op.batch_stride = broadcast ? 0 : mat + 11;
  return op;
}

}  // namespace opsnn::kernels::gemm_test
