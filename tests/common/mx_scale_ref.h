// float64 references of the MX block scale (FLOAT8_E8M0) as DynamicMxQuant documents it, for the MX tests
// (test_op_table_mxquant.cpp, test_op_table_normq_mx.cpp): the shared exponent of scaleAlg 0, the rounded-up
// amax / Amax(DType) of scaleAlg 1 and 2, and scaleAlg 2's floor / ceil variant; and the codes of a code tensor.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "acl/acl_base.h"
#include "low_float_ref.h"
#include "test_util.h"

namespace opsnn::test::mxref {

struct Config {
  aclDataType dst = ACL_FLOAT8_E4M3FN;
  int64_t alg = 0, bs = 32;
  lfref::Mode mode = lfref::kRint;
  double dtm = 0.0, low = 0.0;
  bool block = false;  // DynamicBlockMxQuant's scaleAlg 2: amax / dstTypeMax (0: 6) rounded up, no floor variant
};

inline int emax_of(aclDataType dst) {
  switch (dst) {
    case ACL_FLOAT4_E2M1: return 2;
    case ACL_FLOAT4_E1M2: return 0;
    case ACL_FLOAT8_E5M2: return 15;
    default: return 8;
  }
}

inline int floor_log2(double a) {
  int k;
  std::frexp(a, &k);  // a = f 2^k, f in [0.5, 1)
  return k - 1;
}

// The scaleAlg 1 / 2 rounding of S (an fp32 value): its biased exponent, + 1 when S is normal with a
// non-zero mantissa and exponent < 254, or (subnormal_up) subnormal and above 2^-127.
inline int e8m0_at_least(double s, bool subnormal_up) {
  if (s == 0) return 0;
  if (s < std::ldexp(1.0, -126)) return subnormal_up && s > std::ldexp(1.0, -127) ? 1 : 0;
  const int k = floor_log2(s), e = k + 127;
  return s != std::ldexp(1.0, k) && e < 254 ? e + 1 : e;
}

// The documented scale of a block with max |V| = amax.
inline int ref_scale(double amax, const Config &cf) {
  if (!std::isfinite(amax)) return 255;
  const double dst_max = lfref::max_finite(lfref::fmt_of(cf.dst));
  if (cf.alg == 1) return e8m0_at_least(static_cast<float>(std::max(amax, cf.low) / dst_max), true);
  // scaleAlg 2: the floor / ceil variant for E2M1's dstTypeMax 0 / 6 / 7 and E1M2's 1.875 (not the block op),
  // else amax / dstTypeMax (0: the format's largest value) rounded up
  const bool e2m1 = cf.dst == ACL_FLOAT4_E2M1;
  const bool variant = !cf.block && ((e2m1 && (cf.dtm == 0 || cf.dtm == 6 || cf.dtm == 7)) || (!e2m1 && cf.dtm == 1.875));
  if (cf.alg == 2 && !variant) return e8m0_at_least(static_cast<float>(amax / (cf.dtm == 0 ? dst_max : cf.dtm)), false);
  if (amax == 0) return 0;
  int e = floor_log2(amax) - emax_of(cf.dst);
  const double above = cf.dtm == 7 ? 0.75 : cf.dtm == 1.875 ? 0.875 : 0.5;
  if (cf.alg == 2 && amax / std::ldexp(1.0, floor_log2(amax)) - 1 > above) ++e;
  return std::min(254, std::max(0, e + 127));
}

// The codes of a contiguous code tensor (FLOAT4: nibbles, low first).
inline std::vector<int> codes_of(const DeviceTensor &t) {
  const auto *p = static_cast<const uint8_t *>(t.data());
  const bool nibbles = t.dtype() == ACL_FLOAT4_E2M1 || t.dtype() == ACL_FLOAT4_E1M2;
  std::vector<int> out(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) out[i] = nibbles ? (p[i >> 1] >> ((i & 1) * 4)) & 0xF : p[i];
  return out;
}

}  // namespace opsnn::test::mxref
