// float64 references of the low-precision float formats (FLOAT8_E4M3FN, FLOAT8_E5M2, FLOAT4_E2M1,
// FLOAT4_E1M2) written from their definitions, for the codec and MX tests: a code's value from its fields
// (E2M1 / E1M2: the documented value lists) and the code a search over the finite values picks for a value
// in a rounding mode (ties: even mantissa for rint, away from zero for round), saturating or not.
#pragma once

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "acl/acl_base.h"

namespace opsnn::test::lfref {

struct Fmt {
  aclDataType dt;
  int bits, mbits, bias;
};

inline Fmt fmt_of(aclDataType dt) {
  switch (dt) {
    case ACL_FLOAT8_E5M2: return {dt, 8, 2, 15};
    case ACL_FLOAT4_E2M1: return {dt, 4, 1, 1};
    case ACL_FLOAT4_E1M2: return {dt, 4, 2, 1};
    default: return {ACL_FLOAT8_E4M3FN, 8, 3, 7};
  }
}

// The same order as kernels::LfRound.
enum Mode { kRint, kRound, kFloor, kCeil, kTrunc };

// The value of code c (NaN for NaN codes).
inline double value(const Fmt &m, int c) {
  const int sign = (c >> (m.bits - 1)) & 1, mag = c & ((1 << (m.bits - 1)) - 1);
  const double s = sign ? -1.0 : 1.0;
  if (m.dt == ACL_FLOAT4_E2M1) {
    static const double kVals[] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
    return s * kVals[mag];
  }
  if (m.dt == ACL_FLOAT4_E1M2) return s * 0.25 * mag;
  const int e = mag >> m.mbits, man = mag & ((1 << m.mbits) - 1);
  if (m.dt == ACL_FLOAT8_E4M3FN && mag == 0x7F) return NAN;
  if (m.dt == ACL_FLOAT8_E5M2 && e == 31) return man == 0 ? s * INFINITY : NAN;
  if (e == 0) return s * man * std::pow(2.0, 1 - m.bias - m.mbits);
  return s * (1.0 + man / double(1 << m.mbits)) * std::pow(2.0, e - m.bias);
}

// The non-negative finite values with their codes, ascending (codes grow with the magnitude).
inline const std::vector<std::pair<double, int>> &finite_values(const Fmt &m) {
  static std::vector<std::pair<double, int>> cache[64];
  auto &v = cache[static_cast<int>(m.dt) & 63];
  if (v.empty())
    for (int c = 0; c < (1 << (m.bits - 1)); ++c)
      if (std::isfinite(value(m, c))) v.push_back({value(m, c), c});
  return v;
}

inline double max_finite(const Fmt &m) { return finite_values(m).back().first; }

// The code of v: the chosen finite value's code (zero keeps v's sign); beyond the largest finite value a
// saturating conversion stays there, a non-saturating FLOAT8 one overflows to inf (E5M2) / NaN (E4M3FN)
// unless it rounds towards zero from a finite value. NaN: the positive / negative NaN 0x7F / 0xFF, FLOAT4 +0.
inline int encode(const Fmt &m, double v, Mode mode, bool saturate = true) {
  const int sign_bit = 1 << (m.bits - 1);
  const bool neg = std::signbit(v);
  if (std::isnan(v)) return m.bits == 8 ? (0x7F | (neg ? 0x80 : 0)) : 0;
  Mode md = mode;  // as a direction on the magnitude
  if (neg && mode == kFloor) md = kCeil;
  else if (neg && mode == kCeil) md = kFloor;
  const double a = std::fabs(v);
  const auto &vals = finite_values(m);
  // the first value >= a: hi; the one before it (or a itself): lo
  const auto it = std::lower_bound(vals.begin(), vals.end(), std::make_pair(a, -1));
  int pick;
  if (it == vals.end()) {
    const double vlo = vals.back().first, half = (vlo - vals[vals.size() - 2].first) / 2;
    const int lo = vals.back().second;
    bool overflow = true;
    if (md == kFloor || md == kTrunc) overflow = std::isinf(a);
    if (md == kRint) overflow = std::isinf(a) || a > vlo + half || (a == vlo + half && (lo & 1));
    if (md == kRound) overflow = a >= vlo + half;
    if (overflow && !saturate && m.bits == 8) return (m.dt == ACL_FLOAT8_E5M2 ? 0x7C : 0x7F) | (neg ? sign_bit : 0);
    pick = lo;
  } else if (it->first == a) {
    pick = it->second;
  } else {
    const auto lo = *(it - 1), hi = *it;  // a > 0 = the first value, so it - 1 exists
    const double dl = a - lo.first, dh = hi.first - a;
    pick = lo.second;
    if (md == kCeil) pick = hi.second;
    else if (md == kRound) pick = dl < dh ? lo.second : hi.second;
    else if (md == kRint) pick = dl < dh ? lo.second : dh < dl ? hi.second : ((lo.second & 1) == 0 ? lo.second : hi.second);
  }
  return pick | (neg ? sign_bit : 0);
}

}  // namespace opsnn::test::lfref
