// Activation gradient functors (the *Backward / *Grad ops). Unless noted, a = gradOutput and
// b = the forward input x (or the forward result y where the name says so); the result is
// gradInput. Comparisons are written as PyTorch's backward kernels write them, so NaN inputs take
// the same branch as there.
#pragma once

#include <limits>

#include "kernels/elementwise/functors/common.h"
#include "kernels/elementwise/vmath.h"

namespace opsnn::kernels {
// Internal linkage: every ISA translation unit (ops_portable.cpp, ops_avx2.cpp, ...) compiles its
// own copy with its own flags; a shared inline copy could run AVX2 code on a CPU without it.
namespace {

// Vectorisable transcendental functions (vmath: float polynomials, <cmath> for double).
template <class T> inline T ag_exp(T x) { return vmath::exp(x); }
template <class T> inline T ag_log1p(T x) { return vmath::log1p(x); }
template <class T> inline T ag_tanh(T x) { return vmath::tanh(x); }
template <class T> inline T ag_erfc(T x) { return vmath::erfc(x); }
template <class T> inline T ag_sigmoid(T x) { return vmath::sigmoid(x); }

// d/dx gelu(x): erf form 0.5 erfc(-x/sqrt2) + x phi(x); tanh form with u = k (x + c x^3).
template <class T> inline T gelu_erf_grad(T x) {
  const T e = ag_exp(T(-0.5) * x * x);  // 0 for large |x|: the x phi(x) term is then 0 (also at +-inf)
  return T(0.5) * ag_erfc(-x * T(0.7071067811865476)) + (e == T(0) ? T(0) : x * T(0.3989422804014327) * e);
}
template <class T> inline T gelu_tanh_grad(T x) {
  const T k = T(0.7978845608028654), c = T(0.044715);
  const T x2 = x * x;
  const T t = ag_tanh(k * x * (T(1) + c * x2));
  const T dt = T(1) - t * t;  // 0 once tanh saturates, also where x^2 overflows (no 0 * inf)
  return T(0.5) * (T(1) + t) + (dt == T(0) ? T(0) : T(0.5) * x * dt * k * (T(1) + T(3) * c * x2));
}
// d/dx x sigmoid(k x) = s + k x s (1 - s), s = sigmoid(k x). The second term is 0 once s
// saturates, also where k x overflows (no inf * 0).
template <class T> inline T x_sigmoid_grad(T x, T k) {
  const T s = ag_sigmoid(k * x), t = s * (T(1) - s);
  return s + (t == T(0) ? T(0) : k * x * t);
}

struct GeluBackwardOp : FloatOnly {  // erf form
  static constexpr int arity = 2;
  template <class T> static T apply(T g, T x, T, const Scalars<T> &) { return g * gelu_erf_grad(x); }
};
struct GeluTanhBackwardOp : FloatOnly {  // tanh approximation
  static constexpr int arity = 2;
  template <class T> static T apply(T g, T x, T, const Scalars<T> &) { return g * gelu_tanh_grad(x); }
};
struct FastGeluBackwardOp : FloatOnly {  // fast_gelu(x) = x sigmoid(1.702 x)
  static constexpr int arity = 2;
  template <class T> static T apply(T g, T x, T, const Scalars<T> &) { return g * x_sigmoid_grad(x, T(1.702)); }
};
struct SwishBackwardOp : FloatOnly {  // swish(x) = x sigmoid(s0 x); Silu: s0 = 1
  static constexpr int arity = 2;
  template <class T> static T apply(T g, T x, T, const Scalars<T> &s) { return g * x_sigmoid_grad(x, s.v[0]); }
};
struct ShrinkBackwardOp : FloatOnly {  // hard/soft shrink: 0 inside [-s0, s0], else g
  static constexpr int arity = 2;
  template <class T> static T apply(T g, T x, T, const Scalars<T> &s) {
    return (x >= -s.v[0] && x <= s.v[0]) ? T(0) : g;
  }
};
struct HardsigmoidBackwardOp : FloatOnly {
  static constexpr int arity = 2;
  template <class T> static T apply(T g, T x, T, const Scalars<T> &) {
    return (x > T(-3) && x < T(3)) ? g / T(6) : T(0);
  }
};
struct HardswishBackwardOp : FloatOnly {  // PyTorch's boundaries: x < -3 -> 0, x <= 3 -> g (x/3 + 1/2)
  static constexpr int arity = 2;
  template <class T> static T apply(T g, T x, T, const Scalars<T> &) {
    return x < T(-3) ? T(0) : (x <= T(3) ? g * (x / T(3) + T(0.5)) : g);
  }
};
struct HardswishBackwardV2Op : FloatOnly {  // x <= -3 -> 0, -3 < x < 3 -> g (x/3 + 1/2), x >= 3 -> g
  static constexpr int arity = 2;
  template <class T> static T apply(T g, T x, T, const Scalars<T> &) {
    return x <= T(-3) ? T(0) : (x < T(3) ? g * (x / T(3) + T(0.5)) : g);
  }
};
struct HardtanhBackwardOp : FloatOnly {  // s0 = min, s1 = max
  static constexpr int arity = 2;
  template <class T> static T apply(T g, T x, T, const Scalars<T> &s) {
    return (x <= s.v[0] || x >= s.v[1]) ? T(0) : g;
  }
};
struct LeakyReluBackwardOp : FloatOnly {  // s0 = negative slope; x may be the result when s0 >= 0
  static constexpr int arity = 2;
  template <class T> static T apply(T g, T x, T, const Scalars<T> &s) { return x > T(0) ? g : g * s.v[0]; }
};
struct LogSigmoidBackwardOp : FloatOnly {  // d/dx log sigmoid(x) = sigmoid(-x)
  static constexpr int arity = 2;
  template <class T> static T apply(T g, T x, T, const Scalars<T> &) { return g * ag_sigmoid(-x); }
};
struct MishBackwardOp : FloatOnly {  // t = tanh(softplus(x)): t + x sigmoid(x) (1 - t^2)
  static constexpr int arity = 2;
  template <class T> static T apply(T g, T x, T, const Scalars<T> &) {
    const T ax = x < T(0) ? -x : x;
    const T sp = (x > T(0) ? x : T(0)) + ag_log1p(ag_exp(-ax));
    const T t = ag_tanh(sp);
    return g * (t + x * ag_sigmoid(x) * (T(1) - t * t));
  }
};
struct SigmoidBackwardOp : FloatOnly {  // b = the forward result y: g y (1 - y)
  static constexpr int arity = 2;
  template <class T> static T apply(T g, T y, T, const Scalars<T> &) { return g * y * (T(1) - y); }
};
struct SoftplusBackwardOp : FloatOnly {  // s0 = beta, s1 = threshold
  static constexpr int arity = 2;
  template <class T> static T apply(T g, T x, T, const Scalars<T> &s) {
    const T bx = x * s.v[0];
    return bx > s.v[1] ? g : g * ag_sigmoid(bx);
  }
};
struct ThresholdBackwardOp : AnyType {  // s0 = threshold: x <= s0 ? 0 : g
  static constexpr int arity = 2;
  template <class T> static T apply(T g, T x, T, const Scalars<T> &s) { return x <= s.v[0] ? T(0) : g; }
};
struct EluBackwardOp : FloatOnly {  // from the input; s0 = alpha, s1 = scale, s2 = inputScale
  static constexpr int arity = 2;
  template <class T> static T apply(T g, T x, T, const Scalars<T> &s) {
    return x <= T(0) ? g * s.v[2] * s.v[0] * s.v[1] * ag_exp(x * s.v[2]) : g * s.v[1];
  }
};
struct EluBackwardResultOp : FloatOnly {  // from the result y: y <= 0 ? g inputScale (y + alpha scale) : g scale
  static constexpr int arity = 2;
  template <class T> static T apply(T g, T y, T, const Scalars<T> &s) {
    return y <= T(0) ? g * s.v[2] * (y + s.v[0] * s.v[1]) : g * s.v[1];
  }
};
struct LogitBackwardOp : FloatOnly {  // s0 = eps: g / (x (1 - x)) on [eps, 1 - eps] (0 outside; NaN x too),
                                      // or with eps < 0 on [0, 1] (NaN outside), as torch's logit_backward
  static constexpr int arity = 2;
  template <class T> static T apply(T g, T x, T, const Scalars<T> &s) {
    const T eps = s.v[0];
    if (eps < T(0)) return (x < T(0) || x > T(1)) ? std::numeric_limits<T>::quiet_NaN() : g / (x * (T(1) - x));
    return (x >= eps && x <= T(1) - eps) ? g / (x * (T(1) - x)) : T(0);
  }
};
struct PreluBackwardInputOp : FloatOnly {  // c = the weight (broadcast): x > 0 ? g : w g
  static constexpr int arity = 3;
  template <class T> static T apply(T g, T x, T w, const Scalars<T> &) { return x > T(0) ? g : w * g; }
};

// GLU family: a = the gradient of the output (one half's shape), b, c = the two halves of x.
struct GluBackwardFirstOp : FloatOnly {  // glu = b * sigmoid(c): d/db = sigmoid(c)
  static constexpr int arity = 3;
  template <class T> static T apply(T g, T, T c, const Scalars<T> &) { return g * ag_sigmoid(c); }
};
struct GluBackwardSecondOp : FloatOnly {  // d/dc = b sigmoid(c) (1 - sigmoid(c)) = b sigmoid(c) sigmoid(-c)
  static constexpr int arity = 3;
  template <class T> static T apply(T g, T b, T c, const Scalars<T> &) {
    return g * b * ag_sigmoid(c) * ag_sigmoid(-c);  // (1 - sigmoid(c) cancels for large c)
  }
};
struct GeluGateBackwardActOp : FloatOnly {  // out = lin * gelu(act): d/dact = lin gelu'(act); b = lin, c = act
  static constexpr int arity = 3;
  template <class T> static T apply(T g, T lin, T act, const Scalars<T> &) { return g * lin * gelu_erf_grad(act); }
};
struct GeluTanhGateBackwardActOp : FloatOnly {  // the same with gelu's tanh approximation
  static constexpr int arity = 3;
  template <class T> static T apply(T g, T lin, T act, const Scalars<T> &) { return g * lin * gelu_tanh_grad(act); }
};
struct SwiGluBackwardActOp : FloatOnly {  // out = silu(act) * lin: d/dact = lin silu'(act); b = act, c = lin
  static constexpr int arity = 3;
  template <class T> static T apply(T g, T act, T lin, const Scalars<T> &) {
    return g * lin * x_sigmoid_grad(act, T(1));
  }
};
struct SwiGluBackwardLinOp : FloatOnly {  // d/dlin = silu(act); b = act
  static constexpr int arity = 3;
  template <class T> static T apply(T g, T act, T, const Scalars<T> &) { return g * act * ag_sigmoid(act); }
};
// Clipped SwiGLU: s0 = alpha, s1 = limit, s2 = bias; b = x0 (gate, clamped above), c = x1 (clamped
// both ways). y = x0' sigmoid(alpha x0') (x1' + bias).
struct ClippedSwigluBackwardX0Op : FloatOnly {
  static constexpr int arity = 3;
  template <class T> static T apply(T g, T x0, T x1, const Scalars<T> &s) {
    const T l = s.v[1];
    const T x0c = x0 > l ? l : x0;  // a NaN stays NaN, as in the forward
    const T x1c = x1 < -l ? -l : (x1 > l ? l : x1);
    const T d = g * (x1c + s.v[2]) * x_sigmoid_grad(x0c, s.v[0]);
    return x0 <= l ? d : T(0);  // torch.clamp's backward: nothing flows where x0 is clamped (or NaN)
  }
};
struct ClippedSwigluBackwardX1Op : FloatOnly {
  static constexpr int arity = 3;
  template <class T> static T apply(T g, T x0, T x1, const Scalars<T> &s) {
    const T l = s.v[1];
    const T x0c = x0 > l ? l : x0;
    const T d = g * x0c * ag_sigmoid(s.v[0] * x0c);
    return (x1 >= -l && x1 <= l) ? d : T(0);
  }
};
// SiTU GLU: s0 = beta, s1 = linearBeta; b = gate, c = up.
// y = beta tanh(gate / beta) sigmoid(gate) * up',  up' = linearBeta > 0 ? lb tanh(up / lb) : up.
struct SituGluBackwardGateOp : FloatOnly {
  static constexpr int arity = 3;
  template <class T> static T apply(T g, T gate, T up, const Scalars<T> &s) {
    const T beta = s.v[0], lb = s.v[1];
    const T upp = lb > T(0) ? lb * ag_tanh(up / lb) : up;
    const T t = ag_tanh(gate / beta), sg = ag_sigmoid(gate);
    // 1 - t^2 = 4 sigmoid(2z) sigmoid(-2z) and 1 - sigmoid(gate) = sigmoid(-gate), without cancellation.
    const T z2 = T(2) * gate / beta;
    return g * upp * sg * (T(4) * ag_sigmoid(z2) * ag_sigmoid(-z2) + beta * t * ag_sigmoid(-gate));
  }
};
struct SituGluBackwardUpOp : FloatOnly {
  static constexpr int arity = 3;
  template <class T> static T apply(T g, T gate, T up, const Scalars<T> &s) {
    const T beta = s.v[0], lb = s.v[1];
    const T situ = beta * ag_tanh(gate / beta) * ag_sigmoid(gate);
    const T u2 = T(2) * up / (lb > T(0) ? lb : T(1));
    return g * situ * (lb > T(0) ? T(4) * ag_sigmoid(u2) * ag_sigmoid(-u2) : T(1));  // 1 - tanh^2, no cancellation
  }
};
}  // namespace
}  // namespace opsnn::kernels
