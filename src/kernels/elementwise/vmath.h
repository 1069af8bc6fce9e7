// Vectorisable scalar math for element-wise functors.
//
// Every function here is written so that GCC auto-vectorises a plain loop that calls it (-O3, any
// ISA): no branches (selects are ternaries on values that are computed anyway), no libm calls for
// float, exponent manipulation through std::bit_cast on unsigned integers (no float -> int
// conversions, so no UB for NaN/Inf), range reductions of the Cody-Waite kind and polynomials
// fitted by us (Chebyshev-node interpolation) or Taylor series.
//
// float: accurate to a few ULP over the whole input range, with IEEE/PyTorch special values
// (NaN propagates, ±Inf, overflow to Inf, gradual underflow into denormals, denormal inputs,
// signed zeros). tests/kernels/test_vmath.cpp sweeps every exponent and reports the error.
// double: rarely used and not performance critical; uses <cmath> (accurate to ~1 ULP).
//
// The functions have internal linkage (anonymous namespace): each per-ISA translation unit keeps
// its own copy, compiled with its own flags, so no AVX2 code can leak into the portable build.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#define OPSNN_VM_INLINE inline __attribute__((always_inline))

namespace opsnn::kernels::vmath {
namespace {

// ---------------------------------------------------------------------------------------------
// helpers

OPSNN_VM_INLINE uint32_t bits(float x) { return std::bit_cast<uint32_t>(x); }
OPSNN_VM_INLINE float from_bits(uint32_t u) { return std::bit_cast<float>(u); }
OPSNN_VM_INLINE uint64_t bits(double x) { return std::bit_cast<uint64_t>(x); }
OPSNN_VM_INLINE double from_bits(uint64_t u) { return std::bit_cast<double>(u); }

// a*b+c, fused where the ISA has FMA (one rounding), else two roundings.
OPSNN_VM_INLINE float fmadd(float a, float b, float c) {
#if defined(__FMA__)
  return __builtin_fmaf(a, b, c);
#else
  return a * b + c;
#endif
}
OPSNN_VM_INLINE double fmadd(double a, double b, double c) {
#if defined(__FMA__)
  return __builtin_fma(a, b, c);
#else
  return a * b + c;
#endif
}

OPSNN_VM_INLINE float fabs_(float x) { return from_bits(bits(x) & 0x7FFFFFFFu); }
OPSNN_VM_INLINE double fabs_(double x) { return from_bits(bits(x) & uint64_t{0x7FFFFFFFFFFFFFFF}); }
// |mag| with the sign of `sgn` (mag must be non-negative or NaN).
OPSNN_VM_INLINE float with_sign(float mag, float sgn) {
  return from_bits(bits(mag) | (bits(sgn) & 0x80000000u));
}
OPSNN_VM_INLINE double with_sign(double mag, double sgn) {
  return from_bits(bits(mag) | (bits(sgn) & uint64_t{0x8000000000000000}));
}

// 2^n for n in [-126, 127] (n as an unsigned bit pattern: no signed overflow for garbage n).
OPSNN_VM_INLINE float pow2i(uint32_t n) { return from_bits((n + 127u) << 23); }

constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr float kNanF = std::numeric_limits<float>::quiet_NaN();
constexpr float kMagicF = 12582912.0f;  // 1.5 * 2^23: (x + M) - M rounds |x| < 2^22 to an integer
constexpr float kLn2HiF = 0.693359375f;  // 9 significant bits: n * hi is exact for |n| < 2^15
constexpr float kLn2LoF = -2.12194440e-4f;
constexpr float kLog2eF = 1.44269504088896341f;

// Horner evaluation of c[0] + c[1] x + ... (unrolled by the compiler).
template <int N>
OPSNN_VM_INLINE float horner(float x, const float (&c)[N]) {
  float p = c[N - 1];
#pragma GCC unroll 32
  for (int k = N - 2; k >= 0; --k) p = fmadd(p, x, c[k]);
  return p;
}
template <int N>
OPSNN_VM_INLINE double horner(double x, const double (&c)[N]) {
  double p = c[N - 1];
#pragma GCC unroll 32
  for (int k = N - 2; k >= 0; --k) p = fmadd(p, x, c[k]);
  return p;
}

// ---------------------------------------------------------------------------------------------
// exp family (float)

// Reduced exponential of x + xlo = n ln2 + r, |r| <= ln2/2 (+ rounding): returns expm1(r) and n.
// x must be exact and clamped to [-104, 89] (or NaN); xlo is a small addend (|xlo| < 2) kept
// out of x so that exp(x + xlo) is accurate when x + xlo is not representable.
OPSNN_VM_INLINE float exp_reduce(float x, float xlo, uint32_t &n) {
  const float t = fmadd(x + xlo, kLog2eF, kMagicF);
  const float nf = t - kMagicF;
  n = bits(t) - bits(kMagicF);  // low bits of t hold n (two's complement)
  float r = fmadd(nf, -kLn2HiF, x);
  r = fmadd(nf, -kLn2LoF, r) + xlo;
  // expm1(r) on |r| <= 0.347: Taylor to r^8 (truncation < 1e-9 relative)
  static constexpr float c[] = {1.0f / 2, 1.0f / 6, 1.0f / 24, 1.0f / 120, 1.0f / 720, 1.0f / 5040,
                                1.0f / 40320};
  const float p = horner(r, c);
  return fmadd(r * r, p, r);
}

// exp(x + xlo) with two-step scaling (gradual underflow into denormals, overflow to Inf).
OPSNN_VM_INLINE float exp_dd(float x, float xlo) {
  float xc = x > 89.0f ? 89.0f : x;
  xc = xc < -104.0f ? -104.0f : xc;  // NaN passes through both
  uint32_t n;
  const float q = exp_reduce(xc, xlo, n);
  const uint32_t n1 = static_cast<uint32_t>(static_cast<int32_t>(n) >> 1);
  const uint32_t n2 = n - n1;
  return ((1.0f + q) * pow2i(n1)) * pow2i(n2);
}

OPSNN_VM_INLINE float exp(float x) { return exp_dd(x, 0.0f); }

OPSNN_VM_INLINE float expm1(float x) {
  float xc = x > 89.0f ? 89.0f : x;
  xc = xc < -30.0f ? -30.0f : xc;  // expm1(-30) rounds to -1
  uint32_t n;
  const float q = exp_reduce(xc, 0.0f, n);
  // 2^n (1 + q) - 1 = 2 (t q + (t - 1/2)) with t = 2^(n-1): exact scaling, no overflow of t
  const float t = pow2i(n - 1u);
  const float res = 2.0f * fmadd(t, q, t - 0.5f);
  return fabs_(x) < 0x1p-25f ? x : res;  // tiny, denormal and signed zero: expm1(x) == x
}

// ---------------------------------------------------------------------------------------------
// log family (float)

// For finite x > 0 (denormals included): x = 2^e (1 + f), 1+f in [sqrt(1/2), sqrt(2)).
// Returns log(1+f) and e (as float).
OPSNN_VM_INLINE float log_reduce(float x, float &e) {
  const bool sub = x < 0x1p-126f;
  const float xs = sub ? x * 0x1p23f : x;
  const uint32_t ix = bits(xs) - 0x3F3504F3u;  // bits of sqrt(1/2)
  const int32_t ei = static_cast<int32_t>(ix) >> 23;
  const float m = from_bits((ix & 0x007FFFFFu) + 0x3F3504F3u);
  e = static_cast<float>(ei) + (sub ? -23.0f : 0.0f);
  const float f = m - 1.0f;
  // log(1+f) = f - s (f - T), s = f/(2+f), T = 2 s^2/3 + 2 s^4/5 + ... (atanh series)
  const float s = f / (2.0f + f);
  const float z = s * s;
  static constexpr float c[] = {2.0f / 3, 2.0f / 5, 2.0f / 7, 2.0f / 9, 2.0f / 11};
  const float tz = z * horner(z, c);
  return fmadd(-s, f - tz, f);
}

// Special values of log-like functions of x (log, log2, log10): x<0 NaN, 0 -Inf, Inf, NaN.
OPSNN_VM_INLINE float log_specials(float x, float res) {
  res = x < 0.0f ? kNanF : res;
  res = x == 0.0f ? -kInfF : res;
  res = x == kInfF ? kInfF : res;
  return x != x ? x : res;
}

OPSNN_VM_INLINE float log(float x) {
  float e;
  const float l = log_reduce(x, e);
  return log_specials(x, fmadd(e, kLn2HiF, fmadd(e, kLn2LoF, l)));
}

OPSNN_VM_INLINE float log1p(float x) {
  const float u = 1.0f + x;
  const float d = u - 1.0f;
  const float lu = log(u);
  // log(1+x) = log(u) * x / (u-1) corrects the rounding of u (exact when d == 0: log1p(x) = x)
  float res = d == 0.0f ? x : lu * (x / d);
  return x == kInfF ? kInfF : res;
}

// ---------------------------------------------------------------------------------------------
// hyperbolic / logistic (float)

OPSNN_VM_INLINE float tanh(float x) {
  float ax = fabs_(x);
  ax = ax > 10.0f ? 10.0f : ax;  // tanh(10) rounds to 1; NaN passes
  const float t = expm1(2.0f * ax);
  return with_sign(t / (t + 2.0f), x);
}

OPSNN_VM_INLINE float sigmoid(float x) {
  const float e = exp(-fabs_(x));  // in [0, 1]: never overflows
  return (x < 0.0f ? e : 1.0f) / (1.0f + e);
}

// ---------------------------------------------------------------------------------------------
// error function (float)

// erf(x) for |x| < 0.75: x P(x^2)
OPSNN_VM_INLINE float erf_small(float x) {
  static constexpr float c[] = {1.12837923f,     -0.376126379f,    0.112837784f,  -0.0268647727f,
                                0.00521678943f, -0.000835692801f, 9.4704621e-05f};
  return x * horner(x * x, c);
}

// erfc(a) for a >= 0.75 (or NaN): t exp(-a^2 + F(t)), t = 2/(2+a), F fitted on a in [0.74, 10.5].
OPSNN_VM_INLINE float erfc_large(float a) {
  a = a > 10.5f ? 10.5f : a;  // erfc(10.5) underflows to 0
  const float t = 2.0f / (2.0f + a);
  static constexpr float c[] = {-1.26552022f, 1.00024831f,  0.371694714f,  0.108314246f,
                                -0.203416526f, 0.207704663f, -0.73341465f,  0.613641083f,
                                0.190360263f,  -0.444058269f, 0.15464884f};
  const float F = horner(t, c);
  // a^2 = hi + lo exactly enough: hi = ah^2 exact (ah has 12 significant bits)
  const float ah = from_bits(bits(a) & 0xFFFFF000u);
  const float al = a - ah;
  const float hi = ah * ah;
  const float lo = al * (a + ah);
  return t * exp_dd(-hi, F - lo);
}

OPSNN_VM_INLINE float erf(float x) {
  const float ax = fabs_(x);
  const float big = with_sign(1.0f - erfc_large(ax), x);
  return ax < 0.75f ? erf_small(x) : big;
}

OPSNN_VM_INLINE float erfc(float x) {
  const float ax = fabs_(x);
  const float e = erfc_large(ax);
  const float big = x > 0.0f ? e : 2.0f - e;
  return ax < 0.75f ? 1.0f - erf_small(x) : big;
}

// ---------------------------------------------------------------------------------------------
// double versions (not performance critical)

OPSNN_VM_INLINE double exp(double x) { return std::exp(x); }
OPSNN_VM_INLINE double expm1(double x) { return std::expm1(x); }
OPSNN_VM_INLINE double log(double x) { return std::log(x); }
OPSNN_VM_INLINE double log1p(double x) { return std::log1p(x); }
OPSNN_VM_INLINE double tanh(double x) { return std::tanh(x); }
OPSNN_VM_INLINE double sigmoid(double x) {
  const double e = std::exp(-std::fabs(x));
  return (x < 0.0 ? e : 1.0) / (1.0 + e);
}
OPSNN_VM_INLINE double erf(double x) { return std::erf(x); }
OPSNN_VM_INLINE double erfc(double x) { return std::erfc(x); }

}  // namespace
}  // namespace opsnn::kernels::vmath
