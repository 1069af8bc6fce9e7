// Float64 reference helpers shared by the tests (the op tables' `ref` expressions in
// src/ops/<family>/<table>.ops, the vmath accuracy test). Independent of the kernels: plain <cmath>
// in double (long double where double is not enough).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

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

// Activations shared by the forward rows (unary_activation.ops `ref`) and the gradient rows
// (activation_backward.ops `forward`, differentiated by the finite-difference test).
inline double relu(double x) { return std::isnan(x) ? x : x > 0 ? x : 0.0; }
inline double fast_gelu(double x) { return x / (1 + std::exp(-1.702 * x)); }
inline double hardsigmoid(double x) { return std::isnan(x) ? x : x <= -3 ? 0.0 : x >= 3 ? 1.0 : x / 6 + 0.5; }
inline double hardshrink(double x, double lambd) { return std::fabs(x) > lambd || std::isnan(x) ? x : 0.0; }
inline double softshrink(double x, double lambd) {
  return std::isnan(x) ? x : x > lambd ? x - lambd : x < -lambd ? x + lambd : 0.0;
}
inline double hardswish(double x) { return x <= -3 ? 0.0 : x >= 3 ? x : x * (x + 3) / 6; }
inline double mish(double x) { return x > 40 ? x : x * std::tanh(std::log1p(std::exp(x))); }
inline double softplus(double x, double beta, double threshold) {
  return beta * x > threshold ? x : std::log1p(std::exp(beta * x)) / beta;
}
inline double elu(double x, double alpha, double scale, double input_scale) {
  return x > 0 ? scale * x : alpha * scale * std::expm1(input_scale * x);
}
// torch.logit: log(z / (1 - z)), z = x clamped to [eps, 1 - eps] when eps >= 0.
inline double logit(double x, double eps) {
  const double z = eps < 0 ? x : std::min(std::max(x, eps), 1 - eps);
  return std::log(z / (1 - z));
}
// Derivatives. GELU's: the x phi(x) term is 0 where phi underflows (also at +-inf, where x phi(x)
// would be inf * 0), so the limits 0 and 1 come out.
inline double gelu_erf_grad(double x) {
  const double e = std::exp(-0.5 * x * x);
  return 0.5 * std::erfc(-x / std::sqrt(2.0)) + (e == 0 ? 0.0 : x * e / std::sqrt(2 * kPi));
}
inline double gelu_tanh_grad(double x) {
  const double k = std::sqrt(2 / kPi), t = std::tanh(k * (x + 0.044715 * x * x * x)), dt = 1 - t * t;
  return 0.5 * (1 + t) + (dt == 0 ? 0.0 : 0.5 * x * dt * k * (1 + 3 * 0.044715 * x * x));
}
// d/dx x sigmoid(k x) (SiLU, Swish, FastGelu with k = 1.702); the limits 1 and 0 at +-inf.
inline double x_sigmoid_grad(double x, double k) {
  const double s = sigm(k * x), t = s * (1 - s);
  return s + (t == 0 ? 0.0 : k * x * t);
}
// The gated activations (src/ops/activation/gated.ops `ref`): a, b are the two halves of the input
// in the row's order; the *_grad_a / *_grad_b are d y / d a and d y / d b (the harness checks them
// against central differences of the forward). Clamps propagate NaN, as torch.clamp does; a
// gradient flows through a clamp only where its input lies within the bounds (NaN: none), as in
// torch.clamp's backward.
inline double clamp_nan(double x, double lo, double hi) { return std::isnan(x) ? x : x < lo ? lo : x > hi ? hi : x; }
inline double gelu_mode_ref(double x, double approximate) { return approximate != 0 ? gelu_tanh(x) : gelu_erf(x); }
inline double glu_ref(double a, double b) { return a * sigm(b); }
inline double swiglu_ref(double a, double b) { return a * sigm(a) * b; }
inline double gelu_gate_ref(double a, double b, double approximate) { return gelu_mode_ref(a, approximate) * b; }
inline double fatrelu_mul_ref(double a, double b, double threshold) { return (a < threshold ? 0.0 : a) * b; }
// clampMode 0: min(a, limit) sigmoid(alpha min(a, limit)) (clamp(b, +-limit) + bias); 1: min(silu(a), limit) clamp(b, +-limit).
inline double clipped_swiglu_ref(double a, double b, double alpha, double limit, double bias, int64_t clamp_mode) {
  const double bc = clamp_nan(b, -limit, limit);
  if (clamp_mode == 1) return clamp_nan(a * sigm(a), -INFINITY, limit) * bc;
  const double ac = clamp_nan(a, -INFINITY, limit);
  return ac * sigm(alpha * ac) * (bc + bias);
}
inline double situ_up(double b, double linear_beta) { return linear_beta > 0 ? linear_beta * std::tanh(b / linear_beta) : b; }
inline double situ_glu_ref(double a, double b, double beta, double linear_beta) {
  return beta * std::tanh(a / beta) * sigm(a) * situ_up(b, linear_beta);
}
inline double glu_grad_a(double, double b) { return sigm(b); }
inline double glu_grad_b(double a, double b) { return a * sigm(b) * sigm(-b); }
inline double swiglu_grad_a(double a, double b) { return b * x_sigmoid_grad(a, 1); }
inline double swiglu_grad_b(double a, double) { return a * sigm(a); }
inline double gelu_gate_grad_a(double a, double b, double approximate) {
  return b * (approximate != 0 ? gelu_tanh_grad(a) : gelu_erf_grad(a));
}
inline double clipped_swiglu_grad_a(double a, double b, double alpha, double limit, double bias) {
  return !(a <= limit) ? 0.0 : (clamp_nan(b, -limit, limit) + bias) * x_sigmoid_grad(a, alpha);
}
inline double clipped_swiglu_grad_b(double a, double b, double alpha, double limit, double) {
  const double ac = clamp_nan(a, -INFINITY, limit);
  return !(b >= -limit && b <= limit) ? 0.0 : ac * sigm(alpha * ac);
}
inline double situ_glu_grad_a(double a, double b, double beta, double linear_beta) {
  const double c = std::cosh(a / beta);  // 1 - tanh^2 = 1 / cosh^2 (no cancellation)
  return situ_up(b, linear_beta) * sigm(a) * (1 / (c * c) + beta * std::tanh(a / beta) * sigm(-a));
}
inline double situ_glu_grad_b(double a, double b, double beta, double linear_beta) {
  const double c = linear_beta > 0 ? std::cosh(b / linear_beta) : 1.0;
  return beta * std::tanh(a / beta) * sigm(a) / (c * c);
}
inline double mish_grad(double x) {
  const double t = std::tanh(x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)));
  return t + x * sigm(x) * (1 - t * t);
}
// torch's logit_backward: dy / (x (1 - x)) on [eps, 1 - eps] (0 elsewhere), or with eps < 0 on
// [0, 1] (NaN elsewhere).
inline double logit_grad(double dy, double x, double eps) {
  if (eps < 0) return x < 0 || x > 1 ? NAN : dy / (x * (1 - x));
  return x >= eps && x <= 1 - eps ? dy / (x * (1 - x)) : 0.0;
}

// PReLU (torch.nn.functional.prelu, the channel-activation table): the forward with the channel's
// weight w (also RReLU with its slope), and the two gradients' terms (torch's prelu backward:
// gradWeight[c] sums the weight terms of channel c).
inline double prelu(double x, double w) { return x > 0 ? x : w * x; }
inline double prelu_grad_input(double g, double x, double w) { return x > 0 ? g : w * g; }
inline double prelu_grad_weight_term(double g, double x) { return x > 0 ? 0.0 : g * x; }

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

// Reductions over the values of one output, in the row-major order of the reduced dims (PyTorch's
// definitions; long double sums). kind: a ReduceTableCase kind. Returns {result, second result}:
// the index of max/min (first occurrence, first NaN), the mean of var_mean / std_mean.
struct ReduceRef {
  double v0 = 0, v1 = 0;
};
inline ReduceRef reduce_ref(const std::string &kind, const std::vector<double> &x, double p, double correction,
                            bool integral) {
  const auto n = static_cast<int64_t>(x.size());
  ReduceRef r;
  auto sum_of = [&](auto f) {
    long double s = 0;
    for (double v : x) s += f(v);
    return static_cast<double>(s);
  };
  if (kind == "sum" || kind == "nansum") {
    if (integral) {  // wrapping int64 arithmetic, as the integer reduction
      uint64_t s = 0;
      for (double v : x) s += static_cast<uint64_t>(static_cast<int64_t>(v));
      r.v0 = static_cast<double>(static_cast<int64_t>(s));
    } else {
      const bool nan0 = kind == "nansum";
      r.v0 = sum_of([nan0](double v) { return nan0 && std::isnan(v) ? 0.0L : static_cast<long double>(v); });
    }
  } else if (kind == "mean") {
    r.v0 = sum_of([](double v) { return static_cast<long double>(v); }) / static_cast<double>(n);
  } else if (kind == "prod") {
    if (integral) {
      uint64_t s = 1;
      for (double v : x) s *= static_cast<uint64_t>(static_cast<int64_t>(v));
      r.v0 = static_cast<double>(static_cast<int64_t>(s));
    } else {
      long double s = 1;
      for (double v : x) s *= v;
      r.v0 = static_cast<double>(s);
    }
  } else if (kind == "max" || kind == "min" || kind == "argmax" || kind == "argmin") {
    const bool mx = kind == "max" || kind == "argmax";
    int64_t best = 0;
    for (int64_t i = 1; i < n; ++i) {
      if (std::isnan(x[best])) break;
      if (std::isnan(x[i]) || (mx ? x[i] > x[best] : x[i] < x[best])) best = i;
    }
    r.v0 = n > 0 ? x[best] : 0;
    r.v1 = static_cast<double>(best);
    if (kind == "argmax" || kind == "argmin") r.v0 = r.v1;
  } else if (kind == "aminmax") {  // v0 = amin, v1 = amax (NaN wins)
    r.v0 = n > 0 ? x[0] : 0;
    r.v1 = r.v0;
    for (double v : x) {
      r.v0 = std::isnan(v) || std::isnan(r.v0) ? NAN : std::fmin(r.v0, v);
      r.v1 = std::isnan(v) || std::isnan(r.v1) ? NAN : std::fmax(r.v1, v);
    }
  } else if (kind == "all") {
    r.v0 = 1;
    for (double v : x) r.v0 = r.v0 != 0 && v != 0 ? 1 : 0;
  } else if (kind == "any") {
    for (double v : x) r.v0 = r.v0 != 0 || v != 0 ? 1 : 0;
  } else if (kind == "count_nonzero") {
    for (double v : x) r.v0 += v != 0 ? 1 : 0;
  } else if (kind == "norm") {
    if (p == 0) {
      r.v0 = sum_of([](double v) { return v != 0 ? 1.0L : 0.0L; });
    } else if (std::isinf(p)) {
      r.v0 = p > 0 ? -INFINITY : INFINITY;
      for (double v : x) r.v0 = std::isnan(v) || std::isnan(r.v0) ? NAN : p > 0 ? std::fmax(r.v0, std::fabs(v))
                                                                              : std::fmin(r.v0, std::fabs(v));
    } else {
      r.v0 = std::pow(sum_of([&](double v) { return powl(fabsl(v), p); }), 1.0 / p);
    }
  } else if (kind == "logsumexp") {
    double m = -INFINITY;
    for (double v : x) m = std::isnan(v) || std::isnan(m) ? NAN : std::fmax(m, v);
    if (std::isnan(m) || std::isinf(m)) r.v0 = m;
    else r.v0 = m + std::log(sum_of([&](double v) { return expl(static_cast<long double>(v) - m); }));
  } else {  // var, std, var_mean, std_mean: two passes in long double
    long double mean = 0, m2 = 0;
    for (double v : x) mean += v;
    mean /= n;
    for (double v : x) m2 += (v - mean) * (v - mean);
    const double dof = std::fmax(static_cast<double>(n) - correction, 0.0);
    const double var = static_cast<double>(m2) / dof;
    r.v0 = kind == "std" || kind == "std_mean" ? std::sqrt(var) : var;
    r.v1 = n > 0 ? static_cast<double>(mean) : NAN;
  }
  return r;
}

// Dim-wise ops over one line x (and x2, the second input), as PyTorch defines them. Returns the
// values line and the indices line (sort, topk: the first k; kthvalue, median: one element).
// Sorting is stable with NaN the largest value; written as an insertion sort, independent of the
// library's std::stable_sort.
struct DimwiseRef {
  std::vector<double> v0, v1;
};
inline std::vector<int64_t> stable_order_ref(const std::vector<double> &x, bool descending) {
  auto before = [&](double a, double b) {
    if (descending) return std::isnan(a) ? !std::isnan(b) : (!std::isnan(b) && a > b);
    return std::isnan(b) ? !std::isnan(a) : (!std::isnan(a) && a < b);
  };
  std::vector<int64_t> order;
  for (int64_t i = 0; i < static_cast<int64_t>(x.size()); ++i) {
    size_t at = order.size();
    while (at > 0 && before(x[static_cast<size_t>(i)], x[static_cast<size_t>(order[at - 1])])) --at;
    order.insert(order.begin() + static_cast<std::ptrdiff_t>(at), i);
  }
  return order;
}
inline DimwiseRef dimwise_ref(const std::string &kind, const std::vector<double> &x, const std::vector<double> &x2,
                              int64_t k, bool descending, bool integral) {
  DimwiseRef r;
  const size_t n = x.size();
  if (kind == "softmax" || kind == "log_softmax") {
    long double m = -INFINITY, s = 0;
    for (double v : x) m = std::isnan(v) || std::isnan(static_cast<double>(m)) ? NAN : std::fmax(m, v);
    for (double v : x) s += expl(v - m);
    for (double v : x) r.v0.push_back(kind == "softmax" ? static_cast<double>(expl(v - m) / s)
                                                          : static_cast<double>(v - m - logl(s)));
  } else if (kind == "softmax_backward") {
    long double dot = 0;
    for (size_t i = 0; i < n; ++i) dot += static_cast<long double>(x[i]) * x2[i];
    for (size_t i = 0; i < n; ++i) r.v0.push_back(static_cast<double>(x2[i] * (x[i] - dot)));
  } else if (kind == "log_softmax_backward") {
    long double sum = 0;
    for (double v : x) sum += v;
    for (size_t i = 0; i < n; ++i) r.v0.push_back(static_cast<double>(x[i] - expl(x2[i]) * sum));
  } else if (kind == "cumsum") {
    long double s = 0;
    uint64_t si = 0;
    for (double v : x) {
      s += v;
      if (integral) si += static_cast<uint64_t>(static_cast<int64_t>(v));  // floats may be NaN / inf
      r.v0.push_back(integral ? static_cast<double>(static_cast<int64_t>(si)) : static_cast<double>(s));
    }
  } else if (kind == "cumprod") {
    long double pr = 1;
    uint64_t pi = 1;
    for (double v : x) {
      pr *= v;
      if (integral) pi *= static_cast<uint64_t>(static_cast<int64_t>(v));  // wraps, as int64 arithmetic
      r.v0.push_back(integral ? static_cast<double>(static_cast<int64_t>(pi)) : static_cast<double>(pr));
    }
  } else if (kind == "cummax" || kind == "cummin") {
    // torch.cummax / cummin: x[i] replaces the running value when x[i] >= it (<= for cummin) or x[i]
    // is NaN, unless the running value already is NaN; so ties take the last index.
    double best = n > 0 ? x[0] : 0;
    size_t at = 0;
    for (size_t i = 0; i < n; ++i) {
      const bool take = !std::isnan(best) && (std::isnan(x[i]) || (kind == "cummax" ? x[i] >= best : x[i] <= best));
      if (take) {
        best = x[i];
        at = i;
      }
      r.v0.push_back(best);
      r.v1.push_back(static_cast<double>(at));
    }
  } else if (kind == "sort" || kind == "topk") {
    const auto order = stable_order_ref(x, descending);
    const size_t m = kind == "topk" ? static_cast<size_t>(k) : n;
    for (size_t i = 0; i < m; ++i) {
      r.v0.push_back(x[static_cast<size_t>(order[i])]);
      r.v1.push_back(static_cast<double>(order[i]));
    }
  } else {  // kthvalue, median, nanmedian: one element of the ascending order
    const auto order = stable_order_ref(x, false);
    size_t valid = 0;
    for (double v : x) valid += std::isnan(v) ? 0 : 1;
    size_t pick = kind == "kthvalue" ? static_cast<size_t>(k - 1)
                  : kind == "median" && valid < n ? valid
                  : valid > 0 ? (valid - 1) / 2 : 0;
    r.v0.push_back(x[static_cast<size_t>(order[pick])]);
    r.v1.push_back(static_cast<double>(order[pick]));
  }
  return r;
}

// Rotary position embedding of one row: mode 0 rotate_half (cat(-x2, x1)), mode 1 interleaved pairs.
inline std::vector<double> rope_ref(const std::vector<double> &x, const std::vector<double> &cs,
                                    const std::vector<double> &sn, int64_t mode) {
  const size_t n = x.size(), h = n / 2;
  std::vector<double> y(n);
  for (size_t i = 0; i < n; ++i) {
    const double rot = mode == 0 ? (i < h ? -x[i + h] : x[i - h]) : (i % 2 == 0 ? -x[i + 1] : x[i - 1]);
    y[i] = static_cast<double>(static_cast<long double>(x[i]) * cs[i] + static_cast<long double>(rot) * sn[i]);
  }
  return y;
}

// The gradient of rope_ref on one row, from its linearity (not from a formula of its own): dx_m =
// sum_j dy_j y_j(e_m) with y(e_m) = rope_ref(e_m, cs, sn); the cos / sin terms dy_j x_j and
// dy_j rope_ref(x, 0, 1)_j (summed over the broadcast rows by the caller).
struct RopeGradRow {
  std::vector<double> dx, dcos, dsin;
};
inline RopeGradRow rope_grad_ref(const std::vector<double> &dy, const std::vector<double> &x,
                                 const std::vector<double> &cs, const std::vector<double> &sn, int64_t mode) {
  const size_t n = dy.size();
  RopeGradRow r{std::vector<double>(n, 0.0), std::vector<double>(n), std::vector<double>(n)};
  for (size_t m = 0; m < n; ++m) {
    std::vector<double> e(n, 0.0);
    e[m] = 1.0;
    const std::vector<double> y = rope_ref(e, cs, sn, mode);
    for (size_t j = 0; j < n; ++j) r.dx[m] += dy[j] * y[j];
  }
  const std::vector<double> rot = rope_ref(x, std::vector<double>(n, 0.0), std::vector<double>(n, 1.0), mode);
  for (size_t j = 0; j < n && !x.empty(); ++j) {
    r.dcos[j] = dy[j] * x[j];
    r.dsin[j] = dy[j] * rot[j];
  }
  return r;
}

// Row ops over one row x (x2: the added input or the labels; gamma / beta: the row's parameters,
// empty when absent): layer / RMS norm (biased variance, rstd = 1 / sqrt(var + eps)) and the
// softmax cross-entropy. Returns y (or backprop), mean (or the loss), rstd and the summed input.
struct RowRef {
  std::vector<double> y, xsum;
  double mean = 0, rstd = 0, var = 0;
};
inline RowRef row_ref(const std::string &kind, std::vector<double> x, const std::vector<double> &x2,
                      const std::vector<double> &gamma, const std::vector<double> &beta, double eps, bool gemma,
                      bool silu, double alpha = 1, const std::vector<double> &bias = {}, double swish_scale = 1) {
  RowRef r;
  const size_t n = x.size();
  if (kind == "softmax_cross_entropy") {
    long double m = -INFINITY, s = 0, loss = 0;
    for (double v : x) m = std::fmax(m, v);
    for (double v : x) s += expl(v - m);
    for (size_t i = 0; i < n; ++i) {
      loss -= x2[i] * (x[i] - m - logl(s));
      r.y.push_back(static_cast<double>(expl(x[i] - m) / s - x2[i]));
    }
    r.mean = static_cast<double>(loss);
    return r;
  }
  if (!x2.empty()) {
    for (size_t i = 0; i < n; ++i) x[i] = alpha * x[i] + x2[i] + (bias.empty() ? 0.0 : bias[i]);
    r.xsum = x;
  }
  long double mean = 0, var = 0;
  if (kind != "rms_norm") {
    for (double v : x) mean += v;
    mean /= n;
  }
  for (double v : x) var += (v - mean) * (v - mean);
  var /= n;
  const long double rstd = 1 / sqrtl(var + eps);
  for (size_t i = 0; i < n; ++i) {
    long double y = (x[i] - mean) * rstd;
    if (!gamma.empty()) y *= gemma ? 1 + gamma[i] : gamma[i];
    if (!beta.empty()) y += beta[i];
    if (silu) y = y / (1 + expl(-swish_scale * y));
    r.y.push_back(static_cast<double>(y));
  }
  r.mean = static_cast<double>(mean);
  r.rstd = static_cast<double>(rstd);
  r.var = static_cast<double>(var);
  return r;
}

// ---- the n-ary element-wise tables (src/ops/elementwise/*.ops), PyTorch's CPU semantics ----

// torch.maximum / minimum: NaN propagates.
// The row normalisations with their fused stages, forward and gradient (src/ops/norm/norm_grad.ops),
// over flat arrays in x's row-major order: element i belongs to row row[i], uses gamma / beta element
// gidx[i] and scale / shift element sidx[i]. Forward (each stage optional):
//   z = alpha x + x2;  xhat = (z - mean) rstd (mean 0 for RMS);  n = xhat gamma + beta;
//   m = n (1 + scale) + shift;  y = m sigmoid(swish_scale m) (swish) or m.
// norm_grad_ref is the analytic gradient of L = sum(dy y) + sum(dsum z) at the given mean / rstd;
// the harness checks it against finite differences of norm_forward_ref.
struct NormRefSpec {
  std::vector<int64_t> row, gidx, sidx;
  int64_t rows = 0, ngamma = 0, nscale = 0;
  bool rms = false, add = false, swish = false, has_gamma = false, has_beta = false, has_scale = false;
  double alpha = 1, swish_scale = 1, eps = 1e-5;
};
struct NormRefInputs {
  std::vector<double> x, x2, gamma, beta, scale, shift;
};
struct NormRefForward {
  std::vector<double> y, z, mean, rstd;
};
inline NormRefForward norm_forward_ref(const NormRefSpec &s, const NormRefInputs &in) {
  const size_t n = in.x.size(), R = static_cast<size_t>(s.rows);
  NormRefForward f;
  f.z.resize(n);
  for (size_t i = 0; i < n; ++i) f.z[i] = s.add ? s.alpha * in.x[i] + in.x2[i] : in.x[i];
  std::vector<long double> s1(R), cnt(R), s2(R);
  for (size_t i = 0; i < n; ++i) {
    s1[static_cast<size_t>(s.row[i])] += f.z[i];
    cnt[static_cast<size_t>(s.row[i])] += 1;
  }
  f.mean.resize(R);
  for (size_t r = 0; r < R; ++r) f.mean[r] = s.rms ? 0.0 : static_cast<double>(s1[r] / cnt[r]);
  for (size_t i = 0; i < n; ++i) {
    const long double d = f.z[i] - f.mean[static_cast<size_t>(s.row[i])];
    s2[static_cast<size_t>(s.row[i])] += d * d;
  }
  f.rstd.resize(R);
  for (size_t r = 0; r < R; ++r) f.rstd[r] = static_cast<double>(1 / sqrtl(s2[r] / cnt[r] + s.eps));
  f.y.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t r = static_cast<size_t>(s.row[i]), g = static_cast<size_t>(s.gidx[i]);
    double v = (f.z[i] - f.mean[r]) * f.rstd[r];
    if (s.has_gamma) v *= in.gamma[g];
    if (s.has_beta) v += in.beta[g];
    if (s.has_scale) v = v * (1 + in.scale[static_cast<size_t>(s.sidx[i])]) + in.shift[static_cast<size_t>(s.sidx[i])];
    if (s.swish) v = v * sigm(s.swish_scale * v);
    f.y[i] = v;
  }
  return f;
}
struct NormRefGrad {
  std::vector<double> dx, dx2, dgamma, dbeta, dscale, dshift;
};
inline NormRefGrad norm_grad_ref(const NormRefSpec &s, const NormRefInputs &in, const std::vector<double> &dy,
                                 const std::vector<double> &dsum, const std::vector<double> &mean,
                                 const std::vector<double> &rstd) {
  const size_t n = in.x.size(), R = static_cast<size_t>(s.rows);
  NormRefGrad o;
  o.dgamma.assign(static_cast<size_t>(s.ngamma), 0.0);
  o.dbeta.assign(static_cast<size_t>(s.ngamma), 0.0);
  o.dscale.assign(static_cast<size_t>(s.nscale), 0.0);
  o.dshift.assign(static_cast<size_t>(s.nscale), 0.0);
  std::vector<long double> xhat(n), g(n), sg(R), sgx(R), cnt(R);
  for (size_t i = 0; i < n; ++i) {
    const size_t r = static_cast<size_t>(s.row[i]), gi = static_cast<size_t>(s.gidx[i]);
    const size_t si = s.has_scale ? static_cast<size_t>(s.sidx[i]) : 0;
    const long double z = s.add ? s.alpha * static_cast<long double>(in.x[i]) + in.x2[i] : in.x[i];
    xhat[i] = (z - mean[r]) * rstd[r];
    const long double gamma = s.has_gamma ? in.gamma[gi] : 1.0L;
    const long double nv = xhat[i] * gamma + (s.has_beta ? in.beta[gi] : 0.0L);
    const long double sc = s.has_scale ? in.scale[si] : 0.0L;
    const long double m = nv * (1 + sc) + (s.has_scale ? in.shift[si] : 0.0L);
    long double e = dy[i];  // dL/dm
    if (s.swish) {
      const long double sig = 1 / (1 + expl(-s.swish_scale * m));
      e *= sig + s.swish_scale * m * sig * (1 - sig);
    }
    if (s.has_scale) {
      o.dscale[si] += static_cast<double>(e * nv);
      o.dshift[si] += static_cast<double>(e);
    }
    const long double t = e * (1 + sc);  // dL/dn
    o.dgamma[gi] += static_cast<double>(t * xhat[i]);
    o.dbeta[gi] += static_cast<double>(t);
    g[i] = t * gamma;
    sg[r] += g[i];
    sgx[r] += g[i] * xhat[i];
    cnt[r] += 1;
  }
  o.dx.resize(n);
  o.dx2.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t r = static_cast<size_t>(s.row[i]);
    const long double m1 = s.rms ? 0 : sg[r] / cnt[r], m2 = sgx[r] / cnt[r];
    const long double dz = rstd[r] * (g[i] - m1 - xhat[i] * m2) + (dsum.empty() ? 0.0L : dsum[i]);
    o.dx[i] = static_cast<double>((s.add ? s.alpha : 1.0) * dz);  // dL/dx = alpha dL/dz
    o.dx2[i] = static_cast<double>(dz);
  }
  return o;
}

// torch.renorm's factor for one sub-tensor: its p-norm (p > 0, inf: max |v|; NaN propagates) bounded by maxnorm.
inline double renorm_factor_ref(const std::vector<double> &v, double p, double maxnorm) {
  long double norm = 0;
  if (std::isinf(p)) {
    for (double e : v) norm = std::isnan(e) || std::isnan(static_cast<double>(norm)) ? NAN : std::max<long double>(norm, std::fabs(e));
  } else {
    for (double e : v) norm += powl(fabsl(e), p);
    norm = powl(norm, 1 / static_cast<long double>(p));
  }
  return norm > maxnorm ? static_cast<double>(maxnorm / (norm + 1e-7L)) : 1.0;
}

// torch.nn.functional.multilabel_margin_loss of one sample (reduction none): x [C], target [C] of class
// indices ended by the first -1; `count` receives how often each class is a target (isTarget).
inline double multilabel_margin_ref(const std::vector<double> &x, const std::vector<int64_t> &target,
                                    std::vector<double> *count) {
  const size_t C = x.size();
  count->assign(C, 0.0);
  size_t nt = 0;
  while (nt < C && target[nt] >= 0) (*count)[static_cast<size_t>(target[nt++])] += 1;
  long double sum = 0;
  for (size_t j = 0; j < nt; ++j)
    for (size_t i = 0; i < C; ++i) {
      if ((*count)[i] != 0) continue;
      const long double z = 1 - static_cast<long double>(x[static_cast<size_t>(target[j])]) + x[i];
      if (z > 0) sum += z;
    }
  return static_cast<double>(sum / static_cast<long double>(C));
}

// CTC (torch's _ctc_loss) of one batch: lp [T][C] row-major (only the first tb rows used), the
// target, the blank; alpha [T][sa] with -inf where undefined (sa >= 2 L + 1), in long double.
struct CtcRefOut {
  double nll = 0;
  std::vector<double> alpha;
};
inline CtcRefOut ctc_forward_ref(const std::vector<double> &lp, int64_t T, int64_t C, int64_t tb,
                                 const std::vector<int64_t> &target, int64_t blank, int64_t sa) {
  const long double ninf = -INFINITY;
  const int64_t L = static_cast<int64_t>(target.size()), S = 2 * L + 1;
  auto lab = [&](int64_t s) { return s % 2 == 0 ? blank : target[static_cast<size_t>(s / 2)]; };
  auto add = [&](long double a, long double b) {  // log(exp(a) + exp(b))
    if (a == ninf) return b;
    if (b == ninf) return a;
    const long double m = a > b ? a : b;
    return m + logl(expl(a - m) + expl(b - m));
  };
  std::vector<long double> al(static_cast<size_t>(T * sa), ninf);
  for (int64_t t = 0; t < tb; ++t)
    for (int64_t s = 0; s < S; ++s) {
      const long double e = lp[static_cast<size_t>(t * C + lab(s))];
      long double v;
      if (t == 0) {
        v = s < 2 ? e : ninf;
      } else {
        const long double *pr = &al[static_cast<size_t>((t - 1) * sa)];
        v = pr[s];
        if (s > 0) v = add(v, pr[s - 1]);
        if (s > 1 && lab(s) != blank && lab(s - 2) != lab(s)) v = add(v, pr[s - 2]);
        v = v == ninf ? ninf : v + e;
      }
      al[static_cast<size_t>(t * sa + s)] = v;
    }
  CtcRefOut o;
  if (tb == 0) {
    o.nll = L == 0 ? 0.0 : INFINITY;
  } else {
    long double ll = al[static_cast<size_t>((tb - 1) * sa + 2 * L)];
    if (L > 0) ll = add(ll, al[static_cast<size_t>((tb - 1) * sa + 2 * L - 1)]);
    o.nll = static_cast<double>(-ll);
  }
  for (long double v : al) o.alpha.push_back(static_cast<double>(v));
  return o;
}
// The same likelihood by enumerating every alignment of length tb (C^tb paths): the collapse of a
// path (merge repeats, drop blanks) must equal the target. For tiny problems only.
inline double ctc_brute_nll(const std::vector<double> &lp, int64_t C, int64_t tb, const std::vector<int64_t> &target,
                            int64_t blank) {
  std::vector<int64_t> path(static_cast<size_t>(tb), 0);
  long double total = 0;
  for (;;) {
    std::vector<int64_t> col;
    int64_t prev = -1;
    long double lsum = 0;
    for (int64_t t = 0; t < tb; ++t) {
      const int64_t c = path[static_cast<size_t>(t)];
      lsum += lp[static_cast<size_t>(t * C + c)];
      if (c != prev && c != blank) col.push_back(c);
      prev = c;
    }
    if (col == target) total += expl(lsum);
    int64_t k = tb - 1;
    while (k >= 0 && ++path[static_cast<size_t>(k)] == C) path[static_cast<size_t>(k--)] = 0;
    if (k < 0) break;
  }
  return static_cast<double>(-logl(total));
}

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

// Point-wise loss terms (x = self, y = target) and their derivatives in x, as PyTorch defines them.
// pw: binary cross-entropy with logits' posWeight.
inline long double softplus_ref(long double v) { return v > 0 ? v + log1pl(expl(-v)) : log1pl(expl(v)); }
inline double ploss_term(const std::string &kind, double x, double y, double beta, double pw = 1.0) {
  if (kind == "bce")
    return static_cast<double>(-(y * std::max(logl(x), -100.0L) + (1 - static_cast<long double>(y)) *
                                                                       std::max(logl(1 - static_cast<long double>(x)), -100.0L)));
  if (kind == "bce_logits")  // -(pw y log sigmoid(x) + (1 - y) log(1 - sigmoid(x)))
    return static_cast<double>(pw * y * softplus_ref(-static_cast<long double>(x)) +
                               (1 - static_cast<long double>(y)) * softplus_ref(x));
  if (kind == "kl_div")  // beta: logTarget (0 / 1); xlogy(t, t) - t x is 0 at t = 0
    return beta != 0 ? static_cast<double>(expl(y) * (static_cast<long double>(y) - x))
                     : (y == 0 ? 0.0 : static_cast<double>(y * (logl(y) - static_cast<long double>(x))));
  const long double d = static_cast<long double>(x) - y, ad = fabsl(d);
  if (kind == "mse") return static_cast<double>(d * d);
  if (kind == "l1") return static_cast<double>(ad);
  if (kind == "smooth_l1") return static_cast<double>(ad < beta ? 0.5L * d * d / beta : ad - 0.5L * beta);
  return static_cast<double>(log1pl(expl(-static_cast<long double>(y) * x)));  // soft_margin
}
// The derivative of the term with respect to self (for kl_div_target: to the target); `beta` is
// smooth L1's beta, or KL's logTarget (0 / 1).
inline double ploss_grad(const std::string &kind, double x, double y, double beta, double pw = 1.0) {
  if (kind == "bce")
    return static_cast<double>((static_cast<long double>(x) - y) /
                               std::max((1 - static_cast<long double>(x)) * x, 1e-12L));
  if (kind == "bce_logits_target")  // d/dy
    return static_cast<double>(pw * softplus_ref(-static_cast<long double>(x)) - softplus_ref(x));
  if (kind == "bce_logits") {
    const long double sig = 1 / (1 + expl(-static_cast<long double>(x)));
    return static_cast<double>(-pw * y * (1 - sig) + (1 - static_cast<long double>(y)) * sig);
  }
  if (kind == "kl_div") return beta != 0 ? -std::exp(y) : (y > 0 ? -y : 0.0);
  if (kind == "kl_div_target")
    return beta != 0 ? static_cast<double>(expl(y) * (static_cast<long double>(y) + 1 - x))
                     : (y == 0 ? 0.0 : static_cast<double>(logl(y) + 1 - x));
  const long double d = static_cast<long double>(x) - y, ad = fabsl(d);
  const double sign = d > 0 ? 1 : d < 0 ? -1 : 0;
  if (kind == "mse") return static_cast<double>(2 * d);
  if (kind == "l1") return sign;
  if (kind == "smooth_l1") return ad < beta ? static_cast<double>(d / beta) : sign;
  const long double z = -static_cast<long double>(y) * x;  // soft_margin: -y sigmoid(-y x)
  return static_cast<double>(-y / (1 + expl(-z)));
}

// Class-index losses (torch.nn.functional.nll_loss / cross_entropy with class-index targets).
// lp holds [n, c, inner] row-major log-probabilities; weight is empty (all 1) or c values.
struct ClossRef {
  std::vector<double> out;  // per position (reduction none) or the one reduced value
  double total = 0;         // summed weight of the counted targets
};
inline std::vector<double> log_softmax_rows_ref(const std::vector<double> &x, int64_t n, int64_t c) {
  std::vector<double> y(x.size());
  for (int64_t i = 0; i < n; ++i) {
    long double m = -INFINITY, s = 0;
    for (int64_t j = 0; j < c; ++j) m = std::max<long double>(m, x[static_cast<size_t>(i * c + j)]);
    for (int64_t j = 0; j < c; ++j) s += expl(x[static_cast<size_t>(i * c + j)] - m);
    for (int64_t j = 0; j < c; ++j) y[static_cast<size_t>(i * c + j)] = static_cast<double>(x[static_cast<size_t>(i * c + j)] - m - logl(s));
  }
  return y;
}
inline ClossRef closs_forward_ref(const std::vector<double> &lp, int64_t n, int64_t c, int64_t inner,
                                  const std::vector<int64_t> &target, const std::vector<double> &weight,
                                  int reduction, int64_t ignore, double smoothing) {
  auto w = [&](int64_t k) { return weight.empty() ? 1.0L : static_cast<long double>(weight[static_cast<size_t>(k)]); };
  ClossRef r;
  long double sum = 0, total = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t q = 0; q < inner; ++q) {
      const int64_t t = target[static_cast<size_t>(i * inner + q)];
      long double l = 0;
      if (t != ignore) {
        auto at = [&](int64_t k) { return static_cast<long double>(lp[static_cast<size_t>((i * c + k) * inner + q)]); };
        long double smooth = 0;
        for (int64_t k = 0; k < c; ++k) smooth -= w(k) * at(k);
        l = (1 - smoothing) * -w(t) * at(t) + smoothing / c * smooth;
        total += w(t);
      }
      sum += l;
      if (reduction == 0) r.out.push_back(static_cast<double>(l));
    }
  if (reduction == 1) r.out.push_back(static_cast<double>(sum / total));
  if (reduction == 2) r.out.push_back(static_cast<double>(sum));
  r.total = static_cast<double>(total);
  return r;
}
// The gradient with respect to the NLL input (nll) or the cross-entropy logits (softmax of lp
// against the smoothed, weighted target distribution); g has one value per position or one.
inline std::vector<double> closs_grad_ref(bool cross_entropy, const std::vector<double> &lp, int64_t n, int64_t c,
                                          int64_t inner, const std::vector<int64_t> &target,
                                          const std::vector<double> &weight, const std::vector<double> &g,
                                          int reduction, int64_t ignore, double smoothing, double total_in) {
  auto w = [&](int64_t k) { return weight.empty() ? 1.0L : static_cast<long double>(weight[static_cast<size_t>(k)]); };
  long double total = 0;
  for (int64_t t : target)
    if (t != ignore) total += w(t);
  if (!cross_entropy) total = total_in;
  std::vector<double> out(lp.size(), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t q = 0; q < inner; ++q) {
      const int64_t t = target[static_cast<size_t>(i * inner + q)];
      if (t == ignore) continue;
      long double gi = g[g.size() == 1 ? 0 : static_cast<size_t>(i * inner + q)];
      if (reduction == 1) gi /= total;
      auto idx = [&](int64_t k) { return static_cast<size_t>((i * c + k) * inner + q); };
      if (!cross_entropy) {
        out[idx(t)] = static_cast<double>(-w(t) * gi);
        continue;
      }
      long double z = 0, qsum = 0;
      for (int64_t k = 0; k < c; ++k) z += expl(lp[idx(k)]);
      std::vector<long double> qd(static_cast<size_t>(c));
      for (int64_t k = 0; k < c; ++k) {
        qd[static_cast<size_t>(k)] = smoothing / c * w(k) + (k == t ? (1 - smoothing) * w(t) : 0);
        qsum += qd[static_cast<size_t>(k)];
      }
      for (int64_t k = 0; k < c; ++k)
        out[idx(k)] = static_cast<double>(gi * (expl(lp[idx(k)]) / z * qsum - qd[static_cast<size_t>(k)]));
    }
  return out;
}

// Direct convolution in float64 (torch.nn.functional.conv{1,2,3}d / conv_transpose{1,2,3}d), written
// from the definition: out[n, co, o] = sum over ci of the group and kernel offsets t of
// w[co, ci, t] * in[n, ci, o * stride - padding + t * dilation] (positions outside the input are 0).
// Dense row-major tensors with 3 spatial dims (leading ones of size 1): "big" is a convolution's
// input (a transposed convolution's output), "small" its output; w is [C_small, C_big / groups, k].
// Each result comes with its magnitude (the sum of |terms|), the scale of its rounding error.
struct ConvRefGeom {
  int64_t n = 1, cbig = 1, csmall = 1, groups = 1;
  int64_t big[3] = {1, 1, 1}, small[3] = {1, 1, 1}, k[3] = {1, 1, 1};
  int64_t s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1};
};
struct ConvRefOut {
  std::vector<double> value, magnitude;
};
// fn(small_index, big_index, weight_index) for every product of the convolution.
template <class Fn>
void conv_ref_terms(const ConvRefGeom &g, Fn fn) {
  const int64_t cbg = g.cbig / g.groups, csg = g.csmall / g.groups;
  const int64_t bn = g.big[0] * g.big[1] * g.big[2], sn = g.small[0] * g.small[1] * g.small[2];
  const int64_t kn = g.k[0] * g.k[1] * g.k[2];
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t co = 0; co < g.csmall; ++co)
      for (int64_t o0 = 0; o0 < g.small[0]; ++o0)
        for (int64_t o1 = 0; o1 < g.small[1]; ++o1)
          for (int64_t o2 = 0; o2 < g.small[2]; ++o2) {
            const int64_t si = (n * g.csmall + co) * sn + (o0 * g.small[1] + o1) * g.small[2] + o2;
            const int64_t grp = co / csg;
            for (int64_t cl = 0; cl < cbg; ++cl) {
              const int64_t ci = grp * cbg + cl;
              for (int64_t t0 = 0; t0 < g.k[0]; ++t0)
                for (int64_t t1 = 0; t1 < g.k[1]; ++t1)
                  for (int64_t t2 = 0; t2 < g.k[2]; ++t2) {
                    const int64_t i0 = o0 * g.s[0] - g.p[0] + t0 * g.d[0];
                    const int64_t i1 = o1 * g.s[1] - g.p[1] + t1 * g.d[1];
                    const int64_t i2 = o2 * g.s[2] - g.p[2] + t2 * g.d[2];
                    if (i0 < 0 || i0 >= g.big[0] || i1 < 0 || i1 >= g.big[1] || i2 < 0 || i2 >= g.big[2]) continue;
                    const int64_t bi = (n * g.cbig + ci) * bn + (i0 * g.big[1] + i1) * g.big[2] + i2;
                    const int64_t wi = (co * cbg + cl) * kn + (t0 * g.k[1] + t1) * g.k[2] + t2;
                    fn(si, bi, wi);
                  }
            }
          }
}
// small = conv(big, w) + bias[small channel]   (a convolution; a transposed one's input gradient)
inline ConvRefOut conv_ref_small(const ConvRefGeom &g, const std::vector<double> &big, const std::vector<double> &w,
                                 const std::vector<double> &bias) {
  const int64_t sn = g.small[0] * g.small[1] * g.small[2];
  ConvRefOut r;
  r.value.assign(static_cast<size_t>(g.n * g.csmall * sn), 0.0);
  r.magnitude = r.value;
  if (!bias.empty())
    for (size_t i = 0; i < r.value.size(); ++i) {
      const double b = bias[static_cast<size_t>((static_cast<int64_t>(i) / sn) % g.csmall)];
      r.value[i] = b;
      r.magnitude[i] = std::fabs(b);
    }
  conv_ref_terms(g, [&](int64_t si, int64_t bi, int64_t wi) {
    const double t = w[static_cast<size_t>(wi)] * big[static_cast<size_t>(bi)];
    r.value[static_cast<size_t>(si)] += t;
    r.magnitude[static_cast<size_t>(si)] += std::fabs(t);
  });
  return r;
}
// big = conv_transpose(small, w) + bias[big channel]   (a transposed convolution; a convolution's input gradient)
inline ConvRefOut conv_ref_big(const ConvRefGeom &g, const std::vector<double> &small, const std::vector<double> &w,
                               const std::vector<double> &bias) {
  const int64_t bn = g.big[0] * g.big[1] * g.big[2];
  ConvRefOut r;
  r.value.assign(static_cast<size_t>(g.n * g.cbig * bn), 0.0);
  r.magnitude = r.value;
  if (!bias.empty())
    for (size_t i = 0; i < r.value.size(); ++i) {
      const double b = bias[static_cast<size_t>((static_cast<int64_t>(i) / bn) % g.cbig)];
      r.value[i] = b;
      r.magnitude[i] = std::fabs(b);
    }
  conv_ref_terms(g, [&](int64_t si, int64_t bi, int64_t wi) {
    const double t = w[static_cast<size_t>(wi)] * small[static_cast<size_t>(si)];
    r.value[static_cast<size_t>(bi)] += t;
    r.magnitude[static_cast<size_t>(bi)] += std::fabs(t);
  });
  return r;
}
// The weight gradient: dw = sum over n and positions of small x big.
inline ConvRefOut conv_ref_weight(const ConvRefGeom &g, const std::vector<double> &small,
                                  const std::vector<double> &big) {
  ConvRefOut r;
  r.value.assign(static_cast<size_t>(g.csmall * (g.cbig / g.groups) * g.k[0] * g.k[1] * g.k[2]), 0.0);
  r.magnitude = r.value;
  conv_ref_terms(g, [&](int64_t si, int64_t bi, int64_t wi) {
    const double t = small[static_cast<size_t>(si)] * big[static_cast<size_t>(bi)];
    r.value[static_cast<size_t>(wi)] += t;
    r.magnitude[static_cast<size_t>(wi)] += std::fabs(t);
  });
  return r;
}

// Deformable convolution (torchvision.ops.deform_conv2d, DCNv2) in float64, from the definition,
// over dense NCHW arrays. offset is [N, 3 * dg * K, oH, oW]: x (width) offsets, y (height) offsets,
// masks, each block ordered (deformable group, tap k = i * kW + j). The sample at (y, x) is the
// bilinear interpolation of the four neighbours, zero for neighbours outside the image and zero
// altogether unless -1 < y < H and -1 < x < W. Every result carries its magnitude (sum of |terms|).
struct DeformRefGeom {
  int64_t n = 1, c = 1, h = 1, w = 1, cout = 1, groups = 1, dg = 1, kh = 1, kw = 1, sh = 1, sw = 1;
  int64_t pt = 0, pb = 0, pl = 0, pr = 0, dh = 1, dw = 1, oh = 1, ow = 1;
  bool modulated = true;
};
struct DeformRefSample {
  double value = 0, magnitude = 0, dy = 0, dx = 0, dmag = 0;  // d value / d y, d value / d x, their |terms|
  int64_t at[4] = {-1, -1, -1, -1};                            // flat plane indices of valid corners
  double wt[4] = {0, 0, 0, 0};
};
inline DeformRefSample deform_ref_sample(const double *plane, int64_t H, int64_t W, double y, double x) {
  DeformRefSample s;
  if (!(y > -1 && y < static_cast<double>(H) && x > -1 && x < static_cast<double>(W))) return s;
  const double fy = std::floor(y), fx = std::floor(x), ly = y - fy, lx = x - fx;
  const int64_t y0 = static_cast<int64_t>(fy), x0 = static_cast<int64_t>(fx);
  const int64_t ys[4] = {y0, y0, y0 + 1, y0 + 1}, xs[4] = {x0, x0 + 1, x0, x0 + 1};
  const double wy[4] = {1 - ly, 1 - ly, ly, ly}, wx[4] = {1 - lx, lx, 1 - lx, lx};
  const double sy[4] = {-1, -1, 1, 1}, sx[4] = {-1, 1, -1, 1};  // signs of d wy / dy, d wx / dx
  for (int q = 0; q < 4; ++q) {
    if (ys[q] < 0 || ys[q] >= H || xs[q] < 0 || xs[q] >= W) continue;
    s.at[q] = ys[q] * W + xs[q];
    s.wt[q] = wy[q] * wx[q];
    const double v = plane[s.at[q]];
    s.value += s.wt[q] * v;
    s.magnitude += std::fabs(s.wt[q] * v);
    s.dy += sy[q] * wx[q] * v;
    s.dx += sx[q] * wy[q] * v;
    s.dmag += std::fabs(wx[q] * v) + std::fabs(wy[q] * v);
  }
  return s;
}
// fn(n, ci, co_group, i, j, oh, ow, sample, mask, &offset indices) for every (image, input channel, tap, output position).
template <class Fn>
void deform_ref_taps(const DeformRefGeom &g, const std::vector<double> &x, const std::vector<double> &offset, Fn fn) {
  const int64_t K = g.kh * g.kw, cpd = g.c / g.dg;
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t ci = 0; ci < g.c; ++ci)
      for (int64_t i = 0; i < g.kh; ++i)
        for (int64_t j = 0; j < g.kw; ++j)
          for (int64_t oh = 0; oh < g.oh; ++oh)
            for (int64_t ow = 0; ow < g.ow; ++ow) {
              const int64_t grp = ci / cpd, k = i * g.kw + j;
              auto oi = [&](int64_t part) {
                return static_cast<size_t>(((n * 3 * g.dg * K + part * g.dg * K + grp * K + k) * g.oh + oh) * g.ow + ow);
              };
              const double y = static_cast<double>(oh * g.sh - g.pt + i * g.dh) + offset[oi(1)];
              const double xx = static_cast<double>(ow * g.sw - g.pl + j * g.dw) + offset[oi(0)];
              const double m = g.modulated ? offset[oi(2)] : 1.0;
              const DeformRefSample s = deform_ref_sample(x.data() + (n * g.c + ci) * g.h * g.w, g.h, g.w, y, xx);
              fn(n, ci, i, j, oh, ow, s, m, oi(0), oi(1), oi(2));
            }
}
// out = bias + sum w * mask * sample; deform_out[n, ci, oh * kH + i, ow * kW + j] = mask * sample.
inline void deform_ref_forward(const DeformRefGeom &g, const std::vector<double> &x, const std::vector<double> &w,
                               const std::vector<double> &offset, const std::vector<double> &bias, ConvRefOut *out,
                               ConvRefOut *deform_out) {
  const int64_t L = g.oh * g.ow, cbg = g.c / g.groups, csg = g.cout / g.groups;
  out->value.assign(static_cast<size_t>(g.n * g.cout * L), 0.0);
  out->magnitude = out->value;
  deform_out->value.assign(static_cast<size_t>(g.n * g.c * L * g.kh * g.kw), 0.0);
  deform_out->magnitude = deform_out->value;
  if (!bias.empty())
    for (size_t q = 0; q < out->value.size(); ++q) {
      const double b = bias[static_cast<size_t>((static_cast<int64_t>(q) / L) % g.cout)];
      out->value[q] = b;
      out->magnitude[q] = std::fabs(b);
    }
  deform_ref_taps(g, x, offset, [&](int64_t n, int64_t ci, int64_t i, int64_t j, int64_t oh, int64_t ow,
                                    const DeformRefSample &s, double m, size_t, size_t, size_t) {
    const size_t di = static_cast<size_t>(((n * g.c + ci) * g.oh * g.kh + oh * g.kh + i) * g.ow * g.kw + ow * g.kw + j);
    deform_out->value[di] = m * s.value;
    deform_out->magnitude[di] = std::fabs(m) * s.magnitude;
    const int64_t grp = ci / cbg;
    for (int64_t co = grp * csg; co < (grp + 1) * csg; ++co) {
      const double wv = w[static_cast<size_t>(((co * cbg + ci % cbg) * g.kh + i) * g.kw + j)];
      const size_t oi = static_cast<size_t>((n * g.cout + co) * L + oh * g.ow + ow);
      out->value[oi] += wv * m * s.value;
      out->magnitude[oi] += std::fabs(wv * m) * s.magnitude;
    }
  });
}
// Gradients for the output gradient dy: input, weight (from the given deformed samples
// `deform_out`, as the op reads them), offsets + masks, bias.
inline void deform_ref_backward(const DeformRefGeom &g, const std::vector<double> &x, const std::vector<double> &w,
                                const std::vector<double> &offset, const std::vector<double> &deform_out,
                                const std::vector<double> &dy, ConvRefOut *gx, ConvRefOut *gw, ConvRefOut *goff,
                                ConvRefOut *gb) {
  const int64_t L = g.oh * g.ow, cbg = g.c / g.groups, csg = g.cout / g.groups;
  auto zero = [](ConvRefOut *r, size_t n) {
    r->value.assign(n, 0.0);
    r->magnitude = r->value;
  };
  zero(gx, x.size());
  zero(gw, w.size());
  zero(goff, offset.size());
  zero(gb, static_cast<size_t>(g.cout));
  deform_ref_taps(g, x, offset, [&](int64_t n, int64_t ci, int64_t i, int64_t j, int64_t oh, int64_t ow,
                                    const DeformRefSample &s, double m, size_t ox, size_t oy, size_t om) {
    const int64_t grp = ci / cbg;
    double gc = 0, gcm = 0;  // the column gradient and its magnitude
    for (int64_t co = grp * csg; co < (grp + 1) * csg; ++co) {
      const double t = w[static_cast<size_t>(((co * cbg + ci % cbg) * g.kh + i) * g.kw + j)] *
                       dy[static_cast<size_t>((n * g.cout + co) * L + oh * g.ow + ow)];
      gc += t;
      gcm += std::fabs(t);
    }
    for (int q = 0; q < 4; ++q) {
      if (s.at[q] < 0) continue;
      const size_t xi = static_cast<size_t>((n * g.c + ci) * g.h * g.w + s.at[q]);
      gx->value[xi] += gc * m * s.wt[q];
      gx->magnitude[xi] += gcm * std::fabs(m) * s.wt[q];
    }
    goff->value[oy] += gc * m * s.dy;
    goff->value[ox] += gc * m * s.dx;
    goff->magnitude[oy] += gcm * std::fabs(m) * s.dmag;
    goff->magnitude[ox] += gcm * std::fabs(m) * s.dmag;
    if (g.modulated) {
      goff->value[om] += gc * s.value;
      goff->magnitude[om] += gcm * s.magnitude;
    }
  });
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t co = 0; co < g.cout; ++co)
      for (int64_t l = 0; l < L; ++l) {
        const double d = dy[static_cast<size_t>((n * g.cout + co) * L + l)];
        gb->value[static_cast<size_t>(co)] += d;
        gb->magnitude[static_cast<size_t>(co)] += std::fabs(d);
        const int64_t oh = l / g.ow, ow = l % g.ow, grp = co / csg;
        for (int64_t cl = 0; cl < cbg; ++cl)
          for (int64_t i = 0; i < g.kh; ++i)
            for (int64_t j = 0; j < g.kw; ++j) {
              const int64_t ci = grp * cbg + cl;
              const double t = d * deform_out[static_cast<size_t>(((n * g.c + ci) * g.oh * g.kh + oh * g.kh + i) *
                                                                       g.ow * g.kw + ow * g.kw + j)];
              const size_t wi = static_cast<size_t>(((co * cbg + cl) * g.kh + i) * g.kw + j);
              gw->value[wi] += t;
              gw->magnitude[wi] += std::fabs(t);
            }
      }
}

// Attention, naively: out[b, n, i] = softmax_j(scale * q_i . k_j + pse[b, n, i, j], masked) . v_j
// in double, over [B, N, S, D] accessors (GQA: query head n reads KV head n / (N / Nkv)). Key j is
// visible to query row i of batch b when j < kv_len[b], the row is not padding (i < q_len[b]),
// the explicit mask (sparse modes 0 and 1) is 0 there, and the sparse mode allows it: 0 with
// `band`: i - pre <= j <= i + next; 2: j <= i; 3: j <= i + off; 4: i + off - pre <= j <= i + off +
// next (off = kv_len - q_len). Rows with nothing visible (and padding rows) give 0 and lse +inf.
struct AttnRefProblem {
  int64_t B = 1, N = 1, Nkv = 1, Sq = 1, Skv = 1, D = 1;
  double scale = 1;
  int sparse = 0;
  int64_t pre = 2147483647, next = 2147483647;
  bool band = true;
  std::vector<int64_t> q_len, kv_len;  // empty: full lengths
};
template <class Q, class K, class V, class M, class P>
void attention_ref(const AttnRefProblem &p, Q q, K k, V v, M masked, P pse, std::vector<double> *out,
                   std::vector<double> *lse) {
  out->assign(static_cast<size_t>(p.B * p.N * p.Sq * p.D), 0.0);
  lse->assign(static_cast<size_t>(p.B * p.N * p.Sq), INFINITY);
  const int64_t g = p.N / p.Nkv;
  std::vector<double> s(static_cast<size_t>(p.Skv));
  std::vector<char> vis(static_cast<size_t>(p.Skv));
  for (int64_t b = 0; b < p.B; ++b) {
    const int64_t ql = p.q_len.empty() ? p.Sq : p.q_len[static_cast<size_t>(b)];
    const int64_t kl = p.kv_len.empty() ? p.Skv : p.kv_len[static_cast<size_t>(b)];
    const int64_t off = kl - ql;
    for (int64_t n = 0; n < p.N; ++n)
      for (int64_t i = 0; i < ql; ++i) {
        double mx = -INFINITY;
        for (int64_t j = 0; j < kl; ++j) {
          bool ok = true;
          if (p.sparse == 0 && p.band) ok = j >= i - p.pre && j <= i + p.next;
          if (p.sparse == 2) ok = j <= i;
          if (p.sparse == 3) ok = j <= i + off;
          if (p.sparse == 4) ok = j >= i + off - p.pre && j <= i + off + p.next;
          if ((p.sparse == 0 || p.sparse == 1) && masked(b, n, i, j)) ok = false;
          vis[static_cast<size_t>(j)] = ok;
          if (!ok) continue;
          double dot = 0;
          for (int64_t e = 0; e < p.D; ++e) dot += q(b, n, i, e) * k(b, n / g, j, e);
          s[static_cast<size_t>(j)] = p.scale * dot + pse(b, n, i, j);
          mx = std::max(mx, s[static_cast<size_t>(j)]);
        }
        if (mx == -INFINITY) continue;
        double sum = 0;
        for (int64_t j = 0; j < kl; ++j)
          if (vis[static_cast<size_t>(j)]) sum += std::exp(s[static_cast<size_t>(j)] - mx);
        (*lse)[static_cast<size_t>((b * p.N + n) * p.Sq + i)] = mx + std::log(sum);
        for (int64_t e = 0; e < p.D; ++e) {
          double acc = 0;
          for (int64_t j = 0; j < kl; ++j)
            if (vis[static_cast<size_t>(j)]) acc += std::exp(s[static_cast<size_t>(j)] - mx) * v(b, n / g, j, e);
          (*out)[static_cast<size_t>(((b * p.N + n) * p.Sq + i) * p.D + e)] = acc / sum;
        }
      }
  }
}

// Triangular solve op(A) x = b by substitution in long double, op(A)(i, j) = a(i, j) (or a(j, i)
// with transpose), the triangle that op(A) has (upper XOR transpose: upper), unit diagonal optional.
template <class A, class B>
std::vector<double> trisolve_ref(int64_t m, int64_t k, A a, B b, bool upper, bool transpose, bool unit) {
  std::vector<long double> x(static_cast<size_t>(m * k));
  auto op = [&](int64_t i, int64_t j) { return static_cast<long double>(transpose ? a(j, i) : a(i, j)); };
  const bool up = upper != transpose;
  for (int64_t c = 0; c < k; ++c)
    for (int64_t s = 0; s < m; ++s) {
      const int64_t i = up ? m - 1 - s : s;
      long double v = b(i, c);
      for (int64_t j = up ? i + 1 : 0; j < (up ? m : i); ++j) v -= op(i, j) * x[static_cast<size_t>(j * k + c)];
      x[static_cast<size_t>(i * k + c)] = unit ? v : v / op(i, i);
    }
  return std::vector<double>(x.begin(), x.end());
}

// ---- Pooling (the pool table's harness, tests/ops/test_op_table_pool.cpp), written
// from PyTorch's definitions (aten/src/ATen/native/Pool.h, AdaptivePooling.h) over
// planar float64 data: dims (N, C, D, H, W), one plane per (n, c), flat index d * H * W + h * W + w.

// pooling_output_shape_pad_lr: floor (or ceil, with the last window starting inside input + left pad).
inline int64_t pool_out_size_ref(int64_t in, int64_t k, int64_t pad_l, int64_t pad_r, int64_t s, int64_t d, bool ceil) {
  const int64_t eff = d * (k - 1) + 1;
  const double q = static_cast<double>(in + pad_l + pad_r - eff) / static_cast<double>(s);
  int64_t out = static_cast<int64_t>(ceil ? std::ceil(q) : std::floor(q)) + 1;
  if (ceil && (out - 1) * s >= in + pad_l) --out;
  return out;
}

struct PoolRefGeom {
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, pl[3] = {0, 0, 0}, pr[3] = {0, 0, 0}, d[3] = {1, 1, 1};
  bool include_pad = true;
  int64_t divisor = 0;
  int64_t in_plane() const { return in[0] * in[1] * in[2]; }
  int64_t out_plane() const { return out[0] * out[1] * out[2]; }
};

// Windows as lists of (position, dims) per output element of one plane.
enum class PoolWin { kRegular, kAdaptive };
// `first`: where the maximum's index starts (PyTorch: the window start moved past 0 by dilation steps,
// even when that leaves the input: a window wholly in the padding keeps -inf and that index).
inline void pool_window_ref(const PoolRefGeom &g, PoolWin w, int axis, int64_t o, std::vector<int64_t> *pos,
                            int64_t *pad_count, int64_t *first = nullptr) {
  pos->clear();
  if (w == PoolWin::kAdaptive) {
    const int64_t a = static_cast<int64_t>(std::floor(static_cast<double>(o * g.in[axis]) / static_cast<double>(g.out[axis])));
    const int64_t b = static_cast<int64_t>(std::ceil(static_cast<double>((o + 1) * g.in[axis]) / static_cast<double>(g.out[axis])));
    for (int64_t i = a; i < b; ++i) pos->push_back(i);
    *pad_count = b - a;
    if (first != nullptr) *first = a;
    return;
  }
  const int64_t start = o * g.s[axis] - g.pl[axis];
  for (int64_t j = 0; j < g.k[axis]; ++j) {
    const int64_t i = start + j * g.d[axis];
    if (i >= 0 && i < g.in[axis]) pos->push_back(i);
  }
  *pad_count = std::min(start + g.k[axis], g.in[axis] + g.pr[axis]) - start;
  if (first != nullptr) {
    *first = start;
    while (*first < 0) *first += g.d[axis];
  }
}

// Forward over every plane: max (value and index; NaN wins, the first maximum otherwise) or average.
inline void pool_forward_ref(const PoolRefGeom &g, PoolWin w, bool avg, int64_t planes, const std::vector<double> &x,
                             std::vector<double> *out, std::vector<double> *idx) {
  out->assign(static_cast<size_t>(planes * g.out_plane()), 0);
  idx->assign(out->size(), 0);
  std::vector<int64_t> pd, ph, pw;
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t od = 0; od < g.out[0]; ++od)
      for (int64_t oh = 0; oh < g.out[1]; ++oh)
        for (int64_t ow = 0; ow < g.out[2]; ++ow) {
          int64_t cd, ch, cw, fd, fh, fw;
          pool_window_ref(g, w, 0, od, &pd, &cd, &fd);
          pool_window_ref(g, w, 1, oh, &ph, &ch, &fh);
          pool_window_ref(g, w, 2, ow, &pw, &cw, &fw);
          const size_t o = static_cast<size_t>(p * g.out_plane() + (od * g.out[1] + oh) * g.out[2] + ow);
          double best = -INFINITY, sum = 0;
          int64_t bi = (fd * g.in[1] + fh) * g.in[2] + fw;
          for (int64_t id : pd)
            for (int64_t ih : ph)
              for (int64_t iw : pw) {
                const int64_t f = (id * g.in[1] + ih) * g.in[2] + iw;
                const double v = x[static_cast<size_t>(p * g.in_plane() + f)];
                sum += v;
                if (v > best || std::isnan(v)) {
                  best = v;
                  bi = f;
                }
              }
          if (avg) {
            const int64_t n = static_cast<int64_t>(pd.size() * ph.size() * pw.size());
            const int64_t div = g.divisor != 0 ? g.divisor : g.include_pad ? cd * ch * cw : n;
            (*out)[o] = sum / static_cast<double>(div);
          } else {
            (*out)[o] = best;
            (*idx)[o] = static_cast<double>(bi);
          }
        }
}

// Average pooling's gradient: each output's gradient / divisor added to its window.
inline std::vector<double> pool_avg_backward_ref(const PoolRefGeom &g, PoolWin w, int64_t planes,
                                                 const std::vector<double> &gout) {
  std::vector<double> gin(static_cast<size_t>(planes * g.in_plane()), 0);
  std::vector<int64_t> pd, ph, pw;
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t od = 0; od < g.out[0]; ++od)
      for (int64_t oh = 0; oh < g.out[1]; ++oh)
        for (int64_t ow = 0; ow < g.out[2]; ++ow) {
          int64_t cd, ch, cw;
          pool_window_ref(g, w, 0, od, &pd, &cd);
          pool_window_ref(g, w, 1, oh, &ph, &ch);
          pool_window_ref(g, w, 2, ow, &pw, &cw);
          const int64_t n = static_cast<int64_t>(pd.size() * ph.size() * pw.size());
          const int64_t div = g.divisor != 0 ? g.divisor : g.include_pad ? cd * ch * cw : n;
          const double v = gout[static_cast<size_t>(p * g.out_plane() + (od * g.out[1] + oh) * g.out[2] + ow)] /
                           static_cast<double>(div);
          for (int64_t id : pd)
            for (int64_t ih : ph)
              for (int64_t iw : pw) gin[static_cast<size_t>(p * g.in_plane() + (id * g.in[1] + ih) * g.in[2] + iw)] += v;
        }
  return gin;
}

// Index scatter (add or assign, into zeros) and gather, plane by plane.
inline std::vector<double> pool_scatter_ref(int64_t planes, int64_t src_plane, int64_t dst_plane,
                                            const std::vector<double> &src, const std::vector<double> &idx, bool add) {
  std::vector<double> dst(static_cast<size_t>(planes * dst_plane), 0);
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < src_plane; ++i) {
      const size_t s = static_cast<size_t>(p * src_plane + i);
      double &t = dst[static_cast<size_t>(p * dst_plane + static_cast<int64_t>(idx[s]))];
      t = add ? t + src[s] : src[s];
    }
  return dst;
}
inline std::vector<double> pool_gather_ref(int64_t planes, int64_t src_plane, int64_t dst_plane,
                                           const std::vector<double> &src, const std::vector<double> &idx) {
  std::vector<double> dst(static_cast<size_t>(planes * dst_plane), 0);
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < dst_plane; ++i)
      dst[static_cast<size_t>(p * dst_plane + i)] =
          src[static_cast<size_t>(p * src_plane + static_cast<int64_t>(idx[static_cast<size_t>(p * dst_plane + i)]))];
  return dst;
}

// torch.scatter_reduce on flattened tensors: src value k reduced, in order, into element target[k] of
// self (reduce 0 replace, 1 sum, 2 prod, 3 amax, 4 amin, 5 mean; include_self: self's value is the
// first operand, else the reduction's identity); a NaN wins amax / amin. The results are unrounded,
// except an integer mean: floor division of the sum as the dtype holds it (`wrap`). Elements no
// target reaches keep self's value.
template <class Wrap>
std::vector<double> scatter_reduce_ref(std::vector<double> self, const std::vector<int64_t> &target,
                                       const std::vector<double> &src, int reduce, bool include_self, bool integral,
                                       Wrap wrap) {
  std::vector<double> acc(self.size()), count(self.size(), 0);
  std::vector<bool> hit(self.size(), false);
  for (size_t k = 0; k < target.size(); ++k) {
    const size_t e = static_cast<size_t>(target[k]);
    const double x = src[k];
    if (!hit[e]) {
      hit[e] = true;
      acc[e] = include_self ? self[e]
               : reduce == 2 ? 1.0 : reduce == 3 ? -INFINITY : reduce == 4 ? INFINITY : 0.0;
      if (integral && !include_self && (reduce == 3 || reduce == 4)) acc[e] = x;  // any start <= / >= x
      count[e] = include_self ? 1 : 0;
    }
    double &a = acc[e];
    count[e] += 1;
    if (reduce == 0) a = x;
    else if (reduce == 1 || reduce == 5) a = a + x;
    else if (reduce == 2) a = a * x;
    else if (reduce == 3) a = std::isnan(a) || std::isnan(x) ? (std::isnan(a) ? a : x) : std::max(a, x);
    else a = std::isnan(a) || std::isnan(x) ? (std::isnan(a) ? a : x) : std::min(a, x);
  }
  for (size_t e = 0; e < self.size(); ++e) {
    if (!hit[e]) continue;
    double r = acc[e];
    if (reduce == 5) r = integral ? std::floor(wrap(r) / count[e]) : r / count[e];
    self[e] = r;
  }
  return self;
}

// torch.embedding_dense_backward: out [num_weights, d] = sum over positions k of grad row k into
// row idx[k] (an index equal to padding adds nothing; scale: each term divided by its index's count).
inline std::vector<double> embedding_dense_backward_ref(const std::vector<double> &grad, int64_t d,
                                                        const std::vector<int64_t> &idx, int64_t num_weights,
                                                        int64_t padding, bool scale) {
  std::vector<double> out(static_cast<size_t>(num_weights * d), 0.0), count(static_cast<size_t>(num_weights), 0.0);
  for (int64_t v : idx) count[static_cast<size_t>(v)] += 1;
  for (size_t k = 0; k < idx.size(); ++k) {
    if (idx[k] == padding) continue;
    const double s = scale ? 1.0 / count[static_cast<size_t>(idx[k])] : 1.0;
    for (int64_t j = 0; j < d; ++j)
      out[static_cast<size_t>(idx[k] * d + j)] += grad[k * static_cast<size_t>(d) + static_cast<size_t>(j)] * s;
  }
  return out;
}

// torch.embedding_renorm_: rows of w [rows, d] named by idx scaled to norm max_norm when above it
// (scale max_norm / (norm + 1e-7)); p 0: nonzero count, inf: largest magnitude.
inline std::vector<double> embedding_renorm_ref(std::vector<double> w, int64_t d, const std::vector<int64_t> &idx,
                                                double max_norm, double p) {
  std::vector<bool> seen(d > 0 ? w.size() / static_cast<size_t>(d) : 0, false);
  for (int64_t v : idx) seen[static_cast<size_t>(v)] = true;
  for (size_t r = 0; r < seen.size(); ++r) {
    if (!seen[r]) continue;
    double* row = w.data() + r * static_cast<size_t>(d);
    long double acc = 0;
    for (int64_t j = 0; j < d; ++j) {
      const long double a = std::fabs(row[j]);
      if (std::isinf(p)) acc = std::isnan(a) || std::isnan(acc) ? NAN : std::max(acc, a);  // NaN propagates
      else if (p == 0) acc += a != 0;
      else acc += std::pow(a, static_cast<long double>(p));
    }
    const double norm = std::isinf(p) || p == 0 ? static_cast<double>(acc)
                                                : static_cast<double>(std::pow(acc, 1 / static_cast<long double>(p)));
    if (!(norm > max_norm)) continue;
    const double scale = max_norm / (norm + 1e-7);
    for (int64_t j = 0; j < d; ++j) row[j] *= scale;
  }
  return w;
}

// torch.embedding_bag over w [rows, d]: bag b = idx[offsets[b], end_b) (end_b = offsets[b + 1], or
// the end for the last offset without include_last); mode 0 sum (times psw when given), 1 mean,
// other max (first maximum per column, a NaN wins; arg 0 for an empty bag). padding entries
// skipped and not counted. offset2bag: each entry's bag (past the last end: the bag count).
struct EmbeddingBagRef {
  std::vector<double> out;
  std::vector<int64_t> offset2bag, bag_size, max_indices;
};
inline EmbeddingBagRef embedding_bag_ref(const std::vector<double> &w, int64_t d, const std::vector<int64_t> &idx,
                                         const std::vector<int64_t> &offsets, int mode, const std::vector<double> *psw,
                                         bool include_last, int64_t padding) {
  EmbeddingBagRef r;
  const int64_t n = static_cast<int64_t>(idx.size());
  const int64_t bags = static_cast<int64_t>(offsets.size()) - (include_last ? 1 : 0);
  const bool max = mode != 0 && mode != 1;
  r.offset2bag.assign(idx.size(), bags);
  for (int64_t b = 0; b < bags; ++b) {
    const int64_t start = offsets[static_cast<size_t>(b)];
    const int64_t end = b + 1 < static_cast<int64_t>(offsets.size()) ? offsets[static_cast<size_t>(b + 1)] : n;
    std::vector<double> acc(static_cast<size_t>(d), 0.0);
    std::vector<int64_t> arg(static_cast<size_t>(d), 0);
    int64_t count = 0;
    for (int64_t i = start; i < end; ++i) {
      r.offset2bag[static_cast<size_t>(i)] = b;
      const int64_t v = idx[static_cast<size_t>(i)];
      if (v == padding) continue;
      for (int64_t j = 0; j < d; ++j) {
        const double x = w[static_cast<size_t>(v * d + j)];
        const size_t jj = static_cast<size_t>(j);
        if (max) {
          if (count == 0 || std::isnan(x) || x > acc[jj]) {
            acc[jj] = x;
            arg[jj] = v;
          }
        } else {
          acc[jj] += x * (psw ? (*psw)[static_cast<size_t>(i)] : 1.0);
        }
      }
      ++count;
    }
    if (mode == 1 && count > 0)
      for (double &a : acc) a /= static_cast<double>(count);
    r.out.insert(r.out.end(), acc.begin(), acc.end());
    r.bag_size.push_back(count);
    if (max) r.max_indices.insert(r.max_indices.end(), arg.begin(), arg.end());
    else r.max_indices.push_back(0);
  }
  return r;
}

// ApplyTopKTopP on one row (the vendor's formula): sorted ascending (stable, NaN last); below the
// k-th largest -> -inf (k <= 0: no top-k); softmax of the sorted row cumulated from the smallest:
// cumulated mass <= 1 - p -> -inf (p < 0: no top-p), the largest always kept.
inline std::vector<double> top_k_top_p_ref(std::vector<double> x, int64_t k, double p) {
  const size_t v = x.size();
  std::vector<size_t> order(v);
  for (size_t i = 0; i < v; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return !std::isnan(x[a]) && (std::isnan(x[b]) || x[a] < x[b]);
  });
  std::vector<double> s(v);
  for (size_t i = 0; i < v; ++i) s[i] = x[order[i]];
  if (k > 0) {
    const double thr = s[v - static_cast<size_t>(k)];
    for (double &e : s)
      if (e < thr) e = -INFINITY;
  }
  if (p >= 0 && v > 0) {
    std::vector<double> e(v);
    double sum = 0;
    for (size_t i = 0; i < v; ++i) sum += e[i] = std::exp(s[i] - s[v - 1]);
    double cum = 0;
    for (size_t i = 0; i + 1 < v; ++i) {
      cum += e[i] / sum;
      if (cum <= 1 - p) s[i] = -INFINITY;
    }
  }
  for (size_t i = 0; i < v; ++i) x[order[i]] = s[i];
  return x;
}

// ---- The data-dependent-size ops (src/ops/layout/dynamic.ops), computed another way than the
// steps: by search over the distinct slices seen so far instead of a sort of all of them.

// torch.nonzero: the row-major coordinates of the nonzero values (NaN counts) of a tensor `shape`.
inline std::vector<std::vector<int64_t>> nonzero_ref(const std::vector<double> &x, const std::vector<int64_t> &shape) {
  std::vector<std::vector<int64_t>> out;
  for (size_t lin = 0; lin < x.size(); ++lin) {
    if (x[lin] == 0) continue;
    std::vector<int64_t> c(shape.size());
    size_t r = lin;
    for (size_t d = shape.size(); d-- > 0;) {
      c[d] = static_cast<int64_t>(r % static_cast<size_t>(shape[d]));
      r /= static_cast<size_t>(shape[d]);
    }
    out.push_back(c);
  }
  return out;
}

struct UniqueRef {
  std::vector<double> values;   // the kept slices, concatenated (each `len` values)
  std::vector<int64_t> inverse;  // per slice
  std::vector<int64_t> counts;   // per kept slice
};

// Slice s is x[s * len .. (s + 1) * len). Consecutive: a new value where a slice differs from the
// one before (element ==, a NaN equals nothing). Otherwise: the distinct slices (first occurrence
// kept), then ordered lexicographically with NaN after every number (NaNs tie; ties keep the order
// of first occurrence).
inline UniqueRef unique_ref(const std::vector<double> &x, int64_t slices, int64_t len, bool consecutive) {
  auto same = [&](int64_t a, int64_t b) {
    for (int64_t e = 0; e < len; ++e)
      if (!(x[static_cast<size_t>(a * len + e)] == x[static_cast<size_t>(b * len + e)])) return false;
    return true;
  };
  std::vector<int64_t> reps;                 // representative slice of each group, by first occurrence
  std::vector<int64_t> group(static_cast<size_t>(slices));
  for (int64_t s = 0; s < slices; ++s) {
    int64_t g = -1;
    if (consecutive) {
      if (!reps.empty() && same(s - 1, s)) g = static_cast<int64_t>(reps.size()) - 1;
    } else {
      for (size_t k = 0; k < reps.size() && g < 0; ++k)
        if (same(reps[k], s)) g = static_cast<int64_t>(k);
    }
    if (g < 0) {
      g = static_cast<int64_t>(reps.size());
      reps.push_back(s);
    }
    group[static_cast<size_t>(s)] = g;
  }
  std::vector<int64_t> rank(reps.size());
  for (size_t k = 0; k < reps.size(); ++k) rank[k] = static_cast<int64_t>(k);
  if (!consecutive) {
    auto less = [&](int64_t ga, int64_t gb) {
      for (int64_t e = 0; e < len; ++e) {
        const double a = x[static_cast<size_t>(reps[static_cast<size_t>(ga)] * len + e)];
        const double b = x[static_cast<size_t>(reps[static_cast<size_t>(gb)] * len + e)];
        if (std::isnan(a) && std::isnan(b)) continue;
        if (std::isnan(a)) return false;
        if (std::isnan(b)) return true;
        if (a != b) return a < b;
      }
      return false;
    };
    std::vector<int64_t> order = rank;
    std::stable_sort(order.begin(), order.end(), less);
    for (size_t k = 0; k < order.size(); ++k) rank[static_cast<size_t>(order[k])] = static_cast<int64_t>(k);
  }
  UniqueRef r;
  r.values.resize(reps.size() * static_cast<size_t>(len));
  r.counts.assign(reps.size(), 0);
  for (size_t k = 0; k < reps.size(); ++k)
    for (int64_t e = 0; e < len; ++e)
      r.values[static_cast<size_t>(rank[k] * len + e)] = x[static_cast<size_t>(reps[k] * len + e)];
  for (int64_t s = 0; s < slices; ++s) {
    const int64_t g = rank[static_cast<size_t>(group[static_cast<size_t>(s)])];
    r.inverse.push_back(g);
    ++r.counts[static_cast<size_t>(g)];
  }
  return r;
}

// One group of a grouped matmul (aclnnGroupedMatmulV3): y [m, n] = x [m, k] @ w [k, n] (+ bias [n],
// empty: none), every product and sum in double, row-major inputs. `mag` (if given) receives
// sum_k |x w| + |bias| per element, the scale of the rounding a float accumulation may add.
inline std::vector<double> grouped_matmul_ref(const std::vector<double> &x, const std::vector<double> &w,
                                              const std::vector<double> &bias, int64_t m, int64_t k, int64_t n,
                                              std::vector<double> *mag = nullptr) {
  std::vector<double> y(static_cast<size_t>(m * n));
  if (mag) mag->assign(y.size(), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = bias.empty() ? 0.0 : bias[static_cast<size_t>(j)];
      double a = std::fabs(s);
      for (int64_t p = 0; p < k; ++p) {
        const double t = x[static_cast<size_t>(i * k + p)] * w[static_cast<size_t>(p * n + j)];
        s += t;
        a += std::fabs(t);
      }
      y[static_cast<size_t>(i * n + j)] = s;
      if (mag) (*mag)[static_cast<size_t>(i * n + j)] = a;
    }
  return y;
}

// The Adam-family updates of one element (src/ops/optim/optim.ops), written from the formulas:
// AdamW (PyTorch's AdamW; powers beta^(t-1), maxv the running maximum read, not written) and
// ApplyAdam (TensorFlow's ApplyAdam; powers beta^t, m / v updated, optional Nesterov).
struct AdamElem {
  double var, m, v;
};
inline AdamElem adamw_ref(double var, double m, double v, double g, double maxv, double b1p, double b2p, double lr,
                          double wd, double b1, double b2, double eps, bool amsgrad, bool maximize) {
  if (maximize) g = -g;
  m = b1 * m + (1 - b1) * g;
  v = b2 * v + (1 - b2) * g * g;
  const double b1t = b1p * b1, b2t = b2p * b2;
  const double vv = amsgrad ? std::max(maxv, v) : v;
  const double mhat = m / (1 - b1t), vhat = vv / (1 - b2t);
  return {var - lr * mhat / (std::sqrt(vhat) + eps) - lr * wd * var, m, v};
}
inline AdamElem apply_adam_ref(double var, double m, double v, double g, double b1p, double b2p, double lr, double b1,
                               double b2, double eps, bool nesterov) {
  m = m + (g - m) * (1 - b1);
  v = v + (g * g - v) * (1 - b2);
  const double lr_t = lr * std::sqrt(1 - b2p) / (1 - b1p);
  const double num = nesterov ? m * b1 + (1 - b1) * g : m;
  return {var - lr_t * num / (std::sqrt(v) + eps), m, v};
}

// A matmul-family output element: alpha * sum_s sum_k a_s,k b_s,k + beta * bias (the bias left out
// when beta == 0, as PyTorch ignores it then), and the bound of the absolute-error criterion
// |alpha| sum |a b| + |beta bias|. term(s, k) gives the pair (a, b).
struct MatmulRefElem {
  double value = 0, bound = 0;
};
template <class Term>
MatmulRefElem matmul_ref_elem(int64_t nsum, int64_t K, double alpha, double beta, double bias, Term term) {
  long double acc = 0, mag = 0;
  for (int64_t s = 0; s < nsum; ++s)
    for (int64_t k = 0; k < K; ++k) {
      const auto ab = term(s, k);
      const long double p = static_cast<long double>(ab.first) * ab.second;
      acc += p;
      mag += std::fabs(p);
    }
  const double add = beta == 0 ? 0.0 : beta * bias;
  return {static_cast<double>(alpha * acc + add), static_cast<double>(std::fabs(alpha) * mag + std::fabs(add))};
}

// The recurrent gated delta rule (aclnnRecurrentGatedDeltaRule, src/ops/attention/delta_rule.ops),
// written from the matrix form S_t = alpha_t S_{t-1} D_t (I - beta_t k_t k_t^T) + beta_t v_t k_t^T
// (D_t = diag(exp(gk_t))), o_t = S_t (scale q_t). Packed tokens, row-major: q / k [T, Nk, Dk], v
// [T, Nv, Dv], beta / g [T, Nv], gk [T, Nv, Dk] (g / gk empty: no decay), state [blocks, Nv, Dv, Dk]
// updated in place. state_mag / out_mag: the sums of the absolute terms (the bound for rounding).
struct GdrProblem {
  int64_t t = 0, nk = 0, nv = 0, dk = 0, dv = 0;
  std::vector<int64_t> len, accepted, idx;
  double scale = 1.0;
};

inline void gated_delta_rule_ref(const GdrProblem &p, const std::vector<double> &q, const std::vector<double> &k,
                                 const std::vector<double> &v, const std::vector<double> &beta,
                                 const std::vector<double> &g, const std::vector<double> &gk,
                                 std::vector<double> *state, std::vector<double> *state_mag,
                                 std::vector<double> *out, std::vector<double> *out_mag) {
  const int64_t dk = p.dk, dv = p.dv, hs = dv * dk;
  out->assign(static_cast<size_t>(p.t * p.nv * dv), 0.0);
  out_mag->assign(out->size(), 0.0);
  state_mag->assign(state->size(), 0.0);
  auto z = [](int64_t i) { return static_cast<size_t>(i); };
  int64_t start = 0;
  for (size_t b = 0; b < p.len.size(); ++b) {
    const int64_t L = p.len[b];
    for (int64_t h = 0; h < p.nv && L > 0; ++h) {
      const int64_t kh = h * p.nk / p.nv;
      const int64_t first = p.idx[z(start + p.accepted[b] - 1)];
      std::vector<double> S(state->begin() + (first * p.nv + h) * hs, state->begin() + (first * p.nv + h + 1) * hs);
      std::vector<double> M(z(hs));
      for (size_t e = 0; e < M.size(); ++e) M[e] = std::fabs(S[e]);
      for (int64_t t = start; t < start + L; ++t) {
        const double *kt = &k[z((t * p.nk + kh) * dk)], *qt = &q[z((t * p.nk + kh) * dk)];
        const double *vt = &v[z((t * p.nv + h) * dv)];
        const double bt = beta[z(t * p.nv + h)], at = g.empty() ? 1.0 : std::exp(g[z(t * p.nv + h)]);
        // A = alpha S D; then S = A - beta (A k) k^T + beta v k^T.
        std::vector<double> A(z(hs)), MA(z(hs)), Ak(z(dv), 0.0), MAk(z(dv), 0.0);
        for (int64_t i = 0; i < dv; ++i)
          for (int64_t j = 0; j < dk; ++j) {
            const double d = at * (gk.empty() ? 1.0 : std::exp(gk[z((t * p.nv + h) * dk + j)]));
            A[z(i * dk + j)] = S[z(i * dk + j)] * d;
            MA[z(i * dk + j)] = M[z(i * dk + j)] * d;
            Ak[z(i)] += A[z(i * dk + j)] * kt[j];
            MAk[z(i)] += MA[z(i * dk + j)] * std::fabs(kt[j]);
          }
        const int64_t slot = p.idx[z(t)];
        for (int64_t i = 0; i < dv; ++i) {
          double o = 0.0, om = 0.0;
          for (int64_t j = 0; j < dk; ++j) {
            const size_t e = z(i * dk + j);
            S[e] = A[e] - bt * Ak[z(i)] * kt[j] + bt * vt[i] * kt[j];
            M[e] = MA[e] + std::fabs(bt) * (MAk[z(i)] + std::fabs(vt[i])) * std::fabs(kt[j]);
            o += S[e] * p.scale * qt[j];
            om += M[e] * std::fabs(p.scale * qt[j]);
          }
          (*out)[z((t * p.nv + h) * dv + i)] = o;
          (*out_mag)[z((t * p.nv + h) * dv + i)] = om;
        }
        std::copy(S.begin(), S.end(), state->begin() + (slot * p.nv + h) * hs);
        std::copy(M.begin(), M.end(), state_mag->begin() + (slot * p.nv + h) * hs);
      }
    }
    start += L;
  }
}

// ---- the quantised matmuls (src/ops/matmul/quant_matmul.ops), one formula per scheme ----

// A value stored into INT8: round half to even, saturate to [-128, 127], NaN -> 0.
inline double int8_saturate(double v) {
  return std::isnan(v) ? 0.0 : std::min(127.0, std::max(-128.0, std::nearbyint(v)));
}
// aclnnTransQuantParamV2's 64-bit scale word: the fp32 scale's top 19 bits, bit 46, and with an
// offset (null: none) round-half-away-from-zero(offset) clamped to [-256, 255] as 9 bits at 37..45.
inline uint64_t quant_param_word(float scale, const double *offset) {
  uint32_t u;
  std::memcpy(&u, &scale, 4);
  uint64_t w = (uint64_t{u} >> 13 << 13) | (uint64_t{1} << 46);
  if (offset != nullptr && !std::isnan(*offset)) {
    const double a = std::floor(std::fabs(*offset) + 0.5);
    const double o = std::max(-256.0, std::min(255.0, *offset < 0 ? -a : a));
    w |= (static_cast<uint64_t>(static_cast<int64_t>(o)) & 0x1FF) << 37;
  }
  return w;
}
// The scale such a word carries (what the int8 scheme decodes).
inline float quant_param_scale(uint64_t word) {
  const uint32_t u = static_cast<uint32_t>(word);
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
// int8 x int8 with the dequantising epilogue, one output element before its rounding: the exact
// integer product acc (int64), an INT32 bias added to it, then scale, the per-token scale, a
// floating bias and the offset. `mag`: the magnitude of the terms (for the fp32 error bound).
inline double qmm_dequant_ref(int64_t acc, double bias_int, double scale, double pertoken, double bias_float,
                              double offset, double *mag) {
  const double v = (static_cast<double>(acc) + bias_int) * scale * pertoken;
  *mag = std::fabs(v) + std::fabs(bias_float) + std::fabs(offset);
  return v + bias_float + offset;
}
// Weight-only quantisation, one output element: sum_p x[p] * (w[p] + offset[p]) * scale[p] + bias
// over the k terms (strided by xs / ws), before any requantisation. `mag`: sum of |terms| + |bias|.
inline double wq_antiquant_ref(const double *x, int64_t xs, const double *w, const double *offset,
                               const double *scale, int64_t ws, int64_t k, double bias, double *mag) {
  double v = bias, m = std::fabs(bias);
  for (int64_t p = 0; p < k; ++p) {
    const double t = x[p * xs] * (w[p * ws] + offset[p * ws]) * scale[p * ws];
    v += t;
    m += std::fabs(t);
  }
  *mag = m;
  return v;
}

// ---- Recurrent cells (tests/ops/test_op_table_rnn.cpp): one row of one LSTM / GRU cell, gate
// order i, f, g, o / r, z, n as PyTorch. The gradients are the chain rule through the same
// formulas (and are checked against central differences of them by the harness).
struct LstmCellRow {
  std::vector<double> act, c, tanhc, h;  // act: sigmoid(i), sigmoid(f), tanh(g), sigmoid(o)
};
inline LstmCellRow lstm_cell_ref(const std::vector<double> &pre, const std::vector<double> &c_prev) {
  const size_t H = c_prev.size();
  LstmCellRow r{std::vector<double>(4 * H), std::vector<double>(H), std::vector<double>(H), std::vector<double>(H)};
  for (size_t j = 0; j < H; ++j) {
    const double i = sigm(pre[j]), f = sigm(pre[H + j]), g = std::tanh(pre[2 * H + j]), o = sigm(pre[3 * H + j]);
    r.act[j] = i, r.act[H + j] = f, r.act[2 * H + j] = g, r.act[3 * H + j] = o;
    r.c[j] = f * c_prev[j] + i * g;
    r.tanhc[j] = std::tanh(r.c[j]);
    r.h[j] = o * r.tanhc[j];
  }
  return r;
}
struct LstmCellGrad {
  std::vector<double> dpre, dc_prev;
};
// dh / dc: gradients of h and c (empty = zero); tanhc: tanh(c) as saved by a forward (empty: computed).
inline LstmCellGrad lstm_cell_grad_ref(const std::vector<double> &act, const std::vector<double> &c_prev,
                                       const std::vector<double> &c, const std::vector<double> &dh,
                                       const std::vector<double> &dc, const std::vector<double> &tanhc = {}) {
  const size_t H = c_prev.size();
  LstmCellGrad r{std::vector<double>(4 * H), std::vector<double>(H)};
  for (size_t j = 0; j < H; ++j) {
    const double i = act[j], f = act[H + j], g = act[2 * H + j], o = act[3 * H + j];
    const double t = tanhc.empty() ? std::tanh(c[j]) : tanhc[j];
    const double dhj = dh.empty() ? 0 : dh[j];
    const double dcj = (dc.empty() ? 0 : dc[j]) + dhj * o * (1 - t * t);
    r.dpre[j] = dcj * g * i * (1 - i);
    r.dpre[H + j] = dcj * c_prev[j] * f * (1 - f);
    r.dpre[2 * H + j] = dcj * i * (1 - g * g);
    r.dpre[3 * H + j] = dhj * t * o * (1 - o);
    r.dc_prev[j] = dcj * f;
  }
  return r;
}
struct GruCellRow {
  std::vector<double> act, hn, h;  // act: r, z, n; hn: the n gate's hidden part
};
// gx = x W_ih^T + b_ih, gh = h_prev W_hh^T + b_hh (each [3H]).
inline GruCellRow gru_cell_ref(const std::vector<double> &gx, const std::vector<double> &gh,
                               const std::vector<double> &h_prev) {
  const size_t H = h_prev.size();
  GruCellRow r{std::vector<double>(3 * H), std::vector<double>(H), std::vector<double>(H)};
  for (size_t j = 0; j < H; ++j) {
    const double rg = sigm(gx[j] + gh[j]), z = sigm(gx[H + j] + gh[H + j]);
    const double n = std::tanh(gx[2 * H + j] + rg * gh[2 * H + j]);
    r.act[j] = rg, r.act[H + j] = z, r.act[2 * H + j] = n;
    r.hn[j] = gh[2 * H + j];
    r.h[j] = (1 - z) * n + z * h_prev[j];
  }
  return r;
}
struct GruCellGrad {
  std::vector<double> dgx, dgh, dh_prev;  // dh_prev: the direct part (z dh), without dgh's
};
inline GruCellGrad gru_cell_grad_ref(const std::vector<double> &act, const std::vector<double> &hn,
                                     const std::vector<double> &h_prev, const std::vector<double> &dh) {
  const size_t H = h_prev.size();
  GruCellGrad r{std::vector<double>(3 * H), std::vector<double>(3 * H), std::vector<double>(H)};
  for (size_t j = 0; j < H; ++j) {
    const double rg = act[j], z = act[H + j], n = act[2 * H + j];
    const double dn = dh[j] * (1 - z) * (1 - n * n), dz = dh[j] * (h_prev[j] - n) * z * (1 - z);
    const double dr = dn * hn[j] * rg * (1 - rg);
    r.dgx[j] = r.dgh[j] = dr;
    r.dgx[H + j] = r.dgh[H + j] = dz;
    r.dgx[2 * H + j] = dn;
    r.dgh[2 * H + j] = dn * rg;
    r.dh_prev[j] = dh[j] * z;
  }
  return r;
}

}  // namespace opsnn::test::refs
