// The low-precision float formats of the MX family and of Cast: FLOAT8_E4M3FN, FLOAT8_E5M2, FLOAT4_E2M1,
// FLOAT4_E1M2 (one code per element; FLOAT4 codes are nibbles, two a byte low first) and the scale format
// FLOAT8_E8M0 (a biased exponent: code c is 2^(c - 127), 255 is NaN).
//   E4M3FN  bias 7,  max 448,   no infinity, NaN 0x7F / 0xFF, subnormals 2^-9 apart
//   E5M2    bias 15, max 57344, +-inf 0x7C / 0xFC, NaN 0x7D..0x7F (we write 0x7F), subnormals 2^-16 apart
//   E2M1    bias 1,  +-{0, 0.5, 1, 1.5, 2, 3, 4, 6}, no infinity / NaN
//   E1M2    bias 1,  +-{0, 0.25, 0.5, ..., 1.75} (subnormals 0.25 apart; 0.5 is the smallest normal), no inf / NaN
// Encoding rounds |v| to the format's grid by `mode` (kFloor / kCeil act on the signed value, as floor /
// ceil do) and is exact for every float input, subnormals of both sides included. Results beyond the
// largest finite value saturate to it (the MX conversions) unless `saturate` is false and the format has an
// infinity (E5M2: inf) or a NaN (E4M3FN: NaN): then a rounding away from zero, or an infinite input, overflows
// to it (IEEE: towards zero stops at the largest finite value). NaN gives the format's NaN, or +0 in the FLOAT4 formats
// (they have none). -0 keeps its sign.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"

namespace opsnn::kernels {

enum class LowFloat : uint8_t { kE4M3, kE5M2, kE2M1, kE1M2 };

// rint: half to even; round: half away from zero; floor / ceil / trunc: towards -inf / +inf / 0.
enum class LfRound : uint8_t { kRint, kRound, kFloor, kCeil, kTrunc };

struct LowFloatSpec {
  int man_bits, bias;
  float max;        // largest finite value
  int max_exp;      // its exponent: the emax of the MX formulas
  uint8_t nan;      // positive NaN code (0 for the FLOAT4 formats: none)
  uint8_t inf;      // positive infinity code (0: none)
  int bits;         // 8 or 4
  uint8_t max_code; // the code of max
};

const LowFloatSpec &low_float_spec(LowFloat f);

// The format of a low-precision float dtype (FLOAT8_E4M3FN / E5M2, FLOAT4_E2M1 / E1M2); false for any other.
bool low_float_of(aclDataType dt, LowFloat *f = nullptr);

uint8_t lf_encode(float v, LowFloat f, LfRound mode, bool saturate = true);
// The code of element `idx` of a run of codes (nibbles: FLOAT4, two a byte, low first; idx counts nibbles).
inline uint8_t lf_code_at(const uint8_t *codes, int64_t idx, bool nibbles) {
  return nibbles ? static_cast<uint8_t>((codes[idx >> 1] >> ((idx & 1) * 4)) & 0xF) : codes[idx];
}
float lf_decode(uint8_t code, LowFloat f);  // a table lookup (FLOAT4: the low nibble)

// codes[j] = lf_encode(v[j] * mul, f, kRint, saturate) for a power-of-two `mul` (the MX block scale's
// inverse): the same codes from the float's bits (round half to even on the dropped mantissa bits, the
// subnormal grid by an exact add-and-subtract), without libm.
void lf_encode_rint_row(const float *v, int64_t n, float mul, LowFloat f, uint8_t *codes);

// FLOAT8_E8M0 of 2^e: e clamped to [-127, 127] (codes 0..254).
inline uint8_t e8m0_of_exp(int e) { return static_cast<uint8_t>((e < -127 ? -127 : e > 127 ? 127 : e) + 127); }
float e8m0_decode(uint8_t code);  // 2^(code - 127); 255: NaN

}  // namespace opsnn::kernels
