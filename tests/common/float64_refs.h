// Float64 reference helpers shared by the tests (the op tables' `ref` expressions in
// src/ops/<family>/<table>.ops, the vmath accuracy test). Independent of the kernels: plain <cmath>
// in double (long double where double is not enough).
#pragma once

#include <cmath>

namespace opsnn::test::refs {

constexpr double kPi = 3.14159265358979323846;
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

inline double sigm(double x) { return 1 / (1 + std::exp(-x)); }
// log(sigmoid(x)) without overflow or cancellation for large |x|.
inline double logsig(double x) { return x < 0 ? x - std::log1p(std::exp(x)) : -std::log1p(std::exp(-x)); }
// GELU in the forms without cancellation for negative x: 0.5 (1 + erf(t)) = 0.5 erfc(-t) and
// 0.5 (1 + tanh(z)) = sigmoid(2 z) (the sums cancel to 0 long before the true result underflows).
inline double gelu_erf(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }
inline double gelu_tanh(double x) {
  const double z = std::sqrt(2 / kPi) * (x + 0.044715 * x * x * x);
  return x / (1 + std::exp(-2 * z));
}

// erfinv: Newton in long double on erf(y) = x (erfc form in the tail).
inline double erfinv_ref(double x) {
  if (std::isnan(x) || std::fabs(x) > 1) return NAN;
  if (std::fabs(x) == 1) return std::copysign(INFINITY, x);
  if (x == 0) return x;
  long double ax = std::fabs(x), w = -logl((1 - ax) * (1 + ax));
  long double y = w < 1 ? ax * 0.886L : sqrtl(w) * 0.9L;
  for (int i = 0; i < 100; ++i) {
    long double g = ax > 0.5L ? (1 - ax) - erfcl(y) : erfl(y) - ax;
    long double d = 1.1283791670955125739L * expl(-y * y);
    long double dy = g / d;
    y -= dy;
    if (fabsl(dy) <= 1e-19L * fabsl(y)) break;
  }
  return static_cast<double>(std::copysign(y, static_cast<long double>(x)));
}

// ---- the n-ary element-wise tables (src/ops/elementwise/*.ops), PyTorch's CPU semantics ----

// torch.maximum / minimum: NaN propagates.
inline double maximum(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : a > b ? a : b; }
inline double minimum(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : a < b ? a : b; }
// clamp with one bound: NaN in the input or the bound propagates.
inline double clamp_min(double x, double lo) { return maximum(x, lo); }
inline double clamp_max(double x, double hi) { return minimum(x, hi); }
// Both bounds (an absent one as -inf / +inf): min > max gives max.
inline double clamp(double x, double lo, double hi) { return minimum(maximum(x, lo), hi); }
// Python modulo: the result has the sign of the divisor.
inline double remainder(double a, double b) {
  double m = std::fmod(a, b);
  if (m != 0 && (b < 0) != (m < 0)) m += b;
  return m;
}
// Division rounded toward -inf, as PyTorch computes it (exact for whole quotients).
inline double div_floor(double a, double b) {
  if (b == 0) return a / b;
  const double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= 1;
  if (div == 0) return std::copysign(0.0, a / b);
  double f = std::floor(div);
  if (div - f > 0.5) f += 1;
  return f;
}
// self + weight * (end - self), in the two forms PyTorch uses for accuracy at both ends.
inline double lerp(double self, double end, double weight) {
  return std::fabs(weight) < 0.5 ? self + weight * (end - self) : end - (end - self) * (1 - weight);
}
// Bitwise ops on integer values (two's complement; BOOL values are 0 / 1).
inline double bitwise_and(double a, double b) {
  return static_cast<double>(static_cast<long long>(a) & static_cast<long long>(b));
}
inline double bitwise_or(double a, double b) {
  return static_cast<double>(static_cast<long long>(a) | static_cast<long long>(b));
}
inline double bitwise_xor(double a, double b) {
  return static_cast<double>(static_cast<long long>(a) ^ static_cast<long long>(b));
}
// ~x on integers; the BOOL case (logical not) is the harness's.
inline double bitwise_not(double x) { return static_cast<double>(~static_cast<long long>(x)); }

}  // namespace opsnn::test::refs
