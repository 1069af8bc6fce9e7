#include "kernels/elementwise/convert.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/half.h"
#include "kernels/simd/half_convert.h"

namespace opsnn::kernels {
namespace {

struct Half {
  uint16_t bits;
};
struct BFloat {
  uint16_t bits;
};
// A BOOL element is read as its byte: any non-zero byte is true (loading a byte other than 0 / 1
// as `bool` would be undefined behaviour).
struct BoolByte {
  uint8_t byte;
};

template <class S>
inline S read(const char *p) {
  S v;
  std::memcpy(&v, p, sizeof(S));
  return v;
}
template <class S>
inline void write(char *p, S v) {
  std::memcpy(p, &v, sizeof(S));
}

// Value of a storage element as a compute type.
template <class T, class S>
inline T to_compute(S v) {
  if constexpr (std::is_same_v<S, Half>) {
    return static_cast<T>(half_to_float(v.bits));
  } else if constexpr (std::is_same_v<S, BFloat>) {
    return static_cast<T>(bf16_to_float(v.bits));
  } else if constexpr (std::is_same_v<S, BoolByte>) {
    return static_cast<T>(v.byte != 0 ? 1 : 0);
  } else if constexpr (std::is_integral_v<T> && std::is_floating_point_v<S>) {
    // float storage into integer compute never happens for well-planned ops; keep it defined.
    if (std::isnan(v)) return 0;
    if (v >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
    if (v <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
    return static_cast<T>(v);
  } else {
    return static_cast<T>(v);
  }
}

template <class T>
inline int64_t float_to_int64(T v) {
  if (std::isnan(v)) return 0;
  if (v >= static_cast<T>(9.2233720368547758e18)) return std::numeric_limits<int64_t>::max();
  if (v <= static_cast<T>(-9.2233720368547758e18)) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

// A compute value as a storage element.
template <class S, class T>
inline S from_compute(T v) {
  if constexpr (std::is_same_v<S, Half>) {
    return Half{float_to_half(static_cast<float>(v))};
  } else if constexpr (std::is_same_v<S, BFloat>) {
    return BFloat{float_to_bf16(static_cast<float>(v))};
  } else if constexpr (std::is_same_v<S, BoolByte>) {
    return BoolByte{static_cast<uint8_t>(v != T(0) ? 1 : 0)};
  } else if constexpr (std::is_integral_v<S>) {
    int64_t i;
    if constexpr (std::is_floating_point_v<T>) i = float_to_int64(v);
    else i = static_cast<int64_t>(v);
    return static_cast<S>(static_cast<std::make_unsigned_t<S>>(i));  // wrap-around, well defined
  } else {
    return static_cast<S>(v);
  }
}

template <class T, class S>
void load_typed(const char *src, int64_t stride, T *dst, int64_t n) {
  if (stride == static_cast<int64_t>(sizeof(S))) {
    for (int64_t i = 0; i < n; ++i) dst[i] = to_compute<T>(read<S>(src + i * static_cast<int64_t>(sizeof(S))));
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = to_compute<T>(read<S>(src + i * stride));
  }
}

template <class T, class S>
void store_typed(const T *src, char *dst, int64_t stride, int64_t n) {
  if (stride == static_cast<int64_t>(sizeof(S))) {
    for (int64_t i = 0; i < n; ++i) write<S>(dst + i * static_cast<int64_t>(sizeof(S)), from_compute<S>(src[i]));
  } else {
    for (int64_t i = 0; i < n; ++i) write<S>(dst + i * stride, from_compute<S>(src[i]));
  }
}

template <class Fn>
void with_storage_type(aclDataType dt, Fn &&fn) {
  switch (dt) {
    case ACL_FLOAT: fn(float{}); break;
    case ACL_DOUBLE: fn(double{}); break;
    case ACL_FLOAT16: fn(Half{}); break;
    case ACL_BF16: fn(BFloat{}); break;
    case ACL_INT8: fn(int8_t{}); break;
    case ACL_UINT8: fn(uint8_t{}); break;
    case ACL_INT16: fn(int16_t{}); break;
    case ACL_INT32: fn(int32_t{}); break;
    case ACL_INT64: fn(int64_t{}); break;
    case ACL_BOOL: fn(BoolByte{}); break;
    default: break;  // phase 1 only plans supported dtypes
  }
}

// Contiguous FLOAT16 / BF16 runs to or from float in vectors (bit-identical to the scalar path):
// the element-wise engine converts every half-precision operand chunk through here. Each returns
// whether it took the run (else the scalar path does).
#if defined(__x86_64__)
constexpr int64_t kVectorRun = 16;

bool half_run(aclDataType dt, int64_t stride_bytes, int64_t n) {
  return (dt == ACL_FLOAT16 || dt == ACL_BF16) && stride_bytes == 2 && n >= kVectorRun && half_convert_available();
}

bool load_half_run(aclDataType dt, const char *src, int64_t stride_bytes, float *dst, int64_t n) {
  if (!half_run(dt, stride_bytes, n)) return false;
  const uint16_t *s = reinterpret_cast<const uint16_t *>(src);
  if (dt == ACL_FLOAT16) f16_to_f32_avx2(s, dst, n);
  else bf16_to_f32_avx2(s, dst, n);
  return true;
}

bool store_half_run(const float *src, aclDataType dt, char *dst, int64_t stride_bytes, int64_t n) {
  if (!half_run(dt, stride_bytes, n)) return false;
  uint16_t *d = reinterpret_cast<uint16_t *>(dst);
  if (dt == ACL_FLOAT16) f32_to_f16_avx2(src, d, n);
  else f32_to_bf16_avx2(src, d, n);
  return true;
}
#else
bool load_half_run(aclDataType, const char *, int64_t, float *, int64_t) { return false; }
bool store_half_run(const float *, aclDataType, char *, int64_t, int64_t) { return false; }
#endif

}  // namespace

template <class T>
void load_as(aclDataType src_dtype, const char *src, int64_t stride_bytes, T *dst, int64_t n) {
  if constexpr (std::is_same_v<T, float>)
    if (load_half_run(src_dtype, src, stride_bytes, dst, n)) return;
  with_storage_type(src_dtype, [&](auto s) { load_typed<T, decltype(s)>(src, stride_bytes, dst, n); });
}

template <class T>
void store_from(const T *src, aclDataType dst_dtype, char *dst, int64_t stride_bytes, int64_t n,
                aclDataType round_through) {
  if (round_through != ACL_DT_UNDEFINED) {
    // Store into the intermediate dtype and read back: the value is then exactly what arithmetic
    // in that dtype would have produced (half rounding, integer wrap-around, bool).
    alignas(8) unsigned char narrow[256 * 8];
    T tmp[256] = {};  // defined even for a dtype the switch does not know (never planned)
    for (int64_t done = 0; done < n; done += 256) {
      const int64_t len = n - done < 256 ? n - done : 256;
      with_storage_type(round_through, [&](auto s) {
        using S = decltype(s);
        store_typed<T, S>(src + done, reinterpret_cast<char *>(narrow), sizeof(S), len);
        load_typed<T, S>(reinterpret_cast<const char *>(narrow), sizeof(S), tmp, len);
      });
      with_storage_type(dst_dtype, [&](auto s) { store_typed<T, decltype(s)>(tmp, dst + done * stride_bytes, stride_bytes, len); });
    }
    return;
  }
  if constexpr (std::is_same_v<T, float>)
    if (store_half_run(src, dst_dtype, dst, stride_bytes, n)) return;
  with_storage_type(dst_dtype, [&](auto s) { store_typed<T, decltype(s)>(src, dst, stride_bytes, n); });
}

template void load_as<float>(aclDataType, const char *, int64_t, float *, int64_t);
template void load_as<double>(aclDataType, const char *, int64_t, double *, int64_t);
template void load_as<int64_t>(aclDataType, const char *, int64_t, int64_t *, int64_t);
template void store_from<float>(const float *, aclDataType, char *, int64_t, int64_t, aclDataType);
template void store_from<double>(const double *, aclDataType, char *, int64_t, int64_t, aclDataType);
template void store_from<int64_t>(const int64_t *, aclDataType, char *, int64_t, int64_t, aclDataType);

}  // namespace opsnn::kernels
