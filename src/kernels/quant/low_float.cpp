#include "kernels/quant/low_float.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

namespace opsnn::kernels {
namespace {

constexpr LowFloatSpec kSpecs[] = {
    {3, 7, 448.0f, 8, 0x7F, 0x00, 8, 0x7E},      // E4M3FN
    {2, 15, 57344.0f, 15, 0x7F, 0x7C, 8, 0x7B},  // E5M2
    {1, 1, 6.0f, 2, 0x00, 0x00, 4, 0x7},         // E2M1
    {2, 1, 1.75f, 0, 0x00, 0x00, 4, 0x7},        // E1M2
};

// The value of every code, from the bit fields (specials: E4M3FN's S.1111.111, E5M2's exponent 31).
float decode_fields(uint8_t c, LowFloat f) {
  const LowFloatSpec &s = low_float_spec(f);
  const int ebits = s.bits - 1 - s.man_bits;
  const int mant = c & ((1 << s.man_bits) - 1);
  const int e = (c >> s.man_bits) & ((1 << ebits) - 1);
  const float sign = (c >> (s.bits - 1)) & 1 ? -1.0f : 1.0f;
  if (f == LowFloat::kE4M3 && (c & 0x7F) == 0x7F) return std::numeric_limits<float>::quiet_NaN();
  if (f == LowFloat::kE5M2 && e == 31)
    return mant == 0 ? sign * std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
  if (e == 0) return sign * std::ldexp(static_cast<float>(mant), 1 - s.bias - s.man_bits);
  return sign * std::ldexp(static_cast<float>((1 << s.man_bits) + mant), e - s.bias - s.man_bits);
}

using Table = std::array<float, 256>;

const Table &table_of(LowFloat f) {
  static const std::array<Table, 4> tables = [] {
    std::array<Table, 4> t{};
    for (int k = 0; k < 4; ++k)
      for (int c = 0; c < 256; ++c) {
        const LowFloat f = static_cast<LowFloat>(k);
        const int bits = low_float_spec(f).bits;
        t[k][c] = decode_fields(static_cast<uint8_t>(bits == 4 ? (c & 0xF) : c), f);
      }
    return t;
  }();
  return tables[static_cast<int>(f)];
}

// |v| rounded to an integer by mode (floor / ceil already turned into magnitude directions).
float round_magnitude(float n, LfRound mode) {
  switch (mode) {
    case LfRound::kRint: return std::nearbyint(n);  // the default environment: half to even
    case LfRound::kRound: return std::round(n);
    case LfRound::kCeil: return std::ceil(n);
    case LfRound::kFloor:
    case LfRound::kTrunc: return std::trunc(n);
  }
  return n;
}

}  // namespace

const LowFloatSpec &low_float_spec(LowFloat f) { return kSpecs[static_cast<int>(f)]; }

bool low_float_of(aclDataType dt, LowFloat *f) {
  LowFloat v;
  switch (dt) {
    case ACL_FLOAT8_E4M3FN: v = LowFloat::kE4M3; break;
    case ACL_FLOAT8_E5M2: v = LowFloat::kE5M2; break;
    case ACL_FLOAT4_E2M1: v = LowFloat::kE2M1; break;
    case ACL_FLOAT4_E1M2: v = LowFloat::kE1M2; break;
    default: return false;
  }
  if (f != nullptr) *f = v;
  return true;
}

float lf_decode(uint8_t code, LowFloat f) { return table_of(f)[code]; }

float e8m0_decode(uint8_t code) {
  return code == 255 ? std::numeric_limits<float>::quiet_NaN() : std::ldexp(1.0f, static_cast<int>(code) - 127);
}

uint8_t lf_encode(float v, LowFloat f, LfRound mode, bool saturate) {
  const LowFloatSpec &s = low_float_spec(f);
  const bool neg = std::signbit(v);
  const uint8_t sign = neg ? static_cast<uint8_t>(1u << (s.bits - 1)) : 0;
  if (std::isnan(v)) return s.nan != 0 ? static_cast<uint8_t>(s.nan | sign) : 0;
  // floor / ceil of a negative value move its magnitude the other way
  if (neg && mode == LfRound::kFloor) mode = LfRound::kCeil;
  else if (neg && mode == LfRound::kCeil) mode = LfRound::kFloor;
  const float a = std::fabs(v);
  const int emin = 1 - s.bias;
  float r = std::numeric_limits<float>::infinity();
  if (!std::isinf(a) && a != 0.0f) {
    const int e = std::max(std::ilogb(a), emin);  // a's binade, or the subnormal one
    r = std::ldexp(round_magnitude(std::ldexp(a, s.man_bits - e), mode), e - s.man_bits);  // exact scalings
  } else if (a == 0.0f) {
    r = 0.0f;
  }
  if (r > s.max) {
    // Not saturating, a rounding towards zero still stops at the largest finite value (IEEE); only an
    // infinite input or a rounding away from zero overflows.
    const bool towards_zero = mode == LfRound::kFloor || mode == LfRound::kTrunc;
    if (!saturate && (s.inf != 0 || s.nan != 0) && (std::isinf(a) || !towards_zero))
      return static_cast<uint8_t>((s.inf != 0 ? s.inf : s.nan) | sign);
    r = s.max;
  }
  if (r == 0.0f) return sign;
  const int e = std::ilogb(r);
  if (e < emin) return static_cast<uint8_t>(sign | static_cast<int>(std::ldexp(r, s.man_bits - emin)));
  const int mant = static_cast<int>(std::ldexp(r, s.man_bits - e)) - (1 << s.man_bits);
  return static_cast<uint8_t>(sign | ((e + s.bias) << s.man_bits) | mant);
}

void lf_encode_rint_row(const float *v, int64_t n, float mul, LowFloat f, uint8_t *codes) {
  const LowFloatSpec &s = low_float_spec(f);
  const int m = s.man_bits, drop = 23 - m, emin = 1 - s.bias;
  const uint8_t sign_bit = static_cast<uint8_t>(1u << (s.bits - 1));
  const uint32_t max_code = s.max_code;
  const uint32_t to_sub_bits = static_cast<uint32_t>(m - emin + 127) << 23;  // 2^(m - emin): |v| in subnormal steps
  float to_sub_grid;
  std::memcpy(&to_sub_grid, &to_sub_bits, sizeof to_sub_grid);
  const uint32_t min_normal_bits = static_cast<uint32_t>(emin + 127) << 23;
  const uint32_t rebias = static_cast<uint32_t>(127 - s.bias) << m;  // float exponent -> the format's
  for (int64_t j = 0; j < n; ++j) {
    const float x = v[j] * mul;
    uint32_t b;
    std::memcpy(&b, &x, sizeof b);
    const uint8_t sign = (b >> 31) ? sign_bit : 0;
    const uint32_t a = b & 0x7FFFFFFFu;
    uint32_t c;
    if (a > 0x7F800000u) {
      codes[j] = s.nan != 0 ? static_cast<uint8_t>(s.nan | sign) : 0;
      continue;
    }
    float af;
    std::memcpy(&af, &a, sizeof af);
    if (af >= s.max) {
      c = max_code;
    } else if (a < min_normal_bits) {  // the subnormal grid: an integer in [0, 2^m], rounded half to even
      const float t = af * to_sub_grid;
      c = static_cast<uint32_t>((t + 8388608.0f) - 8388608.0f);  // exact: t < 2^22
    } else {
      const uint32_t r = a + ((1u << (drop - 1)) - 1u) + ((a >> drop) & 1u);  // half to even (carries on)
      c = (r >> drop) - rebias;
      if (c > max_code) c = max_code;
    }
    codes[j] = static_cast<uint8_t>(c | sign);
  }
}

}  // namespace opsnn::kernels
