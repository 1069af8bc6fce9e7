// The test harness of the table-driven convolution ops (src/ops/conv/conv.ops): every op and sample
// runs the same suites, registered from the table by tools/gen_ops.py --tests (conv_table_cases.inc
// in the build tree):
//   - every accepted dtype on random geometries (1-D / 2-D / 3-D, channel counts 1..4 per group,
//     groups 1..3 and depthwise, kernels 1..4, strides 1..3, paddings 0..2, dilations 1..2,
//     transposed with output padding, with and without bias; the backward op with random output
//     masks) against the float64 direct convolution of tests/common/float64_refs.h;
//   - the shapes that take each implementation (1x1 GEMM, depthwise, several column tiles);
//   - channels-last + offset input views and outputs with padded rows (strided, not flattenable);
//   - errors with their code and the argument named.
// Accuracy: precision.md's absolute-bound variant, as a dot product's relative error is unbounded
// near zero: rel_i = |actual - golden| / (sum of |terms| + 1e-7), MERE < T and MARE < 10 T.
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <ostream>
#include <sstream>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "aclnnop/aclnn_mul.h"
#include "core/cpu_features.h"
#include "core/plan_cache.h"
#include "core/thread_pool.h"
#include "core/verbose.h"
#include "float64_refs.h"
#include "fractal_tensors.h"
#include "kernels/conv/packed_weight.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct ConvArgs {
  aclTensor *input = nullptr, *weight = nullptr, *bias = nullptr, *output = nullptr;
  aclTensor *grad_output = nullptr, *grad_input = nullptr, *grad_weight = nullptr, *grad_bias = nullptr;
  aclIntArray *stride = nullptr, *padding = nullptr, *dilation = nullptr, *output_padding = nullptr;
  aclIntArray *kernel_size = nullptr, *bias_sizes = nullptr, *input_size = nullptr;
  aclBoolArray *output_mask = nullptr;
  bool transposed = false;
  int64_t groups = 1, pad = 0;
  int8_t cube_math_type = 0;
  // DeformableConv2d (+Backward)
  aclTensor *offset = nullptr, *deform_out = nullptr, *offset_out = nullptr, *grad_offset = nullptr;
  int64_t deformable_groups = 1;
  bool modulated = true;
  // QuantConvolution (its reserved `offset` is `offset` above)
  aclTensor *scale = nullptr;
  int64_t offsetx = 0;
  const char *round_mode = nullptr;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct ConvTableCase {
  std::string name, api, kind;
  std::vector<aclDataType> dtypes;
  int cube = 0;
  bool transposed = false;
  std::vector<std::pair<std::string, std::string>> names;  // role -> prototype name
  int (*phase1)(const ConvArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
  std::string name_of(const std::string &role) const {
    for (const auto &p : names)
      if (p.first == role) return p.second;
    return role;
  }
  bool has(const std::string &role) const {
    for (const auto &p : names)
      if (p.first == role) return true;
    return false;
  }
};
void PrintTo(const ConvTableCase &c, std::ostream *os) { *os << c.name; }

#include "conv_table_cases.inc"

// The suite group of a case: 0 the classic convolutions (the suites below), 1 the deformable ones,
// 2 QuantConvolution and QuantConvolutionWeightNz (their own suites further down; errors: 3 and 4).
int group_of(const ConvTableCase &c) {
  return c.kind.rfind("deformable", 0) == 0 ? 1 : c.kind.rfind("quant", 0) == 0 ? 2 : 0;
}

std::vector<ConvTableCase> cases_where(int group) {
  std::vector<ConvTableCase> v;
  for (ConvTableCase &c : harness::sampled(conv_table_cases()))
    if (group_of(c) == group) v.push_back(std::move(c));
  return v;
}
const std::vector<ConvTableCase> &all_cases() {
  static const std::vector<ConvTableCase> c = cases_where(0);
  return c;
}
const std::vector<ConvTableCase> &deformable_cases() {
  static const std::vector<ConvTableCase> c = cases_where(1);
  return c;
}
const std::vector<ConvTableCase> &quant_cases() {
  static const std::vector<ConvTableCase> c = cases_where(2);
  return c;
}
std::vector<ConvTableCase> quant_cases_of(const char *kind) {
  std::vector<ConvTableCase> v;
  for (const ConvTableCase &c : quant_cases())
    if (c.kind == kind) v.push_back(c);
  return v;
}

using Tensor = std::unique_ptr<DeviceTensor>;
enum class Layout { kContiguous, kChannelsLast, kPaddedRows };

int64_t rnd(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rng()() % static_cast<uint64_t>(hi - lo + 1)); }

// A tensor of logical `shape` laid out as `layout` says: channels-last memory (dim 1 innermost) after
// 3 spare elements, or rows padded by 2 elements after 1 spare element.
Tensor make_tensor(const std::vector<int64_t> &shape, aclDataType dt, Layout layout) {
  if (layout == Layout::kContiguous || shape.size() < 2) return std::make_unique<DeviceTensor>(shape, dt);
  if (layout == Layout::kChannelsLast) {
    std::vector<size_t> perm;  // memory order: 0, 2, 3, ..., 1
    perm.push_back(0);
    for (size_t i = 2; i < shape.size(); ++i) perm.push_back(i);
    perm.push_back(1);
    std::vector<int64_t> mshape;
    for (size_t p : perm) mshape.push_back(shape[p]);
    const auto ms = contiguous_strides(mshape);
    std::vector<int64_t> st(shape.size());
    for (size_t i = 0; i < perm.size(); ++i) st[perm[i]] = ms[i];
    return std::make_unique<DeviceTensor>(shape, dt, st, 3, numel_of(shape) + 3);
  }
  std::vector<int64_t> padded = shape;
  padded.back() += 2;
  return std::make_unique<DeviceTensor>(shape, dt, contiguous_strides(padded), 1, numel_of(padded) + 1);
}

struct IntArray {
  aclIntArray *a = nullptr;
  explicit IntArray(const std::vector<int64_t> &v) : a(aclCreateIntArray(v.data(), v.size())) {}
  ~IntArray() { aclDestroyIntArray(a); }
};

// One random problem in the op's terms.
struct Problem {
  refs::ConvRefGeom g;
  int nsp = 2;
  bool transposed = false, with_bias = true;
  bool mask[3] = {true, true, true};
  std::vector<int64_t> k, s, p, d, op;
  Tensor input, weight, bias, output, grad_output, grad_input, grad_weight, grad_bias;
  std::unique_ptr<IntArray> stride, padding, dilation, output_padding, kernel_size, bias_sizes, input_size;
  aclBoolArray *output_mask = nullptr;
  ~Problem() {
    if (output_mask != nullptr) aclDestroyBoolArray(output_mask);
  }
  std::vector<int64_t> big_sp() const { return std::vector<int64_t>(g.big + 3 - nsp, g.big + 3); }
  std::vector<int64_t> small_sp() const { return std::vector<int64_t>(g.small + 3 - nsp, g.small + 3); }
};

std::vector<int64_t> cat(std::vector<int64_t> a, const std::vector<int64_t> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// A fixed 2-D depthwise geometry instead of a random one (DepthwiseRows sets it): n, channels,
// multiplier, H x W, kernel, stride, padding, dilation per dim.
struct DepthwiseGeom {
  int64_t n, c, mult, h, w, kh, kw, sh, sw, ph, pw, dh, dw;
};
const DepthwiseGeom *g_fixed_depthwise = nullptr;

// Random geometry: the kind fixes the spatial rank and whether groups are depthwise.
void random_geometry(Problem &p, const std::string &kind, bool transposed, int shape_kind) {
  refs::ConvRefGeom &g = p.g;
  if (g_fixed_depthwise != nullptr) {
    const DepthwiseGeom &f = *g_fixed_depthwise;
    p.nsp = 2;
    p.transposed = false;
    g = refs::ConvRefGeom{};
    g.n = f.n;
    g.groups = f.c;
    g.cbig = f.c;
    g.csmall = f.c * f.mult;
    const int64_t big[2] = {f.h, f.w}, k[2] = {f.kh, f.kw}, s[2] = {f.sh, f.sw}, pd[2] = {f.ph, f.pw}, d[2] = {f.dh, f.dw};
    p.k.clear(); p.s.clear(); p.p.clear(); p.d.clear(); p.op.clear();
    for (int i = 0; i < 2; ++i) {
      g.big[1 + i] = big[i]; g.k[1 + i] = k[i]; g.s[1 + i] = s[i]; g.p[1 + i] = pd[i]; g.d[1 + i] = d[i];
      g.small[1 + i] = (big[i] + 2 * pd[i] - d[i] * (k[i] - 1) - 1) / s[i] + 1;
      p.k.push_back(k[i]); p.s.push_back(s[i]); p.p.push_back(pd[i]); p.d.push_back(d[i]); p.op.push_back(0);
    }
    return;
  }
  const bool cols = kind == "im2col" || kind == "im2col_backward";
  p.nsp = kind == "tbc" || kind == "tbc_backward" ? 1 : kind == "depthwise2d" || cols ? 2
                                                                                   : static_cast<int>(rnd(1, 3));
  p.transposed = transposed;
  const bool tbc = kind == "tbc" || kind == "tbc_backward";
  for (int attempt = 0;; ++attempt) {
    g = refs::ConvRefGeom{};
    g.n = tbc ? rnd(1, 3) : rnd(1, 2);
    const bool depthwise = kind == "depthwise2d" || (!tbc && !cols && shape_kind == 2);
    g.groups = depthwise ? rnd(2, 5) : (tbc || cols ? 1 : rnd(1, 3));
    const int64_t cin_g = depthwise ? 1 : rnd(1, 4), cout_g = rnd(1, depthwise ? 2 : 4);
    p.k.clear(); p.s.clear(); p.p.clear(); p.d.clear(); p.op.clear();
    bool ok = true;
    for (int i = 0; i < p.nsp; ++i) {
      const int j = 3 - p.nsp + i;
      const bool unit = shape_kind == 1;  // 1x1, stride 1, no padding
      g.k[j] = unit ? 1 : rnd(1, p.nsp == 3 ? 3 : 4);
      g.s[j] = unit || tbc ? 1 : rnd(1, 3);
      g.p[j] = unit ? 0 : rnd(0, 2);
      g.d[j] = unit || tbc ? 1 : rnd(1, 2);
      const int64_t span = g.d[j] * (g.k[j] - 1) + 1;
      if (!transposed) {
        g.big[j] = std::max<int64_t>(1, span - 2 * g.p[j]) + rnd(0, p.nsp == 3 ? 3 : 6);
        if (g.big[j] + 2 * g.p[j] - span < 0) ok = false;
        else g.small[j] = (g.big[j] + 2 * g.p[j] - span) / g.s[j] + 1;
        p.op.push_back(0);
      } else {
        g.small[j] = rnd(1, 5);
        const int64_t o = rnd(0, std::max(g.s[j], g.d[j]) - 1);
        g.big[j] = (g.small[j] - 1) * g.s[j] - 2 * g.p[j] + span + o;
        if (g.big[j] <= 0) ok = false;
        p.op.push_back(o);
      }
      p.k.push_back(g.k[j]); p.s.push_back(g.s[j]); p.p.push_back(g.p[j]); p.d.push_back(g.d[j]);
    }
    if (!ok) continue;
    // Channels: big side = the convolution's input; weight [C_small, C_big / groups, k].
    g.cbig = cin_g * g.groups;
    g.csmall = cout_g * g.groups;
    break;
  }
}

// The logical (NC + spatial) tensors as dense float64 arrays in the reference's layout.
std::vector<double> tbc_to_ncl(const std::vector<double> &v, int64_t T, int64_t B, int64_t C) {
  std::vector<double> r(v.size());
  for (int64_t t = 0; t < T; ++t)
    for (int64_t b = 0; b < B; ++b)
      for (int64_t c = 0; c < C; ++c) r[static_cast<size_t>((b * C + c) * T + t)] = v[static_cast<size_t>((t * B + b) * C + c)];
  return r;
}
std::vector<double> ncl_to_tbc(const std::vector<double> &v, int64_t T, int64_t B, int64_t C) {
  std::vector<double> r(v.size());
  for (int64_t t = 0; t < T; ++t)
    for (int64_t b = 0; b < B; ++b)
      for (int64_t c = 0; c < C; ++c) r[static_cast<size_t>((t * B + b) * C + c)] = v[static_cast<size_t>((b * C + c) * T + t)];
  return r;
}
// [K, C_in, C_out] <-> [C_out, C_in, K]
std::vector<double> kio_to_oik(const std::vector<double> &v, int64_t K, int64_t I, int64_t O) {
  std::vector<double> r(v.size());
  for (int64_t k = 0; k < K; ++k)
    for (int64_t i = 0; i < I; ++i)
      for (int64_t o = 0; o < O; ++o) r[static_cast<size_t>((o * I + i) * K + k)] = v[static_cast<size_t>((k * I + i) * O + o)];
  return r;
}
std::vector<double> oik_to_kio(const std::vector<double> &v, int64_t K, int64_t I, int64_t O) {
  std::vector<double> r(v.size());
  for (int64_t k = 0; k < K; ++k)
    for (int64_t i = 0; i < I; ++i)
      for (int64_t o = 0; o < O; ++o) r[static_cast<size_t>((k * I + i) * O + o)] = v[static_cast<size_t>((o * I + i) * K + k)];
  return r;
}

// Builds the tensors of a problem (random inputs, poisoned outputs).
std::unique_ptr<Problem> make_problem(const ConvTableCase &c, aclDataType dt, int shape_kind, Layout in_layout,
                                      Layout out_layout) {
  auto p = std::make_unique<Problem>();
  const bool transposed = c.transposed && (c.kind == "convolution" || c.kind == "convolution_backward");
  random_geometry(*p, c.kind, transposed, shape_kind);
  const refs::ConvRefGeom &g = p->g;
  p->with_bias = c.kind == "tbc" || c.kind == "tbc_backward" || rng()() % 4 != 0;
  const int64_t cin = transposed ? g.csmall : g.cbig, cout = transposed ? g.cbig : g.csmall;
  const std::vector<int64_t> in_sp = transposed ? p->small_sp() : p->big_sp();
  const std::vector<int64_t> out_sp = transposed ? p->big_sp() : p->small_sp();
  const std::vector<int64_t> wk = p->k;
  std::vector<int64_t> in_shape = cat({g.n, cin}, in_sp), out_shape = cat({g.n, cout}, out_sp);
  std::vector<int64_t> w_shape = cat({g.csmall, g.cbig / g.groups}, wk);
  if (c.kind == "tbc" || c.kind == "tbc_backward") {
    in_shape = {g.big[2], g.n, g.cbig};
    out_shape = {g.small[2], g.n, g.csmall};
    w_shape = {g.k[2], g.cbig, g.csmall};
  }
  p->input = make_tensor(in_shape, dt, in_layout);
  p->input->fill_random(-2, 2);
  p->weight = make_tensor(w_shape, dt, in_layout);
  p->weight->fill_random(-1, 1);
  if (p->with_bias) {
    p->bias = std::make_unique<DeviceTensor>(std::vector<int64_t>{cout}, dt);
    p->bias->fill_random(-1, 1);
  }
  p->stride = std::make_unique<IntArray>(p->s);
  p->padding = std::make_unique<IntArray>(p->p);
  p->dilation = std::make_unique<IntArray>(p->d);
  p->output_padding = std::make_unique<IntArray>(p->op);
  p->kernel_size = std::make_unique<IntArray>(p->k);
  p->bias_sizes = std::make_unique<IntArray>(std::vector<int64_t>{cout});
  p->input_size = std::make_unique<IntArray>(std::vector<int64_t>{g.big[1], g.big[2]});
  if (c.kind == "im2col_backward") {  // gradOutput: the columns; out: the image
    const int64_t L = g.small[1] * g.small[2], kc = g.cbig * g.k[1] * g.k[2];
    const bool batched = rng()() % 2 == 0;
    p->grad_output = make_tensor(batched ? std::vector<int64_t>{g.n, kc, L} : std::vector<int64_t>{kc, L}, dt,
                                 in_layout);
    p->grad_output->fill_random(-2, 2);
    p->output = make_tensor(batched ? std::vector<int64_t>{g.n, g.cbig, g.big[1], g.big[2]}
                                    : std::vector<int64_t>{g.cbig, g.big[1], g.big[2]},
                            dt, out_layout);
    p->output->poison();
    if (!batched) p->g.n = 1;
    return p;
  }
  if (c.kind == "im2col") {
    const int64_t L = g.small[1] * g.small[2], kc = g.cbig * g.k[1] * g.k[2];
    const bool batched = rng()() % 2 == 0;
    in_shape = batched ? std::vector<int64_t>{g.n, g.cbig, g.big[1], g.big[2]}
                       : std::vector<int64_t>{g.cbig, g.big[1], g.big[2]};
    p->input = make_tensor(in_shape, dt, in_layout);
    p->input->fill_random(-2, 2);
    p->output = make_tensor(batched ? std::vector<int64_t>{g.n, kc, L} : std::vector<int64_t>{kc, L}, dt, out_layout);
    p->output->poison();
    if (!batched) p->g.n = 1;
    return p;
  }
  if (c.kind == "convolution_backward" || c.kind == "tbc_backward") {
    p->grad_output = make_tensor(out_shape, dt, in_layout);
    p->grad_output->fill_random(-1, 1);
    if (c.kind == "convolution_backward") {
      const uint64_t m = 1 + rng()() % 7;
      for (int i = 0; i < 3; ++i) p->mask[i] = (m >> i) & 1;
    }
    bool mk[3] = {p->mask[0], p->mask[1], p->mask[2]};
    p->output_mask = aclCreateBoolArray(mk, 3);
    if (p->mask[0]) p->grad_input = make_tensor(in_shape, dt, out_layout);
    if (p->mask[1]) p->grad_weight = make_tensor(w_shape, dt, out_layout);
    if (p->mask[2]) p->grad_bias = std::make_unique<DeviceTensor>(std::vector<int64_t>{cout}, dt);
    for (Tensor *t : {&p->grad_input, &p->grad_weight, &p->grad_bias})
      if (*t) (*t)->poison();
    return p;
  }
  p->output = make_tensor(out_shape, dt, out_layout);
  p->output->poison();
  return p;
}

ConvArgs args_of(const ConvTableCase &c, const Problem &p) {
  ConvArgs a;
  auto get = [](const Tensor &t) { return t ? t->get() : nullptr; };
  a.input = get(p.input);
  a.weight = get(p.weight);
  a.bias = get(p.bias);
  a.output = get(p.output);
  a.grad_output = get(p.grad_output);
  a.grad_input = get(p.grad_input);
  a.grad_weight = get(p.grad_weight);
  a.grad_bias = get(p.grad_bias);
  a.stride = p.stride->a;
  a.padding = p.padding->a;
  a.dilation = p.dilation->a;
  a.output_padding = p.output_padding->a;
  a.kernel_size = p.kernel_size->a;
  a.bias_sizes = p.bias_sizes->a;
  a.input_size = p.input_size->a;
  a.output_mask = p.output_mask;
  a.transposed = p.transposed;
  a.groups = p.g.groups;
  a.pad = p.g.p[2];
  a.cube_math_type = static_cast<int8_t>(c.cube);
  return a;
}

::testing::AssertionResult meets_bound(aclDataType dt, const std::vector<double> &actual, const refs::ConvRefOut &ref) {
  if (actual.size() != ref.value.size()) return ::testing::AssertionFailure() << "size " << actual.size();
  const double T = precision_threshold(dt);
  double sum = 0, worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double rel = std::isnan(actual[i]) ? INFINITY : std::fabs(actual[i] - ref.value[i]) / (ref.magnitude[i] + 1e-7);
    sum += rel;
    if (!(rel <= worst)) {
      worst = rel;
      at = i;
    }
  }
  const double mere = actual.empty() ? 0 : sum / static_cast<double>(actual.size());
  if (mere < T && worst < 10 * T) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "MERE " << mere << " MARE " << worst << " (T " << T << ") at " << at
                                       << ": got " << actual[at] << " want " << ref.value[at];
}

void check_problem(const ConvTableCase &c, Problem &p) {
  const ConvArgs a = args_of(c, p);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  const refs::ConvRefGeom &g = p.g;
  const bool tbc = c.kind == "tbc" || c.kind == "tbc_backward";
  std::vector<double> x = p.input->values(), w = p.weight->values();
  if (tbc) {
    x = tbc_to_ncl(x, g.big[2], g.n, g.cbig);
    w = kio_to_oik(w, g.k[2], g.cbig, g.csmall);
  }
  const std::vector<double> bias = p.bias ? p.bias->values() : std::vector<double>{};
  auto compare = [&](const Tensor &t, refs::ConvRefOut ref, const char *what) {
    for (double &v : ref.value) v = round_to(t->dtype(), v);
    EXPECT_TRUE(meets_bound(t->dtype(), t->values(), ref)) << what;
    EXPECT_TRUE(t->untouched_outside_view()) << what;
  };
  // Every column entry (n, (c, kh, kw), l) in row-major order with its image position (-1: padding).
  auto each_column_entry = [&](const auto &fn) {
    for (int64_t n = 0; n < g.n; ++n)
      for (int64_t ch = 0; ch < g.cbig; ++ch)
        for (int64_t t1 = 0; t1 < g.k[1]; ++t1)
          for (int64_t t2 = 0; t2 < g.k[2]; ++t2)
            for (int64_t o1 = 0; o1 < g.small[1]; ++o1)
              for (int64_t o2 = 0; o2 < g.small[2]; ++o2) {
                const int64_t i1 = o1 * g.s[1] - g.p[1] + t1 * g.d[1], i2 = o2 * g.s[2] - g.p[2] + t2 * g.d[2];
                const bool in = i1 >= 0 && i1 < g.big[1] && i2 >= 0 && i2 < g.big[2];
                fn(in ? ((n * g.cbig + ch) * g.big[1] + i1) * g.big[2] + i2 : int64_t{-1});
              }
  };
  if (c.kind == "im2col") {  // exact: out[n, (c, kh, kw), l] = padded input at the window position
    std::vector<double> want;
    const auto xs = p.input->values();
    each_column_entry([&](int64_t at) { want.push_back(at >= 0 ? xs[static_cast<size_t>(at)] : 0.0); });
    EXPECT_EQ(p.output->values(), want);
    EXPECT_TRUE(p.output->untouched_outside_view());
    return;
  }
  if (c.kind == "im2col_backward") {  // the adjoint of im2col: each column entry added at its position
    refs::ConvRefOut r;
    r.value.assign(static_cast<size_t>(g.n * g.cbig * g.big[1] * g.big[2]), 0.0);
    r.magnitude = r.value;
    const auto cols = p.grad_output->values();
    size_t k = 0;
    each_column_entry([&](int64_t at) {
      const double v = cols[k++];
      if (at < 0) return;
      r.value[static_cast<size_t>(at)] += v;
      r.magnitude[static_cast<size_t>(at)] += std::fabs(v);
    });
    compare(p.output, r, "out");
    return;
  }
  if (c.kind == "convolution" || c.kind == "depthwise2d" || c.kind == "tbc") {
    if (!p.transposed) {
      refs::ConvRefOut r = refs::conv_ref_small(g, x, w, bias);
      if (tbc) {
        r.value = ncl_to_tbc(r.value, g.small[2], g.n, g.csmall);
        r.magnitude = ncl_to_tbc(r.magnitude, g.small[2], g.n, g.csmall);
      }
      compare(p.output, r, "output");
    } else {
      compare(p.output, refs::conv_ref_big(g, x, w, bias), "output");
    }
    return;
  }
  // Backward: gradOutput is on the small side of a convolution, the big side of a transposed one.
  std::vector<double> dy = p.grad_output->values();
  if (tbc) dy = tbc_to_ncl(dy, g.small[2], g.n, g.csmall);
  if (p.grad_input) {
    refs::ConvRefOut r = p.transposed ? refs::conv_ref_small(g, dy, w, {}) : refs::conv_ref_big(g, dy, w, {});
    if (tbc) {
      r.value = ncl_to_tbc(r.value, g.big[2], g.n, g.cbig);
      r.magnitude = ncl_to_tbc(r.magnitude, g.big[2], g.n, g.cbig);
    }
    compare(p.grad_input, r, "gradInput");
  }
  if (p.grad_weight) {
    refs::ConvRefOut r = p.transposed ? refs::conv_ref_weight(g, x, dy) : refs::conv_ref_weight(g, dy, x);
    if (tbc) {
      r.value = oik_to_kio(r.value, g.k[2], g.cbig, g.csmall);
      r.magnitude = oik_to_kio(r.magnitude, g.k[2], g.cbig, g.csmall);
    }
    compare(p.grad_weight, r, "gradWeight");
  }
  if (p.grad_bias) {
    const int64_t cout = p.grad_bias->numel();
    const int64_t per = static_cast<int64_t>(dy.size()) / (g.n * cout);
    refs::ConvRefOut r;
    r.value.assign(static_cast<size_t>(cout), 0.0);
    r.magnitude = r.value;
    for (int64_t n = 0; n < g.n; ++n)
      for (int64_t ch = 0; ch < cout; ++ch)
        for (int64_t i = 0; i < per; ++i) {
          const double v = dy[static_cast<size_t>((n * cout + ch) * per + i)];
          r.value[static_cast<size_t>(ch)] += v;
          r.magnitude[static_cast<size_t>(ch)] += std::fabs(v);
        }
    compare(p.grad_bias, r, "gradBias");
  }
}

std::string describe(const Problem &p) {
  std::ostringstream os;
  const auto &g = p.g;
  os << "n " << g.n << " cbig " << g.cbig << " csmall " << g.csmall << " groups " << g.groups << " big "
     << ::testing::PrintToString(p.big_sp()) << " small " << ::testing::PrintToString(p.small_sp()) << " k "
     << ::testing::PrintToString(p.k) << " s " << ::testing::PrintToString(p.s) << " p "
     << ::testing::PrintToString(p.p) << " d " << ::testing::PrintToString(p.d) << " op "
     << ::testing::PrintToString(p.op) << " bias " << p.with_bias << " mask " << p.mask[0] << p.mask[1] << p.mask[2];
  return os.str();
}

// A column budget of a few hundred bytes: many column tiles, with a shorter last one.
struct SmallColumnTiles {
  SmallColumnTiles() { setenv("OPSNN_CONV_COLUMN_BYTES", "600", 1); }
  ~SmallColumnTiles() { unsetenv("OPSNN_CONV_COLUMN_BYTES"); }
};

class OpTableConv : public ::testing::TestWithParam<ConvTableCase> {};
class OpTableConvForward : public OpTableConv {};  // the forward convolutions only (no skipped cases)

TEST_P(OpTableConv, EveryDtypeRandomGeometry) {
  reseed_for_current_test();
  const ConvTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes) {
    for (int t = 0; t < 8; ++t) {
      auto p = make_problem(c, dt, t % 3 == 2 ? 2 : 0, Layout::kContiguous, Layout::kContiguous);
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " " << describe(*p));
      check_problem(c, *p);
    }
  }
}

TEST_P(OpTableConv, EachImplementation) {  // 1x1 GEMM, depthwise, several column tiles
  reseed_for_current_test();
  const ConvTableCase &c = GetParam();
  for (int shape_kind : {1, 2, 3}) {
    auto p = make_problem(c, ACL_FLOAT, shape_kind, Layout::kContiguous, Layout::kContiguous);
    SCOPED_TRACE(::testing::Message() << c.name << " shape kind " << shape_kind << " " << describe(*p));
    if (shape_kind == 3) {
      SmallColumnTiles tiles;
      check_problem(c, *p);
    } else {
      check_problem(c, *p);
    }
  }
}

// The direct depthwise kernel's column split: rows read in place with whole vectors over the
// interior columns (the last one overlapping), the border columns one by one, the zero-padded
// phase-split plane for strides > 1, other dtypes and strided rows; widths below, at and around
// the vector widths (4 / 8 / 16), odd widths, stride 2, dilation, even and wide kernels, channel
// multipliers, batches, channels-last and row-padded views, every dtype.
TEST_P(OpTableConvForward, DepthwiseRows) {
  reseed_for_current_test();
  const ConvTableCase &c = GetParam();
  const DepthwiseGeom geoms[] = {
      // n, c, mult, h, w, kh, kw, sh, sw, ph, pw, dh, dw
      {1, 3, 1, 5, 1, 3, 3, 1, 1, 1, 1, 1, 1},     {1, 2, 1, 4, 5, 3, 3, 1, 1, 1, 1, 1, 1},
      {1, 2, 1, 3, 15, 3, 3, 1, 1, 1, 1, 1, 1},    {1, 2, 1, 3, 16, 3, 3, 1, 1, 1, 1, 1, 1},
      {1, 2, 1, 3, 17, 3, 3, 1, 1, 1, 1, 1, 1},    {1, 2, 1, 3, 18, 3, 3, 1, 1, 1, 1, 1, 1},
      {2, 3, 1, 4, 31, 3, 3, 1, 1, 1, 1, 1, 1},    {1, 2, 1, 3, 33, 3, 3, 1, 1, 1, 1, 1, 1},
      {1, 2, 1, 5, 47, 3, 3, 1, 1, 0, 0, 1, 1},    {1, 2, 1, 4, 64, 3, 3, 1, 1, 1, 1, 1, 1},
      {1, 2, 1, 6, 113, 3, 3, 1, 1, 1, 1, 1, 1},   {1, 2, 2, 5, 40, 3, 3, 1, 1, 1, 1, 1, 1},
      {2, 2, 3, 4, 37, 3, 3, 1, 1, 2, 2, 1, 1},    {1, 2, 1, 7, 40, 3, 3, 1, 1, 2, 2, 2, 2},
      {1, 2, 1, 7, 41, 3, 3, 2, 2, 1, 1, 1, 1},    {1, 2, 1, 8, 64, 3, 3, 2, 2, 1, 1, 1, 1},
      {2, 2, 1, 5, 33, 3, 3, 2, 2, 0, 1, 1, 1},    {1, 2, 1, 6, 50, 3, 3, 3, 3, 1, 1, 1, 1},
      {1, 2, 2, 6, 45, 5, 5, 1, 1, 2, 2, 1, 1},    {1, 2, 1, 5, 36, 2, 2, 1, 1, 0, 0, 1, 1},
      {1, 2, 1, 6, 40, 4, 4, 1, 1, 1, 1, 1, 1},    {1, 2, 1, 5, 40, 3, 1, 1, 1, 1, 0, 1, 1},
      {1, 2, 1, 5, 40, 1, 3, 1, 1, 0, 1, 1, 1},    {1, 2, 1, 9, 35, 3, 3, 2, 1, 1, 1, 2, 1},
      {1, 2, 1, 5, 20, 3, 3, 1, 2, 1, 2, 1, 2},    {1, 2, 1, 3, 21, 3, 7, 1, 1, 1, 3, 1, 1},
      {1, 2, 1, 3, 70, 3, 9, 1, 1, 1, 8, 1, 2},
  };
  for (const DepthwiseGeom &f : geoms) {
    for (int variant = 0; variant < 11; ++variant) {
      // 0: contiguous FLOAT; 1: row-padded input, channels-last output; 2: channels-last input;
      // 3: contiguous in the op's last dtype (FLOAT16 / BF16 where it has them); 4: channels-last
      // input and output (depthwise_nhwc when the multiplier is 1); 5: the same with 19 channels
      // (whole channel vectors and a scalar tail); 6..9: with 32 / 16 / 8 / 4 channels (one or two
      // vectors of every unit: four interior pixels at a time); 10: 64 channels (four AVX-512
      // vectors: several pixels at a time).
      const Layout in = variant == 1   ? Layout::kPaddedRows
                        : variant == 2 || variant >= 4 ? Layout::kChannelsLast
                                                       : Layout::kContiguous;
      const Layout out = variant == 1 || variant >= 4 ? Layout::kChannelsLast : Layout::kContiguous;
      const aclDataType dt = variant == 3 ? c.dtypes.back() : ACL_FLOAT;
      DepthwiseGeom fv = f;
      if (variant == 5) fv.c = 19;
      if (variant >= 6) fv.c = variant == 10 ? 64 : int64_t{32} >> (variant - 6);
      g_fixed_depthwise = &fv;
      auto p = make_problem(c, dt, 0, in, out);
      g_fixed_depthwise = nullptr;
      SCOPED_TRACE(::testing::Message() << c.name << " variant " << variant << " dtype " << dt << " " << describe(*p));
      check_problem(c, *p);
    }
  }
}

TEST_P(OpTableConv, StridedViews) {
  reseed_for_current_test();
  const ConvTableCase &c = GetParam();
  for (int t = 0; t < 6; ++t) {
    const Layout in = t % 2 == 0 ? Layout::kChannelsLast : Layout::kPaddedRows;
    const Layout out = t % 3 == 0 ? Layout::kChannelsLast : Layout::kPaddedRows;
    auto p = make_problem(c, t < 3 ? ACL_FLOAT : c.dtypes.back(), t % 3, in, out);
    SCOPED_TRACE(::testing::Message() << c.name << " layouts " << static_cast<int>(in) << "/" << static_cast<int>(out)
                                      << " " << describe(*p));
    SmallColumnTiles tiles;
    check_problem(c, *p);
  }
}

TEST_P(OpTableConv, ErrorsNameTheArgument) {
  reseed_for_current_test();
  const ConvTableCase &c = GetParam();
  const aclDataType dt = c.dtypes.front();
  auto p = make_problem(c, dt, 0, Layout::kContiguous, Layout::kContiguous);
  const char *api = c.api.c_str();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto fails = [&](const ConvArgs &a, int code, std::initializer_list<const char *> words) {
    return fails_with(c.phase1(a, &ws, &ex), code, words);
  };
  // Null tensors and arrays: 161001 naming them.
  for (const char *role : {"input", "weight", "output", "grad_output"}) {
    if (!c.has(role)) continue;
    ConvArgs a = args_of(c, *p);
    if (std::string(role) == "input") a.input = nullptr;
    if (std::string(role) == "weight") a.weight = nullptr;
    if (std::string(role) == "output") a.output = nullptr;
    if (std::string(role) == "grad_output") a.grad_output = nullptr;
    const std::string name = c.name_of(role);
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_NULLPTR, {api, name.c_str()})) << role;
  }
  if (c.has("stride")) {
    ConvArgs a = args_of(c, *p);
    a.stride = nullptr;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_NULLPTR, {api, "stride"}));
  }
  const std::string in_name = c.name_of("input");
  if (c.kind == "tbc" || c.kind == "tbc_backward") {
    ConvArgs a = args_of(c, *p);
    a.pad = -1;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "pad"}));
  } else {
    IntArray neg(std::vector<int64_t>(p->p.size(), -1)), zero(std::vector<int64_t>(p->p.size(), 0));
    ConvArgs a = args_of(c, *p);
    a.padding = neg.a;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "padding"}));
    a = args_of(c, *p);
    a.stride = zero.a;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "stride"}));
    a = args_of(c, *p);
    a.dilation = zero.a;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "dilation"}));
    IntArray huge(std::vector<int64_t>(p->p.size(), int64_t{1} << 40));
    a = args_of(c, *p);
    a.padding = huge.a;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "padding", "2^31"}));
    IntArray three({1, 1, 1, 1});
    a = args_of(c, *p);
    a.stride = three.a;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "stride"}));
  }
  if (c.kind == "convolution" || c.kind == "convolution_backward") {
    ConvArgs a = args_of(c, *p);
    a.groups = p->g.groups + 7;  // does not divide the channels
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "groups"}));
    a.groups = 0;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "groups"}));
    if (!p->transposed) {  // a kernel larger than the padded input
      IntArray big_dil(std::vector<int64_t>(p->d.size(), 1000));
      a = args_of(c, *p);
      a.dilation = big_dil.a;
      bool any_k = false;
      for (int64_t k : p->k) any_k |= k > 1;
      if (any_k) EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "kernel"}));
    } else {  // output padding not smaller than stride or dilation
      IntArray big_op(std::vector<int64_t>(p->op.size(), 9));
      a = args_of(c, *p);
      a.output_padding = big_op.a;
      EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "outputPadding"}));
    }
  }
  if (c.kind == "convolution" || c.kind == "depthwise2d" || c.kind == "tbc" || c.kind == "im2col" ||
      c.kind == "im2col_backward") {
    DeviceTensor bad({97}, dt);
    ConvArgs a = args_of(c, *p);
    a.output = bad;
    const std::string out = c.name_of("output");
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, out.c_str(), "[97]"}));
  }
  if (c.has("weight")) {  // a weight whose channels do not match
    std::vector<int64_t> ws_shape = p->weight->shape();
    ws_shape[c.kind == "tbc" || c.kind == "tbc_backward" ? 1 : (p->transposed ? 0 : 1)] += 1;
    if (c.kind == "depthwise2d") ws_shape = {p->weight->shape()[0] + 1, 1, ws_shape[2], ws_shape[3]};
    DeviceTensor bad(ws_shape, dt);
    ConvArgs a = args_of(c, *p);
    a.weight = bad;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "weight"}));
  }
  if (c.has("cube_math_type")) {
    ConvArgs a = args_of(c, *p);
    a.cube_math_type = 9;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "cubeMathType"}));
  }
  for (aclDataType bad : {ACL_INT8, ACL_INT32, ACL_DOUBLE, ACL_BOOL}) {
    SCOPED_TRACE(::testing::Message() << "dtype " << bad);
    const bool cols_in = c.kind == "im2col_backward";  // its input is gradOutput
    DeviceTensor b((cols_in ? p->grad_output : p->input)->shape(), bad);
    ConvArgs a = args_of(c, *p);
    (cols_in ? a.grad_output : a.input) = b;
    const std::string name = cols_in ? c.name_of("grad_output") : in_name;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, name.c_str(), "dtype"}));
  }
  if (c.kind == "im2col_backward") {  // inputSize: null, wrong length, not positive, not gradOutput's windows
    ConvArgs a = args_of(c, *p);
    a.input_size = nullptr;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_NULLPTR, {api, "inputSize"}));
    IntArray three({p->g.big[1], p->g.big[2], 1}), zero({0, p->g.big[2]}), other({p->g.big[1] + 7, p->g.big[2]});
    a.input_size = three.a;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "inputSize"}));
    a.input_size = zero.a;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "inputSize"}));
    a.input_size = other.a;
    const std::string go = c.name_of("grad_output");
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, go.c_str()}));
  }
  if (c.kind == "convolution_backward") {  // the outputMask's tensors
    bool all[3] = {true, true, true};
    aclBoolArray *m = aclCreateBoolArray(all, 3);
    ConvArgs a = args_of(c, *p);
    a.output_mask = m;
    a.grad_input = nullptr;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_NULLPTR, {api, "gradInput"}));
    a.output_mask = nullptr;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_NULLPTR, {api, "outputMask"}));
    aclDestroyBoolArray(m);
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableConv, ::testing::ValuesIn(all_cases()), harness::case_name<ConvTableCase>);
std::vector<ConvTableCase> forward_cases() {
  std::vector<ConvTableCase> v;
  for (const ConvTableCase &c : all_cases())
    if ((c.kind == "convolution" && !c.transposed) || c.kind == "depthwise2d") v.push_back(c);
  return v;
}
INSTANTIATE_TEST_SUITE_P(Tables, OpTableConvForward, ::testing::ValuesIn(forward_cases()),
                         harness::case_name<ConvTableCase>);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTableConvForward);  // (a sampled run may have none)

// ---- Specific cases the table harness does not express ----

// An NHWC / NDHWC descriptor over a DeviceTensor whose dims are already in that order.
aclTensor *with_format(const DeviceTensor &t, aclFormat f) {
  const int64_t storage = t.numel();
  return aclCreateTensor(t.shape().data(), t.shape().size(), t.dtype(), t.strides().data(), 0, f, &storage, 1,
                         t.data());
}

// [N, spatial..., C] values -> [N, C, spatial...]
std::vector<double> channels_last_to_first(const std::vector<double> &v, int64_t n, int64_t c, int64_t sp) {
  std::vector<double> r(v.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t x = 0; x < sp; ++x)
      for (int64_t ch = 0; ch < c; ++ch) r[static_cast<size_t>((i * c + ch) * sp + x)] = v[static_cast<size_t>((i * sp + x) * c + ch)];
  return r;
}

// ---- The direct channels-last kernel (direct_nhwc) ----

// The path phase 1 chose for a Convolution call, from its verbose line ("impl=...").
std::string chosen_path(const std::function<int(uint64_t *, aclOpExecutor **)> &phase1) {
  std::vector<std::string> lines;
  core::set_verbose_for_testing(true, &lines);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  const int rc = phase1(&ws, &ex);
  core::set_verbose_for_testing(false, nullptr);
  if (rc != 0) return "phase 1 failed";
  aclDestroyAclOpExecutor(ex);
  for (const std::string &l : lines) {
    const size_t at = l.find(",impl=");
    if (at != std::string::npos) return l.substr(at + 6, l.find(',', at + 6) - (at + 6));
  }
  return "no verbose line";
}

// The tier name the direct kernels take under the current OPSNN_MAX_ISA cap.
const char *expected_tier() {
  const core::Isa best = core::cpu_features().best;
#if defined(__x86_64__)
  if (best >= core::Isa::kAvx512) return "avx512";
  if (best >= core::Isa::kAvx2) return "avx2";
#endif
  (void)best;
  return "portable";
}

// One channels-last convolution: [N, spatial..., C] tensors (ACL_FORMAT_NHWC / NDHWC), the weight
// contiguous [C_out, C_in / groups, k...] or channels-last too.
struct DirectCase {
  refs::ConvRefGeom g;
  int nsp = 2;
  bool bias = true, weight_channels_last = false;
  bool in_channels_first = false, out_channels_first = false;  // plain NCHW / NCDHW instead (direct_nchw)
  std::string expect_path;  // the path phase 1 should choose when path()'s rules do not say it
  bool unit() const {  // 1x1, stride 1, unpadded
    for (int j = 0; j < 3; ++j)
      if (g.k[j] != 1 || g.s[j] != 1 || g.p[j] != 0) return false;
    return true;
  }
  // The Winograd tile phase 1 takes ("" none): 2-D 3x3 stride 1 dilation 1 groups 1, forced by
  // OPSNN_CONV_WINOGRAD or by the measured rule (16+ channels each side, 48+ output tiles over the
  // batch, 48+ of them per GEMM block of 2 MiB of planes; F(4x4) up to 128 input channels, F(2x2)
  // above).
  std::string winograd_tile() const {
    if (g.groups != 1 || g.big[0] != 1 || g.k[0] != 1 || g.p[0] != 0) return "";
    for (int j = 1; j < 3; ++j)
      if (g.k[j] != 3 || g.s[j] != 1 || g.d[j] != 1) return "";
    const char *env = std::getenv("OPSNN_CONV_WINOGRAD");
    const std::string forced = env != nullptr ? env : "";
    if (forced == "off") return "";
    if (forced == "f2" || forced == "f4") return forced + "x" + forced.substr(1);
    if (g.cbig < 16 || g.csmall < 16) return "";
    const int64_t m = g.cbig <= 128 ? 4 : 2;
    const int64_t tiles = g.n * ((g.small[1] + m - 1) / m) * ((g.small[2] + m - 1) / m);
    if (tiles < 48) return "";
    const int64_t fit = (int64_t{2} << 20) / ((m + 2) * (m + 2) * (g.cbig + g.csmall) * 4);
    if (std::min(tiles, std::max<int64_t>(12, fit / 12 * 12)) < 48) return "";
    return m == 4 ? "f4x4" : "f2x2";
  }
  // The start of the path phase 1 should choose: the direct kernel in the tier the cap allows; a
  // channels-first 1x1 stays with gemm_1x1 (faster there); up to 8 input channels (not 1x1) take
  // the pixel-vectorised small_cin kernel (these shapes' planes are far below its budget).
  std::string path() const {
    if (!expect_path.empty()) return expect_path;
    const bool first = in_channels_first || out_channels_first;
    const char *rows_env = std::getenv("OPSNN_CONV_DIRECT_ROWS");  // "on": direct_rows wherever it applies
    if (rows_env != nullptr && std::string(rows_env) == "on" && g.groups == 1 && g.cbig <= 4 && g.k[0] == 1 &&
        g.p[0] == 0 && g.d[2] == 1 && g.k[2] * g.cbig <= 64 && (g.k[1] - 1) * g.d[1] + 1 <= 64 && !unit())
    {
      // Channels-first outputs (unit pixel stride here) take the pixel-vectorised variant unless
      // OPSNN_CONV_DIRECT_ROWS_NCHW=off (one output pixel: channel stride 1, read as channels-last).
      const char *nchw_env = std::getenv("OPSNN_CONV_DIRECT_ROWS_NCHW");
      const bool nchw = out_channels_first && g.small[0] * g.small[1] * g.small[2] > 1 &&
                        !(nchw_env != nullptr && std::string(nchw_env) == "off");
      return std::string("conv:forward/") + (nchw ? "direct_rows_nchw" : "direct_rows") + ";conv:direct_rows/" +
             expected_tier();
    }
    if (g.groups > 1 && g.groups == g.cbig && nsp <= 2 && first) {  // depthwise, not channels-last on both sides
      const char *s1_env = std::getenv("OPSNN_CONV_DW_IN_PLACE");  // "off": depthwise_row_groups
      const bool s1_off = s1_env != nullptr && std::string(s1_env) == "off";
      if (!s1_off && g.big[0] == 1 && g.k[1] == 3 && g.k[2] == 3 && g.d[1] == 1 && g.d[2] == 1 && g.s[1] == g.s[2] &&
          (g.s[2] == 1 ? g.p[2] <= 1 : g.s[2] == 2 && g.p[2] == 1) && (in_channels_first || g.cbig == 1) && out_channels_first &&
          g.small[2] >= 16)
        return std::string("conv:forward/depthwise_in_place;conv:depthwise/") + expected_tier();
      const char *groups_env = std::getenv("OPSNN_CONV_DW_ROW_GROUPS");  // "off": depthwise_rows
      const bool groups_off = groups_env != nullptr && std::string(groups_env) == "off";
      if (!groups_off && g.k[1] == 3 && g.k[2] == 3 && g.d[1] == 1 && g.d[2] == 1 && g.s[1] <= 2 &&
          out_channels_first && g.small[2] >= 16)
        return std::string("conv:forward/depthwise_row_groups;conv:depthwise/") + expected_tier();
      return std::string("conv:forward/depthwise_rows;conv:depthwise/") + expected_tier();
    }
    if (g.groups > 1 && g.groups == g.cbig && g.csmall == g.cbig && g.k[0] * g.k[1] <= 64)  // channels-last
      return std::string("conv:forward/depthwise_nhwc;conv:depthwise/") + expected_tier();
    if (first && unit()) {  // both channels-first here: the pointwise kernel from a strip of pixels on
      const int64_t pixels = g.small[0] * g.small[1] * g.small[2];
      return pixels < 48 ? "conv:forward/gemm_1x1;"
                         : std::string("conv:forward/pointwise_nchw;conv:pointwise/") + expected_tier();
    }
    if (!unit() && g.groups == 1 && g.cbig <= 8) return std::string("conv:forward/small_cin;conv:small/") + expected_tier();
    const std::string wino = winograd_tile();
    if (!wino.empty())
      return std::string("conv:forward/winograd;conv:winograd/") + expected_tier() + ";conv:winograd/" + wino;
    return std::string("conv:forward/") + (first ? "direct_nchw" : "direct_nhwc") + ";conv:direct/" + expected_tier();
  }
};

std::string describe(const DirectCase &c) {
  std::ostringstream os;
  const auto &g = c.g;
  os << "n " << g.n << " cin " << g.cbig << " cout " << g.csmall << " big " << g.big[0] << "x" << g.big[1] << "x"
     << g.big[2] << " k " << g.k[0] << "x" << g.k[1] << "x" << g.k[2] << " s " << g.s[0] << "," << g.s[1] << ","
     << g.s[2] << " p " << g.p[0] << "," << g.p[1] << "," << g.p[2] << " d " << g.d[0] << "," << g.d[1] << ","
     << g.d[2] << " bias " << c.bias << " weight channels-last " << c.weight_channels_last << " channels-first in "
     << c.in_channels_first << " out " << c.out_channels_first;
  return os.str();
}

// The tensors of a DirectCase, their descriptors and the phase 1 of aclnnConvolution over them.
struct DirectCall {
  DirectCase c;
  std::unique_ptr<DeviceTensor> x, w, b, y;
  aclTensor *xt = nullptr, *wt = nullptr, *yt = nullptr;
  std::unique_ptr<IntArray> s, p, d, op;
  int64_t bsp = 1, ssp = 1, kp = 1;
  explicit DirectCall(const DirectCase &dc) : c(dc) {
    const refs::ConvRefGeom &g = c.g;
    std::vector<int64_t> xs{g.n}, ws{g.csmall}, ys{g.n}, wk, sv, pv, dv, ov;
    if (c.in_channels_first) xs.push_back(g.cbig);
    if (c.out_channels_first) ys.push_back(g.csmall);
    for (int j = 3 - c.nsp; j < 3; ++j) {
      xs.push_back(g.big[j]);
      ys.push_back(g.small[j]);
      wk.push_back(g.k[j]);
      sv.push_back(g.s[j]);
      pv.push_back(g.p[j]);
      dv.push_back(g.d[j]);
      ov.push_back(0);
      bsp *= g.big[j];
      ssp *= g.small[j];
      kp *= g.k[j];
    }
    if (!c.in_channels_first) xs.push_back(g.cbig);
    if (!c.out_channels_first) ys.push_back(g.csmall);
    if (c.weight_channels_last) {
      ws.insert(ws.end(), wk.begin(), wk.end());
      ws.push_back(g.cbig / g.groups);
    } else {
      ws.push_back(g.cbig / g.groups);
      ws.insert(ws.end(), wk.begin(), wk.end());
    }
    const aclFormat f = c.nsp == 2 ? ACL_FORMAT_NHWC : ACL_FORMAT_NDHWC;
    x = std::make_unique<DeviceTensor>(xs, ACL_FLOAT);
    w = std::make_unique<DeviceTensor>(ws, ACL_FLOAT);
    y = std::make_unique<DeviceTensor>(ys, ACL_FLOAT);
    x->fill_random(-2, 2);
    w->fill_random(-1, 1);
    y->poison();
    if (c.bias) {
      b = std::make_unique<DeviceTensor>(std::vector<int64_t>{g.csmall}, ACL_FLOAT);
      b->fill_random(-1, 1);
    }
    xt = c.in_channels_first ? static_cast<aclTensor *>(*x) : with_format(*x, f);
    wt = c.weight_channels_last ? with_format(*w, f) : static_cast<aclTensor *>(*w);
    yt = c.out_channels_first ? static_cast<aclTensor *>(*y) : with_format(*y, f);
    s = std::make_unique<IntArray>(sv);
    p = std::make_unique<IntArray>(pv);
    d = std::make_unique<IntArray>(dv);
    op = std::make_unique<IntArray>(ov);
  }
  ~DirectCall() {
    if (!c.in_channels_first) aclDestroyTensor(xt);
    if (c.weight_channels_last) aclDestroyTensor(wt);
    if (!c.out_channels_first) aclDestroyTensor(yt);
  }
  // The input / output values in the reference's [N, C, spatial] order.
  std::vector<double> input_values() const {
    return c.in_channels_first ? x->values() : channels_last_to_first(x->values(), c.g.n, c.g.cbig, bsp);
  }
  std::vector<double> output_values() const {
    return c.out_channels_first ? y->values() : channels_last_to_first(y->values(), c.g.n, c.g.csmall, ssp);
  }
  int phase1(uint64_t *ws, aclOpExecutor **e) const {
    return aclnnConvolutionGetWorkspaceSize(xt, wt, b ? b->get() : nullptr, s->a, p->a, d->a, false, op->a, c.g.groups,
                                            yt, 0, ws, e);
  }
  // The path phase 1 chose, one launch, the output against the reference, nothing written outside.
  void check() const {
    const std::string path = chosen_path([&](uint64_t *w, aclOpExecutor **e) { return phase1(w, e); });
    EXPECT_EQ(path.rfind(c.path(), 0), 0u) << path;
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return phase1(w, e); }, aclnnConvolution), 0)
        << aclGetRecentErrMsg();
    EXPECT_TRUE(matches());
    EXPECT_TRUE(y->untouched_outside_view());
  }
  // The output against the float64 reference of the current input, weight and bias.
  ::testing::AssertionResult matches() const {
    const refs::ConvRefGeom &g = c.g;
    std::vector<double> wv = w->values();
    if (c.weight_channels_last) wv = channels_last_to_first(wv, g.csmall, g.cbig / g.groups, kp);
    const std::vector<double> bv = b ? b->values() : std::vector<double>(static_cast<size_t>(g.csmall), 0.0);
    const refs::ConvRefOut r = refs::conv_ref_small(g, input_values(), wv, bv);
    return meets_bound(ACL_FLOAT, output_values(), r);
  }
};

// A DirectCall's phase 1 as a repeatable executor with its workspace (both freed on scope exit).
struct RepeatableConv {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  void *wsp = nullptr;
  int rc = 0;
  explicit RepeatableConv(const DirectCall &call) {
    rc = call.phase1(&ws, &ex);
    if (rc == 0) rc = aclSetAclOpExecutorRepeatable(ex);
    if (rc == 0 && ws != 0) rc = aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST);
  }
  ~RepeatableConv() {
    if (ex != nullptr) aclDestroyAclOpExecutor(ex);
    if (wsp != nullptr) aclrtFree(wsp);
  }
  int launch() const { return aclnnConvolution(wsp, ws, ex, nullptr); }
};

TEST(ConvFormats, ChannelsLastFormatsReadTheirDimsInThatOrder) {
  reseed_for_current_test();
  for (int nsp : {2, 3}) {  // grouped (im2col_gemm), the weight in the same format
    DirectCase dc;
    dc.nsp = nsp;
    dc.weight_channels_last = true;
    refs::ConvRefGeom &g = dc.g;
    g.n = 2;
    g.cbig = 6;
    g.csmall = 4;
    g.groups = 2;
    for (int j = 3 - nsp; j < 3; ++j) {
      g.big[j] = 5 + j;
      g.k[j] = 3;
      g.p[j] = 1;
      g.s[j] = j == 2 ? 2 : 1;
      g.small[j] = (g.big[j] + 2 * g.p[j] - g.k[j]) / g.s[j] + 1;
    }
    DirectCall call(dc);
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return call.phase1(w, e); }, aclnnConvolution), 0)
        << aclGetRecentErrMsg();
    EXPECT_TRUE(call.matches()) << nsp;
  }
}

// A random geometry: channel counts 1, odd and multiples of 16 (one to seven 16-channel blocks:
// every block group of every unit), kernels 1..7 per dim, strides 1..3, dilations 1..2, padding
// 0..3 per dim (different per dim; the right side's is partly unused when the stride does not
// divide), widths below and above every unit's pixel tile, batch 1 and 3.
DirectCase random_direct_case(int nsp) {
  static const int64_t kChannels[] = {1, 3, 7, 16, 19, 32, 48};
  static const int64_t kOutChannels[] = {1, 5, 16, 17, 33, 48, 64, 80, 96, 112};
  DirectCase c;
  c.nsp = nsp;
  refs::ConvRefGeom &g = c.g;
  g.n = rng()() % 3 == 0 ? 3 : 1;
  g.cbig = kChannels[rng()() % 7];
  g.csmall = kOutChannels[rng()() % 10];
  for (int j = 3 - nsp; j < 3; ++j) {
    const bool inner = j == 2;
    g.k[j] = nsp == 3 ? rnd(1, 3) : rnd(1, 7);
    g.s[j] = rnd(1, 3);
    g.d[j] = rnd(1, 2);
    g.p[j] = rnd(0, 3);
    const int64_t span = g.d[j] * (g.k[j] - 1) + 1;
    g.big[j] = std::max<int64_t>(1, span - 2 * g.p[j]) + (inner ? rnd(0, 40) : rnd(0, nsp == 3 ? 2 : 5));
    g.small[j] = (g.big[j] + 2 * g.p[j] - span) / g.s[j] + 1;
  }
  c.bias = rng()() % 4 != 0;
  c.weight_channels_last = rng()() % 3 == 0;
  // A third plain channels-first (direct_nchw; the output takes the input's format).
  if (rng()() % 3 == 0) c.in_channels_first = c.out_channels_first = true;
  return c;
}

// Every ISA tier this machine runs, best first (the caps OPSNN_MAX_ISA accepts).
std::vector<const char *> direct_tiers() {
  std::vector<const char *> caps{nullptr};
#if defined(__x86_64__)
  if (core::cpu_features().detected >= core::Isa::kAvx512) caps.push_back("avx2");
  if (core::cpu_features().detected >= core::Isa::kAvx2) caps.push_back("portable");
#endif
  return caps;
}

// A phase-1 environment variable for a scope (null: unset); the cached plans chosen under the
// previous value are dropped both ways.
struct ScopedPlanEnv {
  const char *name;
  bool had = false;
  std::string old;
  ScopedPlanEnv(const char *n, const char *v) : name(n) {
    const char *o = std::getenv(name);
    had = o != nullptr;
    if (had) old = o;
    set(v);
  }
  ~ScopedPlanEnv() { set(had ? old.c_str() : nullptr); }
  void set(const char *v) const {
    if (v != nullptr)
      setenv(name, v, 1);
    else
      unsetenv(name);
    core::bump_plan_epoch();
  }
};
struct WinogradEnv : ScopedPlanEnv {
  explicit WinogradEnv(const char *v) : ScopedPlanEnv("OPSNN_CONV_WINOGRAD", v) {}
};
struct DwRowGroupsEnv : ScopedPlanEnv {
  explicit DwRowGroupsEnv(const char *v) : ScopedPlanEnv("OPSNN_CONV_DW_ROW_GROUPS", v) {}
};
struct DwInPlaceEnv : ScopedPlanEnv {
  explicit DwInPlaceEnv(const char *v) : ScopedPlanEnv("OPSNN_CONV_DW_IN_PLACE", v) {}
};
struct DirectRowsEnv : ScopedPlanEnv {
  explicit DirectRowsEnv(const char *v) : ScopedPlanEnv("OPSNN_CONV_DIRECT_ROWS", v) {}
};
struct DwStreamEnv : ScopedPlanEnv {
  explicit DwStreamEnv(const char *v) : ScopedPlanEnv("OPSNN_CONV_DW_STREAM", v) {}
};
struct DirectRowsNchwEnv : ScopedPlanEnv {
  explicit DirectRowsNchwEnv(const char *v) : ScopedPlanEnv("OPSNN_CONV_DIRECT_ROWS_NCHW", v) {}
};

// Restores the process's OPSNN_MAX_ISA / OPSNN_KERNELS on scope exit.
struct KernelEnvRestore {
  ~KernelEnvRestore() { core::reset_kernel_env_for_testing(std::getenv("OPSNN_MAX_ISA"), std::getenv("OPSNN_KERNELS")); }
};

TEST(ConvDirectNhwc, RandomGeometriesInEveryIsaTier) {
  reseed_for_current_test();
  KernelEnvRestore restore;
  WinogradEnv direct("off");
  for (const char *cap : direct_tiers()) {
    core::reset_kernel_env_for_testing(cap, nullptr);
    for (int t = 0; t < 48; ++t) {
      const DirectCase dc = random_direct_case(t % 8 == 7 ? 3 : 2);
      SCOPED_TRACE(::testing::Message() << "OPSNN_MAX_ISA=" << (cap ? cap : "-") << " " << describe(dc));
      DirectCall(dc).check();
    }
  }
}

// A 2-D case: kernel kh x kw, stride s along both dims, padding ph / pw, a bias, channels-last.
DirectCase fixed_2d_case(int64_t n, int64_t cin, int64_t cout, int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t s,
                         int64_t ph, int64_t pw) {
  DirectCase dc;
  dc.g.n = n;
  dc.g.cbig = cin;
  dc.g.csmall = cout;
  dc.g.big[1] = h, dc.g.big[2] = w;
  dc.g.k[1] = kh, dc.g.k[2] = kw;
  dc.g.p[1] = ph, dc.g.p[2] = pw;
  for (int j = 1; j < 3; ++j) {
    dc.g.s[j] = s;
    dc.g.small[j] = (dc.g.big[j] + 2 * dc.g.p[j] - dc.g.k[j]) / s + 1;
  }
  return dc;
}

// The packed-row kernel (direct_rows) forced on random few-channel geometries in every tier: 1..4
// input channels, output channels off and on the 16-channel blocks and their groups, kernels 1..7,
// strides 1..3, padding 0..3 different per dim, height dilation 1..2 (width dilation 2 and 3-D
// kernels fall back to small_cin: the path is checked), 3-D inputs with a unit depth kernel, batch
// 1 and 3, channels-first or channels-last.
TEST(ConvDirectRows, RandomGeometriesInEveryIsaTier) {
  reseed_for_current_test();
  KernelEnvRestore restore;
  WinogradEnv no_winograd("off");
  DirectRowsEnv forced("on");
  int taken = 0, total = 0;
  for (const char *cap : direct_tiers()) {
    core::reset_kernel_env_for_testing(cap, nullptr);
    for (int t = 0; t < 40; ++t, ++total) {
      DirectCase dc = random_direct_case(t % 8 == 7 ? 3 : 2);
      dc.g.cbig = rnd(1, 4);
      dc.in_channels_first = dc.out_channels_first = rng()() % 2 == 0;
      if (t % 3 != 0) dc.g.d[2] = 1;  // (mostly: width dilation 2 is rejected)
      for (int j = 0; j < 3; ++j) {
        const int64_t span = dc.g.d[j] * (dc.g.k[j] - 1) + 1;
        dc.g.big[j] = std::max(dc.g.big[j], std::max<int64_t>(1, span - 2 * dc.g.p[j]));
        dc.g.small[j] = (dc.g.big[j] + 2 * dc.g.p[j] - span) / dc.g.s[j] + 1;
      }
      SCOPED_TRACE(::testing::Message() << "OPSNN_MAX_ISA=" << (cap ? cap : "-") << " " << describe(dc));
      taken += dc.path().find("direct_rows") != std::string::npos;
      DirectCall(dc).check();
    }
  }
  EXPECT_GT(taken, total / 4);  // many cases reach the kernel (the rest check the fallback); tiers differ by host
  // A stride past a one-column input: the padding is wider than the columns the output reads.
  for (bool channels_first : {false, true}) {
    DirectCase dc = fixed_2d_case(1, 2, 5, 6, 1, 3, 1, 5, 1, 2);
    dc.in_channels_first = dc.out_channels_first = channels_first;
    SCOPED_TRACE(describe(dc));
    DirectCall(dc).check();
  }
}

// Stem-like shapes the measured rule gives direct_rows by itself (small_cin's padded planes past its
// budget): ResNet's 7x7 stride 2 pad 3 (fewer rows, full width), k5 / 5x6
// stride 2 with 1, 2 and 4 channels, different paddings per dim, batch 2; channels-last,
// channels-first (direct_rows_nchw) and channels-first with OPSNN_CONV_DIRECT_ROWS_NCHW=off
// (direct_rows' row buffer and transposes) in every tier.
TEST(ConvDirectRows, StemShapesInEveryIsaTier) {
  reseed_for_current_test();
  KernelEnvRestore restore;
  struct Stem {
    int64_t n, cin, cout, h, w, kh, kw, s, ph, pw;
  };
  const Stem stems[] = {{1, 3, 64, 96, 224, 7, 7, 2, 3, 3}, {2, 3, 24, 100, 230, 7, 7, 2, 3, 2},
                        {1, 1, 16, 260, 260, 5, 5, 2, 2, 1}, {1, 2, 40, 140, 260, 5, 6, 2, 1, 3},
                        {1, 4, 48, 90, 200, 5, 5, 2, 2, 2}};
  for (const char *cap : direct_tiers()) {
    core::reset_kernel_env_for_testing(cap, nullptr);
    for (const Stem &f : stems) {
      DirectCase dc = fixed_2d_case(f.n, f.cin, f.cout, f.h, f.w, f.kh, f.kw, f.s, f.ph, f.pw);
      for (int layout = 0; layout < 3; ++layout) {  // channels-last, channels-first, channels-first old path
        const bool channels_first = layout > 0;
        DirectRowsNchwEnv nchw(layout == 2 ? "off" : nullptr);
        dc.in_channels_first = dc.out_channels_first = channels_first;
        dc.expect_path = std::string("conv:forward/") + (layout == 1 ? "direct_rows_nchw" : "direct_rows") +
                         ";conv:direct_rows/" + expected_tier();
        SCOPED_TRACE(::testing::Message() << "OPSNN_MAX_ISA=" << (cap ? cap : "-") << " layout " << layout << " "
                                          << describe(dc));
        DirectCall(dc).check();
      }
    }
  }
}

// direct_rows_nchw (vectors along the output pixels, stored straight into channels-first planes)
// forced on in every tier: 1..4 input channels, kernels 1..7 (5..7 wide), strides 1..3, paddings
// different per dim, output widths below one vector (through the stage), at and past whole vectors
// and tiles (the last tile overlapping), output channels off the 4-channel tiles, batch 1..3, with
// and without a bias; then random few-channel geometries (channels-first on both sides: the op
// takes the output's layout from the input's).
TEST(ConvDirectRowsNchw, GeometriesInEveryIsaTier) {
  reseed_for_current_test();
  KernelEnvRestore restore;
  WinogradEnv no_winograd("off");
  DirectRowsEnv forced("on");
  struct Fixed {
    int64_t n, cin, cout, h, w, kh, kw, s, ph, pw;
  };
  const Fixed fixed[] = {
      {1, 3, 64, 20, 224, 7, 7, 2, 3, 3},  // the stem's rows: 112 = 7 vectors of 16
      {2, 3, 5, 17, 37, 7, 5, 2, 3, 1},    // width 18: one vector + 2
      {3, 1, 17, 9, 9, 5, 5, 1, 2, 0},     // width 5: below a vector
      {1, 2, 6, 11, 45, 6, 7, 3, 0, 3},    // width 15, stride 3
      {2, 4, 33, 8, 100, 5, 6, 2, 1, 2},   // width 50
      {1, 4, 7, 7, 200, 3, 3, 1, 1, 0},    // width 198: three tiles on AVX-512
      {1, 1, 3, 5, 16, 1, 3, 1, 0, 1},     // width 16
      {1, 2, 64, 9, 230, 7, 7, 2, 2, 3},   // width 115: the last tile overlapping
  };
  for (const char *cap : direct_tiers()) {
    core::reset_kernel_env_for_testing(cap, nullptr);
    for (const Fixed &f : fixed) {
      DirectCase dc = fixed_2d_case(f.n, f.cin, f.cout, f.h, f.w, f.kh, f.kw, f.s, f.ph, f.pw);
      dc.in_channels_first = dc.out_channels_first = true;
      dc.bias = f.cout % 2 == 1;
      dc.expect_path = std::string("conv:forward/direct_rows_nchw;conv:direct_rows/") + expected_tier();
      SCOPED_TRACE(::testing::Message() << "OPSNN_MAX_ISA=" << (cap ? cap : "-") << " " << describe(dc));
      DirectCall(dc).check();
    }
    for (int t = 0; t < 24; ++t) {
      DirectCase dc = random_direct_case(2);
      dc.g.cbig = rnd(1, 4);
      dc.g.d[2] = 1;
      dc.in_channels_first = dc.out_channels_first = true;
      for (int j = 1; j < 3; ++j) {
        const int64_t span = dc.g.d[j] * (dc.g.k[j] - 1) + 1;
        dc.g.big[j] = std::max(dc.g.big[j], std::max<int64_t>(1, span - 2 * dc.g.p[j]));
        dc.g.small[j] = (dc.g.big[j] + 2 * dc.g.p[j] - span) / dc.g.s[j] + 1;
      }
      if (dc.unit()) dc.g.p[2] = 1, dc.g.small[2] += 2;  // (1x1 unpadded stays with the GEMM)
      SCOPED_TRACE(::testing::Message() << "OPSNN_MAX_ISA=" << (cap ? cap : "-") << " " << describe(dc));
      DirectCall(dc).check();
    }
  }
}

// 2-D square-kernel shapes, each channels-last (direct_nhwc) and channels-first (direct_nchw)
// in every tier; with_bias_if_odd_cin: a bias only when C_in is odd (else always one).
struct FixedShape {
  int64_t n, cin, cout, h, w, k, s, p;
};
void check_fixed_shapes(const std::vector<FixedShape> &shapes, bool with_bias_if_odd_cin) {
  KernelEnvRestore restore;
  WinogradEnv direct("off");  // (the direct kernel's shapes: Winograd has its own suite)
  for (const char *cap : direct_tiers()) {
    core::reset_kernel_env_for_testing(cap, nullptr);
    for (const FixedShape &f : shapes) {
      DirectCase dc = fixed_2d_case(f.n, f.cin, f.cout, f.h, f.w, f.k, f.k, f.s, f.p, f.p);
      dc.bias = !with_bias_if_odd_cin || f.cin % 2 == 1;
      for (bool channels_first : {false, true}) {  // direct_nhwc, then direct_nchw
        dc.in_channels_first = dc.out_channels_first = channels_first;
        SCOPED_TRACE(::testing::Message() << "OPSNN_MAX_ISA=" << (cap ? cap : "-") << " " << describe(dc));
        DirectCall(dc).check();
      }
    }
  }
}

// The shapes the tiles are built around (ResNet's 3x3 / 7x7 / 1x1 in small: whole tiles, the
// overlapping last tile, 1..7 channel blocks) in every tier, channels-last and channels-first.
TEST(ConvDirectNhwc, TileShapes) {
  reseed_for_current_test();
  check_fixed_shapes({{1, 16, 64, 9, 30, 3, 1, 1}, {2, 3, 64, 23, 23, 7, 2, 3}, {1, 64, 64, 6, 14, 1, 1, 0},
                      {1, 32, 256, 5, 14, 3, 1, 1}, {1, 17, 40, 4, 57, 3, 1, 1}},
                     false);
}

// The direct kernel's task split and tiling: 1x1 dims flattened into one long row split into
// segments (channel counts off the block, a weight past the L2 size that turns the task order
// group-major), 1x1 that do not flatten (stride 2, padding: edge tiles), rows narrower than a
// tile, rows whose balanced tiles all touch the border, several short rows per task crossing
// images; channels-last and channels-first, in every tier.
TEST(ConvDirectNhwc, TaskSplitsAndEdgeTiles) {
  reseed_for_current_test();
  check_fixed_shapes({{2, 40, 80, 20, 30, 1, 1, 0}, {1, 512, 272, 3, 97, 1, 1, 0}, {1, 21, 35, 9, 11, 1, 2, 0},
                      {2, 19, 33, 5, 9, 1, 1, 1}, {3, 11, 17, 5, 1, 3, 1, 1}, {2, 9, 48, 4, 2, 3, 1, 1},
                      {1, 33, 64, 6, 5, 3, 1, 1}, {1, 24, 70, 14, 14, 3, 1, 1}, {3, 40, 64, 5, 13, 3, 1, 1},
                      {3, 13, 31, 7, 7, 5, 1, 2}, {1, 300, 20, 4, 15, 3, 1, 1}},
                     true);
}

// A weight whose 4-block (64-channel) slice exceeds L2 takes groups of 2 blocks (AVX-512's 12-pixel
// tiles; other tiers' groups are 1 block anyway): output channels 80 (groups 2, 2, 1) and 48 (2, 1),
// rows of 6 pixels, padding, batch 2, channels-last and channels-first in every tier; the choice
// and its reason in the verbose line, and 4 blocks below the bound.
TEST(ConvDirectNhwc, GroupsOfTwoBlocksPastL2) {
  reseed_for_current_test();
  const int64_t l2 = static_cast<int64_t>(core::cpu_features().l2_bytes);
  const int64_t cin = l2 / (64 * 9 * 4) + 7;  // the 64-channel slice of a 3x3 weight just past L2
  check_fixed_shapes({{2, cin, 80, 5, 6, 3, 1, 1}, {1, cin, 48, 4, 7, 3, 1, 1}}, false);
  WinogradEnv direct("off");
  for (const auto &[c, groups] : {std::pair<int64_t, const char *>{cin, "2_blocks"}, {cin / 2, "4_blocks"}}) {
    DirectCall call(fixed_2d_case(1, c, 80, 5, 6, 3, 3, 1, 1, 1));
    const std::string path = chosen_path([&](uint64_t *w, aclOpExecutor **e) { return call.phase1(w, e); });
    EXPECT_NE(path.find(std::string("conv:direct_groups/") + groups), std::string::npos) << path;
  }
  DirectCall past(fixed_2d_case(1, cin, 80, 5, 6, 3, 3, 1, 1, 1));
  std::vector<std::string> lines;
  core::set_verbose_for_testing(true, &lines);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(past.phase1(&ws, &ex), 0);
  core::set_verbose_for_testing(false, nullptr);
  aclDestroyAclOpExecutor(ex);
  std::string all;
  for (const std::string &l : lines) all += l;
  EXPECT_NE(all.find("4_blocks: weight slice of 64 channels"), std::string::npos) << all;
}

// The channels-first pointwise kernel (pointwise_nchw; channels-last: direct_nhwc) in every tier:
// pixel counts at, just past and far from the 48-pixel strip (the last strip moved back), below it
// (gemm_1x1), odd channel counts and output channels off the 8- / 4-channel tile and the 16-channel
// block, one input channel, batch 3, with and without a bias.
TEST(ConvPointwiseNchw, ShapesInEveryIsaTier) {
  reseed_for_current_test();
  check_fixed_shapes({{1, 7, 5, 4, 8, 1, 1, 0}, {3, 1, 9, 3, 11, 1, 1, 0}, {2, 19, 33, 5, 7, 1, 1, 0},
                      {1, 33, 24, 6, 6, 1, 1, 0}, {3, 64, 17, 7, 9, 1, 1, 0}, {1, 130, 40, 13, 13, 1, 1, 0},
                      {2, 16, 16, 2, 16, 1, 1, 0}, {1, 5, 3, 1, 31, 1, 1, 0}, {1, 7, 5, 6, 8, 1, 1, 0},
                      {3, 1, 9, 7, 7, 1, 1, 0}, {2, 19, 33, 5, 19, 1, 1, 0}, {1, 33, 24, 8, 12, 1, 1, 0},
                      {2, 24, 17, 1, 47, 1, 1, 0}},
                     true);
}

// A 2-D depthwise DirectCase (c channels, multiplier mult; [h, w] input, kernel, strides; the same
// padding and dilation on both dims), channels-last on both sides.
DirectCase depthwise_case(int64_t n, int64_t c, int64_t mult, const std::array<int64_t, 2> &big,
                          const std::array<int64_t, 2> &k, const std::array<int64_t, 2> &s, int64_t p, int64_t d) {
  DirectCase dc;
  dc.nsp = 2;
  refs::ConvRefGeom &g = dc.g;
  g.n = n;
  g.cbig = g.groups = c;
  g.csmall = c * mult;
  for (int j = 1; j < 3; ++j) {
    g.big[j] = big[j - 1];
    g.k[j] = k[j - 1];
    g.s[j] = s[j - 1];
    g.p[j] = p;
    g.d[j] = d;
    g.small[j] = (g.big[j] + 2 * p - d * (g.k[j] - 1) - 1) / g.s[j] + 1;
  }
  return dc;
}

// The row-ring depthwise kernel (depthwise_rows) on channels-first inputs in every ISA tier: 3x3 at
// strides 1 and 2 (output rows in pairs, the even / odd column split), odd channel counts and widths,
// widths below, at and past every unit's vector, paddings 0..2, odd input sizes at stride 2, batch
// 3, multipliers 2 and 3, other kernels (1x1, 5x5, 3x1, 1-D), dilation; the verbose path checked.
// (DepthwiseRows above runs it on strided views, channels-last outputs and FLOAT16 / BF16.)
TEST(ConvDepthwiseRows, ChannelsFirstShapesInEveryIsaTier) {
  reseed_for_current_test();
  struct Shape {
    int64_t n, c, mult, h, w, kh, kw, s, p, d;
  };
  const Shape shapes[] = {{1, 3, 1, 7, 7, 3, 3, 1, 1, 1},    {3, 5, 1, 9, 33, 3, 3, 1, 1, 1},
                          {1, 7, 1, 11, 113, 3, 3, 2, 1, 1}, {2, 3, 1, 12, 17, 3, 3, 2, 0, 1},
                          {1, 4, 2, 6, 40, 3, 3, 1, 2, 1},   {1, 3, 1, 8, 16, 3, 3, 2, 1, 1},
                          {1, 2, 1, 10, 29, 5, 5, 1, 2, 1},  {1, 3, 1, 6, 31, 3, 3, 1, 2, 2},
                          {2, 3, 1, 5, 20, 1, 1, 2, 0, 1},   {1, 3, 3, 9, 9, 3, 1, 2, 1, 1},
                          {1, 2, 1, 4, 8, 3, 3, 1, 1, 1},    {1, 2, 1, 3, 2, 3, 3, 1, 1, 1},
                          {2, 5, 1, 13, 57, 3, 3, 1, 1, 1},  {1, 3, 1, 1, 70, 1, 7, 2, 3, 1}};
  KernelEnvRestore restore;
  for (const char *groups : {"off", static_cast<const char *>(nullptr)}) {  // its 3x3 rows, then the default
    DwRowGroupsEnv env(groups);
    DwInPlaceEnv s1_env(groups);  // (depthwise_in_place would take the stride-1 3x3 shapes)
    for (const char *cap : direct_tiers()) {
      core::reset_kernel_env_for_testing(cap, nullptr);
      for (const Shape &f : shapes) {
        DirectCase dc = depthwise_case(f.n, f.c, f.mult, {f.h, f.w}, {f.kh, f.kw}, {f.s, f.s}, f.p, f.d);
        dc.bias = f.c % 2 == 1;
        dc.in_channels_first = dc.out_channels_first = true;
        SCOPED_TRACE(::testing::Message() << "OPSNN_CONV_DW_ROW_GROUPS=" << (groups ? groups : "-")
                                          << " OPSNN_MAX_ISA=" << (cap ? cap : "-") << " mult " << f.mult << " "
                                          << describe(dc));
        DirectCall(dc).check();
      }
    }
  }
}

// A 3x3 depthwise geometry on channels-first input and output: padding and stride per dim.
struct Dw3Shape {
  int64_t n, c, mult, h, w, sh, sw, ph, pw, d;
};
// Each shape in every ISA tier against the float64 reference, the verbose path checked (bias on odd
// channel counts).
void check_dw3_channels_first(const Dw3Shape *shapes, size_t count) {
  KernelEnvRestore restore;
  for (const char *cap : direct_tiers()) {
    core::reset_kernel_env_for_testing(cap, nullptr);
    for (size_t i = 0; i < count; ++i) {
      const Dw3Shape &f = shapes[i];
      DirectCase dc = depthwise_case(f.n, f.c, f.mult, {f.h, f.w}, {3, 3}, {f.sh, f.sw}, 0, f.d);
      refs::ConvRefGeom &g = dc.g;
      g.p[1] = f.ph;
      g.p[2] = f.pw;
      for (int j = 1; j < 3; ++j) g.small[j] = (g.big[j] + 2 * g.p[j] - g.d[j] * 2 - 1) / g.s[j] + 1;
      dc.bias = f.c % 2 == 1;
      dc.in_channels_first = dc.out_channels_first = true;
      SCOPED_TRACE(::testing::Message() << "OPSNN_MAX_ISA=" << (cap ? cap : "-") << " mult " << f.mult << " "
                                        << describe(dc));
      DirectCall(dc).check();
    }
  }
}

// The 3x3 row-group depthwise kernel (depthwise_row_groups) on channels-first outputs in every ISA
// tier: output widths at, just past and between every unit's vectors and its 4-vector chunks (16..113,
// the last vector overlapping), heights leaving 1..3 rows after the last whole group, row / column
// strides 1 and 2 in every combination with odd input sizes, paddings 0..2 different per dim
// (rows and columns wholly in the padding), batch 3, multiplier 2; then what it leaves to
// depthwise_rows (width 15, row stride 3, dilation 2). (DepthwiseRows in the table harness runs it
// on row-padded and channels-last input views and FLOAT16 / BF16 inputs.)
TEST(ConvDepthwiseRowGroups, ChannelsFirstShapesInEveryIsaTier) {
  reseed_for_current_test();
  const Dw3Shape shapes[] = {{1, 3, 1, 5, 16, 1, 1, 1, 1, 1},    {1, 2, 1, 6, 17, 1, 1, 1, 1, 1},
                          {3, 3, 1, 7, 31, 1, 1, 0, 1, 1},    {1, 2, 1, 9, 33, 1, 1, 1, 0, 1},
                          {1, 3, 1, 10, 48, 1, 1, 2, 1, 1},   {1, 2, 1, 11, 57, 1, 1, 1, 2, 1},
                          {2, 3, 1, 12, 64, 1, 1, 1, 1, 1},   {1, 2, 1, 13, 65, 1, 1, 1, 1, 1},
                          {1, 3, 1, 14, 112, 1, 1, 1, 1, 1},  {1, 2, 2, 6, 113, 1, 1, 1, 1, 1},
                          {1, 3, 1, 9, 31, 2, 2, 1, 1, 1},    {1, 2, 1, 10, 34, 2, 2, 0, 0, 1},
                          {3, 3, 1, 11, 33, 2, 2, 1, 2, 1},   {1, 2, 1, 17, 112, 2, 2, 1, 1, 1},
                          {1, 3, 1, 15, 113, 2, 2, 2, 1, 1},  {1, 2, 2, 12, 129, 2, 2, 1, 1, 1},
                          {1, 3, 1, 8, 33, 1, 2, 1, 1, 1},    {1, 2, 1, 11, 40, 2, 1, 1, 2, 1},
                          {1, 2, 1, 7, 15, 1, 1, 1, 1, 1},    {1, 3, 1, 9, 40, 3, 1, 1, 1, 1},
                          {1, 2, 1, 9, 40, 1, 1, 2, 2, 2}};
  DwInPlaceEnv in_place_env("off");  // (depthwise_in_place would take most; ConvDepthwiseInPlace below)
  check_dw3_channels_first(shapes, std::size(shapes));
}

// The in-place 3x3 depthwise kernel (depthwise_in_place) on channels-first outputs in every ISA
// tier. Stride 1: output widths at, just past and between every unit's vectors and its 4-vector
// strips (16..129: one strip with both edges, the last strip overlapping the previous), widths 17 /
// 33 (the first vector's right tap at the row's last column), heights 1..14 (rows wholly in the
// padding, the rolling rows' unroll by 3 ending at each phase), row padding 0..2 and width padding
// 0..1 in every combination. Stride 2 (width padding 1): odd and even widths 31..257 (an odd width's
// last tap in the right padding column; output widths 16, 17, 32, 57, 65, 129: one strip, the last
// overlapping), odd and even heights, row padding 0..2. Batch 3, multiplier 2, one plane (row chunks
// across threads); then what it leaves to depthwise_row_groups (width padding 2, stride 2 width
// padding 0, strides 1x2, width 15, dilation 2).
TEST(ConvDepthwiseInPlace, ChannelsFirstShapesInEveryIsaTier) {
  reseed_for_current_test();
  // n, c, mult, h, w, sh, sw, ph, pw, d
  const Dw3Shape shapes[] = {
      {1, 3, 1, 5, 16, 1, 1, 1, 1, 1},   {1, 2, 1, 6, 17, 1, 1, 1, 1, 1},   {3, 3, 1, 7, 31, 1, 1, 0, 1, 1},
      {1, 2, 1, 9, 33, 1, 1, 1, 0, 1},   {1, 3, 1, 10, 48, 1, 1, 2, 1, 1},  {1, 2, 1, 11, 56, 1, 1, 1, 1, 1},
      {2, 3, 1, 12, 64, 1, 1, 1, 1, 1},  {1, 2, 1, 13, 65, 1, 1, 1, 1, 1},  {1, 3, 1, 14, 112, 1, 1, 1, 1, 1},
      {1, 2, 2, 6, 113, 1, 1, 1, 1, 1},  {1, 1, 1, 1, 100, 1, 1, 1, 1, 1},  {1, 2, 1, 2, 129, 1, 1, 1, 0, 1},
      {1, 1, 1, 3, 18, 1, 1, 0, 0, 1},   {1, 2, 1, 4, 63, 1, 1, 2, 0, 1},   {1, 1, 1, 40, 112, 1, 1, 1, 1, 1},
      {1, 3, 1, 5, 31, 2, 2, 1, 1, 1},   {1, 2, 1, 6, 33, 2, 2, 1, 1, 1},   {3, 3, 1, 7, 64, 2, 2, 0, 1, 1},
      {1, 2, 1, 9, 113, 2, 2, 2, 1, 1},  {1, 3, 1, 12, 112, 2, 2, 1, 1, 1}, {1, 2, 2, 5, 129, 2, 2, 1, 1, 1},
      {1, 2, 1, 11, 257, 2, 2, 1, 1, 1}, {1, 1, 1, 1, 40, 2, 2, 1, 1, 1},   {1, 1, 1, 41, 112, 2, 2, 1, 1, 1},
      {1, 2, 1, 8, 40, 1, 1, 1, 2, 1},   {1, 2, 1, 9, 40, 2, 2, 1, 0, 1},   {1, 2, 1, 7, 15, 1, 1, 1, 1, 1},
      {1, 2, 1, 9, 40, 1, 1, 1, 1, 2},   {1, 2, 1, 9, 40, 1, 2, 1, 1, 1}};
  check_dw3_channels_first(shapes, std::size(shapes));
}

// The channels-last depthwise kernel (depthwise_nhwc) in every ISA tier, aimed at its 3-wide
// tiles (kernel width 3, dilation 1, strides 1 and 2, whole channel vectors: 8..128 channels, one to
// four vectors of each unit and groups of them): widths below, at and past every tile (1..17, 113),
// odd sizes at stride 2, paddings 0..2 (pixels whose window lies wholly in the padding: edge tiles
// with every tap at the zeros), tap rows in the padding, batch 3; then what the tiles leave (19
// channels: the per-pixel path with a scalar tail; dilation 2; kernel width 5).
TEST(ConvDepthwiseNhwc, TileShapesInEveryIsaTier) {
  reseed_for_current_test();
  struct Shape {
    int64_t n, c, h, w, kh, kw, sh, sw, p, d;
  };
  const Shape shapes[] = {{1, 32, 5, 1, 3, 3, 1, 1, 1, 1},   {1, 64, 4, 2, 3, 3, 1, 1, 1, 1},
                          {1, 16, 3, 3, 3, 3, 1, 1, 1, 1},   {2, 32, 6, 7, 3, 3, 1, 1, 1, 1},
                          {1, 48, 4, 9, 3, 3, 1, 1, 1, 1},   {1, 96, 3, 13, 3, 3, 1, 1, 1, 1},
                          {1, 128, 3, 17, 3, 3, 1, 1, 1, 1}, {1, 8, 5, 17, 3, 3, 1, 1, 0, 1},
                          {3, 32, 7, 113, 3, 3, 1, 1, 1, 1}, {1, 24, 5, 10, 3, 3, 1, 1, 2, 1},
                          {1, 64, 7, 15, 3, 3, 2, 2, 1, 1},  {2, 32, 9, 13, 3, 3, 2, 2, 1, 1},
                          {1, 64, 6, 3, 3, 3, 2, 2, 1, 1},   {1, 40, 5, 4, 3, 3, 2, 2, 0, 1},
                          {1, 64, 5, 17, 3, 3, 2, 2, 2, 1},  {1, 16, 4, 113, 3, 3, 2, 2, 1, 1},
                          {1, 32, 4, 11, 1, 3, 1, 2, 1, 1},  {1, 32, 6, 9, 5, 3, 2, 1, 2, 1},
                          {1, 19, 5, 12, 3, 3, 1, 1, 1, 1},  {1, 32, 7, 12, 3, 3, 1, 1, 2, 2},
                          {1, 32, 5, 12, 3, 5, 1, 1, 1, 1},  {1, 64, 7, 12, 3, 3, 1, 3, 1, 1}};
  KernelEnvRestore restore;
  for (const char *cap : direct_tiers()) {
    core::reset_kernel_env_for_testing(cap, nullptr);
    for (const Shape &f : shapes) {
      DirectCase dc = depthwise_case(f.n, f.c, 1, {f.h, f.w}, {f.kh, f.kw}, {f.sh, f.sw}, f.p, f.d);
      dc.bias = f.c % 3 != 0;
      SCOPED_TRACE(::testing::Message() << "OPSNN_MAX_ISA=" << (cap ? cap : "-") << " " << describe(dc));
      DirectCall(dc).check();
    }
  }
}

// depthwise_nhwc's non-temporal output stores (the 3-wide tiles, AVX-512 only; the other tiers and
// channels off whole 16-channel vectors keep normal stores, as logged): forced on over tile shapes
// (widths 1..113, strides 1 and 2, paddings 0..2, batch 1..3), then MobileNet's 32x112x112 by the
// rule (its output past L2 per thread) and a small output it leaves cached.
TEST(ConvDepthwiseNhwc, StreamingStoresInEveryIsaTier) {
  reseed_for_current_test();
  struct Shape {
    int64_t n, c, h, w, s, p;
  };
  const Shape forced[] = {{1, 32, 5, 1, 1, 1},  {2, 32, 6, 7, 1, 1},    {1, 48, 4, 9, 1, 1},  {1, 128, 3, 17, 1, 1},
                          {3, 32, 7, 113, 1, 1}, {1, 64, 7, 15, 2, 1},  {1, 16, 4, 113, 2, 1}, {1, 64, 5, 17, 2, 2},
                          {1, 24, 5, 10, 1, 2},  {2, 48, 9, 13, 2, 0}};
  KernelEnvRestore restore;
  const int64_t l2 = static_cast<int64_t>(core::cpu_features().l2_bytes);
  for (const char *cap : direct_tiers()) {
    core::reset_kernel_env_for_testing(cap, nullptr);
    const bool avx512 = std::string(expected_tier()) == "avx512";
    auto run = [&](const Shape &f, bool stream) {
      DirectCase dc = depthwise_case(f.n, f.c, 1, {f.h, f.w}, {3, 3}, {f.s, f.s}, f.p, 1);
      dc.bias = f.c % 3 != 0;
      SCOPED_TRACE(::testing::Message() << "OPSNN_MAX_ISA=" << (cap ? cap : "-") << " " << describe(dc));
      DirectCall call(dc);
      const std::string path = chosen_path([&](uint64_t *w, aclOpExecutor **e) { return call.phase1(w, e); });
      EXPECT_NE(path.find(std::string("conv:dw_stores/") + (stream ? "stream_stores" : "cached_stores")),
                std::string::npos)
          << path;
      call.check();
    };
    {
      DwStreamEnv on("on");
      for (const Shape &f : forced) run(f, avx512 && f.c % 16 == 0);
    }
    const Shape mobilenet{1, 32, 112, 112, 1, 1};
    const int64_t per_thread = 32 * 112 * 112 * 4 / std::min<int64_t>(core::num_threads(), 32);
    run(mobilenet, avx512 && per_thread > l2);
    run(Shape{1, 32, 8, 8, 1, 1}, false);
  }
}

// The few-input-channel kernel (small_cin): 1..8 input channels, channels-first and channels-last,
// batch 1..3, odd sizes, kernels 1..5 (not 1x1 stride 1 unpadded), strides 1..3, dilations 1..2,
// paddings 0..3, 2-D and 3-D, in every ISA tier; the example CNN's two layers.
TEST(ConvSmallCin, RandomGeometriesInEveryIsaTier) {
  reseed_for_current_test();
  KernelEnvRestore restore;
  for (const char *cap : direct_tiers()) {
    core::reset_kernel_env_for_testing(cap, nullptr);
    for (int t = 0; t < 40; ++t) {
      DirectCase c;
      c.nsp = t % 8 == 7 ? 3 : 2;
      refs::ConvRefGeom &g = c.g;
      g.n = rnd(1, 3);
      g.cbig = rnd(1, 8);
      g.csmall = rnd(1, 21);
      for (int j = 3 - c.nsp; j < 3; ++j) {
        g.k[j] = rnd(1, c.nsp == 3 ? 3 : 5);
        g.s[j] = rnd(1, 3);
        g.d[j] = rnd(1, 2);
        g.p[j] = rnd(0, 3);
        const int64_t span = g.d[j] * (g.k[j] - 1) + 1;
        g.big[j] = std::max<int64_t>(1, span - 2 * g.p[j]) + (j == 2 ? rnd(0, 37) : rnd(0, c.nsp == 3 ? 3 : 9));
        g.small[j] = (g.big[j] + 2 * g.p[j] - span) / g.s[j] + 1;
      }
      if (c.unit()) g.p[2] = 1, g.small[2] += 2;  // (1x1 unpadded stays with the GEMM / direct kernels)
      c.bias = t % 4 != 0;
      c.weight_channels_last = t % 3 == 0;
      c.in_channels_first = c.out_channels_first = t % 2 == 0;
      SCOPED_TRACE(::testing::Message() << "OPSNN_MAX_ISA=" << (cap ? cap : "-") << " " << describe(c));
      DirectCall(c).check();
    }
  }
}

TEST(ConvSmallCin, ExampleCnnLayers) {
  reseed_for_current_test();
  struct Fixed {
    int64_t n, cin, cout, hw;
  };
  for (const Fixed &f : {Fixed{32, 1, 8, 16}, Fixed{32, 8, 16, 8}, Fixed{5, 3, 7, 13}}) {
    for (bool channels_first : {true, false}) {
      DirectCase dc;
      dc.g.n = f.n;
      dc.g.cbig = f.cin;
      dc.g.csmall = f.cout;
      for (int j = 1; j < 3; ++j) {
        dc.g.big[j] = dc.g.small[j] = f.hw;
        dc.g.k[j] = 3;
        dc.g.p[j] = 1;
      }
      dc.bias = !channels_first;
      dc.in_channels_first = dc.out_channels_first = channels_first;
      SCOPED_TRACE(describe(dc));
      DirectCall(dc).check();
    }
  }
}

// One repeatable executor launched again after its weight or bias changed (a runtime copy, a
// memset, an op writing the weight, another weight bound to it): the direct kernel's packed copy
// must notice (12 input channels), small_cin reads the weight at every launch (3).
void check_weight_changes(int64_t cbig) {
  reseed_for_current_test();
  DirectCase dc;
  dc.g.n = 2;
  dc.g.cbig = cbig;
  dc.g.csmall = 20;
  dc.g.big[1] = 6;
  dc.g.big[2] = 9;
  for (int j = 1; j < 3; ++j) {
    dc.g.k[j] = 3;
    dc.g.p[j] = 1;
    dc.g.small[j] = dc.g.big[j];
  }
  DirectCall call(dc);
  const RepeatableConv rex(call);
  ASSERT_EQ(rex.rc, 0) << aclGetRecentErrMsg();
  auto launch = [&](const char *what) {
    SCOPED_TRACE(what);
    call.y->poison();
    ASSERT_EQ(rex.launch(), 0) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtSynchronizeDevice(), 0);
    EXPECT_TRUE(call.matches());
  };
  const size_t wbytes = static_cast<size_t>(call.w->numel()) * 4;
  launch("first launch");
  launch("nothing changed");
  {  // new weight values through aclrtMemcpy
    std::vector<float> nv(static_cast<size_t>(call.w->numel()));
    for (size_t i = 0; i < nv.size(); ++i) nv[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)));
    ASSERT_EQ(aclrtMemcpy(call.w->data(), wbytes, nv.data(), wbytes, ACL_MEMCPY_HOST_TO_DEVICE), 0);
    launch("weight copied in");
  }
  {  // one element of the weight's last row changed by a device-to-device copy
    const float v = 3.5f;
    void *last = static_cast<char *>(call.w->data()) + wbytes - 4;
    DeviceTensor one({1}, ACL_FLOAT);
    ASSERT_EQ(aclrtMemcpy(one.data(), 4, &v, 4, ACL_MEMCPY_HOST_TO_DEVICE), 0);
    ASSERT_EQ(aclrtMemcpy(last, 4, one.data(), 4, ACL_MEMCPY_DEVICE_TO_DEVICE), 0);
    launch("last weight element copied");
  }
  {  // the weight scaled in place by an op (its output view is the weight)
    float two_value = 2.0f;  // aclCreateScalar copies the value
    aclScalar *two = aclCreateScalar(&two_value, ACL_FLOAT);
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceMulsGetWorkspaceSize(*call.w, two, w, e); },
                     aclnnInplaceMuls),
              0);
    aclDestroyScalar(two);
    launch("weight scaled by aclnnInplaceMuls");
  }
  if (call.b) {  // the bias alone
    const std::vector<float> nb(static_cast<size_t>(dc.g.csmall), -0.75f);
    ASSERT_EQ(aclrtMemcpy(call.b->data(), nb.size() * 4, nb.data(), nb.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE), 0);
    launch("bias copied in");
  }
  ASSERT_EQ(aclrtMemset(call.w->data(), wbytes, 0, wbytes), 0);
  launch("weight zeroed by aclrtMemset");
  {  // another weight bound to the executor (slot 1: input, weight, bias, output)
    DeviceTensor w2(call.w->shape(), ACL_FLOAT);
    w2.fill_random(-1, 1);
    ASSERT_EQ(aclSetInputTensorAddr(rex.ex, 1, call.wt, w2.data()), 0);
    call.y->poison();
    ASSERT_EQ(rex.launch(), 0) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtSynchronizeDevice(), 0);
    std::vector<double> wv = w2.values();
    const refs::ConvRefOut r = refs::conv_ref_small(dc.g, call.input_values(), wv, call.b->values());
    EXPECT_TRUE(meets_bound(ACL_FLOAT, call.output_values(), r));
    ASSERT_EQ(aclSetInputTensorAddr(rex.ex, 1, call.wt, call.w->data()), 0);
    launch("the first weight bound again");
  }
}

TEST(ConvDirectNhwc, RepeatableExecutorSeesWeightChanges) { check_weight_changes(12); }
TEST(ConvSmallCin, RepeatableExecutorSeesWeightChanges) { check_weight_changes(3); }

// ---- Winograd F(m x m, 3 x 3) (conv_winograd_step.cpp) ----

// A 2-D 3x3 stride-1 case: n images, cin -> cout channels, h x w input, padding ph / pw (different
// per dim: asymmetric), plain NCHW or channels-last.
DirectCase winograd_case(int64_t n, int64_t cin, int64_t cout, int64_t h, int64_t w, int64_t ph, int64_t pw,
                         bool channels_first) {
  DirectCase c;
  refs::ConvRefGeom &g = c.g;
  g.n = n;
  g.cbig = cin;
  g.csmall = cout;
  g.big[1] = h;
  g.big[2] = w;
  g.p[1] = ph;
  g.p[2] = pw;
  for (int j = 1; j < 3; ++j) {
    g.k[j] = 3;
    g.small[j] = g.big[j] + 2 * g.p[j] - 2;
  }
  c.in_channels_first = c.out_channels_first = channels_first;
  return c;
}

// Random sizes around the tiles: channels odd and multiples of 16 (above small_cin's 8), 1..15
// output rows / columns (partial tiles), paddings 0..2 per dim, batch 1 and 2, either layout.
DirectCase random_winograd_case() {
  static const int64_t kIn[] = {9, 13, 16, 19, 32, 48, 64};
  static const int64_t kOut[] = {1, 5, 16, 17, 33, 48, 64};
  const int64_t ph = rnd(0, 2), pw = rnd(0, 2);
  DirectCase c = winograd_case(rnd(1, 2), kIn[rng()() % 7], kOut[rng()() % 7], std::max<int64_t>(1, 3 - 2 * ph) + rnd(0, 14),
                               std::max<int64_t>(1, 3 - 2 * pw) + rnd(0, 14), ph, pw, rng()() % 2 == 0);
  c.bias = rng()() % 4 != 0;
  c.weight_channels_last = rng()() % 3 == 0;
  return c;
}

// Both tiles, forced (the size rule waived), in every ISA tier: random and fixed geometries (padding
// 0 / 1 / asymmetric, odd and multiple-of-16 channels, batch 1 and 3, both layouts).
TEST(ConvWinograd, BothTilesInEveryIsaTier) {
  reseed_for_current_test();
  KernelEnvRestore restore;
  const DirectCase fixed[] = {winograd_case(1, 16, 32, 8, 8, 0, 0, false), winograd_case(3, 19, 17, 7, 9, 1, 1, true),
                              winograd_case(2, 32, 48, 6, 11, 0, 1, false), winograd_case(1, 13, 16, 10, 5, 2, 1, true),
                              winograd_case(3, 48, 33, 9, 9, 1, 0, false), winograd_case(1, 17, 64, 5, 6, 1, 1, true)};
  for (const char *tile : {"f2", "f4"}) {
    WinogradEnv env(tile);
    for (const char *cap : direct_tiers()) {
      core::reset_kernel_env_for_testing(cap, nullptr);
      for (const DirectCase &dc : fixed) {
        SCOPED_TRACE(::testing::Message() << tile << " OPSNN_MAX_ISA=" << (cap ? cap : "-") << " " << describe(dc));
        DirectCall(dc).check();
      }
      for (int t = 0; t < 16; ++t) {
        const DirectCase dc = random_winograd_case();
        SCOPED_TRACE(::testing::Message() << tile << " OPSNN_MAX_ISA=" << (cap ? cap : "-") << " " << describe(dc));
        DirectCall(dc).check();
      }
    }
  }
}

// The measured rule without the variable: F(4x4) at 16..128 input channels, F(2x2) above, the
// direct kernel below 16 channels or 48 output tiles; several tile blocks (the last one shorter).
TEST(ConvWinograd, MeasuredRuleAndTileBlocks) {
  reseed_for_current_test();
  WinogradEnv env(nullptr);
  for (bool first : {false, true}) {
    for (const DirectCase &dc :
         {winograd_case(2, 64, 64, 48, 48, 1, 1, first), winograd_case(1, 160, 144, 12, 12, 1, 1, first),
          winograd_case(2, 144, 20, 30, 18, 0, 1, first), winograd_case(1, 16, 16, 8, 8, 1, 1, first),
          winograd_case(1, 15, 64, 8, 8, 1, 1, first), winograd_case(2, 32, 32, 7, 7, 1, 0, first),
          winograd_case(1, 32, 32, 28, 28, 1, 1, first), winograd_case(1, 256, 16, 14, 14, 1, 1, first)}) {
      SCOPED_TRACE(describe(dc));
      DirectCall(dc).check();
    }
  }
}

// Within the FLOAT standard at the channel counts each tile is chosen for (F(4x4) up to 128 input
// channels, F(2x2) up to 512), on 8 x 8 outputs with padding (border tiles) and a bias.
TEST(ConvWinograd, PrecisionAtLargeChannelCounts) {
  reseed_for_current_test();
  for (const auto &[tile, cin] : std::vector<std::pair<const char *, int64_t>>{
           {"f4", 64}, {"f4", 128}, {"f4", 512}, {"f2", 128}, {"f2", 512}}) {
    WinogradEnv env(tile);
    for (bool first : {false, true}) {
      const DirectCase dc = winograd_case(1, cin, cin == 512 ? 64 : cin, 8, 8, 1, 1, first);
      SCOPED_TRACE(::testing::Message() << tile << " " << describe(dc));
      DirectCall(dc).check();
    }
  }
}

// Phase 1's verbose line names why Winograd was not taken (the rule's reasons, in the rejected list).
TEST(ConvWinograd, RejectionsAreLogged) {
  reseed_for_current_test();
  WinogradEnv env(nullptr);
  auto rejected = [](const DirectCase &dc) {
    DirectCall call(dc);
    std::vector<std::string> lines;
    core::set_verbose_for_testing(true, &lines);
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    const int rc = call.phase1(&ws, &ex);
    core::set_verbose_for_testing(false, nullptr);
    if (rc == 0) aclDestroyAclOpExecutor(ex);
    std::string all;
    for (const std::string &l : lines) all += l;
    return all;
  };
  DirectCase stride = winograd_case(1, 64, 64, 30, 30, 1, 1, false);
  stride.g.s[2] = 2;
  stride.g.small[2] = 15;
  DirectCase dil = winograd_case(1, 64, 64, 30, 30, 2, 2, true);
  dil.g.d[1] = dil.g.d[2] = 2;
  dil.g.small[1] = dil.g.small[2] = 30;
  DirectCase five = winograd_case(1, 64, 64, 30, 30, 2, 2, false);
  five.g.k[1] = five.g.k[2] = 5;
  five.g.small[1] = five.g.small[2] = 30;
  DirectCase grouped = winograd_case(1, 64, 64, 30, 30, 1, 1, false);
  grouped.g.groups = 2;
  const std::pair<DirectCase, const char *> cases[] = {
      {stride, "winograd: stride 1x2"},
      {dil, "winograd: dilation 2x2"},
      {five, "winograd: kernel 5x5"},
      {grouped, "winograd: groups=2"},
      {winograd_case(1, 12, 20, 30, 30, 1, 1, false), "winograd: 12 -> 20 channels (< 16)"},
      {winograd_case(1, 64, 64, 8, 8, 1, 1, true), "winograd: 4 output tiles of 4x4 (< 48)"},
      {winograd_case(2, 256, 64, 7, 7, 1, 1, false), "winograd: 32 output tiles of 2x2 (< 48)"},
      {winograd_case(3, 512, 200, 7, 7, 1, 1, false), "winograd: 36 tiles per GEMM block (< 48) for 512 -> 200"}};
  for (const auto &[dc, why] : cases) EXPECT_NE(rejected(dc).find(why), std::string::npos) << why << "\n" << rejected(dc);
}

// The split of the blocks over the threads planned for 1..6 threads (OPSNN_CONV_WINOGRAD_THREADS;
// run on this machine's pool): runs of whole blocks per thread, whole blocks then the rest shared,
// every block shared. Each gives the same output, bit for bit, within the standard of the float64
// reference, in every ISA tier. Blocks (block_tiles): F(2x2) at 16 -> 16 channels 1020 tiles,
// F(4x4) at 128 -> 128 48 tiles, F(2x2) at 256 -> 256 60 tiles.
TEST(ConvWinograd, EveryThreadSplitGivesOneOutput) {
  reseed_for_current_test();
  KernelEnvRestore restore;
  struct SplitCase {
    const char *tile;
    DirectCase dc;
    std::vector<std::pair<int, const char *>> splits;  // threads planned for, the split expected
  };
  DirectCase two_blocks = winograd_case(2, 16, 16, 60, 68, 1, 1, true);  // 2 x 30 x 34 tiles: two whole blocks
  two_blocks.bias = false;
  const SplitCase cases[] = {
      {"f2", winograd_case(1, 16, 16, 14, 14, 1, 1, false),  // 49 tiles: one block
       {{1, "thread_blocks"}, {2, "shared_blocks"}, {3, "shared_blocks"}}},
      {"f2", two_blocks, {{1, "thread_blocks"}, {2, "thread_blocks"}, {3, "shared_blocks"}}},
      {"f2", winograd_case(4, 16, 16, 61, 68, 1, 1, false),  // 4 x 31 x 34 tiles: 4 blocks + 136
       {{1, "thread_blocks"},
        {2, "thread_blocks"},  // runs of 2 and 3 blocks (2040 / 2176 tiles), the shorter one in the second
        {3, "thread_blocks_then_shared"},  // one block each, then the fourth and the shorter one shared
        {4, "thread_blocks"},
        {6, "shared_blocks"}}},
      {"f4", winograd_case(1, 128, 128, 28, 28, 1, 1, false),  // 49 tiles: 48 + 1 (a 1-row GEMM)
       {{1, "thread_blocks"}, {2, "shared_blocks"}}},
      {"f2", winograd_case(1, 256, 256, 14, 14, 1, 1, true),  // 49 tiles: one block
       {{1, "thread_blocks"}, {2, "shared_blocks"}, {4, "shared_blocks"}}},
  };
  for (const SplitCase &sc : cases) {
    WinogradEnv env(sc.tile);
    DirectCall call(sc.dc);
    for (const char *cap : direct_tiers()) {
      core::reset_kernel_env_for_testing(cap, nullptr);
      std::vector<double> first;
      for (const auto &[threads, split] : sc.splits) {
        SCOPED_TRACE(::testing::Message() << sc.tile << " OPSNN_MAX_ISA=" << (cap ? cap : "-") << " planned for "
                                          << threads << " threads " << describe(sc.dc));
        const ScopedPlanEnv planned("OPSNN_CONV_WINOGRAD_THREADS", std::to_string(threads).c_str());
        const std::string path = chosen_path([&](uint64_t *w, aclOpExecutor **e) { return call.phase1(w, e); });
        EXPECT_EQ(path.rfind(call.c.path(), 0), 0u) << path;
        EXPECT_NE(path.find(std::string("conv:winograd_split/") + split + ";"), std::string::npos) << path;
        call.y->poison();
        ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return call.phase1(w, e); }, aclnnConvolution), 0)
            << aclGetRecentErrMsg();
        EXPECT_TRUE(call.y->untouched_outside_view());
        const std::vector<double> out = call.y->values();
        if (first.empty()) {
          EXPECT_TRUE(call.matches());
          first = out;
          continue;
        }
        size_t differ = 0;
        for (size_t i = 0; i < out.size(); ++i) differ += out[i] != first[i] ? 1 : 0;
        EXPECT_EQ(differ, 0u) << "elements different from the 1-thread split's output";
      }
    }
  }
}

// A repeatable executor: the transformed weight is kept across launches and redone when the weight
// or bias changes (check_weight_changes); input and output rebound to other buffers.
TEST(ConvWinograd, RepeatableExecutorSeesWeightChangesAndReboundAddresses) {
  for (const char *tile : {"f2", "f4"}) {
    SCOPED_TRACE(tile);
    WinogradEnv env(tile);
    check_weight_changes(12);
    for (bool first : {false, true}) {
      DirectCall call(winograd_case(2, 24, 20, 10, 11, 1, 1, first));
      EXPECT_EQ(chosen_path([&](uint64_t *w, aclOpExecutor **e) { return call.phase1(w, e); }).rfind(call.c.path(), 0),
                0u);
      const RepeatableConv rex(call);
      ASSERT_EQ(rex.rc, 0) << aclGetRecentErrMsg();
      for (int launch = 0; launch < 3; ++launch) {
        if (launch > 0) {  // other input and output buffers bound to the same executor
          auto x2 = std::make_unique<DeviceTensor>(call.x->shape(), ACL_FLOAT);
          auto y2 = std::make_unique<DeviceTensor>(call.y->shape(), ACL_FLOAT);
          x2->fill_random(-2, 2);
          ASSERT_EQ(aclSetInputTensorAddr(rex.ex, 0, call.xt, x2->data()), 0);
          ASSERT_EQ(aclSetOutputTensorAddr(rex.ex, 0, call.yt, y2->data()), 0);
          call.x = std::move(x2);
          call.y = std::move(y2);
        }
        call.y->poison();
        ASSERT_EQ(rex.launch(), 0) << aclGetRecentErrMsg();
        ASSERT_EQ(aclrtSynchronizeDevice(), 0);
        EXPECT_TRUE(call.matches()) << "launch " << launch;
        EXPECT_TRUE(call.y->untouched_outside_view()) << "launch " << launch;
      }
    }
  }
}

// The packed copy itself: packed once, again only after its source's bytes were written through
// the runtime (an overlapping copy; a copy next to it does not count) or another source is used;
// a source outside the runtime's allocations at every use.
TEST(ConvDirectNhwc, PackedWeightPacksOncePerChange) {
  DeviceTensor src({64}, ACL_FLOAT), other({64}, ACL_FLOAT);
  src.fill_random(-1, 1);
  other.fill_random(-1, 1);
  kernels::PackedWeight copy;
  float seen = 0;
  auto use = [&](const void *p, size_t bytes) {
    copy.with(p, bytes, 1, [&](float *dst) { dst[0] = *static_cast<const float *>(p); },
              [&](const float *packed) { seen = packed[0]; });
  };
  const size_t half = 32 * 4;
  use(src.data(), half);  // the first half of src
  use(src.data(), half);
  EXPECT_EQ(copy.packs(), 1);
  const float v = 7.0f;
  ASSERT_EQ(aclrtMemcpy(static_cast<char *>(src.data()) + half, 4, &v, 4, ACL_MEMCPY_HOST_TO_DEVICE), 0);
  use(src.data(), half);  // written next to the range: still valid
  EXPECT_EQ(copy.packs(), 1);
  ASSERT_EQ(aclrtMemcpy(src.data(), 4, &v, 4, ACL_MEMCPY_HOST_TO_DEVICE), 0);
  use(src.data(), half);
  EXPECT_EQ(copy.packs(), 2);
  EXPECT_EQ(seen, 7.0f);
  use(other.data(), half);
  EXPECT_EQ(copy.packs(), 3);
  // Memory the runtime does not know (a host buffer): packed at every use, so a plain store shows.
  std::vector<float> host(64, 1.0f);
  use(host.data(), half);
  EXPECT_EQ(seen, 1.0f);
  host[0] = 9.0f;
  use(host.data(), half);
  EXPECT_EQ(seen, 9.0f);
  EXPECT_EQ(copy.packs(), 5);
}

// A ResNet-like 3x3 layer (several GEMM tiles along every dim) in each dtype, forward and backward.
TEST(ConvShapes, ResNetLikeLayerForwardAndBackward) {
  reseed_for_current_test();
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    refs::ConvRefGeom g;
    g.n = 2;
    g.cbig = 24;
    g.csmall = 40;
    for (int j = 1; j < 3; ++j) {
      g.big[j] = 14;
      g.k[j] = 3;
      g.p[j] = 1;
      g.small[j] = 14;
    }
    DeviceTensor x({g.n, g.cbig, 14, 14}, dt), w({g.csmall, g.cbig, 3, 3}, dt), bias({g.csmall}, dt);
    DeviceTensor y({g.n, g.csmall, 14, 14}, dt), dy({g.n, g.csmall, 14, 14}, dt);
    DeviceTensor dx({g.n, g.cbig, 14, 14}, dt), dw({g.csmall, g.cbig, 3, 3}, dt), db({g.csmall}, dt);
    x.fill_random(-2, 2);
    w.fill_random(-1, 1);
    bias.fill_random(-1, 1);
    dy.fill_random(-1, 1);
    for (DeviceTensor *t : {&y, &dx, &dw, &db}) t->poison();
    IntArray one({1, 1}), zero({0, 0}), bs({g.csmall});
    ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **e) {
                return aclnnConvolutionGetWorkspaceSize(x, w, bias, one.a, one.a, one.a, false, zero.a, 1, y, 0, ws, e);
              },
              aclnnConvolution),
              0)
        << aclGetRecentErrMsg();
    bool mask[3] = {true, true, true};
    aclBoolArray *m = aclCreateBoolArray(mask, 3);
    ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **e) {
                return aclnnConvolutionBackwardGetWorkspaceSize(dy, x, w, bs.a, one.a, one.a, one.a, false, zero.a, 1,
                                                                m, 0, dx, dw, db, ws, e);
              },
              aclnnConvolutionBackward),
              0)
        << aclGetRecentErrMsg();
    aclDestroyBoolArray(m);
    auto rounded = [&](refs::ConvRefOut r) {
      for (double &v : r.value) v = round_to(dt, v);
      return r;
    };
    EXPECT_TRUE(meets_bound(dt, y.values(), rounded(refs::conv_ref_small(g, x.values(), w.values(), bias.values()))));
    EXPECT_TRUE(meets_bound(dt, dx.values(), rounded(refs::conv_ref_big(g, dy.values(), w.values(), {}))));
    EXPECT_TRUE(meets_bound(dt, dw.values(), rounded(refs::conv_ref_weight(g, dy.values(), x.values()))));
  }
}

// Empty batches: nothing to compute, gradients of the weight and bias are zero.
TEST(ConvShapes, EmptyBatch) {
  DeviceTensor x({0, 3, 5, 5}, ACL_FLOAT), w({4, 3, 3, 3}, ACL_FLOAT), y({0, 4, 3, 3}, ACL_FLOAT);
  DeviceTensor dx({0, 3, 5, 5}, ACL_FLOAT), dw({4, 3, 3, 3}, ACL_FLOAT), db({4}, ACL_FLOAT);
  w.fill_random(-1, 1);
  dw.poison();
  db.poison();
  IntArray one({1, 1}), zero({0, 0}), bs({4});
  EXPECT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **e) {
              return aclnnConvolutionGetWorkspaceSize(x, w, nullptr, one.a, zero.a, one.a, false, zero.a, 1, y, 0, ws, e);
            },
            aclnnConvolution),
            0)
      << aclGetRecentErrMsg();
  bool mask[3] = {true, true, true};
  aclBoolArray *m = aclCreateBoolArray(mask, 3);
  EXPECT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **e) {
              return aclnnConvolutionBackwardGetWorkspaceSize(y, x, w, bs.a, one.a, zero.a, one.a, false, zero.a, 1, m, 0,
                                                              dx, dw, db, ws, e);
            },
            aclnnConvolutionBackward),
            0)
      << aclGetRecentErrMsg();
  aclDestroyBoolArray(m);
  for (double v : dw.values()) EXPECT_EQ(v, 0.0);
  for (double v : db.values()) EXPECT_EQ(v, 0.0);
}

// ---- DeformableConv2d (+Backward): their own suites over the same registered cases ----
//   - every dtype on random geometry (groups, deformable groups, kernels 1..3, strides 1..2, four
//     independent paddings 0..2, dilations 1..2, offsets in [-3, 3] landing outside the image and on
//     fractional positions, masks in [-0.5, 1.5], modulated or not, with and without bias / deformOut)
//     against the float64 definition (deform_ref_forward / deform_ref_backward, float64_refs.h);
//   - channels-last and row-padded views for every tensor, with tiny column tiles;
//   - the float64 reference's gradients against central differences of its forward;
//   - errors with their code and the argument named.

struct DeformProblem {
  refs::DeformRefGeom g;
  bool with_bias = true, with_deform_out = true;
  Tensor x, weight, offset, bias, out, deform_out, grad_output, offset_out, grad_input, grad_weight, grad_offset,
      grad_bias;
  std::unique_ptr<IntArray> kernel_size, stride, padding, dilation;
  std::vector<double> ref_deform_out;  // the backward's offsetOut (float64 forward, rounded to the dtype)
};

std::string describe(const DeformProblem &p) {
  std::ostringstream os;
  const auto &g = p.g;
  os << "n " << g.n << " c " << g.c << " hw " << g.h << "x" << g.w << " cout " << g.cout << " groups " << g.groups
     << " dg " << g.dg << " k " << g.kh << "x" << g.kw << " s " << g.sh << "," << g.sw << " pad " << g.pt << ","
     << g.pb << "," << g.pl << "," << g.pr << " d " << g.dh << "," << g.dw << " out " << g.oh << "x" << g.ow
     << " modulated " << g.modulated << " bias " << p.with_bias << " deformOut " << p.with_deform_out;
  return os.str();
}

// `large`: more channels and a bigger plane (several GEMM blocks, several threads' rows).
std::unique_ptr<DeformProblem> make_deform_problem(const ConvTableCase &c, aclDataType dt, Layout in_layout,
                                                   Layout out_layout, bool large = false) {
  auto p = std::make_unique<DeformProblem>();
  refs::DeformRefGeom &g = p->g;
  g.n = rnd(1, 2);
  g.groups = rnd(1, 3);
  g.dg = rnd(1, 3);
  g.c = g.groups * g.dg * (large ? rnd(3, 6) : rnd(1, 2));
  g.cout = g.groups * (large ? rnd(6, 12) : rnd(1, 3));
  g.kh = rnd(1, 3);
  g.kw = rnd(1, 3);
  g.sh = rnd(1, 2);
  g.sw = rnd(1, 2);
  g.pt = rnd(0, 2);
  g.pb = rnd(0, 2);
  g.pl = rnd(0, 2);
  g.pr = rnd(0, 2);
  g.dh = rnd(1, 2);
  g.dw = rnd(1, 2);
  const int64_t eh = (g.kh - 1) * g.dh + 1, ew = (g.kw - 1) * g.dw + 1;
  g.h = std::max<int64_t>(1, eh - g.pt - g.pb) + (large ? rnd(10, 20) : rnd(0, 4));
  g.w = std::max<int64_t>(1, ew - g.pl - g.pr) + (large ? rnd(10, 20) : rnd(0, 4));
  g.oh = (g.h + g.pt + g.pb - eh) / g.sh + 1;
  g.ow = (g.w + g.pl + g.pr - ew) / g.sw + 1;
  g.modulated = rng()() % 4 != 0;
  p->with_bias = rng()() % 3 != 0;
  p->with_deform_out = rng()() % 2 == 0;
  const int64_t K = g.kh * g.kw;
  p->x = make_tensor({g.n, g.c, g.h, g.w}, dt, in_layout);
  p->x->fill_random(-2, 2);
  p->weight = make_tensor({g.cout, g.c / g.groups, g.kh, g.kw}, dt, in_layout);
  p->weight->fill_random(-1, 1);
  p->offset = make_tensor({g.n, 3 * g.dg * K, g.oh, g.ow}, dt, in_layout);
  {  // offsets in [-3, 3], masks in [-0.5, 1.5]
    std::vector<double> v(static_cast<size_t>(p->offset->numel()));
    const int64_t L = g.oh * g.ow;
    for (size_t i = 0; i < v.size(); ++i) {
      const int64_t ch = (static_cast<int64_t>(i) / L) % (3 * g.dg * K);
      const double u = static_cast<double>(rng()() % 1000001) / 1000000.0;
      v[i] = round_to(dt, ch >= 2 * g.dg * K ? -0.5 + 2 * u : -3 + 6 * u);
    }
    p->offset->set_values(v);
  }
  p->kernel_size = std::make_unique<IntArray>(std::vector<int64_t>{g.kh, g.kw});
  p->stride = std::make_unique<IntArray>(std::vector<int64_t>{1, 1, g.sh, g.sw});
  p->padding = std::make_unique<IntArray>(std::vector<int64_t>{g.pt, g.pb, g.pl, g.pr});
  p->dilation = std::make_unique<IntArray>(std::vector<int64_t>{1, 1, g.dh, g.dw});
  if (c.kind == "deformable") {
    if (p->with_bias) {
      p->bias = std::make_unique<DeviceTensor>(std::vector<int64_t>{g.cout}, dt);
      p->bias->fill_random(-1, 1);
    }
    p->out = make_tensor({g.n, g.cout, g.oh, g.ow}, dt, out_layout);
    p->out->poison();
    if (p->with_deform_out) {
      p->deform_out = make_tensor({g.n, g.c, g.oh * g.kh, g.ow * g.kw}, dt, out_layout);
      p->deform_out->poison();
    }
    return p;
  }
  refs::ConvRefOut out, dout;
  refs::deform_ref_forward(g, p->x->values(), p->weight->values(), p->offset->values(), {}, &out, &dout);
  p->ref_deform_out = dout.value;
  for (double &v : p->ref_deform_out) v = round_to(dt, v);
  p->offset_out = make_tensor({g.n, g.c, g.oh * g.kh, g.ow * g.kw}, dt, in_layout);
  p->offset_out->set_values(p->ref_deform_out);
  p->grad_output = make_tensor({g.n, g.cout, g.oh, g.ow}, dt, in_layout);
  p->grad_output->fill_random(-1, 1);
  p->grad_input = make_tensor({g.n, g.c, g.h, g.w}, dt, out_layout);
  p->grad_weight = make_tensor({g.cout, g.c / g.groups, g.kh, g.kw}, dt, out_layout);
  p->grad_offset = make_tensor({g.n, 3 * g.dg * K, g.oh, g.ow}, dt, out_layout);
  p->grad_bias = std::make_unique<DeviceTensor>(std::vector<int64_t>{g.cout}, dt);
  for (Tensor *t : {&p->grad_input, &p->grad_weight, &p->grad_offset, &p->grad_bias}) (*t)->poison();
  return p;
}

ConvArgs deform_args(const DeformProblem &p) {
  ConvArgs a;
  auto get = [](const Tensor &t) { return t ? t->get() : nullptr; };
  a.input = get(p.x);
  a.weight = get(p.weight);
  a.offset = get(p.offset);
  a.bias = get(p.bias);
  a.output = get(p.out);
  a.deform_out = get(p.deform_out);
  a.grad_output = get(p.grad_output);
  a.offset_out = get(p.offset_out);
  a.grad_input = get(p.grad_input);
  a.grad_weight = get(p.grad_weight);
  a.grad_offset = get(p.grad_offset);
  a.grad_bias = get(p.grad_bias);
  a.kernel_size = p.kernel_size->a;
  a.stride = p.stride->a;
  a.padding = p.padding->a;
  a.dilation = p.dilation->a;
  a.groups = p.g.groups;
  a.deformable_groups = p.g.dg;
  a.modulated = p.g.modulated;
  return a;
}

void check_deform(const ConvTableCase &c, DeformProblem &p) {
  const ConvArgs a = deform_args(p);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  auto compare = [&](const Tensor &t, refs::ConvRefOut ref, const char *what) {
    for (double &v : ref.value) v = round_to(t->dtype(), v);
    EXPECT_TRUE(meets_bound(t->dtype(), t->values(), ref)) << what;
    EXPECT_TRUE(t->untouched_outside_view()) << what;
  };
  const std::vector<double> x = p.x->values(), w = p.weight->values(), off = p.offset->values();
  if (c.kind == "deformable") {
    refs::ConvRefOut out, dout;
    refs::deform_ref_forward(p.g, x, w, off, p.bias ? p.bias->values() : std::vector<double>{}, &out, &dout);
    compare(p.out, out, "out");
    if (p.deform_out) compare(p.deform_out, dout, "deformOutOptional");
    return;
  }
  refs::ConvRefOut gx, gw, goff, gb;
  refs::deform_ref_backward(p.g, x, w, off, p.ref_deform_out, p.grad_output->values(), &gx, &gw, &goff, &gb);
  compare(p.grad_input, gx, "gradInput");
  compare(p.grad_weight, gw, "gradWeight");
  compare(p.grad_offset, goff, "gradOffset");
  compare(p.grad_bias, gb, "gradBias");
}

class OpTableDeformConv : public ::testing::TestWithParam<ConvTableCase> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTableDeformConv);

TEST_P(OpTableDeformConv, EveryDtypeRandomGeometry) {
  reseed_for_current_test();
  const ConvTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes) {
    for (int t = 0; t < 8; ++t) {
      auto p = make_deform_problem(c, dt, Layout::kContiguous, Layout::kContiguous, t == 7);
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " " << describe(*p));
      check_deform(c, *p);
    }
  }
}

TEST_P(OpTableDeformConv, StridedViewsAndColumnTiles) {
  reseed_for_current_test();
  const ConvTableCase &c = GetParam();
  for (int t = 0; t < 6; ++t) {
    const Layout in = t % 2 == 0 ? Layout::kChannelsLast : Layout::kPaddedRows;
    const Layout out = t % 3 == 0 ? Layout::kChannelsLast : Layout::kPaddedRows;
    auto p = make_deform_problem(c, t < 3 ? ACL_FLOAT : c.dtypes[static_cast<size_t>(t) % c.dtypes.size()], in, out);
    SCOPED_TRACE(::testing::Message() << c.name << " layouts " << static_cast<int>(in) << "/" << static_cast<int>(out)
                                      << " " << describe(*p));
    SmallColumnTiles tiles;
    check_deform(c, *p);
  }
}

TEST_P(OpTableDeformConv, ErrorsNameTheArgument) {
  reseed_for_current_test();
  const ConvTableCase &c = GetParam();
  const aclDataType dt = ACL_FLOAT;
  auto p = make_deform_problem(c, dt, Layout::kContiguous, Layout::kContiguous);
  const bool fwd = c.kind == "deformable";
  const char *api = c.api.c_str();
  const std::string xn = c.name_of("input");
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto fails = [&](const ConvArgs &a, int code, std::initializer_list<const char *> words) {
    return fails_with(c.phase1(a, &ws, &ex), code, words);
  };
  {  // null tensors and arrays: 161001 naming them
    std::vector<std::pair<const char *, aclTensor *ConvArgs::*>> ts = {{"weight", &ConvArgs::weight},
                                                                        {"offset", &ConvArgs::offset}};
    ts.emplace_back(xn.c_str(), &ConvArgs::input);
    if (fwd) {
      ts.emplace_back("out", &ConvArgs::output);
    } else {
      for (auto e : {std::pair{"gradOutput", &ConvArgs::grad_output}, std::pair{"offsetOut", &ConvArgs::offset_out},
                     std::pair{"gradInput", &ConvArgs::grad_input}, std::pair{"gradWeight", &ConvArgs::grad_weight},
                     std::pair{"gradOffset", &ConvArgs::grad_offset}, std::pair{"gradBias", &ConvArgs::grad_bias}})
        ts.emplace_back(e);
    }
    for (const auto &[name, member] : ts) {
      ConvArgs a = deform_args(*p);
      a.*member = nullptr;
      EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_NULLPTR, {api, name})) << name;
    }
    for (auto [name, member] : {std::pair{"kernelSize", &ConvArgs::kernel_size}, std::pair{"stride", &ConvArgs::stride},
                                std::pair{"padding", &ConvArgs::padding}, std::pair{"dilation", &ConvArgs::dilation}}) {
      ConvArgs a = deform_args(*p);
      a.*member = nullptr;
      EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_NULLPTR, {api, name})) << name;
    }
  }
  const refs::DeformRefGeom &g = p->g;
  const int64_t K = g.kh * g.kw;
  {  // an offset with the wrong channel count
    DeviceTensor bad({g.n, 2 * g.dg * K, g.oh, g.ow}, dt);
    ConvArgs a = deform_args(*p);
    a.offset = bad;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "offset"}));
  }
  {  // groups / deformableGroups that do not divide the channels
    ConvArgs a = deform_args(*p);
    a.groups = g.groups + 7;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "groups"}));
    a.groups = 0;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "groups"}));
    a = deform_args(*p);
    a.deformable_groups = g.c + 1;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "deformableGroups"}));
    a.deformable_groups = 0;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "deformableGroups"}));
  }
  {  // arrays of the wrong length or value
    IntArray two({1, 1}), zero({0, 0, 0, 0}), neg({-1, 0, 0, 0}), k3({g.kh + 1, g.kw});
    ConvArgs a = deform_args(*p);
    a.stride = two.a;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "stride"}));
    a = deform_args(*p);
    a.stride = zero.a;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "stride"}));
    a = deform_args(*p);
    a.dilation = zero.a;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "dilation"}));
    a = deform_args(*p);
    a.padding = neg.a;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "padding"}));
    a = deform_args(*p);
    a.kernel_size = k3.a;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "kernelSize"}));
  }
  for (aclDataType bad : {ACL_INT8, ACL_INT32, ACL_DOUBLE, ACL_BOOL}) {  // dtypes outside the rule
    SCOPED_TRACE(::testing::Message() << "dtype " << bad);
    DeviceTensor b(p->x->shape(), bad);
    ConvArgs a = deform_args(*p);
    a.input = b;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, xn.c_str(), "dtype"}));
  }
  {  // an offset of another dtype
    DeviceTensor b(p->offset->shape(), ACL_FLOAT16);
    ConvArgs a = deform_args(*p);
    a.offset = b;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "offset", "dtype"}));
  }
  if (fwd) {
    DeviceTensor bad({97}, dt);
    ConvArgs a = deform_args(*p);
    a.output = bad;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "out", "[97]"}));
    a = deform_args(*p);
    a.deform_out = bad;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "deformOutOptional", "[97]"}));
  } else {
    DeviceTensor bad({97}, dt);
    for (auto [name, member] : {std::pair{"offsetOut", &ConvArgs::offset_out}, std::pair{"gradOffset", &ConvArgs::grad_offset},
                                std::pair{"gradInput", &ConvArgs::grad_input}, std::pair{"gradBias", &ConvArgs::grad_bias}}) {
      ConvArgs a = deform_args(*p);
      a.*member = bad;
      EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, name, "[97]"})) << name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableDeformConv, ::testing::ValuesIn(deformable_cases()),
                         harness::case_name<ConvTableCase>);

// An empty batch: nothing to sample; the weight and bias gradients are zero.
TEST(DeformShapes, EmptyBatch) {
  DeviceTensor x({0, 4, 6, 6}, ACL_FLOAT), w({6, 2, 3, 3}, ACL_FLOAT), off({0, 3 * 2 * 9, 4, 4}, ACL_FLOAT);
  DeviceTensor y({0, 6, 4, 4}, ACL_FLOAT), dy({0, 6, 4, 4}, ACL_FLOAT), oo({0, 4, 12, 12}, ACL_FLOAT);
  DeviceTensor dx({0, 4, 6, 6}, ACL_FLOAT), dw({6, 2, 3, 3}, ACL_FLOAT), doff({0, 3 * 2 * 9, 4, 4}, ACL_FLOAT),
      db({6}, ACL_FLOAT);
  w.fill_random(-1, 1);
  dw.poison();
  db.poison();
  IntArray k({3, 3}), one({1, 1, 1, 1}), zero({0, 0, 0, 0});
  EXPECT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **e) {
              return aclnnDeformableConv2dGetWorkspaceSize(x, w, off, nullptr, k.a, one.a, zero.a, one.a, 2, 2, true, y,
                                                           nullptr, ws, e);
            },
            aclnnDeformableConv2d),
            0)
      << aclGetRecentErrMsg();
  EXPECT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **e) {
              return aclnnDeformableConv2dBackwardGetWorkspaceSize(x, dy, oo, w, off, k.a, one.a, zero.a, one.a, 2, 2,
                                                                   true, dx, dw, doff, db, ws, e);
            },
            aclnnDeformableConv2dBackward),
            0)
      << aclGetRecentErrMsg();
  for (double v : dw.values()) EXPECT_EQ(v, 0.0);
  for (double v : db.values()) EXPECT_EQ(v, 0.0);
}

// NaN in the input reaches exactly the outputs whose samples read it (and the finite rest is exact to
// the reference).
TEST(DeformShapes, NanInputPropagatesToItsSamples) {
  refs::DeformRefGeom g;
  g.c = 2;
  g.cout = 2;
  g.h = 5;
  g.w = 5;
  g.kh = 3;
  g.kw = 3;
  g.pt = g.pb = g.pl = g.pr = 1;
  g.oh = 5;
  g.ow = 5;
  DeviceTensor x({1, 2, 5, 5}, ACL_FLOAT), w({2, 2, 3, 3}, ACL_FLOAT), off({1, 27, 5, 5}, ACL_FLOAT), y({1, 2, 5, 5}, ACL_FLOAT);
  x.fill_random(-1, 1);
  w.fill_random(0.5, 1);
  std::vector<double> ov(static_cast<size_t>(off.numel()), 0.0);
  for (size_t i = 0; i < ov.size(); ++i) ov[i] = i >= 18 * 25 ? 1.0 : 0.25;  // masks 1, offsets +0.25
  off.set_values(ov);
  std::vector<double> xv = x.values();
  xv[2 * 5 + 2] = NAN;  // channel 0, (2, 2)
  x.set_values(xv);
  IntArray k({3, 3}), one({1, 1, 1, 1});
  ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **e) {
              return aclnnDeformableConv2dGetWorkspaceSize(x, w, off, nullptr, k.a, one.a, one.a, one.a, 1, 1, true, y,
                                                           nullptr, ws, e);
            },
            aclnnDeformableConv2d),
            0)
      << aclGetRecentErrMsg();
  refs::ConvRefOut r, d;
  refs::deform_ref_forward(g, x.values(), w.values(), off.values(), {}, &r, &d);
  const std::vector<double> got = y.values();
  int nans = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(std::isnan(got[i]), std::isnan(r.value[i])) << i;
    nans += std::isnan(got[i]) ? 1 : 0;
    if (!std::isnan(r.value[i])) EXPECT_NEAR(got[i], r.value[i], 1e-5 * (1 + r.magnitude[i])) << i;
  }
  EXPECT_GT(nans, 0);
}

// The float64 reference's gradients against central differences of its own forward (loss = sum of
// out * dy), so the backward check above compares against a verified reference.
TEST(DeformRef, GradientsMatchCentralDifferences) {
  reseed_for_current_test();
  for (int trial = 0; trial < 4; ++trial) {
    refs::DeformRefGeom g;
    g.n = 1;
    g.groups = trial % 2 + 1;
    g.dg = trial < 2 ? 1 : 2;
    g.c = 2 * g.groups * g.dg / (g.groups == 2 && g.dg == 2 ? 2 : 1);
    g.cout = 2 * g.groups;
    g.kh = 2;
    g.kw = 3;
    g.sh = 1;
    g.sw = 2;
    g.pt = 1;
    g.pb = 0;
    g.pl = 1;
    g.pr = 2;
    g.dh = 2;
    g.dw = 1;
    g.h = 4;
    g.w = 5;
    g.oh = (g.h + g.pt + g.pb - ((g.kh - 1) * g.dh + 1)) / g.sh + 1;
    g.ow = (g.w + g.pl + g.pr - ((g.kw - 1) * g.dw + 1)) / g.sw + 1;
    g.modulated = trial != 1;
    const int64_t K = g.kh * g.kw, L = g.oh * g.ow;
    auto uniform = [](size_t n, double lo, double hi) {
      std::vector<double> v(n);
      for (double &e : v) e = lo + (hi - lo) * static_cast<double>(rng()() % 1000001) / 1000000.0;
      return v;
    };
    std::vector<double> x = uniform(static_cast<size_t>(g.n * g.c * g.h * g.w), -2, 2);
    std::vector<double> w = uniform(static_cast<size_t>(g.cout * (g.c / g.groups) * K), -1, 1);
    std::vector<double> off = uniform(static_cast<size_t>(g.n * 3 * g.dg * K * L), -2.5, 2.5);
    std::vector<double> dy = uniform(static_cast<size_t>(g.n * g.cout * L), -1, 1);
    auto loss = [&]() {
      refs::ConvRefOut out, dout;
      refs::deform_ref_forward(g, x, w, off, {}, &out, &dout);
      double s = 0;
      for (size_t i = 0; i < dy.size(); ++i) s += out.value[i] * dy[i];
      return s;
    };
    refs::ConvRefOut out, dout, gx, gw, goff, gb;
    refs::deform_ref_forward(g, x, w, off, {}, &out, &dout);
    refs::deform_ref_backward(g, x, w, off, dout.value, dy, &gx, &gw, &goff, &gb);
    const double h = 1e-6;
    auto check = [&](std::vector<double> &v, const std::vector<double> &grad, const char *what) {
      for (size_t i = 0; i < v.size(); ++i) {
        const double keep = v[i];
        v[i] = keep + h;
        const double up = loss();
        v[i] = keep - h;
        const double down = loss();
        v[i] = keep;
        EXPECT_NEAR((up - down) / (2 * h), grad[i], 1e-5 * (1 + std::fabs(grad[i]))) << what << " " << i;
      }
    };
    check(x, gx.value, "x");
    check(w, gw.value, "weight");
    check(off, goff.value, "offset");
  }
}

// ---- QuantConvolution: its own suites ----
//   - int8 exact: small values, scale 1, INT32 bias, FLOAT16 out: every output is the exact integer
//     sum (int64 direct convolution written here), padding filled with offsetx;
//   - full-range int8 with per-channel FLOAT / INT64-encoded scales, INT32 or FLOAT bias, FLOAT16 /
//     BF16 out, 2-D and 3-D, groups, strided views and tiny column tiles: within the epilogue's
//     roundings (fp32 scale and bias, one rounding to the output dtype) of the float64 value;
//   - errors with their code and the argument named.

struct QuantProblem {
  int nsp = 2;
  int64_t n = 1, cin = 1, cout = 1, groups = 1, offsetx = 0;
  int64_t in_sp[3] = {1, 1, 1}, out_sp[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, p[3] = {0, 0, 0},
          d[3] = {1, 1, 1};
  Tensor input, weight, bias, scale, output;
  std::unique_ptr<IntArray> stride, padding, dilation, output_padding;
  std::vector<double> scale_values;  // decoded
};

std::string describe(const QuantProblem &q) {
  std::ostringstream os;
  os << "nsp " << q.nsp << " n " << q.n << " cin " << q.cin << " cout " << q.cout << " groups " << q.groups
     << " offsetx " << q.offsetx << " in " << q.in_sp[0] << "x" << q.in_sp[1] << "x" << q.in_sp[2] << " k " << q.k[0]
     << "x" << q.k[1] << "x" << q.k[2] << " s " << q.s[0] << q.s[1] << q.s[2] << " p " << q.p[0] << q.p[1] << q.p[2]
     << " d " << q.d[0] << q.d[1] << q.d[2] << " bias " << (q.bias ? static_cast<int>(q.bias->dtype()) : -1)
     << " scale " << static_cast<int>(q.scale->dtype()) << " out " << static_cast<int>(q.output->dtype());
  return os.str();
}

// exact: small values, unit scales, INT32 bias (or none), FLOAT16 output. fractal: what the WeightNz
// form takes (3-D, groups 1), with channel counts on both sides of the 16 x 32 weight blocks.
// pointwise: a 1x1 stride-1 unpadded kernel over larger planes (channels-first: the input read in place).
std::unique_ptr<QuantProblem> make_quant_problem(bool exact, aclDataType out_dt, Layout in_layout, Layout out_layout,
                                                 bool fractal = false, bool pointwise = false) {
  auto q = std::make_unique<QuantProblem>();
  q->nsp = fractal ? 3 : static_cast<int>(rnd(2, 3));
  q->n = rnd(1, 2);
  q->groups = fractal ? 1 : rnd(1, 3);
  q->cin = fractal ? rnd(1, 70) : q->groups * rnd(1, 4);
  q->cout = fractal ? rnd(1, 40) : q->groups * rnd(1, 4);
  q->offsetx = rng()() % 3 == 0 ? 0 : rnd(exact ? -4 : -128, exact ? 4 : 127);
  for (int j = 3 - q->nsp; j < 3; ++j) {
    q->k[j] = rnd(1, q->nsp == 3 ? 2 : 3);
    q->s[j] = rnd(1, 2);
    q->p[j] = rnd(0, 2);
    q->d[j] = rnd(1, 2);
    const int64_t span = q->d[j] * (q->k[j] - 1) + 1;
    q->in_sp[j] = std::max<int64_t>(1, span - 2 * q->p[j]) + rnd(0, q->nsp == 3 ? 2 : 5);
    if (pointwise) {
      q->k[j] = q->s[j] = q->d[j] = 1;
      q->p[j] = 0;
      q->in_sp[j] = rnd(1, q->nsp == 3 ? 9 : 40);
      q->out_sp[j] = q->in_sp[j];
      continue;
    }
    q->out_sp[j] = (q->in_sp[j] + 2 * q->p[j] - span) / q->s[j] + 1;
  }
  std::vector<int64_t> ish{q->n, q->cin}, wsh{q->cout, q->cin / q->groups}, osh{q->n, q->cout}, st, pd, dl, op;
  for (int j = 3 - q->nsp; j < 3; ++j) {
    ish.push_back(q->in_sp[j]);
    wsh.push_back(q->k[j]);
    osh.push_back(q->out_sp[j]);
    st.push_back(q->s[j]);
    pd.push_back(q->p[j]);
    dl.push_back(q->d[j]);
    op.push_back(0);
  }
  auto ints = [&](Tensor &t, int64_t lo, int64_t hi) {
    std::vector<double> v(static_cast<size_t>(t->numel()));
    for (double &e : v) e = static_cast<double>(rnd(lo, hi));
    t->set_values(v);
  };
  q->input = make_tensor(ish, ACL_INT8, in_layout);
  ints(q->input, exact ? -4 : -128, exact ? 4 : 127);
  q->weight = make_tensor(wsh, ACL_INT8, in_layout);
  ints(q->weight, exact ? -2 : -128, exact ? 2 : 127);
  const int bias_kind = static_cast<int>(rng()() % 3);  // none, INT32, FLOAT
  if (bias_kind == 1 || (!exact && bias_kind == 2)) {
    q->bias = std::make_unique<DeviceTensor>(std::vector<int64_t>{q->cout}, bias_kind == 1 ? ACL_INT32 : ACL_FLOAT);
    if (bias_kind == 1) ints(q->bias, exact ? -50 : -100000, exact ? 50 : 100000);
    else q->bias->fill_random(-2, 2);
  }
  const bool encoded = !exact && rng()() % 2 == 0, one_scale = !exact && rng()() % 4 == 0;  // [1]: broadcast
  const int64_t ns = one_scale ? 1 : q->cout;
  q->scale = std::make_unique<DeviceTensor>(std::vector<int64_t>{ns}, encoded ? ACL_INT64 : ACL_FLOAT);
  q->scale_values.resize(static_cast<size_t>(ns));
  std::vector<double> raw(static_cast<size_t>(ns));
  for (size_t i = 0; i < raw.size(); ++i) {
    const float f = exact ? 1.0f : static_cast<float>((rng()() % 2 ? 1 : -1) * std::ldexp(1.0 + static_cast<double>(rng()() % 1000) / 1000.0, -static_cast<int>(rnd(6, 14))));
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    bits &= encoded ? 0xFFFFE000u : 0xFFFFFFFFu;  // the encoding keeps 19 bits (TransQuantParam)
    float kept;
    std::memcpy(&kept, &bits, 4);
    q->scale_values[i] = kept;
    raw[i] = encoded ? static_cast<double>(static_cast<int64_t>(bits) | (int64_t{1} << 46)) : kept;
  }
  q->scale->set_values(raw);
  q->scale_values.resize(static_cast<size_t>(q->cout), q->scale_values[0]);
  q->output = make_tensor(osh, out_dt, out_layout);
  q->output->poison();
  q->stride = std::make_unique<IntArray>(st);
  q->padding = std::make_unique<IntArray>(pd);
  q->dilation = std::make_unique<IntArray>(dl);
  q->output_padding = std::make_unique<IntArray>(op);
  return q;
}

ConvArgs quant_args(const QuantProblem &q) {
  ConvArgs a;
  a.input = q.input->get();
  a.weight = q.weight->get();
  a.bias = q.bias ? q.bias->get() : nullptr;
  a.scale = q.scale->get();
  a.offset = nullptr;
  a.stride = q.stride->a;
  a.padding = q.padding->a;
  a.dilation = q.dilation->a;
  a.transposed = false;
  a.output_padding = q.output_padding->a;
  a.groups = q.groups;
  a.offsetx = q.offsetx;
  a.round_mode = "rint";
  a.output = q.output->get();
  return a;
}

// The exact int64 sums (padding = offsetx) in the output's logical NC(D)HW order.
std::vector<int64_t> quant_ref_sums(const QuantProblem &q) {
  const std::vector<double> x = q.input->values(), w = q.weight->values();
  const int64_t cbg = q.cin / q.groups, csg = q.cout / q.groups;
  const int64_t isz = q.in_sp[0] * q.in_sp[1] * q.in_sp[2];
  std::vector<int64_t> r;
  for (int64_t n = 0; n < q.n; ++n)
    for (int64_t co = 0; co < q.cout; ++co)
      for (int64_t o0 = 0; o0 < q.out_sp[0]; ++o0)
        for (int64_t o1 = 0; o1 < q.out_sp[1]; ++o1)
          for (int64_t o2 = 0; o2 < q.out_sp[2]; ++o2) {
            int64_t acc = 0;
            const int64_t grp = co / csg;
            for (int64_t cl = 0; cl < cbg; ++cl)
              for (int64_t t0 = 0; t0 < q.k[0]; ++t0)
                for (int64_t t1 = 0; t1 < q.k[1]; ++t1)
                  for (int64_t t2 = 0; t2 < q.k[2]; ++t2) {
                    const int64_t i0 = o0 * q.s[0] - q.p[0] + t0 * q.d[0], i1 = o1 * q.s[1] - q.p[1] + t1 * q.d[1];
                    const int64_t i2 = o2 * q.s[2] - q.p[2] + t2 * q.d[2];
                    const bool in = i0 >= 0 && i0 < q.in_sp[0] && i1 >= 0 && i1 < q.in_sp[1] && i2 >= 0 && i2 < q.in_sp[2];
                    const int64_t xv = in ? static_cast<int64_t>(x[static_cast<size_t>(
                                                (n * q.cin + grp * cbg + cl) * isz + (i0 * q.in_sp[1] + i1) * q.in_sp[2] + i2)])
                                          : q.offsetx;
                    const int64_t wv = static_cast<int64_t>(
                        w[static_cast<size_t>(((co * cbg + cl) * q.k[0] + t0) * q.k[1] * q.k[2] + t1 * q.k[2] + t2)]);
                    acc += xv * wv;
                  }
            r.push_back(acc);
          }
  return r;
}

// weight: the weight argument when not q's (the WeightNz form's blocked copy of it).
// q.output against the reference over q's current input / weight values.
void check_quant(const QuantProblem &q, bool exact);

// weight: the weight argument when not q's (the WeightNz form's blocked copy of it).
void run_quant(const ConvTableCase &c, QuantProblem &q, bool exact, aclTensor *weight = nullptr) {
  ConvArgs a = quant_args(q);
  if (weight != nullptr) a.weight = weight;
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  check_quant(q, exact);
}

void check_quant(const QuantProblem &q, bool exact) {
  const std::vector<int64_t> sums = quant_ref_sums(q);
  const std::vector<double> got = q.output->values();
  const std::vector<double> bias = q.bias ? q.bias->values() : std::vector<double>{};
  const bool int_bias = q.bias && q.bias->dtype() == ACL_INT32;
  const int64_t per = q.out_sp[0] * q.out_sp[1] * q.out_sp[2];
  const aclDataType dt = q.output->dtype();
  const double eps = dt == ACL_FLOAT16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
  ASSERT_EQ(got.size(), sums.size());
  int bad = 0;
  for (size_t i = 0; i < sums.size() && bad < 5; ++i) {
    const size_t co = static_cast<size_t>((static_cast<int64_t>(i) / per) % q.cout);
    const double acc = static_cast<double>(sums[i]) + (int_bias ? bias[co] : 0.0);
    const double scaled = acc * q.scale_values[co], fb = q.bias && !int_bias ? bias[co] : 0.0;
    const double want = scaled + fb;
    if (exact) {
      if (got[i] != round_to(dt, want)) {
        ++bad;
        ADD_FAILURE() << "at " << i << ": got " << got[i] << " want exactly " << want;
      }
      continue;
    }
    const double tol = eps * std::fabs(want) + 4 * std::ldexp(1.0, -24) * (std::fabs(scaled) + std::fabs(fb)) + 1e-7;
    if (!(std::fabs(got[i] - want) <= tol)) {
      ++bad;
      ADD_FAILURE() << "at " << i << ": got " << got[i] << " want " << want << " (sum " << sums[i] << ")";
    }
  }
  EXPECT_TRUE(q.output->untouched_outside_view());
}

class OpTableQuantConv : public ::testing::TestWithParam<ConvTableCase> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTableQuantConv);

void run_quant_nz(const ConvTableCase &c, QuantProblem &q, bool exact);

// The row's problem (the WeightNz row: 3-D, groups 1, channel counts across the weight blocks) and
// its run (the WeightNz row: the weight as FRACTAL_Z_3D blocks, also compared with QuantConvolution).
bool nz_row(const ConvTableCase &c) { return c.kind == "quant_nz"; }
std::unique_ptr<QuantProblem> problem_for(const ConvTableCase &c, bool exact, aclDataType out_dt, Layout in, Layout out,
                                          bool pointwise = false) {
  return make_quant_problem(exact, out_dt, in, out, nz_row(c), pointwise);
}
void run_row(const ConvTableCase &c, QuantProblem &q, bool exact) {
  if (nz_row(c)) run_quant_nz(c, q, exact);
  else run_quant(c, q, exact);
}

TEST_P(OpTableQuantConv, Int8ExactSums) {
  reseed_for_current_test();
  for (int t = 0; t < 10; ++t) {
    auto q = problem_for(GetParam(), true, ACL_FLOAT16, Layout::kContiguous, Layout::kContiguous);
    SCOPED_TRACE(describe(*q));
    run_row(GetParam(), *q, true);
  }
}

TEST_P(OpTableQuantConv, FullRangeScalesAndBias) {
  reseed_for_current_test();
  for (aclDataType dt : {ACL_FLOAT16, ACL_BF16}) {
    for (int t = 0; t < 8; ++t) {
      auto q = problem_for(GetParam(), false, dt, Layout::kContiguous, Layout::kContiguous);
      SCOPED_TRACE(describe(*q));
      run_row(GetParam(), *q, false);
    }
  }
}

// 1x1 layers: an input whose pixels nest is read in place as the GEMM's operand (B of W @ col for a
// channels-first output, A of col^T @ W^T for a channels-last one; NCHW and NHWC inputs), padded-row
// views keep the im2col path.
TEST_P(OpTableQuantConv, PointwiseLayers) {
  reseed_for_current_test();
  for (int t = 0; t < 14; ++t) {
    const Layout in = t == 5 ? Layout::kPaddedRows : t >= 7 && t % 2 == 1 ? Layout::kChannelsLast : Layout::kContiguous;
    const Layout out = t >= 6 ? Layout::kChannelsLast : Layout::kContiguous;
    auto q = problem_for(GetParam(), t % 2 == 0, t % 4 < 2 ? ACL_FLOAT16 : ACL_BF16, in, out, true);
    SCOPED_TRACE(describe(*q));
    run_row(GetParam(), *q, t % 2 == 0);
  }
}

TEST_P(OpTableQuantConv, StridedViewsAndColumnTiles) {
  reseed_for_current_test();
  for (int t = 0; t < 6; ++t) {
    const Layout in = t % 2 == 0 ? Layout::kChannelsLast : Layout::kPaddedRows;
    const Layout out = t % 3 == 0 ? Layout::kChannelsLast : Layout::kPaddedRows;
    auto q = problem_for(GetParam(), t % 2 == 0, t % 2 == 0 ? ACL_FLOAT16 : ACL_BF16, in, out);
    SCOPED_TRACE(describe(*q));
    SmallColumnTiles tiles;
    run_row(GetParam(), *q, t % 2 == 0);
  }
}

class OpTableQuantConvErrors : public ::testing::TestWithParam<ConvTableCase> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTableQuantConvErrors);

TEST_P(OpTableQuantConvErrors, ErrorsNameTheArgument) {
  reseed_for_current_test();
  const ConvTableCase &c = GetParam();
  auto q = make_quant_problem(false, ACL_FLOAT16, Layout::kContiguous, Layout::kContiguous);
  const char *api = c.api.c_str();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto fails = [&](const ConvArgs &a, int code, std::initializer_list<const char *> words) {
    return fails_with(c.phase1(a, &ws, &ex), code, words);
  };
  for (auto [name, member] : {std::pair{"input", &ConvArgs::input}, std::pair{"weight", &ConvArgs::weight},
                              std::pair{"scale", &ConvArgs::scale}, std::pair{"output", &ConvArgs::output}}) {
    ConvArgs a = quant_args(*q);
    a.*member = nullptr;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_NULLPTR, {api, name})) << name;
  }
  for (auto [name, member] : {std::pair{"stride", &ConvArgs::stride}, std::pair{"padding", &ConvArgs::padding},
                              std::pair{"dilation", &ConvArgs::dilation}}) {
    ConvArgs a = quant_args(*q);
    a.*member = nullptr;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_NULLPTR, {api, name})) << name;
  }
  for (aclDataType bad : {ACL_FLOAT, ACL_FLOAT16, ACL_INT32, ACL_UINT8}) {
    DeviceTensor b(q->input->shape(), bad);
    ConvArgs a = quant_args(*q);
    a.input = b;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "input", "dtype"})) << bad;
    DeviceTensor bw(q->weight->shape(), bad);
    a = quant_args(*q);
    a.weight = bw;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "weight", "dtype"})) << bad;
  }
  {
    DeviceTensor b(q->output->shape(), ACL_FLOAT);
    ConvArgs a = quant_args(*q);
    a.output = b;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "output", "dtype"}));
    DeviceTensor wrong({97}, ACL_FLOAT16);
    a = quant_args(*q);
    a.output = wrong;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "output", "[97]"}));
  }
  {
    DeviceTensor s2({q->cout + 1}, ACL_FLOAT), s3(std::vector<int64_t>{q->cout}, ACL_FLOAT16);
    ConvArgs a = quant_args(*q);
    a.scale = s2;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "scale"}));
    a.scale = s3;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "scale", "dtype"}));
    DeviceTensor b8({q->cout}, ACL_INT8), b2({q->cout + 2}, ACL_INT32);
    a = quant_args(*q);
    a.bias = b8;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "bias", "dtype"}));
    a.bias = b2;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "bias"}));
  }
  {
    ConvArgs a = quant_args(*q);
    a.transposed = true;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "transposed"}));
    a = quant_args(*q);
    DeviceTensor off({q->cout}, ACL_FLOAT);
    a.offset = off;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "offset"}));
    a = quant_args(*q);
    a.offsetx = 300;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "offsetx"}));
    a = quant_args(*q);
    a.round_mode = "floor";
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "roundMode"}));
    a = quant_args(*q);
    a.groups = q->groups + 7;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "groups"}));
    IntArray neg(std::vector<int64_t>(static_cast<size_t>(q->nsp), -1));
    a = quant_args(*q);
    a.padding = neg.a;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "padding"}));
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableQuantConv, ::testing::ValuesIn(quant_cases()), harness::case_name<ConvTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableQuantConvErrors, ::testing::ValuesIn(quant_cases_of("quant")),
                         harness::case_name<ConvTableCase>);

// ---- QuantConvolutionWeightNz: the QuantConvolution problems (3-D, groups 1) with the weight in
// FRACTAL_Z_3D, built here from the logical weight by the documented layout (fractal_tensors.h):
// the float64 / exact references above, and bit-equal to QuantConvolution on the logical weight.

const ConvTableCase &plain_quant_case() {
  static const ConvTableCase plain = [] {  // found once, kept for the process
    for (const ConvTableCase &c : conv_table_cases())
      if (c.kind == "quant") return c;
    ADD_FAILURE() << "no QuantConvolution row in the conv table";
    return ConvTableCase();
  }();
  return plain;
}

void run_quant_nz(const ConvTableCase &c, QuantProblem &q, bool exact) {
  const auto nz = make_fractal_z3d(q.weight->shape(), ACL_INT8, q.weight->values());
  run_quant(c, q, exact, nz->get());
  const std::vector<double> got = q.output->values();
  q.output->poison();
  const ConvTableCase &plain = plain_quant_case();
  const ConvArgs a = quant_args(q);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return plain.phase1(a, w, e); }, plain.launch), 0)
      << aclGetRecentErrMsg();
  const std::vector<double> want = q.output->values();
  for (size_t i = 0; i < got.size(); ++i)
    if (!(got[i] == want[i])) {  // bit-equal as values (no NaN in these outputs)
      ADD_FAILURE() << "at " << i << ": WeightNz " << got[i] << ", QuantConvolution " << want[i];
      break;
    }
}

class OpTableQuantConvNz : public ::testing::TestWithParam<ConvTableCase> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTableQuantConvNz);

TEST_P(OpTableQuantConvNz, ErrorsNameTheArgument) {
  reseed_for_current_test();
  const ConvTableCase &c = GetParam();
  auto q = make_quant_problem(false, ACL_FLOAT16, Layout::kContiguous, Layout::kContiguous, true);
  const std::vector<int64_t> wsh = q->weight->shape();
  const auto nz = make_fractal_z3d(wsh, ACL_INT8, q->weight->values());
  const char *api = c.api.c_str();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto args = [&] {
    ConvArgs a = quant_args(*q);
    a.weight = nz->get();
    return a;
  };
  auto fails = [&](const ConvArgs &a, int code, std::initializer_list<const char *> words) {
    return fails_with(c.phase1(a, &ws, &ex), code, words);
  };
  {
    ConvArgs a = args();
    a.weight = nullptr;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_NULLPTR, {api, "weight"}));
    a.weight = q->weight->get();  // the plain NCDHW weight
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "weight", "format", "FRACTAL_Z_3D"}));
  }
  {  // storage shape of another layout: the dims of FRACTAL_NZ-like blocks, one block short, C0 16
    std::vector<int64_t> st = fractal_z3d_storage(wsh, ACL_INT8);
    for (int variant = 0; variant < 3; ++variant) {
      std::vector<int64_t> bad = st;
      if (variant == 0) bad[1] += 1;
      if (variant == 1) bad[3] = 16;
      if (variant == 2) bad.pop_back();
      int64_t elems = 1;
      for (int64_t e : bad) elems *= e;
      FractalTensor w(wsh, ACL_INT8, ACL_FRACTAL_Z_3D, bad, elems);
      ConvArgs a = args();
      a.weight = w;
      EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "weight", "storage shape"})) << variant;
    }
    FractalTensor w(wsh, ACL_FLOAT16, ACL_FRACTAL_Z_3D, fractal_z3d_storage(wsh, ACL_FLOAT16), 1 << 16);
    ConvArgs a = args();
    a.weight = w;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "weight", "dtype"}));
  }
  {
    ConvArgs a = args();
    a.groups = 2;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "groups"}));
    // 2-D: a 4-D input
    std::vector<int64_t> ish = q->input->shape();
    ish.erase(ish.begin() + 2);
    DeviceTensor in4(ish, ACL_INT8);
    a = args();
    a.input = in4;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "input"}));
  }
}

// A repeatable executor relaunched after the blocked weight was rewritten through the runtime
// (aclrtMemcpy), and re-pointed at another one (aclSetInputTensorAddr): the kept dense copy follows.
TEST_P(OpTableQuantConvNz, RepeatableExecutorFollowsRewrittenAndRepointedWeight) {
  reseed_for_current_test();
  const ConvTableCase &c = GetParam();
  auto q = make_quant_problem(true, ACL_FLOAT16, Layout::kContiguous, Layout::kContiguous, true);
  SCOPED_TRACE(describe(*q));
  const std::vector<int64_t> wsh = q->weight->shape();
  std::vector<std::vector<double>> values;
  std::vector<std::unique_ptr<FractalTensor>> nz;
  for (int v = 0; v < 3; ++v) {
    std::vector<double> w(static_cast<size_t>(q->weight->numel()));
    for (double &e : w) e = static_cast<double>(rnd(-2, 2));
    values.push_back(w);
    nz.push_back(make_fractal_z3d(wsh, ACL_INT8, w));
  }
  ConvArgs a = quant_args(*q);
  a.weight = *nz[0];
  uint64_t ws_size = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(c.phase1(a, &ws_size, &ex), 0) << aclGetRecentErrMsg();
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), ACL_SUCCESS);
  void *ws = nullptr;
  if (ws_size > 0) ASSERT_EQ(aclrtMalloc(&ws, ws_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  auto launch_and_check = [&](int v, const char *what) {
    SCOPED_TRACE(what);
    q->weight->set_values(values[static_cast<size_t>(v)]);  // the reference's weight
    q->output->poison();
    ASSERT_EQ(c.launch(ws, ws_size, ex, nullptr), 0);
    ASSERT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);
    check_quant(*q, true);
  };
  launch_and_check(0, "first launch");
  launch_and_check(0, "relaunch");
  int64_t bytes = 1;
  for (int64_t d : fractal_z3d_storage(wsh, ACL_INT8)) bytes *= d;
  ASSERT_EQ(aclrtMemcpy(nz[0]->data(), bytes, nz[1]->data(), bytes, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
  launch_and_check(1, "after aclrtMemcpy into the weight");
  ASSERT_EQ(aclSetInputTensorAddr(ex, 1, *nz[2], nz[2]->data()), ACL_SUCCESS);  // weight: input 1
  launch_and_check(2, "re-pointed at another weight");
  aclDestroyAclOpExecutor(ex);
  if (ws) aclrtFree(ws);
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableQuantConvNz, ::testing::ValuesIn(quant_cases_of("quant_nz")),
                         harness::case_name<ConvTableCase>);

}  // namespace
}  // namespace opsnn::test
