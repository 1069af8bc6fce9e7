// What the op tables' generic harnesses share (tests/ops/test_op_table_unary.cpp for `phase1
// unary`, tests/ops/test_op_table_nary.cpp for `phase1 nary`): dtype helpers, the special values
// and their comparison, and the GoogleTest case names.
#pragma once

#include <cctype>
#include <cstdlib>
#include <vector>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <algorithm>

#include <gtest/gtest.h>

#include "aclnn/aclnn_base.h"

namespace opsnn::test::harness {

// OPSNN_TABLE_SAMPLE=N:K keeps every N-th registered case starting at the K-th (N alone: K = 0).
// CI's emulated-ISA, sanitizer and qemu stages run complementary samples of the op tables (their
// kernel suites run whole); unset, every case runs. ctest discovers the cases when the test
// binary is newer than its cached list: in one build tree, keep the variable the same from run to
// run (or touch the binary after changing it).
template <class Case>
std::vector<Case> sampled(std::vector<Case> v) {
  const char *env = std::getenv("OPSNN_TABLE_SAMPLE");
  if (env == nullptr || *env == '\0') return v;
  char *end = nullptr;
  const long n = std::strtol(env, &end, 10);
  const long k = (end != nullptr && *end == ':') ? std::strtol(end + 1, nullptr, 10) : 0;
  if (n <= 1) return v;
  std::vector<Case> out;
  for (size_t i = static_cast<size_t>(k % n); i < v.size(); i += static_cast<size_t>(n)) out.push_back(v[i]);
  return out;
}

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

// The dtypes the element-wise kernels take (the "outside the rule" loops go over them).
inline constexpr aclDataType kAllDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16,  ACL_DOUBLE, ACL_INT8,
                                             ACL_INT16, ACL_INT32,   ACL_INT64, ACL_UINT8,  ACL_BOOL};

inline bool is_float(aclDataType dt) {
  return dt == ACL_FLOAT || dt == ACL_FLOAT16 || dt == ACL_BF16 || dt == ACL_DOUBLE;
}

// An integer result in the dtype (the kernels compute integers in int64 and wrap on store).
inline double wrap_to(aclDataType dt, double v) {
  const int64_t i = static_cast<int64_t>(v);
  switch (dt) {
    case ACL_INT8: return static_cast<int8_t>(i);
    case ACL_INT16: return static_cast<int16_t>(i);
    case ACL_INT32: return static_cast<int32_t>(i);
    case ACL_UINT8: return static_cast<uint8_t>(i);
    case ACL_BOOL: return v != 0;
    default: return static_cast<double>(i);
  }
}

// Random input range of dtype `dt` within [lo, hi] (integers: whole numbers in it, at most
// -100..100; UINT8 and BOOL from 0; BOOL up to 1).
inline std::pair<double, double> dtype_range(double lo, double hi, aclDataType dt) {
  if (is_float(dt)) return {lo, hi};
  lo = std::ceil(std::max(lo, dt == ACL_UINT8 || dt == ACL_BOOL ? 0.0 : -100.0));
  hi = std::floor(std::min(hi, dt == ACL_BOOL ? 1.0 : 100.0));
  if (hi < lo) hi = lo;
  return {lo, hi};
}

inline constexpr double kSpecials[] = {NAN,   INFINITY, -INFINITY, 0.0,   -0.0,  1e-45, -1e-45, 1e-40, -3e-39, 1e-20,
                                       -1e-8, 0.5,      -0.5,      1.0,   -1.0,  1.5,   -2.5,   2.0,   10.0,   -10.0,
                                       60.0,  -60.0,    88.5,      -87.0, -150., 1e6,   -3e7,   1e30,  -1e38,  3.4e38};

inline bool same_special(double got, double want, double tol, bool signed_zero) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  if (std::isnan(got) || std::isinf(got)) return false;
  if (want == 0) return got == 0 && (!signed_zero || std::signbit(got) == std::signbit(want));
  return std::fabs(got - want) <= tol * std::fabs(want) || std::fabs(got - want) < 1e-37;  // denormal results
}

// A FLOAT aclScalar for one call (clients create scalars as FLOAT whatever the tensors' dtype): the
// generated cases pass rejected or sampled values as scalar_arg(v), a temporary of the call.
struct ScalarArg {
  explicit ScalarArg(double v) {
    const float f = static_cast<float>(v);
    s = aclCreateScalar(const_cast<float *>(&f), ACL_FLOAT);
  }
  ~ScalarArg() { aclDestroyScalar(s); }
  ScalarArg(const ScalarArg &) = delete;
  ScalarArg &operator=(const ScalarArg &) = delete;
  operator aclScalar *() const { return s; }
  aclScalar *s;
};
inline ScalarArg scalar_arg(double v) { return ScalarArg(v); }

// A case's name as a GoogleTest parameter name.
template <class Case>
std::string case_name(const ::testing::TestParamInfo<Case> &i) {
  std::string s;
  for (char ch : i.param.name) s += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return s;
}

}  // namespace opsnn::test::harness
