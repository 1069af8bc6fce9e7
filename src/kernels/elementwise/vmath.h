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

// expm1(r) on |r| <= 0.35: Taylor to r^8 (truncation < 1e-9 relative)
OPSNN_VM_INLINE float expm1_poly(float r) {
  static constexpr float c[] = {1.0f / 2, 1.0f / 6, 1.0f / 24, 1.0f / 120, 1.0f / 720, 1.0f / 5040,
                                1.0f / 40320};
  return fmadd(r * r, horner(r, c), r);
}

// x clamped to [lo, hi] with NaN passing through (compiles to one min and one max).
OPSNN_VM_INLINE float clamp_keep_nan(float x, float lo, float hi) {
  const float y = hi < x ? hi : x;
  return lo > y ? lo : y;
}

// Reduced exponential of x + xlo = n ln2 + r, |r| <= ln2/2 (+ rounding): returns expm1(r) and n.
// x must be exact and clamped to [-110, 90] (or NaN); xlo is a small addend (|xlo| < 2) kept
// out of x so that exp(x + xlo) is accurate when x + xlo is not representable.
template <bool kHasLo>
OPSNN_VM_INLINE float exp_reduce(float x, float xlo, uint32_t &n) {
  const float t = fmadd(kHasLo ? x + xlo : x, kLog2eF, kMagicF);
  const float nf = t - kMagicF;
  n = bits(t) - bits(kMagicF);  // low bits of t hold n (two's complement)
  float r = fmadd(nf, -kLn2HiF, x);
  r = fmadd(nf, -kLn2LoF, r);
  if constexpr (kHasLo) r += xlo;
  return expm1_poly(r);
}

// (1 + q) 2^n with two-step scaling: n in [-160, 131] gives gradual underflow and overflow to Inf.
OPSNN_VM_INLINE float exp_scale(float q, uint32_t n) {
  const uint32_t n1 = static_cast<uint32_t>(static_cast<int32_t>(n) >> 1);
  const uint32_t n2 = n - n1;
  return ((1.0f + q) * pow2i(n1)) * pow2i(n2);
}

// exp(x + xlo) with two-step scaling (gradual underflow into denormals, overflow to Inf).
OPSNN_VM_INLINE float exp_dd(float x, float xlo) {
  uint32_t n;
  const float q = exp_reduce<true>(clamp_keep_nan(x, -110.0f, 90.0f), xlo, n);
  return exp_scale(q, n);
}

OPSNN_VM_INLINE float exp(float x) {
  uint32_t n;
  const float q = exp_reduce<false>(clamp_keep_nan(x, -110.0f, 90.0f), 0.0f, n);
  return exp_scale(q, n);
}

OPSNN_VM_INLINE float expm1(float x) {
  const float xc = clamp_keep_nan(x, -30.0f, 89.0f);  // expm1(-30) rounds to -1
  uint32_t n;
  const float q = exp_reduce<false>(xc, 0.0f, n);
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
// more exponentials and logarithms (float)

OPSNN_VM_INLINE float exp2(float x) {
  const float xc = clamp_keep_nan(x, -160.0f, 130.0f);
  const float t = xc + kMagicF;
  const uint32_t n = bits(t) - bits(kMagicF);
  const float f = xc - (t - kMagicF);  // exact, |f| <= 1/2
  const float r = fmadd(f, 0.693147182f, f * -1.90465430e-09f);
  return exp_scale(expm1_poly(r), n);
}

OPSNN_VM_INLINE float log2(float x) {
  float e;
  const float l = log_reduce(x, e);
  return log_specials(x, e + fmadd(l, 1.44269502f, l * 1.92596299e-08f));
}

OPSNN_VM_INLINE float log10(float x) {
  float e;
  const float l = log_reduce(x, e);
  const float r = fmadd(e, 0.301025390625f,
                        fmadd(e, 4.60503898e-06f, fmadd(l, 0.434294492f, l * -1.01030501e-08f)));
  return log_specials(x, r);
}

// ---------------------------------------------------------------------------------------------
// hyperbolic functions and their inverses (float)

// exp(a)/2 for a >= 0 (or NaN), without overflowing before exp(a) itself would
OPSNN_VM_INLINE float half_exp(float a) { return exp_dd(a, -0.693147182f); }

OPSNN_VM_INLINE float sinh(float x) {
  const float ax = fabs_(x);
  const float z = x * x;
  static constexpr float c[] = {1.0f / 6, 1.0f / 120, 1.0f / 5040, 1.0f / 362880, 1.0f / 39916800};
  const float small = fmadd(x * z, horner(z, c), x);
  const float h = half_exp(ax);
  const float big = with_sign(h - 0.25f / h, x);
  return ax < 1.0f ? small : big;
}

OPSNN_VM_INLINE float cosh(float x) {
  const float h = half_exp(fabs_(x));
  return h + 0.25f / h;
}

OPSNN_VM_INLINE float asinh(float x) {
  const float ax = fabs_(x);
  const float a2 = ax * ax;
  const float small = log1p(ax + a2 / (1.0f + __builtin_sqrtf(1.0f + a2)));
  const float big = log(ax) + 0.693147182f;
  return with_sign(ax > 4096.0f ? big : small, x);
}

OPSNN_VM_INLINE float acosh(float x) {
  const float d = x - 1.0f;
  const float small = log1p(d + __builtin_sqrtf(d * (d + 2.0f)));
  const float big = log(x) + 0.693147182f;
  const float res = x > 4096.0f ? big : small;
  return x < 1.0f ? kNanF : res;  // NaN stays NaN (comparison false, res NaN)
}

OPSNN_VM_INLINE float atanh(float x) {
  const float ax = fabs_(x);
  return with_sign(0.5f * log1p((2.0f * ax) / (1.0f - ax)), x);
}

// ---------------------------------------------------------------------------------------------
// inverse trigonometric functions (float)

constexpr float kPio2HiF = 1.57079637f;  // pi/2 = hi + lo
constexpr float kPio2LoF = -4.37113900e-08f;
constexpr float kPio4HiF = 0.785398185f;
constexpr float kPio4LoF = -2.18556950e-08f;
constexpr float kPiHiF = 3.14159274f;
constexpr float kPiLoF = -8.74227800e-08f;

// atan(z) for |z| <= tan(pi/8): z + z^3 P(z^2)
OPSNN_VM_INLINE float atan_poly(float z) {
  static constexpr float c[] = {-0.333333343f, 0.199999779f, -0.142841503f, 0.110713482f,
                                -0.0862455294f, 0.0504782051f};
  const float u = z * z;
  return fmadd(z * u, horner(u, c), z);
}

// atan(y) for y in [0, 1] (or NaN)
OPSNN_VM_INLINE float atan_unit(float y) {
  const bool mid = y > 0.414213562f;
  const float z = mid ? (y - 1.0f) / (y + 1.0f) : y;
  const float p = atan_poly(z);
  return mid ? kPio4HiF + (p + kPio4LoF) : p;
}

OPSNN_VM_INLINE float atan(float x) {
  const float ax = fabs_(x);
  const bool inv = ax > 1.0f;
  const float a = atan_unit(inv ? 1.0f / ax : ax);  // atan(Inf) = pi/2 via 1/Inf = 0
  return with_sign(inv ? kPio2HiF - (a - kPio2LoF) : a, x);
}

// atan2(y, x) with C/PyTorch special cases (signed zeros, infinities, NaN).
OPSNN_VM_INLINE float atan2(float y, float x) {
  const float ay = fabs_(y), ax = fabs_(x);
  const bool swap = ay > ax;
  const float num = swap ? ax : ay, den = swap ? ay : ax;
  float z = num / den;
  z = (den == 0.0f) ? 0.0f : z;               // both zero
  z = (ay == kInfF && ax == kInfF) ? 1.0f : z;  // both infinite: pi/4 multiples
  float a = atan_unit(z);
  a = swap ? kPio2HiF - (a - kPio2LoF) : a;
  a = (bits(x) >> 31) ? kPiHiF - (a - kPiLoF) : a;  // x < 0 or x == -0
  a = (x != x || y != y) ? x + y : a;
  return with_sign(a, y);
}

// asin(x) for |x| <= 1/2: x + x^3 P(x^2)
OPSNN_VM_INLINE float asin_poly(float x) {
  static constexpr float c[] = {0.166666672f, 0.074999921f, 0.0446476638f, 0.0302691385f,
                                0.0236118175f, 0.0105744153f, 0.0309745409f};
  const float u = x * x;
  return fmadd(x * u, horner(u, c), x);
}

OPSNN_VM_INLINE float asin(float x) {
  const float ax = fabs_(x);
  const float s = __builtin_sqrtf(0.5f * (1.0f - ax));  // NaN for |x| > 1
  const float big = kPio2HiF - (2.0f * asin_poly(s) - kPio2LoF);
  return with_sign(ax <= 0.5f ? asin_poly(ax) : big, x);
}

OPSNN_VM_INLINE float acos(float x) {
  const float ax = fabs_(x);
  const float mid = kPio2HiF - (asin_poly(x) - kPio2LoF);
  const float s = __builtin_sqrtf(0.5f * (1.0f - ax));
  const float as = 2.0f * asin_poly(s);
  const float big = x > 0.0f ? as : kPiHiF - (as - kPiLoF);
  return ax <= 0.5f ? mid : big;
}

// ---------------------------------------------------------------------------------------------
// trigonometric functions (float; reduction and polynomials in double)
//
// Without FMA the reduction x = n pi/2 + r runs in double with pi/2 in three parts
// (33 + 33 + 53 bits), exact for |x| < 2^20; with FMA in float (below). Larger finite arguments need more bits of pi: trig_needs_exact(x) tells the caller
// (the element-wise kernel, for a whole chunk) to use trig_exact() instead.

// 2^20 <= |x| <= FLT_MAX, as one unsigned compare on the bits (vectorises: the whole-chunk scan
// written with two float compares and && stayed scalar and cost more than sin itself).
OPSNN_VM_INLINE bool trig_needs_exact(float x) {
  constexpr uint32_t kLo = 0x49800000u, kHi = 0x7f7fffffu;  // 2^20, FLT_MAX
  return (bits(x) & 0x7fffffffu) - kLo <= kHi - kLo;
}

OPSNN_VM_INLINE double trig_reduce(float x, uint32_t &q) {
  const double xd = x;
  constexpr double kMagicD = 0x1.8p52;
  const double t = fmadd(xd, 0x1.45f306dc9c883p-1, kMagicD);
  const double n = t - kMagicD;
  q = static_cast<uint32_t>(bits(t)) & 3u;
  double r = fmadd(n, -0x1.921fb54400000p+0, xd);
  r = fmadd(n, -0x1.0b4611a600000p-34, r);
  return fmadd(n, -0x1.3198a2e037073p-69, r);
}

// sin and cos of |r| <= pi/4 + eps: Taylor series (truncation < 1e-10 relative)
OPSNN_VM_INLINE double sin_poly(double r) {
  static constexpr double c[] = {-1.0 / 6, 1.0 / 120, -1.0 / 5040, 1.0 / 362880, -1.0 / 39916800};
  const double z = r * r;
  return fmadd(r * z, horner(z, c), r);
}
OPSNN_VM_INLINE double cos_poly(double r) {
  static constexpr double c[] = {-1.0 / 2,     1.0 / 24,       -1.0 / 720,
                                 1.0 / 40320, -1.0 / 3628800, 1.0 / 479001600};
  const double z = r * r;
  return fmadd(z, horner(z, c), 1.0);
}

#if defined(__FMA__)
// With FMA the reduction runs in float: pi/2 = P1 + P2 + P3 (+ 1e-23); x - n P1 is exact (both
// on the 2^-23 grid for |x| >= 1, the difference below 1), the next two steps round once each
// relative to the (small) result, so r keeps ~1 ULP for |x| < 2^20. Polynomials in float.
OPSNN_VM_INLINE float trig_reduce_f(float x, uint32_t &q) {
  const float t = fmadd(x, 0.636619747f, kMagicF);
  const float n = t - kMagicF;
  q = (bits(t) - bits(kMagicF)) & 3u;
  float r = fmadd(n, -1.57079637f, x);
  r = fmadd(n, 4.37113883e-08f, r);
  return fmadd(n, 1.71512451e-15f, r);
}
OPSNN_VM_INLINE float sin_poly_f(float r) {
  static constexpr float c[] = {-1.0f / 6, 1.0f / 120, -1.0f / 5040, 1.0f / 362880};
  const float z = r * r;
  return fmadd(r * z, horner(z, c), r);
}
OPSNN_VM_INLINE float cos_poly_f(float r) {
  static constexpr float c[] = {-1.0f / 2, 1.0f / 24, -1.0f / 720, 1.0f / 40320, -1.0f / 3628800};
  const float z = r * r;
  return fmadd(z, horner(z, c), 1.0f);
}

OPSNN_VM_INLINE float sin(float x) {
  uint32_t q;
  const float r = trig_reduce_f(x, q);
  const float s = sin_poly_f(r), c = cos_poly_f(r);
  const float v = (q & 1u) ? c : s;
  const float res = (q & 2u) ? -v : v;
  return x == 0.0f ? x : res;  // sin(-0) = -0
}

OPSNN_VM_INLINE float cos(float x) {
  uint32_t q;
  const float r = trig_reduce_f(x, q);
  const float s = sin_poly_f(r), c = cos_poly_f(r);
  const float v = (q & 1u) ? s : c;
  return ((q + 1u) & 2u) ? -v : v;
}

OPSNN_VM_INLINE float tan(float x) {
  uint32_t q;
  const float r = trig_reduce_f(x, q);
  const float s = sin_poly_f(r), c = cos_poly_f(r);
  const float res = (q & 1u) ? -c / s : s / c;
  return x == 0.0f ? x : res;  // tan(-0) = -0
}
#else
// Without FMA: reduction and polynomials in double.
OPSNN_VM_INLINE float sin(float x) {
  uint32_t q;
  const double r = trig_reduce(x, q);
  const double s = sin_poly(r), c = cos_poly(r);
  const double v = (q & 1u) ? c : s;
  const float res = static_cast<float>((q & 2u) ? -v : v);
  return x == 0.0f ? x : res;  // sin(-0) = -0
}

OPSNN_VM_INLINE float cos(float x) {
  uint32_t q;
  const double r = trig_reduce(x, q);
  const double s = sin_poly(r), c = cos_poly(r);
  const double v = (q & 1u) ? s : c;
  return static_cast<float>(((q + 1u) & 2u) ? -v : v);
}

OPSNN_VM_INLINE float tan(float x) {
  uint32_t q;
  const double r = trig_reduce(x, q);
  const double s = sin_poly(r), c = cos_poly(r);
  const float res = static_cast<float>((q & 1u) ? -c / s : s / c);
  return x == 0.0f ? x : res;  // tan(-0) = -0
}
#endif

// Arguments beyond the reduction's range (rare): libm in double, then rounded once.
inline float sin_exact(float x) { return static_cast<float>(std::sin(static_cast<double>(x))); }
inline float cos_exact(float x) { return static_cast<float>(std::cos(static_cast<double>(x))); }
inline float tan_exact(float x) { return static_cast<float>(std::tan(static_cast<double>(x))); }

// ---------------------------------------------------------------------------------------------
// inverse error function (float): w = -log(1 - x^2); erfinv(x) = x P(w - 2.5) for w < 5,
// x Q(sqrt(w) - 3) beyond (Giles' decomposition; our own fits).

OPSNN_VM_INLINE float erfinv(float x) {
  const float ax = fabs_(x);
  const float w = -log((1.0f - ax) * (1.0f + ax));
  static constexpr float c1[] = {1.50140941f,      0.24664028f,     -0.00417739293f,
                                 -0.00125272642f,  0.000218349393f, -4.9724199e-06f,
                                 -3.46398519e-06f, 4.68131361e-07f, 2.33359678e-08f,
                                 -8.93192631e-09f};
  static constexpr float c2[] = {2.83297682f,     1.00167501f,      0.00944550801f,
                                 -0.00763771264f, 0.00568483304f,   -0.00359466369f,
                                 0.00149132824f,  -6.34502212e-05f, -0.000315075886f,
                                 0.000121222045f};
  const float p1 = horner(w - 2.5f, c1);
  const float p2 = horner(__builtin_sqrtf(w) - 3.0f, c2);
  const float res = (w < 5.0f ? p1 : p2) * x;
  return ax == 1.0f ? with_sign(kInfF, x) : res;
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

OPSNN_VM_INLINE double exp2(double x) { return std::exp2(x); }
OPSNN_VM_INLINE double log2(double x) { return std::log2(x); }
OPSNN_VM_INLINE double log10(double x) { return std::log10(x); }
OPSNN_VM_INLINE double sinh(double x) { return std::sinh(x); }
OPSNN_VM_INLINE double cosh(double x) { return std::cosh(x); }
OPSNN_VM_INLINE double asinh(double x) { return std::asinh(x); }
OPSNN_VM_INLINE double acosh(double x) { return std::acosh(x); }
OPSNN_VM_INLINE double atanh(double x) { return std::atanh(x); }
OPSNN_VM_INLINE double atan(double x) { return std::atan(x); }
OPSNN_VM_INLINE double atan2(double y, double x) { return std::atan2(y, x); }
OPSNN_VM_INLINE double asin(double x) { return std::asin(x); }
OPSNN_VM_INLINE double acos(double x) { return std::acos(x); }
OPSNN_VM_INLINE double sin(double x) { return std::sin(x); }
OPSNN_VM_INLINE double cos(double x) { return std::cos(x); }
OPSNN_VM_INLINE double tan(double x) { return std::tan(x); }

// erfinv in double: an initial guess (the float method evaluated in double, or the asymptotic
// erfc(y) ~ exp(-y^2)/(y sqrt(pi)) in the far tail), then Newton steps on erf(y) = |x| written
// as (1-|x|) - erfc(y) = 0 where |x| >= 1/2 so the tail keeps its relative precision.
inline double erfinv(double x) {
  const double ax = std::fabs(x);
  if (!(ax < 1.0)) return ax == 1.0 ? std::copysign(HUGE_VAL, x) : std::numeric_limits<double>::quiet_NaN();
  if (ax == 0.0) return x;
  const double w = -std::log1p(-ax * ax);
  static constexpr double c1[] = {1.50140941, 0.24664028, -0.00417739293, -0.00125272642,
                                  0.000218349393, -4.9724199e-06, -3.46398519e-06,
                                  4.68131361e-07, 2.33359678e-08, -8.93192631e-09};
  static constexpr double c2[] = {2.83297682, 1.00167501, 0.00944550801, -0.00763771264,
                                  0.00568483304, -0.00359466369, 0.00149132824, -6.34502212e-05,
                                  -0.000315075886, 0.000121222045};
  double y;
  if (w < 5.0) {
    y = horner(w - 2.5, c1) * ax;
  } else if (w < 16.0) {
    y = horner(std::sqrt(w) - 3.0, c2) * ax;
  } else {
    const double y0 = std::sqrt(w);
    y = std::sqrt(w - std::log(y0 * 0.886226925452758));  // sqrt(pi)/2
  }
  const double tail = 1.0 - ax;  // exact for ax >= 1/2
  for (int it = 0; it < 4; ++it) {
    const double g = ax >= 0.5 ? tail - std::erfc(y) : std::erf(y) - ax;
    const double d = 1.1283791670955126 * std::exp(-y * y);
    y -= g / d;
  }
  return std::copysign(y, x);
}

}  // namespace
}  // namespace opsnn::kernels::vmath
