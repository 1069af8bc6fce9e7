// Point-wise loss terms and their gradients (MSE, L1, smooth L1, soft margin, KL divergence), as
// PyTorch defines them. Forward: a = self, b = target, s0 = beta. Gradients: a = gradOutput,
// b = self, c = target, s0 = beta (KL: logTarget as 0 / 1), s1 = the reduction's scale (1 / N for
// mean, 1 / batch for batchmean, else 1).
#pragma once

#include "kernels/elementwise/functors/activation.h"
#include "kernels/elementwise/functors/common.h"

namespace opsnn::kernels {
// Internal linkage: every ISA translation unit compiles its own copy with its own flags.
namespace {

template <class T> inline T loss_sign(T d) { return d > T(0) ? T(1) : (d < T(0) ? T(-1) : d); }  // NaN stays

struct MseTermOp : FloatOnly {
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &) { return (a - b) * (a - b); }
};
struct L1TermOp : FloatOnly {
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &) { return a > b ? a - b : b - a; }
};
struct SmoothL1TermOp : FloatOnly {  // |d| < beta ? 0.5 d^2 / beta : |d| - 0.5 beta   (beta = 0: |d|)
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &s) {
    const T d = a > b ? a - b : b - a, beta = s.v[0];
    return d < beta ? T(0.5) * d * d / beta : d - T(0.5) * beta;
  }
};
struct SoftMarginTermOp : FloatOnly {  // log(1 + exp(-b a)), without overflow
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &) {
    const T z = -b * a, az = z > T(0) ? z : -z;
    return (z > T(0) ? z : T(0)) + act_log1p(act_exp(-az));
  }
};
struct MseGradOp : FloatOnly {
  static constexpr int arity = 3;
  template <class T> static T apply(T g, T x, T y, const Scalars<T> &s) { return T(2) * (x - y) * g * s.v[1]; }
};
struct L1GradOp : FloatOnly {
  static constexpr int arity = 3;
  template <class T> static T apply(T g, T x, T y, const Scalars<T> &s) { return loss_sign(x - y) * g * s.v[1]; }
};
struct SmoothL1GradOp : FloatOnly {
  static constexpr int arity = 3;
  template <class T> static T apply(T g, T x, T y, const Scalars<T> &s) {
    const T d = x - y, ad = d > T(0) ? d : -d, beta = s.v[0];
    return (ad < beta ? d / beta : loss_sign(d)) * g * s.v[1];
  }
};
struct SoftMarginGradOp : FloatOnly {  // -y sigmoid(-y x)
  static constexpr int arity = 3;
  template <class T> static T apply(T g, T x, T y, const Scalars<T> &s) { return -y * act_sigmoid(-y * x) * g * s.v[1]; }
};

// KL divergence, PyTorch's kl_div term: logTarget ? exp(t) (t - x) : xlogy(t, t) - t x (0 where
// t = 0, NaN where t < 0), times s1 (1 / batch for batchmean, else 1: the sum of the scaled terms).
struct KlDivTermOp : FloatOnly {
  static constexpr int arity = 2;
  template <class T> static T apply(T x, T t, T, const Scalars<T> &s) {
    const T v = s.v[0] != T(0) ? act_exp(t) * (t - x) : (t == T(0) ? -t * x : t * (vmath::log(t) - x));
    return v * s.v[1];
  }
};
// KL divergence (the gradients of PyTorch's kl_div_backward / kl_div_target_backward ops):
// d/dself = -(logTarget ? exp(t) : (t > 0 ? t : 0)); d/dtarget = logTarget ? exp(t) (t + 1 - x)
// : (t == 0 ? 0 : log(t) + 1 - x).
struct KlDivGradOp : FloatOnly {
  static constexpr int arity = 3;
  template <class T> static T apply(T g, T x, T t, const Scalars<T> &s) {
    const T d = s.v[0] != T(0) ? -act_exp(t) : (t > T(0) ? -t : T(0));
    return d * g * s.v[1];
  }
};
struct KlDivTargetGradOp : FloatOnly {
  static constexpr int arity = 3;
  template <class T> static T apply(T g, T x, T t, const Scalars<T> &s) {
    const T d = s.v[0] != T(0) ? act_exp(t) * (t + T(1) - x) : (t == T(0) ? T(0) : vmath::log(t) + T(1) - x);
    return d * g * s.v[1];
  }
};

// Binary cross-entropy, for the weighted losses (ops::pointwise_loss_phase1 multiplies by the
// weight, the gradient and the reduction's scale in a second pass, LossProductOp): a = self,
// b = target, c = posWeight (1 without one). BCE clamps each log at -100 and divides its
// derivative by max((1 - x) x, 1e-12), as PyTorch does; with logits the loss is
// (1 - y) x + (1 + (pw - 1) y) (log1p(exp(-|x|)) + max(-x, 0)).
struct BceTermOp : FloatOnly {
  static constexpr int arity = 2;
  template <class T> static T apply(T x, T y, T, const Scalars<T> &) {
    T lx = vmath::log(x), l1x = vmath::log(T(1) - x);
    lx = lx < T(-100) ? T(-100) : lx;  // also maps log(0) = -inf; NaN stays NaN
    l1x = l1x < T(-100) ? T(-100) : l1x;
    return -(y * lx + (T(1) - y) * l1x);
  }
};
struct BceDerivOp : FloatOnly {
  static constexpr int arity = 2;
  template <class T> static T apply(T x, T y, T, const Scalars<T> &) {
    const T d = (T(1) - x) * x;
    return (x - y) / (d > T(1e-12) ? d : T(1e-12));
  }
};
struct BceLogitsTermOp : FloatOnly {
  static constexpr int arity = 3;
  template <class T> static T apply(T x, T y, T pw, const Scalars<T> &) {
    const T ax = x < T(0) ? -x : x, mx = x < T(0) ? -x : T(0);
    return (T(1) - y) * x + (T(1) + (pw - T(1)) * y) * (act_log1p(act_exp(-ax)) + mx);
  }
};
struct BceLogitsDerivOp : FloatOnly {  // (pw y + 1 - y) sigmoid(x) - pw y
  static constexpr int arity = 3;
  template <class T> static T apply(T x, T y, T pw, const Scalars<T> &) {
    const T py = pw * y;
    return (py + T(1) - y) * act_sigmoid(x) - py;
  }
};
struct BceLogitsTargetDerivOp : FloatOnly {  // d/dy: pw softplus(-x) - softplus(x)
  static constexpr int arity = 3;
  template <class T> static T apply(T x, T, T pw, const Scalars<T> &) {
    const T ax = x < T(0) ? -x : x, sp = act_log1p(act_exp(-ax));  // softplus(x) = max(x, 0) + sp
    return pw * ((x < T(0) ? -x : T(0)) + sp) - ((x > T(0) ? x : T(0)) + sp);
  }
};
// The second pass of the weighted losses: a b c s0.
struct LossProductOp : FloatOnly {
  static constexpr int arity = 3;
  template <class T> static T apply(T a, T b, T c, const Scalars<T> &s) { return a * b * c * s.v[0]; }
};

}  // namespace
}  // namespace opsnn::kernels
