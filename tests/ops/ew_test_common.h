// Shared helpers of the element-wise op tests (test_op_table_nary.cpp, test_binary_math.cpp,
// test_ternary.cpp): PyTorch type promotion written independently of the library (by rules, not
// its table), random shapes with broadcasting, strided views.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test::ew {

using harness::is_float;
inline int category(aclDataType dt) { return dt == ACL_BOOL ? 0 : is_float(dt) ? 2 : 1; }

inline aclDataType promote(aclDataType a, aclDataType b) {
  if (a == b) return a;
  if (a == ACL_BOOL) return b;
  if (b == ACL_BOOL) return a;
  if (is_float(a) || is_float(b)) {
    if (!is_float(a)) return b;
    if (!is_float(b)) return a;
    if (a == ACL_DOUBLE || b == ACL_DOUBLE) return ACL_DOUBLE;
    return ACL_FLOAT;  // FLOAT with anything, FLOAT16 with BF16
  }
  auto bits = [](aclDataType d) { return d == ACL_INT8 || d == ACL_UINT8 ? 8 : d == ACL_INT16 ? 16 : d == ACL_INT32 ? 32 : 64; };
  if ((a == ACL_UINT8) != (b == ACL_UINT8)) {
    aclDataType s = a == ACL_UINT8 ? b : a;
    return bits(s) > 8 ? s : ACL_INT16;
  }
  return bits(a) >= bits(b) ? a : b;
}

// torch.result_type of operands: (dtype, rank) of tensors, scalars as rank -1.
inline aclDataType result_type(const std::vector<std::pair<aclDataType, int>> &ops) {
  aclDataType dim = ACL_DT_UNDEFINED, zero = ACL_DT_UNDEFINED, wrapped = ACL_DT_UNDEFINED;
  auto acc = [](aclDataType &slot, aclDataType d) { slot = slot == ACL_DT_UNDEFINED ? d : promote(slot, d); };
  for (auto [d, r] : ops) {
    if (r > 0) acc(dim, d);
    else if (r == 0) acc(zero, d);
    else acc(wrapped, category(d) == 2 ? ACL_FLOAT : category(d) == 1 ? ACL_INT64 : ACL_BOOL);
  }
  aclDataType res = dim;
  for (aclDataType lower : {zero, wrapped}) {
    if (lower == ACL_DT_UNDEFINED) continue;
    if (res == ACL_DT_UNDEFINED) res = lower;
    else if (category(lower) > category(res)) res = promote(res, lower);
  }
  return res;
}

inline std::vector<int64_t> random_shape(int max_rank) {
  std::uniform_int_distribution<int> rank_d(0, max_rank), dim_d(1, 5), zero_d(0, 30);
  std::vector<int64_t> s(static_cast<size_t>(rank_d(rng())));
  for (auto &d : s) d = zero_d(rng()) == 0 ? 0 : dim_d(rng());
  return s;
}

inline std::vector<int64_t> broadcastable_to(const std::vector<int64_t> &shape) {
  std::uniform_int_distribution<int> coin(0, 3);
  size_t drop = shape.empty() ? 0 : static_cast<size_t>(coin(rng())) % (shape.size() + 1);
  std::vector<int64_t> s(shape.begin() + static_cast<long>(drop), shape.end());
  for (auto &d : s)
    if (coin(rng()) == 0) d = 1;
  return s;
}

inline std::unique_ptr<DeviceTensor> make_view(const std::vector<int64_t> &shape, aclDataType dt, bool strided) {
  if (!strided) return std::make_unique<DeviceTensor>(shape, dt);
  std::vector<size_t> perm(shape.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), rng());
  std::vector<int64_t> strides(shape.size());
  int64_t acc = 1;
  for (size_t k = perm.size(); k-- > 0;) {
    strides[perm[k]] = acc;
    acc *= std::max<int64_t>(shape[perm[k]], 1) + (k % 2);
  }
  std::uniform_int_distribution<int64_t> off(0, 5);
  return std::make_unique<DeviceTensor>(shape, dt, strides, off(rng()));
}

// Random values as `dt` stores them; `step` > 0 quantises floats (so that ties and zeros occur).
inline void fill(DeviceTensor &t, aclDataType dt, double lo, double hi, double step = 0) {
  if (dt == ACL_BOOL) { lo = 0; hi = 1; }
  if (dt == ACL_UINT8 && lo < 0) lo = 0;
  t.fill_random(lo, hi);
  if (step > 0 && is_float(dt)) {
    auto v = t.values();
    for (auto &x : v) x = std::round(x / step) * step;
    t.set_values(v);
  }
}

inline aclDataType pick(const std::vector<aclDataType> &from) {
  std::uniform_int_distribution<size_t> d(0, from.size() - 1);
  return from[d(rng())];
}

inline aclScalar *make_scalar(aclDataType dt, double v) {
  unsigned char buf[8];
  write_elem(dt, buf, v);
  return aclCreateScalar(buf, dt);
}

const std::vector<aclDataType> kAll = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8,
                                       ACL_INT16, ACL_INT32,   ACL_INT64, ACL_UINT8, ACL_BOOL};
const std::vector<aclDataType> kFloats = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
const std::vector<aclDataType> kInts = {ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64, ACL_UINT8};

}  // namespace opsnn::test::ew
