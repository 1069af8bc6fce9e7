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

}  // namespace opsnn::test::refs
