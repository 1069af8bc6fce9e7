// Activation functors (forward).
#pragma once

#include "kernels/elementwise/functors/common.h"
#include "kernels/elementwise/vmath.h"

namespace opsnn::kernels {
// Internal linkage: every ISA translation unit (ops_portable.cpp, ops_avx2.cpp, ...) compiles its
// own copy with its own flags; a shared inline copy could run AVX2 code on a CPU without it.
namespace {

struct ReluOp : AnyType {  // max(a, 0); NaN propagates
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &) {
    if constexpr (is_float_v<T>) return (a > T(0) || a != a) ? a : T(0);
    else return a > 0 ? a : 0;
  }
};

// ---- Forward activations (besides Relu). T is float or double; half types compute in float. ----
// Transcendentals go through act_* so the whole family switches to the vectorisable versions in
// one place.
template <class T> inline T act_exp(T x) { return vmath::exp(x); }
template <class T> inline T act_expm1(T x) { return vmath::expm1(x); }
template <class T> inline T act_log1p(T x) { return vmath::log1p(x); }
template <class T> inline T act_tanh(T x) { return vmath::tanh(x); }
template <class T> inline T act_erfc(T x) { return vmath::erfc(x); }
template <class T> inline T act_sigmoid(T x) { return vmath::sigmoid(x); }
// x * sigmoid(k * x) without the cancellation of 1 + tanh: x / (1 + exp(-k x)).
template <class T> inline T act_x_sigmoid(T x, T kx) { return x / (T(1) + act_exp(-kx)); }
// GELU, tanh approximation: 0.5 x (1 + tanh(u)) = x * sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3).
template <class T> inline T gelu_tanh(T x) {
  const T k = T(0.7978845608028654), c = T(0.044715);
  return act_x_sigmoid(x, T(2) * k * (x + c * x * x * x));
}
// GELU, exact: 0.5 x (1 + erf(x / sqrt 2)) = 0.5 x erfc(-x / sqrt 2) (no cancellation for x < 0).
template <class T> inline T gelu_erf(T x) { return T(0.5) * x * act_erfc(-x * T(0.7071067811865476)); }
// s0 = approximate: 0 = erf, otherwise tanh.
template <class T> inline T gelu_mode(T x, T approximate) { return approximate != T(0) ? gelu_tanh(x) : gelu_erf(x); }

struct AddReluOp : AnyType {  // relu(a + s0 * b)
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &s) {
    const T r = wrap_add(a, wrap_mul(s.v[0], b));
    if constexpr (is_float_v<T>) return (r > T(0) || r != r) ? r : T(0);
    else return r > 0 ? r : 0;
  }
};
struct GeluTanhOp : FloatOnly {
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &) { return gelu_tanh(a); }
};
struct GeluErfOp : FloatOnly {
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &) { return gelu_erf(a); }
};
struct FastGeluOp : FloatOnly {  // x / (1 + exp(-1.702 x))
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &) { return act_x_sigmoid(a, T(1.702) * a); }
};
struct SwishOp : FloatOnly {  // x * sigmoid(s0 x); Silu is s0 = 1
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &s) { return act_x_sigmoid(a, s.v[0] * a); }
};
struct SigmoidOp : FloatOnly {
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &) { return act_sigmoid(a); }
};
struct LogSigmoidOp : FloatOnly {  // min(x, 0) - log1p(exp(-|x|))
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &) {
    const T m = a < T(0) ? a : T(0), ab = a < T(0) ? -a : a;
    return m - act_log1p(act_exp(-ab));
  }
};
struct LogitOp : FloatOnly {  // log(z / (1 - z)), z = clamp(x, s0, 1 - s0) when s0 >= 0 (else z = x)
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &s) {
    const T lo = s.v[0], hi = T(1) - s.v[0];
    const T z = s.v[0] < T(0) ? a : (a < lo ? lo : (a > hi ? hi : a));
    return vmath::log(z / (T(1) - z));
  }
};
struct HardsigmoidOp : AnyType {  // clamp(x / 6 + 1/2, 0, 1); integers: the truncated value
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &) {
    if constexpr (is_float_v<T>) {
      const T r = a / T(6) + T(0.5);
      return r < T(0) ? T(0) : (r > T(1) ? T(1) : r);
    } else {
      return a >= 3 ? 1 : 0;
    }
  }
};
struct HardswishOp : FloatOnly {  // x <= -3 ? 0 : x >= 3 ? x : x (x + 3) / 6
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &) {
    return a <= T(-3) ? T(0) : (a >= T(3) ? a : a * (a + T(3)) / T(6));  // 0 at -inf, x at +inf
  }
};
struct HardtanhOp : AnyType {  // clamp(x, s0, s1); NaN propagates
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &s) {
    return a < s.v[0] ? s.v[0] : (a > s.v[1] ? s.v[1] : a);
  }
};
struct HardshrinkOp : FloatOnly {  // |x| > s0 ? x : 0
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &s) {
    return (a >= -s.v[0] && a <= s.v[0]) ? T(0) : a;
  }
};
struct SoftshrinkOp : FloatOnly {  // x - s0 / x + s0 outside [-s0, s0], else 0 (NaN propagates)
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &s) {
    return a > s.v[0] ? a - s.v[0] : (a < -s.v[0] ? a + s.v[0] : a * T(0));
  }
};
struct ShrinkOp : FloatOnly {  // s0 = lambd, s1 = bias: x - bias / x + bias outside [-lambd, lambd], else 0
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &s) {
    return a > s.v[0] ? a - s.v[1] : (a < -s.v[0] ? a + s.v[1] : a * T(0));
  }
};
struct ThresholdOp : AnyType {  // x <= s0 ? s1 : x (NaN passes through)
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &s) { return a <= s.v[0] ? s.v[1] : a; }
};
struct EluOp : FloatOnly {  // s0 = alpha, s1 = scale, s2 = inputScale
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &s) {
    return a > T(0) ? s.v[1] * a : s.v[0] * s.v[1] * act_expm1(s.v[2] * a);
  }
};
struct CeluOp : FloatOnly {  // x > 0 ? x : s0 * (exp(x / s0) - 1)
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &s) {
    return a > T(0) ? a : s.v[0] * act_expm1(a / s.v[0]);
  }
};
struct SeluOp : FloatOnly {
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &) {
    const T alpha = T(1.6732632423543772848170429916717), scale = T(1.0507009873554804934193349852946);
    return a > T(0) ? scale * a : scale * alpha * act_expm1(a);
  }
};
struct LeakyReluOp : FloatOnly {  // x > 0 ? x : s0 x
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &s) { return a > T(0) ? a : a * s.v[0]; }
};
struct PreluOp : FloatOnly {  // x > 0 ? x : w x   (b = the weight, broadcast)
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &) { return a > T(0) ? a : a * b; }
};
struct RReluNoiseOp : FloatOnly {  // training: x * noise (noise = 1 where x > 0)
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &) { return a > T(0) ? a : a * b; }
};
struct MishOp : FloatOnly {  // x tanh(softplus(x)) = x n / (n + 2), n = e^x (e^x + 2)
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &) {
    const T t = act_exp(a > T(20) ? T(20) : a);
    const T n = t * (t + T(2));
    return a * (n / (n + T(2)));
  }
};
struct SoftplusOp : FloatOnly {  // s0 = beta, s1 = threshold: beta x > threshold ? x : log1p(exp(beta x)) / beta
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &s) {
    const T bx = s.v[0] * a;
    return bx > s.v[1] ? a : act_log1p(act_exp(bx)) / s.v[0];
  }
};
struct SquaredReluOp : FloatOnly {
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &) {
    const T r = (a > T(0) || a != a) ? a : T(0);
    return r * r;
  }
};
struct HeavisideOp : AnyType {  // x == 0 ? values : (x > 0)
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &) { return a == T(0) ? b : (a > T(0) ? T(1) : T(0)); }
};

// GLU family: a = the activated half, b = the other half.
struct GluOp : FloatOnly {  // a * sigmoid(b)  (torch.glu: first half times sigmoid of the second)
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &) { return a * act_sigmoid(b); }
};
struct SwiGluOp : FloatOnly {  // silu(a) * b
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &) { return act_x_sigmoid(a, a) * b; }
};
struct GeluGateOp : FloatOnly {  // gelu(a) * b, s0 = approximate (0 erf, 1 tanh)
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &s) { return gelu_mode(a, s.v[0]) * b; }
};
struct GeluModeOp : FloatOnly {  // gelu(a), s0 = approximate (0 erf, 1 tanh)
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &s) { return gelu_mode(a, s.v[0]); }
};
struct FatreluMulOp : FloatOnly {  // (a < c ? 0 : a) * b, c = the threshold
  static constexpr int arity = 3;
  template <class T> static T apply(T a, T b, T c, const Scalars<T> &) { return (a < c ? T(0) : a) * b; }
};
struct ClippedSwigluOp : FloatOnly {  // s0 alpha, s1 limit, s2 bias; clamp before the activation
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &s) {
    const T lim = s.v[1];
    const T ac = a > lim ? lim : a;
    const T bc = b < -lim ? -lim : (b > lim ? lim : b);
    return act_x_sigmoid(ac, s.v[0] * ac) * (bc + s.v[2]);
  }
};
struct ClippedSwigluPostOp : FloatOnly {  // clampMode 1: min(silu(a), limit) * clamp(b, -limit, limit)
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &s) {
    const T lim = s.v[1];
    const T g = act_x_sigmoid(a, a);
    const T gc = g > lim ? lim : g;
    const T bc = b < -lim ? -lim : (b > lim ? lim : b);
    return gc * bc;
  }
};
struct SituGluOp : FloatOnly {  // s0 beta, s1 linearBeta: beta tanh(g / beta) sigmoid(g) * (lb > 0 ? lb tanh(u / lb) : u)
  static constexpr int arity = 2;
  template <class T> static T apply(T g, T u, T, const Scalars<T> &s) {
    const T situ = s.v[0] * act_tanh(g / s.v[0]) * act_sigmoid(g);
    const T up = s.v[1] > T(0) ? s.v[1] * act_tanh(u / s.v[1]) : u;
    return situ * up;
  }
};

}  // namespace
}  // namespace opsnn::kernels
