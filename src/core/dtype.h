// Data-type facts (size, name, category), PyTorch's type promotion and cast rules, and the
// compute type each dtype is evaluated in. The one place that knows about dtypes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "acl/acl_base.h"

namespace opsnn::core {

enum class DtypeCategory : int { kBool = 0, kInteger = 1, kFloating = 2, kComplex = 3, kOther = 4 };

// The types computation happens in: half-precision values are computed in float and rounded once;
// every integer (and bool) in int64 with wrap-around on store.
enum class ComputeType : int { kFloat = 0, kDouble = 1, kInt64 = 2 };

bool dtype_is_known(aclDataType dt);       // a value of the aclDataType enum
bool dtype_is_supported(aclDataType dt);   // one OpsNN can store and compute (numeric, non-complex)
size_t dtype_size(aclDataType dt);         // bytes per element (INT4: 1, i.e. rounded up; 0 if unknown)
const char *dtype_name(aclDataType dt);    // "FLOAT16", "BF16", ...
DtypeCategory dtype_category(aclDataType dt);
inline bool is_floating(aclDataType dt) { return dtype_category(dt) == DtypeCategory::kFloating; }
inline bool is_integral(aclDataType dt, bool include_bool) {
  DtypeCategory c = dtype_category(dt);
  return c == DtypeCategory::kInteger || (include_bool && c == DtypeCategory::kBool);
}
ComputeType compute_type_of(aclDataType dt);

// double -> int64 without undefined behaviour: NaN gives 0, out-of-range values saturate (the rule
// for scalar parameters converted to an integer compute type, and for aclScalar::to_int64).
inline int64_t saturate_to_int64(double v) {
  if (v != v) return 0;
  if (v >= 9.2233720368547758e18) return INT64_MAX;
  if (v <= -9.2233720368547758e18) return INT64_MIN;
  return static_cast<int64_t>(v);
}

// A set of dtypes as a bit mask (the op tables' dtype rules): bit `dt` for every enum value 0..63.
using DtypeMask = uint64_t;
constexpr DtypeMask dtype_bit(aclDataType dt) {
  return static_cast<int>(dt) >= 0 && static_cast<int>(dt) < 64 ? DtypeMask{1} << static_cast<int>(dt) : 0;
}
constexpr bool dtype_in(aclDataType dt, DtypeMask m) { return (dtype_bit(dt) & m) != 0; }

// torch.promote_types over the supported dtypes; ACL_DT_UNDEFINED where there is no promotion.
aclDataType promote_types(aclDataType a, aclDataType b);
// torch.can_cast: no floating -> integral, no non-bool -> bool.
bool can_cast(aclDataType from, aclDataType to);

// torch.result_type over operands of three priorities: tensors with dims, zero-dim tensors, and
// scalars (aclScalar: a float scalar counts as the default dtype FLOAT, an integer one as INT64).
class ResultType {
 public:
  void add_tensor(aclDataType dt, int64_t ndim);
  void add_scalar(aclDataType dt);
  aclDataType get() const;

 private:
  aclDataType dim_ = ACL_DT_UNDEFINED, zero_ = ACL_DT_UNDEFINED, wrapped_ = ACL_DT_UNDEFINED;
};

}  // namespace opsnn::core
