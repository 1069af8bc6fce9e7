// The test harness of the table-driven pooling ops (src/ops/pooling/pooling.ops): every op runs
// the same suites, registered from the tables by tools/gen_ops.py --tests (pool_table_cases.inc in
// the build tree):
//   - every accepted dtype on random shapes (batched or not, channel counts 1 to 16), kernels,
//     strides, paddings (asymmetric for aclnnMaxPool), dilations, ceil modes, countIncludePad and
//     divisorOverride, adaptive output sizes, against the float64 references of
//     tests/common/float64_refs.h (pool_forward_ref, pool_avg_backward_ref, pool_scatter_ref,
//     pool_gather_ref) with the precision standard; indices (INT32 and INT64) exactly;
//   - the same on non-contiguous inputs (channels-last strides, transposed + offset views), padded
//     outputs, and tensors whose format is NHWC / NDHWC; NaN inputs for the max ops;
//   - errors with their code and the argument named (null tensors and arrays: 161001; kernel,
//     stride, padding > kernel / 2, dilation, output sizes <= 0, wrong output shapes and dtypes:
//     161002).
#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "float64_refs.h"
#include "op_table_harness.h"
#include "pool_test_tensors.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct PoolArgs {
  aclTensor *grad = nullptr, *self = nullptr, *indices = nullptr, *out = nullptr, *out_indices = nullptr;
  aclIntArray *kernel = nullptr, *stride = nullptr, *padding = nullptr, *dilation = nullptr, *output_size = nullptr;
  bool ceil = false, include = true;
  int64_t divisor = 0, auto_pad = 0;
  int8_t cube = 0;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct PoolTableCase {
  std::string name, api, kind;
  int spatial = 2;
  bool onnx_pads = false;
  std::vector<aclDataType> dtypes;
  std::vector<std::string> roles, names;
  int (*phase1)(const PoolArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
  bool has(const char *r) const { return std::find(roles.begin(), roles.end(), r) != roles.end(); }
  std::string name_of(const char *role) const {
    for (size_t i = 0; i < roles.size(); ++i)
      if (roles[i] == role) return names[i];
    return role;
  }
};
void PrintTo(const PoolTableCase &c, std::ostream *os) { *os << c.name; }

#include "pool_table_cases.inc"

const std::vector<PoolTableCase> &all_cases() {
  static const std::vector<PoolTableCase> c = harness::sampled(pool_table_cases());
  return c;
}

bool is_mask(const std::string &k) { return k == "kMaxMask" || k == "kMaxMaskBackward"; }
bool is_regular(const std::string &k) {
  return k == "kAvg" || k == "kMax" || k == "kMaxIndices" || k == "kAvgBackward" || k == "kMaxIndicesBackward" ||
         is_mask(k);
}
bool is_avg(const std::string &k) { return k == "kAvg" || k == "kAvgBackward"; }
bool is_forward(const std::string &k) {
  return k == "kAvg" || k == "kMax" || k == "kMaxIndices" || k == "kAdaptiveAvg" || k == "kAdaptiveMax" ||
         k == "kMaxMask";
}
bool is_unpool(const std::string &k) { return k == "kUnpool" || k == "kUnpoolBackward"; }

aclIntArray *int_array(const std::vector<int64_t> &v) { return aclCreateIntArray(v.data(), v.size()); }

// One call: the geometry, the tensors and the arrays.
struct Problem {
  int nsp = 2;
  bool batched = true;
  int64_t n = 1, c = 1;
  refs::PoolRefGeom g;
  refs::PoolWin win = refs::PoolWin::kRegular;
  std::vector<int64_t> kernel, stride, padding, dilation, output_size;
  bool ceil = false, include = true;
  int64_t divisor = 0;
  aclDataType dt = ACL_FLOAT, idt = ACL_INT64;
  std::unique_ptr<T5> self, grad, indices, out, out_indices;
  std::vector<aclIntArray *> arrays;
  std::vector<int64_t> mask_pos;  // MaxPool2dWithMaskBackward: the position each output's mask marks (-1: none)
  ~Problem() {
    for (auto *a : arrays) aclDestroyIntArray(a);
  }
  int64_t planes() const { return n * c; }
  int64_t in5(int i) const { return i == 0 ? n : i == 1 ? c : g.in[i - 2]; }
  int64_t out5(int i) const { return i == 0 ? n : i == 1 ? c : g.out[i - 2]; }
};

int64_t rnd(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rng()() % static_cast<uint64_t>(hi - lo + 1)); }

// An int array of nsp values, given as one value when they are equal and a coin says so.
std::vector<int64_t> as_array(const std::vector<int64_t> &v, bool allow_one) {
  if (allow_one && std::all_of(v.begin(), v.end(), [&](int64_t x) { return x == v[0]; }) && rng()() % 2 == 0)
    return {v[0]};
  return v;
}

// Set by a test: regular windows are 2 x 2 of stride 2 without padding or dilation (the nchw_max_2x2
// path for max pooling without indices), heights of either parity, widths even up to 40 or odd.
bool g_fixed_2x2 = false;

// Random geometry for the case (fills everything but the tensors).
void random_geometry(const PoolTableCase &c, Problem &p) {
  const int nsp = p.nsp = c.spatial;
  p.batched = rng()() % 4 != 0;
  p.n = p.batched ? rnd(1, 2) : 1;
  static const int64_t kC[] = {1, 2, 3, 5, 16};
  p.c = kC[rng()() % 5];
  const int64_t max_in = nsp == 3 ? 7 : 13;
  for (int a = 3 - nsp; a < 3; ++a) p.g.in[a] = rnd(1, max_in);
  if (g_fixed_2x2) {
    p.g.in[1] = rnd(2, 13);
    p.g.in[2] = rng()() % 4 == 0 ? 2 * rnd(1, 6) + 1 : 2 * rnd(1, 20);
  }
  if (is_regular(c.kind)) {
    for (int tries = 0;; ++tries) {
      p.kernel.clear();
      p.stride.clear();
      p.padding.clear();
      p.dilation.clear();
      p.ceil = rng()() % 2 == 0;
      bool ok = true;
      for (int a = 3 - nsp; a < 3; ++a) {
        auto &G = p.g;
        G.k[a] = rnd(1, nsp == 3 ? 3 : 4);
        G.s[a] = rnd(1, 3);
        G.d[a] = (c.has("dilation") && rng()() % 3 == 0) ? 2 : 1;
        G.pl[a] = rnd(0, G.k[a] / 2);
        G.pr[a] = c.onnx_pads ? rnd(0, G.k[a] / 2) : G.pl[a];
        if (g_fixed_2x2 && a > 0) G.k[a] = G.s[a] = 2, G.d[a] = 1, G.pl[a] = G.pr[a] = 0;
        if (tries > 20) G.in[a] = std::max<int64_t>(G.in[a], G.d[a] * (G.k[a] - 1) + 1);
        G.out[a] = refs::pool_out_size_ref(G.in[a], G.k[a], G.pl[a], G.pr[a], G.s[a], G.d[a], p.ceil);
        ok = ok && G.out[a] > 0;
        p.kernel.push_back(G.k[a]);
        p.stride.push_back(G.s[a]);
        p.dilation.push_back(G.d[a]);
      }
      if (ok) break;
    }
    for (int a = 3 - nsp; a < 3; ++a) p.padding.push_back(p.g.pl[a]);
    if (c.onnx_pads) {  // pads: [] (zeros), [p] / [ph, pw] (both sides) or [top, left, bottom, right]
      std::vector<int64_t> pads = {p.g.pl[1], p.g.pl[2], p.g.pr[1], p.g.pr[2]};
      p.padding = pads;
      if (pads[0] == pads[2] && pads[1] == pads[3] && rng()() % 2 == 0)
        p.padding = pads[0] == 0 && pads[1] == 0 && rng()() % 2 == 0 ? std::vector<int64_t>{}
                                                                       : as_array({pads[0], pads[1]}, true);
    } else {
      p.padding = as_array(p.padding, true);
    }
    p.kernel = as_array(p.kernel, true);
    // stride [] means the kernel size
    bool stride_is_kernel = true;
    for (int a = 3 - nsp; a < 3; ++a) stride_is_kernel = stride_is_kernel && p.g.s[a] == p.g.k[a];
    p.stride = stride_is_kernel && rng()() % 2 == 0 ? std::vector<int64_t>{} : as_array(p.stride, true);
    p.dilation = as_array(p.dilation, true);
    if (is_avg(c.kind)) {
      p.include = rng()() % 2 == 0;
      p.divisor = rng()() % 3 == 0 ? rnd(1, 9) : 0;
      p.g.include_pad = p.include;
      p.g.divisor = p.divisor;
      for (int a = 0; a < 3; ++a) p.g.d[a] = 1;
    }
    p.win = refs::PoolWin::kRegular;
  } else if (is_unpool(c.kind)) {  // self: the pooled size; outputSize at least as large
    for (int a = 3 - nsp; a < 3; ++a) {
      p.g.in[a] = rnd(1, nsp == 3 ? 4 : 6);
      p.g.out[a] = p.g.in[a] + rnd(0, 4);
      p.output_size.push_back(p.g.out[a]);
      p.stride.push_back(rnd(1, 2));
      p.padding.push_back(rnd(0, 1));
    }
  } else {  // adaptive (one case in four global: every output size 1)
    const bool global = rng()() % 4 == 0;
    for (int a = 3 - nsp; a < 3; ++a) {
      p.g.out[a] = global ? 1 : rnd(1, p.g.in[a] + 3);
      p.output_size.push_back(p.g.out[a]);
    }
    p.win = refs::PoolWin::kAdaptive;
  }
}

// A tensor of the problem: logical dims of the input (self-sized) or the output side.
std::unique_ptr<T5> tensor_of(const Problem &p, bool out_side, aclDataType dt, Layout lay) {
  int64_t l5[5];
  for (int i = 0; i < 5; ++i) l5[i] = out_side ? p.out5(i) : p.in5(i);
  return make_t5(l5, p.nsp, p.batched, dt, lay);
}

// aclnnMaxPool2dWithMask's mask (src/ops/pooling/pool_phase1.h): [N,] C, kH * kW, width bytes.
int64_t mask_width(const Problem &p) { return ((p.g.out[1] * p.g.out[2] + 15) / 16 + 1) * 32; }
std::unique_ptr<T5> mask_tensor(const Problem &p) {
  const int64_t l5[5] = {p.n, p.c, 1, p.g.k[1] * p.g.k[2], mask_width(p)};
  return make_t5(l5, 2, p.batched, ACL_INT8, Layout::kContig);
}
// The input position of kernel offset (kh, kw) of output (oh, ow), or -1 outside the input.
int64_t mask_position(const Problem &p, int64_t oh, int64_t ow, int64_t kh, int64_t kw) {
  const auto &g = p.g;
  const int64_t ih = oh * g.s[1] - g.pl[1] + kh * g.d[1], iw = ow * g.s[2] - g.pl[2] + kw * g.d[2];
  return ih < 0 || ih >= g.in[1] || iw < 0 || iw >= g.in[2] ? -1 : ih * g.in[2] + iw;
}
// The expected mask of flat maximum positions `idx` (one per output, planar).
std::vector<double> mask_of(const Problem &p, const std::vector<double> &idx) {
  const int64_t kk = p.g.k[1] * p.g.k[2], w = mask_width(p), outp = p.g.out_plane();
  std::vector<double> m(static_cast<size_t>(p.planes() * kk * w), 0);
  for (int64_t pl = 0; pl < p.planes(); ++pl)
    for (int64_t o = 0; o < outp; ++o)
      for (int64_t k = 0; k < kk; ++k)
        if (mask_position(p, o / p.g.out[2], o % p.g.out[2], k / p.g.k[2], k % p.g.k[2]) ==
            static_cast<int64_t>(idx[static_cast<size_t>(pl * outp + o)])) {
          m[static_cast<size_t>((pl * kk + k) * w + 2 * o)] = m[static_cast<size_t>((pl * kk + k) * w + 2 * o + 1)] = 1;
          break;
        }
  return m;
}

// The tensors (random contents; outputs poisoned).
void make_tensors(const PoolTableCase &c, Problem &p, Layout in_lay, Layout out_lay, bool with_nan) {
  const std::string &k = c.kind;
  const bool unpool_bwd = k == "kUnpoolBackward";
  // Input-side tensors: self everywhere; gradOutput is output-sized (for unpool backward: outputSize-sized).
  p.self = tensor_of(p, false, p.dt, in_lay);
  p.self->dev->fill_random(-3, 3);
  if (with_nan) {
    auto v = p.self->planar();
    v[static_cast<size_t>(rng()() % v.size())] = NAN;
    p.self->set_planar(v);
  }
  if (c.has("grad")) {
    p.grad = tensor_of(p, true, p.dt, in_lay);
    p.grad->dev->fill_random(-2, 2);
  }
  const Layout ol = in_lay == Layout::kClFormat ? Layout::kClFormat : out_lay;
  if (k == "kMaxMaskBackward") {  // a random marked kernel position (inside the input) per output, or none
    p.indices = mask_tensor(p);
    const int64_t kk = p.g.k[1] * p.g.k[2], w = mask_width(p), outp = p.g.out_plane();
    std::vector<double> m(static_cast<size_t>(p.planes() * kk * w), 0);
    for (int64_t pl = 0; pl < p.planes(); ++pl)
      for (int64_t o = 0; o < outp; ++o) {
        std::vector<std::pair<int64_t, int64_t>> valid;  // (k, position)
        for (int64_t kq = 0; kq < kk; ++kq) {
          const int64_t pos = mask_position(p, o / p.g.out[2], o % p.g.out[2], kq / p.g.k[2], kq % p.g.k[2]);
          if (pos >= 0) valid.push_back({kq, pos});
        }
        if (valid.empty() || rng()() % 8 == 0) {
          p.mask_pos.push_back(-1);
          continue;
        }
        const auto pick = valid[rng()() % valid.size()];
        p.mask_pos.push_back(pick.second);
        m[static_cast<size_t>((pl * kk + pick.first) * w + 2 * o)] = 1;
        m[static_cast<size_t>((pl * kk + pick.first) * w + 2 * o + 1)] = 1;
      }
    p.indices->set_planar(m);
  } else if (c.has("indices")) {  // input indices: forward-output-sized (max backward) or self-sized (unpool)
    const bool self_sized = is_unpool(k);
    p.indices = tensor_of(p, !self_sized, p.idt, ol == Layout::kPadded ? Layout::kContig : ol);
    const int64_t inp = p.g.in_plane(), outp = p.g.out_plane();
    std::vector<double> idx;
    for (int64_t pl = 0; pl < p.planes(); ++pl) {
      if (k == "kUnpool") {  // distinct positions of the output plane
        std::vector<double> perm(static_cast<size_t>(outp));
        std::iota(perm.begin(), perm.end(), 0.0);
        std::shuffle(perm.begin(), perm.end(), rng());
        idx.insert(idx.end(), perm.begin(), perm.begin() + inp);
      } else {
        const int64_t bound = unpool_bwd ? outp : inp, count = unpool_bwd ? inp : outp;
        for (int64_t i = 0; i < count; ++i) idx.push_back(static_cast<double>(rng()() % static_cast<uint64_t>(bound)));
      }
    }
    p.indices->set_planar(idx);
  }
  // Outputs: forward ops and unpool write output-sized tensors, gradients self-sized ones.
  const bool out_side = is_forward(k) || k == "kUnpool";
  p.out = tensor_of(p, out_side, p.dt, ol);
  p.out->dev->poison();
  if (k == "kMaxMask") {
    p.out_indices = mask_tensor(p);
    p.out_indices->dev->poison();
  } else if (c.has("out_indices")) {
    p.out_indices = tensor_of(p, true, p.idt, ol);
    p.out_indices->dev->poison();
  }
}

std::unique_ptr<Problem> make_problem(const PoolTableCase &c, aclDataType dt, Layout in_lay, Layout out_lay,
                                      bool with_nan = false) {
  auto p = std::make_unique<Problem>();
  p->dt = dt;
  p->idt = rng()() % 2 == 0 ? ACL_INT64 : ACL_INT32;
  random_geometry(c, *p);
  make_tensors(c, *p, in_lay, out_lay, with_nan);
  return p;
}

PoolArgs args_of(const PoolTableCase &c, Problem &p) {
  PoolArgs a;
  auto get = [](const std::unique_ptr<T5> &t) { return t ? t->get() : nullptr; };
  a.grad = get(p.grad);
  a.self = get(p.self);
  a.indices = get(p.indices);
  a.out = get(p.out);
  a.out_indices = get(p.out_indices);
  auto arr = [&](const std::vector<int64_t> &v) {
    p.arrays.push_back(int_array(v));
    return p.arrays.back();
  };
  a.kernel = arr(p.kernel);
  a.stride = arr(p.stride);
  a.padding = arr(p.padding);
  a.dilation = arr(p.dilation);
  a.output_size = arr(p.output_size);
  a.ceil = p.ceil;
  a.include = p.include;
  a.divisor = p.divisor;
  return a;
}

std::string describe(const Problem &p) {
  std::ostringstream s;
  s << "dtype " << p.dt << " n " << p.n << " c " << p.c << " batched " << p.batched << " in [" << p.g.in[0] << ","
    << p.g.in[1] << "," << p.g.in[2] << "] out [" << p.g.out[0] << "," << p.g.out[1] << "," << p.g.out[2] << "] k "
    << ::testing::PrintToString(p.kernel) << " s " << ::testing::PrintToString(p.stride) << " pad "
    << ::testing::PrintToString(p.padding) << " dil " << ::testing::PrintToString(p.dilation) << " outputSize "
    << ::testing::PrintToString(p.output_size) << " ceil " << p.ceil << " include " << p.include << " divisor "
    << p.divisor << " index dtype " << p.idt;
  return s.str();
}

void check_problem(const PoolTableCase &c, Problem &p) {
  SCOPED_TRACE(describe(p));
  const PoolArgs a = args_of(c, p);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  const std::string &k = c.kind;
  const int64_t planes = p.planes(), inp = p.g.in_plane(), outp = p.g.out_plane();
  std::vector<double> want, want_idx, mag, mag_idx;
  auto absv = [](std::vector<double> v) {
    for (auto &x : v) x = std::fabs(x);
    return v;
  };
  // Sums (averages, gradients added over windows) cancel: those compare with an absolute bound
  // from the summed magnitudes (precision.md), `mag` = the same op over |inputs|.
  bool sums = false;
  if (is_forward(k)) {
    const bool avg = k == "kAvg" || k == "kAdaptiveAvg";
    refs::pool_forward_ref(p.g, p.win, avg, planes, p.self->planar(), &want, &want_idx);
    if (avg) refs::pool_forward_ref(p.g, p.win, true, planes, absv(p.self->planar()), &mag, &mag_idx);
    sums = avg;
  } else if (k == "kAvgBackward" || k == "kAdaptiveAvgBackward") {
    want = refs::pool_avg_backward_ref(p.g, p.win, planes, p.grad->planar());
    mag = refs::pool_avg_backward_ref(p.g, p.win, planes, absv(p.grad->planar()));
    sums = true;
  } else if (k == "kMaxMaskBackward") {
    const auto gv = p.grad->planar();
    want.assign(static_cast<size_t>(planes * inp), 0);
    mag = want;
    for (int64_t pl = 0; pl < planes; ++pl)
      for (int64_t o = 0; o < outp; ++o) {
        const int64_t pos = p.mask_pos[static_cast<size_t>(pl * outp + o)];
        if (pos < 0) continue;
        want[static_cast<size_t>(pl * inp + pos)] += gv[static_cast<size_t>(pl * outp + o)];
        mag[static_cast<size_t>(pl * inp + pos)] += std::fabs(gv[static_cast<size_t>(pl * outp + o)]);
      }
    sums = true;
  } else if (k == "kMaxIndicesBackward" || k == "kAdaptiveMaxBackward") {
    want = refs::pool_scatter_ref(planes, outp, inp, p.grad->planar(), p.indices->planar(), true);
    mag = refs::pool_scatter_ref(planes, outp, inp, absv(p.grad->planar()), p.indices->planar(), true);
    sums = true;
  } else if (k == "kUnpool") {
    want = refs::pool_scatter_ref(planes, inp, outp, p.self->planar(), p.indices->planar(), false);
  } else {
    want = refs::pool_gather_ref(planes, outp, inp, p.grad->planar(), p.indices->planar());
  }
  if (sums) {
    const auto got = p.out->planar();
    const double t = precision_threshold(p.dt);
    const double floor = p.dt == ACL_FLOAT16 ? 5.97e-8 : 1e-30;  // FLOAT16's subnormal spacing
    for (size_t i = 0; i < want.size(); ++i) {
      const bool ok = std::isnan(want[i]) ? std::isnan(got[i])
                      : std::isinf(want[i]) ? got[i] == want[i]
                                            : std::fabs(got[i] - want[i]) <= 2 * t * mag[i] + floor;
      if (!ok) {
        ADD_FAILURE() << "element " << i << ": got " << got[i] << ", expected " << want[i] << " (magnitude " << mag[i]
                      << ")";
        break;
      }
    }
    EXPECT_TRUE(p.out->dev->untouched_outside_view());
    return;
  }
  for (auto &v : want) v = round_to(p.dt, v);
  EXPECT_TRUE(meets_precision(p.dt, p.out->planar(), want));
  EXPECT_TRUE(p.out->dev->untouched_outside_view());
  if (k == "kMaxMask") want_idx = mask_of(p, want_idx);
  if (p.out_indices) {
    EXPECT_EQ(p.out_indices->planar(), want_idx);
    EXPECT_TRUE(p.out_indices->dev->untouched_outside_view());
  }
}

class OpTablePool : public ::testing::TestWithParam<PoolTableCase> {};

TEST_P(OpTablePool, RandomShapesEveryDtype) {
  reseed_for_current_test();
  const PoolTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes)
    for (int t = 0; t < 16; ++t) {
      auto p = make_problem(c, dt, Layout::kContig, Layout::kContig);
      check_problem(c, *p);
    }
}

TEST_P(OpTablePool, StridedViewsAndFormats) {
  reseed_for_current_test();
  const PoolTableCase &c = GetParam();
  const Layout ins[] = {Layout::kClView, Layout::kTransposed, Layout::kClFormat};
  for (int t = 0; t < 16; ++t) {
    const Layout in = ins[t % 3];
    const Layout out = t % 2 == 0 ? Layout::kPadded : Layout::kContig;
    auto p = make_problem(c, c.dtypes[static_cast<size_t>(t) % c.dtypes.size()], in, out);
    SCOPED_TRACE(::testing::Message() << "layout in " << static_cast<int>(in) << " out " << static_cast<int>(out));
    check_problem(c, *p);
  }
}

// The forward ops, and those writing indices (the suites below run only on them).
std::vector<PoolTableCase> cases_where(bool (*keep)(const PoolTableCase &)) {
  std::vector<PoolTableCase> v;
  for (const auto &c : all_cases())
    if (keep(c)) v.push_back(c);
  return v;
}
class OpTablePoolForward : public ::testing::TestWithParam<PoolTableCase> {};
class OpTablePoolIndices : public ::testing::TestWithParam<PoolTableCase> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTablePoolForward);  // a sample (OPSNN_TABLE_SAMPLE) may hold none
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTablePoolIndices);

TEST_P(OpTablePoolForward, NanPropagates) {
  const PoolTableCase &c = GetParam();
  reseed_for_current_test();
  for (int t = 0; t < 4; ++t) {
    auto p = make_problem(c, ACL_FLOAT, t % 2 ? Layout::kClView : Layout::kContig, Layout::kContig, true);
    check_problem(c, *p);
  }
}

// 2 x 2 windows of stride 2 (MaxPool2d(2): aclnnMaxPool takes nchw_max_2x2 on dense planes), every
// dtype, NaN, channels-last views and formats, floor and ceil mode.
TEST_P(OpTablePoolForward, TwoByTwoWindows) {
  const PoolTableCase &c = GetParam();
  reseed_for_current_test();
  const Layout ins[] = {Layout::kContig, Layout::kContig, Layout::kClView, Layout::kClFormat};
  for (int t = 0; t < 16; ++t) {
    g_fixed_2x2 = true;
    auto p = make_problem(c, c.dtypes[static_cast<size_t>(t) % c.dtypes.size()], ins[t % 4], Layout::kContig, t % 3 == 0);
    g_fixed_2x2 = false;
    check_problem(c, *p);
  }
}

// Ties (values from {0, 1} in every dtype): the index is the first maximum of the window.
TEST_P(OpTablePoolIndices, TiesKeepTheFirstIndex) {
  const PoolTableCase &c = GetParam();
  reseed_for_current_test();
  for (aclDataType dt : c.dtypes)
    for (int t = 0; t < 4; ++t) {
      auto p = make_problem(c, dt, t % 2 ? Layout::kClView : Layout::kContig, Layout::kContig);
      auto v = p->self->planar();
      for (auto &x : v) x = static_cast<double>(rng()() % 2);
      p->self->set_planar(v);
      check_problem(c, *p);
    }
}

// An empty batch: phase 1 and the launch succeed and write nothing.
TEST_P(OpTablePool, EmptyBatch) {
  reseed_for_current_test();
  const PoolTableCase &c = GetParam();
  auto p = std::make_unique<Problem>();
  p->dt = c.dtypes.front();
  random_geometry(c, *p);
  p->batched = true;
  p->n = 0;
  make_tensors(c, *p, Layout::kContig, Layout::kContig, false);
  check_problem(c, *p);
}

TEST_P(OpTablePool, ErrorsNameTheArgument) {
  reseed_for_current_test();
  const PoolTableCase &c = GetParam();
  const char *api = c.api.c_str();
  auto p = make_problem(c, c.dtypes.front(), Layout::kContig, Layout::kContig);
  SCOPED_TRACE(describe(*p));
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto expect_fail = [&](const PoolArgs &a, int code, const std::string &word) {
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), code, {api, word.c_str()}));
  };
  // Null tensors and arrays: 161001 naming them.
  for (const char *role : {"self", "grad", "indices", "out", "out_indices", "kernel", "stride", "padding", "dilation",
                           "output_size"}) {
    if (!c.has(role)) continue;
    SCOPED_TRACE(role);
    PoolArgs a = args_of(c, *p);
    const std::string r = role;
    if (r == "self") a.self = nullptr;
    if (r == "grad") a.grad = nullptr;
    if (r == "indices") a.indices = nullptr;
    if (r == "out") a.out = nullptr;
    if (r == "out_indices") a.out_indices = nullptr;
    if (r == "kernel") a.kernel = nullptr;
    if (r == "stride") a.stride = nullptr;
    if (r == "padding") a.padding = nullptr;
    if (r == "dilation") a.dilation = nullptr;
    if (r == "output_size") a.output_size = nullptr;
    expect_fail(a, ACLNN_ERR_PARAM_NULLPTR, c.name_of(role));
  }
  auto with_array = [&](const char *role, std::vector<int64_t> v, const std::string &word) {
    SCOPED_TRACE(::testing::Message() << role << " = " << ::testing::PrintToString(v));
    PoolArgs a = args_of(c, *p);
    p->arrays.push_back(int_array(v));
    const std::string r = role;
    if (r == "kernel") a.kernel = p->arrays.back();
    if (r == "stride") a.stride = p->arrays.back();
    if (r == "padding") a.padding = p->arrays.back();
    if (r == "dilation") a.dilation = p->arrays.back();
    if (r == "output_size") a.output_size = p->arrays.back();
    expect_fail(a, ACLNN_ERR_PARAM_INVALID, word);
  };
  const size_t nsp = static_cast<size_t>(c.spatial);
  if (is_regular(c.kind)) {
    with_array("kernel", std::vector<int64_t>(nsp, 0), c.name_of("kernel"));
    with_array("kernel", std::vector<int64_t>(nsp + 1, 2), c.name_of("kernel"));
    with_array("stride", std::vector<int64_t>(nsp, 0), c.name_of("stride"));
    with_array("stride", std::vector<int64_t>(nsp, -1), c.name_of("stride"));
    // pad > kernel / 2
    std::vector<int64_t> big_pad;
    for (int64_t k : p->kernel.size() == 1 ? std::vector<int64_t>(nsp, p->kernel[0]) : p->kernel)
      big_pad.push_back(k / 2 + 1);
    with_array("padding", big_pad, c.name_of("padding"));
    with_array("padding", std::vector<int64_t>(nsp, -1), c.name_of("padding"));
    if (c.has("dilation")) with_array("dilation", std::vector<int64_t>(nsp, 0), c.name_of("dilation"));
    // Values near INT64_MAX (the fuzzer's): the window arithmetic would overflow int64.
    with_array("kernel", std::vector<int64_t>(nsp, INT64_MAX), "2^31");
    with_array("stride", std::vector<int64_t>(nsp, INT64_MAX), "2^31");
    if (c.has("dilation")) with_array("dilation", std::vector<int64_t>(nsp, INT64_MAX), "2^31");
    // An output size <= 0: a kernel larger than the input.
    {
      std::vector<int64_t> k(nsp, 0);
      for (size_t i = 0; i < nsp; ++i) k[i] = p->g.in[3 - nsp + i] + 3;
      PoolArgs a = args_of(c, *p);
      a.ceil = false;
      p->arrays.push_back(int_array(k));
      a.kernel = p->arrays.back();
      p->arrays.push_back(int_array(std::vector<int64_t>(nsp, 0)));
      a.padding = p->arrays.back();
      p->arrays.push_back(int_array(std::vector<int64_t>(nsp, 1)));
      if (c.has("dilation")) a.dilation = p->arrays.back();
      expect_fail(a, ACLNN_ERR_PARAM_INVALID, "not positive");
    }
    if (c.onnx_pads) {
      PoolArgs a = args_of(c, *p);
      a.auto_pad = 1;
      expect_fail(a, ACLNN_ERR_PARAM_INVALID, "autoPad");
    }
    if (c.has("divisor")) {
      PoolArgs a = args_of(c, *p);
      a.divisor = -2;
      expect_fail(a, ACLNN_ERR_PARAM_INVALID, "divisorOverride");
    }
  } else if (c.has("output_size")) {
    with_array("output_size", std::vector<int64_t>(nsp, 0), c.name_of("output_size"));
    with_array("output_size", std::vector<int64_t>(nsp + 1, 2), c.name_of("output_size"));
  }
  {  // a wrong output shape
    DeviceTensor bad({97}, p->dt);
    PoolArgs a = args_of(c, *p);
    a.out = bad;
    expect_fail(a, ACLNN_ERR_PARAM_INVALID, c.name_of("out"));
  }
  {  // an output of another dtype
    auto other = tensor_of(*p, is_forward(c.kind) || c.kind == "kUnpool", p->dt == ACL_FLOAT ? ACL_FLOAT16 : ACL_FLOAT,
                           Layout::kContig);
    PoolArgs a = args_of(c, *p);
    a.out = other->get();
    expect_fail(a, ACLNN_ERR_PARAM_INVALID, "dtype");
  }
  for (aclDataType bad : {ACL_DOUBLE, ACL_INT32, ACL_INT8}) {  // self dtypes outside the rule
    auto b = tensor_of(*p, false, bad, Layout::kContig);
    PoolArgs a = args_of(c, *p);
    a.self = b->get();
    expect_fail(a, ACLNN_ERR_PARAM_INVALID, c.name_of("self"));
  }
  if (is_mask(c.kind)) {  // a mask of the wrong shape
    DeviceTensor bad({97}, ACL_INT8);
    PoolArgs a = args_of(c, *p);
    (c.kind == "kMaxMask" ? a.out_indices : a.indices) = bad;
    expect_fail(a, ACLNN_ERR_PARAM_INVALID, "mask");
  }
  if (c.has("indices") || c.has("out_indices")) {  // FLOAT indices
    const bool in_idx = c.has("indices");
    auto b = tensor_of(*p, in_idx ? !is_unpool(c.kind) : true, ACL_FLOAT, Layout::kContig);
    PoolArgs a = args_of(c, *p);
    (in_idx ? a.indices : a.out_indices) = b->get();
    expect_fail(a, ACLNN_ERR_PARAM_INVALID, c.name_of(in_idx ? "indices" : "out_indices"));
  }
  {  // a self with the wrong number of dims
    DeviceTensor bad({4}, p->dt);
    PoolArgs a = args_of(c, *p);
    a.self = bad;
    expect_fail(a, ACLNN_ERR_PARAM_INVALID, c.name_of("self"));
  }
  if (c.has("indices") && !is_mask(c.kind)) {  // an index outside the plane: 161002 at launch
    auto v = p->indices->planar();
    v[0] = 1e6;
    p->indices->set_planar(v);
    PoolArgs a = args_of(c, *p);
    EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch),
              ACLNN_ERR_PARAM_INVALID);
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTablePool, ::testing::ValuesIn(all_cases()), harness::case_name<PoolTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, OpTablePoolForward,
                         ::testing::ValuesIn(cases_where([](const PoolTableCase &c) { return is_forward(c.kind); })),
                         harness::case_name<PoolTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, OpTablePoolIndices,
                         ::testing::ValuesIn(cases_where([](const PoolTableCase &c) { return c.has("out_indices"); })),
                         harness::case_name<PoolTableCase>);

}  // namespace
}  // namespace opsnn::test
