#include "core/dtype.h"

#include "acl/acl.h"

namespace opsnn::core {
namespace {

struct DtypeInfo {
  aclDataType dt;
  const char *name;
  size_t size;
  DtypeCategory category;
  bool supported;
};

constexpr DtypeInfo kDtypes[] = {
    {ACL_FLOAT, "FLOAT", 4, DtypeCategory::kFloating, true},
    {ACL_FLOAT16, "FLOAT16", 2, DtypeCategory::kFloating, true},
    {ACL_INT8, "INT8", 1, DtypeCategory::kInteger, true},
    {ACL_INT32, "INT32", 4, DtypeCategory::kInteger, true},
    {ACL_UINT8, "UINT8", 1, DtypeCategory::kInteger, true},
    {ACL_INT16, "INT16", 2, DtypeCategory::kInteger, true},
    {ACL_UINT16, "UINT16", 2, DtypeCategory::kInteger, false},
    {ACL_UINT32, "UINT32", 4, DtypeCategory::kInteger, false},
    {ACL_INT64, "INT64", 8, DtypeCategory::kInteger, true},
    {ACL_UINT64, "UINT64", 8, DtypeCategory::kInteger, false},
    {ACL_DOUBLE, "DOUBLE", 8, DtypeCategory::kFloating, true},
    {ACL_BOOL, "BOOL", 1, DtypeCategory::kBool, true},
    {ACL_STRING, "STRING", 0, DtypeCategory::kOther, false},
    {ACL_COMPLEX64, "COMPLEX64", 8, DtypeCategory::kComplex, false},
    {ACL_COMPLEX128, "COMPLEX128", 16, DtypeCategory::kComplex, false},
    {ACL_BF16, "BF16", 2, DtypeCategory::kFloating, true},
    {ACL_INT4, "INT4", 1, DtypeCategory::kInteger, false},
    {ACL_UINT1, "UINT1", 1, DtypeCategory::kInteger, false},
    {ACL_COMPLEX32, "COMPLEX32", 4, DtypeCategory::kComplex, false},
    {ACL_HIFLOAT8, "HIFLOAT8", 1, DtypeCategory::kFloating, false},
    {ACL_FLOAT8_E5M2, "FLOAT8_E5M2", 1, DtypeCategory::kFloating, false},
    {ACL_FLOAT8_E4M3FN, "FLOAT8_E4M3FN", 1, DtypeCategory::kFloating, false},
    {ACL_FLOAT8_E8M0, "FLOAT8_E8M0", 1, DtypeCategory::kFloating, false},
    {ACL_FLOAT6_E3M2, "FLOAT6_E3M2", 1, DtypeCategory::kFloating, false},
    {ACL_FLOAT6_E2M3, "FLOAT6_E2M3", 1, DtypeCategory::kFloating, false},
    {ACL_FLOAT4_E2M1, "FLOAT4_E2M1", 1, DtypeCategory::kFloating, false},
    {ACL_FLOAT4_E1M2, "FLOAT4_E1M2", 1, DtypeCategory::kFloating, false},
};

const DtypeInfo *find(aclDataType dt) {
  for (const auto &info : kDtypes)
    if (info.dt == dt) return &info;
  return nullptr;
}

// Index into the promotion table below.
int promo_index(aclDataType dt) {
  switch (dt) {
    case ACL_UINT8: return 0;
    case ACL_INT8: return 1;
    case ACL_INT16: return 2;
    case ACL_INT32: return 3;
    case ACL_INT64: return 4;
    case ACL_FLOAT16: return 5;
    case ACL_FLOAT: return 6;
    case ACL_DOUBLE: return 7;
    case ACL_BOOL: return 8;
    case ACL_BF16: return 9;
    default: return -1;
  }
}

// PyTorch's promotion lattice (documented torch.promote_types behaviour) over
// u8 i8 i16 i32 i64 f16 f32 f64 b1 bf16.
constexpr aclDataType u1 = ACL_UINT8, i1 = ACL_INT8, i2 = ACL_INT16, i4 = ACL_INT32, i8 = ACL_INT64,
                      f2 = ACL_FLOAT16, f4 = ACL_FLOAT, f8 = ACL_DOUBLE, b1 = ACL_BOOL, bf = ACL_BF16;
constexpr aclDataType kPromote[10][10] = {
    /* u1 */ {u1, i2, i2, i4, i8, f2, f4, f8, u1, bf},
    /* i1 */ {i2, i1, i2, i4, i8, f2, f4, f8, i1, bf},
    /* i2 */ {i2, i2, i2, i4, i8, f2, f4, f8, i2, bf},
    /* i4 */ {i4, i4, i4, i4, i8, f2, f4, f8, i4, bf},
    /* i8 */ {i8, i8, i8, i8, i8, f2, f4, f8, i8, bf},
    /* f2 */ {f2, f2, f2, f2, f2, f2, f4, f8, f2, f4},
    /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f8, f4, f4},
    /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
    /* b1 */ {u1, i1, i2, i4, i8, f2, f4, f8, b1, bf},
    /* bf */ {bf, bf, bf, bf, bf, f4, f4, f8, bf, bf},
};

aclDataType promote_skip_undefined(aclDataType a, aclDataType b) {
  if (a == ACL_DT_UNDEFINED) return b;
  if (b == ACL_DT_UNDEFINED) return a;
  return promote_types(a, b);
}

// How PyTorch lets a lower-priority operand (zero-dim tensor or scalar) influence the result:
// only when it is of a higher category than the higher-priority result.
aclDataType combine_categories(aclDataType higher, aclDataType lower) {
  if (higher == ACL_DT_UNDEFINED) return lower;
  if (is_floating(higher)) return higher;
  if (higher == ACL_BOOL || (lower != ACL_DT_UNDEFINED && is_floating(lower)))
    return promote_skip_undefined(higher, lower);
  return higher;
}

}  // namespace

bool dtype_is_known(aclDataType dt) { return find(dt) != nullptr; }
bool dtype_is_supported(aclDataType dt) {
  const DtypeInfo *info = find(dt);
  return info && info->supported;
}
size_t dtype_size(aclDataType dt) {
  const DtypeInfo *info = find(dt);
  return info ? info->size : 0;
}
const char *dtype_name(aclDataType dt) {
  if (dt == ACL_DT_UNDEFINED) return "UNDEFINED";
  const DtypeInfo *info = find(dt);
  return info ? info->name : "UNKNOWN";
}
DtypeCategory dtype_category(aclDataType dt) {
  const DtypeInfo *info = find(dt);
  return info ? info->category : DtypeCategory::kOther;
}

ComputeType compute_type_of(aclDataType dt) {
  if (dt == ACL_DOUBLE) return ComputeType::kDouble;
  if (is_floating(dt)) return ComputeType::kFloat;
  return ComputeType::kInt64;
}

aclDataType promote_types(aclDataType a, aclDataType b) {
  int ia = promo_index(a), ib = promo_index(b);
  if (ia < 0 || ib < 0) return a == b ? a : ACL_DT_UNDEFINED;
  return kPromote[ia][ib];
}

bool can_cast(aclDataType from, aclDataType to) {
  if (is_floating(from) && is_integral(to, true)) return false;
  if (from != ACL_BOOL && to == ACL_BOOL) return false;
  return true;
}

void ResultType::add_tensor(aclDataType dt, int64_t ndim) {
  aclDataType &slot = ndim > 0 ? dim_ : zero_;
  slot = promote_skip_undefined(slot, dt);
}

void ResultType::add_scalar(aclDataType dt) {
  aclDataType as;
  switch (dtype_category(dt)) {
    case DtypeCategory::kBool: as = ACL_BOOL; break;
    case DtypeCategory::kInteger: as = ACL_INT64; break;
    default: as = ACL_FLOAT; break;  // the default floating dtype
  }
  wrapped_ = promote_skip_undefined(wrapped_, as);
}

aclDataType ResultType::get() const { return combine_categories(dim_, combine_categories(zero_, wrapped_)); }

}  // namespace opsnn::core

extern "C" ACL_FUNC_VISIBILITY size_t aclDataTypeSize(aclDataType dataType) {
  return opsnn::core::dtype_size(dataType);
}
