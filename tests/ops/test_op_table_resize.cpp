// The test harness of the table-driven resize ops (src/ops/pooling/resize.ops): every op runs the
// same suites, registered from the table by tools/gen_ops.py --tests (resize_table_cases.inc):
//   - every accepted dtype on random shapes (upsampling and downsampling, sizes 1, batch 1 to 3,
//     channels 1 to 5), align_corners both ways, scales given (> 0) or not, against a float64
//     reference written here from PyTorch's formulas (aten upsample_*: the source index per
//     mode, the linear / cubic weights as functions of the distance, cubic's clamped border);
//     gradients against the float64 adjoint of that reference (every output's contributions
//     scattered back); sums compared with an absolute bound from the summed magnitudes
//     (precision.md), nearest forward selections exactly;
//   - the same on non-contiguous inputs (transposed + offset, channels-last strides), NHWC /
//     NDHWC formats and padded outputs; an empty batch;
//   - errors with their code and the argument named (null tensors and arrays: 161001; wrong rank,
//     outputSize of the wrong length or <= 0, inputSize not matching gradOut, wrong dtypes:
//     161002).
#include <algorithm>
#include <cmath>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "op_table_harness.h"
#include "pool_test_tensors.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct ResizeArgs {
  aclTensor *self = nullptr, *out = nullptr;
  aclIntArray *output_size = nullptr, *input_size = nullptr;
  bool align = false;
  double scales[3] = {0, 0, 0};
};

struct ResizeTableCase {
  std::string name, api, mode, self_name, out_name;
  int spatial = 2, n_scales = 0;
  bool backward = false, has_align = false;
  std::vector<aclDataType> dtypes;
  int (*phase1)(const ResizeArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  harness::Launch launch = nullptr;
};
void PrintTo(const ResizeTableCase &c, std::ostream *os) { *os << c.name; }

#include "resize_table_cases.inc"

const std::vector<ResizeTableCase> &all_cases() {
  static const std::vector<ResizeTableCase> c = harness::sampled(resize_table_cases());
  return c;
}

// ---- The float64 reference (PyTorch's formulas).

// One output position's taps along an axis: (source index, weight).
using Taps = std::vector<std::pair<int64_t, double>>;

// aten area_pixel_compute_scale.
double ref_scale(int64_t in, int64_t out, bool align, double scale) {
  if (align) return out > 1 ? double(in - 1) / double(out - 1) : 0.0;
  return scale > 0 ? 1.0 / scale : double(in) / double(out);
}

// The cubic convolution kernel W(d), A = -0.75 (Keys), as a function of the distance.
double cubic_kernel(double d) {
  const double A = -0.75;
  d = std::fabs(d);
  if (d <= 1) return (A + 2) * d * d * d - (A + 3) * d * d + 1;
  if (d < 2) return A * d * d * d - 5 * A * d * d + 8 * A * d - 4 * A;
  return 0;
}

std::vector<Taps> ref_axis(const std::string &mode, int64_t in, int64_t out, bool align, double scale) {
  std::vector<Taps> v(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    Taps &t = v[static_cast<size_t>(o)];
    if (mode == "nearest" || mode == "nearest_exact") {
      // aten's forward computes these in float: scale = 1 / scales or in / out; nearest:
      // floor(o * scale); nearest-exact: floor((o + 0.5) * scale).
      const float s = scale > 0 ? float(1.0 / scale) : float(in) / float(out);
      const int64_t src = mode == "nearest_exact" ? int64_t(std::floor(float((double(o) + 0.5) * s)))
                                                  : int64_t(std::floor(float(o) * s));
      t.push_back({std::min(src, in - 1), 1.0});
      continue;
    }
    const double s = ref_scale(in, out, align, scale);
    if (mode == "linear" && in == out) {  // aten's linear modes copy such an axis whatever the scales
      t.push_back({o, 1.0});
      continue;
    }
    if (mode == "linear") {
      const double x = align ? s * double(o) : std::max(s * (double(o) + 0.5) - 0.5, 0.0);
      // A source past the last position (scales < out / in) reads the last (aten's guard).
      const double xc = std::min(x, double(in - 1));
      const int64_t j0 = int64_t(std::floor(xc)), j1 = std::min(j0 + 1, in - 1);
      t.push_back({j0, 1.0 - std::fabs(xc - double(j0))});  // weights: 1 - distance
      t.push_back({j1, 1.0 - std::fabs(double(j0 + 1) - xc)});
      continue;
    }
    const double x = align ? s * double(o) : s * (double(o) + 0.5) - 0.5;
    const int64_t f = int64_t(std::floor(x));
    for (int64_t j = f - 1; j <= f + 2; ++j)  // clamped access at the borders
      t.push_back({std::min(std::max<int64_t>(j, 0), in - 1), cubic_kernel(x - double(j))});
  }
  return v;
}

struct Geom {
  int nsp = 2;
  int64_t n = 1, c = 1;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};  // D, H, W (unused leading dims 1)
  bool align = false;
  double scales[3] = {0, 0, 0};  // per axis D, H, W
  int64_t in_plane() const { return in[0] * in[1] * in[2]; }
  int64_t out_plane() const { return out[0] * out[1] * out[2]; }
};

// Forward (planar values): out[o] = sum over the tap products; with `absolute`, |w| * |x| (the
// magnitude that bounds the rounding of the sum). Backward (the adjoint): gin[i] += w * g[o].
std::vector<double> ref_run(const std::string &mode, const Geom &g, const std::vector<double> &x, bool backward,
                            bool absolute) {
  std::vector<Taps> ax[3];
  for (int a = 0; a < 3; ++a) ax[a] = ref_axis(mode, g.in[a], g.out[a], g.align, g.scales[a]);
  const int64_t planes = g.n * g.c, ip = g.in_plane(), op = g.out_plane();
  std::vector<double> y(static_cast<size_t>(planes * (backward ? ip : op)), 0.0);
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t od = 0; od < g.out[0]; ++od)
      for (int64_t oh = 0; oh < g.out[1]; ++oh)
        for (int64_t ow = 0; ow < g.out[2]; ++ow) {
          const int64_t o = pl * op + (od * g.out[1] + oh) * g.out[2] + ow;
          double acc = 0;
          for (const auto &td : ax[0][static_cast<size_t>(od)])
            for (const auto &th : ax[1][static_cast<size_t>(oh)])
              for (const auto &tw : ax[2][static_cast<size_t>(ow)]) {
                double w = td.second * th.second * tw.second;
                if (absolute) w = std::fabs(w);
                const int64_t i = pl * ip + (td.first * g.in[1] + th.first) * g.in[2] + tw.first;
                if (backward) {
                  const double gv = x[static_cast<size_t>(o)];
                  y[static_cast<size_t>(i)] += w * (absolute ? std::fabs(gv) : gv);
                } else {
                  const double xv = x[static_cast<size_t>(i)];
                  acc += w * (absolute ? std::fabs(xv) : xv);
                }
              }
          if (!backward) y[static_cast<size_t>(o)] = acc;
        }
  return y;
}

int64_t rnd(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rng()() % static_cast<uint64_t>(hi - lo + 1)); }

struct Problem {
  Geom g;
  aclDataType dt = ACL_FLOAT;
  std::unique_ptr<T5> src, out;  // self (or gradOut) and out (or gradInput)
  std::vector<int64_t> output_size, input_size;
  std::vector<aclIntArray *> arrays;
  ~Problem() {
    for (auto *a : arrays) aclDestroyIntArray(a);
  }
  std::vector<int64_t> ldims(bool input) const {  // n, c, the op's spatial dims
    std::vector<int64_t> d = {g.n, g.c};
    for (int a = 3 - g.nsp; a < 3; ++a) d.push_back(input ? g.in[a] : g.out[a]);
    return d;
  }
  std::unique_ptr<T5> make(bool input, Layout lay) const {
    const int64_t l5[5] = {g.n, g.c, input ? g.in[0] : g.out[0], input ? g.in[1] : g.out[1],
                           input ? g.in[2] : g.out[2]};
    return make_t5(l5, g.nsp, true, dt, lay);
  }
};

void random_geometry(const ResizeTableCase &c, Problem &p) {
  Geom &g = p.g;
  g.nsp = c.spatial;
  g.n = rnd(1, 3);
  g.c = rnd(1, 5);
  const int64_t hi = c.spatial == 3 ? 5 : 9;
  for (int a = 3 - g.nsp; a < 3; ++a) {
    g.in[a] = rng()() % 5 == 0 ? 1 : rnd(1, hi);
    g.out[a] = rng()() % 5 == 0 ? 1 : rnd(1, hi + 4);
  }
  g.align = c.has_align && rng()() % 2 == 0;
  if (c.n_scales > 0 && rng()() % 2 == 0)  // scales given for the last n_scales dims
    for (int a = 3 - c.n_scales; a < 3; ++a)
      g.scales[a] = rng()() % 3 == 0 ? double(g.out[a]) / double(g.in[a]) : 0.25 + double(rnd(0, 30)) / 10.0;
  p.output_size.clear();
  for (int a = 3 - g.nsp; a < 3; ++a) p.output_size.push_back(g.out[a]);
  p.input_size = p.ldims(true);
}

void make_tensors(const ResizeTableCase &c, Problem &p, Layout in_lay, Layout out_lay) {
  p.src = p.make(!c.backward, in_lay);
  p.src->dev->fill_random(-2, 2);
  p.out = p.make(c.backward, out_lay);
  p.out->dev->poison();
}

std::unique_ptr<Problem> make_problem(const ResizeTableCase &c, aclDataType dt, Layout in_lay, Layout out_lay) {
  auto p = std::make_unique<Problem>();
  p->dt = dt;
  random_geometry(c, *p);
  make_tensors(c, *p, in_lay, out_lay);
  return p;
}

ResizeArgs args_of(const ResizeTableCase &c, Problem &p) {
  ResizeArgs a;
  a.self = p.src->get();
  a.out = p.out->get();
  p.arrays.push_back(aclCreateIntArray(p.output_size.data(), p.output_size.size()));
  a.output_size = p.arrays.back();
  p.arrays.push_back(aclCreateIntArray(p.input_size.data(), p.input_size.size()));
  a.input_size = p.arrays.back();
  a.align = p.g.align;
  for (int i = 0; i < c.spatial; ++i) a.scales[i] = p.g.scales[3 - c.spatial + i];
  return a;
}

std::string describe(const Problem &p) {
  std::ostringstream s;
  s << "dtype " << p.dt << " n " << p.g.n << " c " << p.g.c << " in [" << p.g.in[0] << "," << p.g.in[1] << ","
    << p.g.in[2] << "] out [" << p.g.out[0] << "," << p.g.out[1] << "," << p.g.out[2] << "] align " << p.g.align
    << " scales [" << p.g.scales[0] << "," << p.g.scales[1] << "," << p.g.scales[2] << "]";
  return s.str();
}

void check_problem(const ResizeTableCase &c, Problem &p) {
  SCOPED_TRACE(describe(p));
  const ResizeArgs a = args_of(c, p);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  const auto x = p.src->planar();
  const auto got = p.out->planar();
  const auto want = ref_run(c.mode, p.g, x, c.backward, false);
  ASSERT_EQ(got.size(), want.size());
  if (!c.backward && (c.mode == "nearest" || c.mode == "nearest_exact")) {
    EXPECT_EQ(got, want);  // a selection: exact
  } else {
    const auto mag = ref_run(c.mode, p.g, x, c.backward, true);
    const double t = precision_threshold(p.dt);
    const double floor = p.dt == ACL_FLOAT16 ? 5.97e-8 : 1e-30;  // FLOAT16's subnormal spacing
    for (size_t i = 0; i < want.size(); ++i)
      if (!(std::fabs(got[i] - want[i]) <= 2 * t * mag[i] + floor)) {
        ADD_FAILURE() << "element " << i << ": got " << got[i] << ", expected " << want[i] << " (magnitude " << mag[i]
                      << ")";
        break;
      }
  }
  EXPECT_TRUE(p.out->dev->untouched_outside_view());
}

class OpTableResize : public ::testing::TestWithParam<ResizeTableCase> {};

TEST_P(OpTableResize, RandomShapesEveryDtype) {
  reseed_for_current_test();
  const ResizeTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes)
    for (int t = 0; t < 24; ++t) {
      auto p = make_problem(c, dt, Layout::kContig, Layout::kContig);
      check_problem(c, *p);
    }
}

TEST_P(OpTableResize, StridedViewsAndFormats) {
  reseed_for_current_test();
  const ResizeTableCase &c = GetParam();
  const Layout ins[] = {Layout::kTransposed, Layout::kClView, Layout::kClFormat};
  for (int t = 0; t < 12; ++t) {
    const Layout in = ins[t % 3];
    // A channels-last format is the op's layout: the output has it too.
    const Layout out = in == Layout::kClFormat ? Layout::kClFormat : t % 2 == 0 ? Layout::kPadded : Layout::kContig;
    auto p = make_problem(c, c.dtypes[static_cast<size_t>(t) % c.dtypes.size()], in, out);
    SCOPED_TRACE(::testing::Message() << "layout in " << static_cast<int>(in) << " out " << static_cast<int>(out));
    check_problem(c, *p);
  }
}

TEST_P(OpTableResize, EmptyBatch) {
  reseed_for_current_test();
  const ResizeTableCase &c = GetParam();
  auto p = std::make_unique<Problem>();
  p->dt = c.dtypes.front();
  random_geometry(c, *p);
  p->g.n = 0;
  p->input_size = p->ldims(true);
  make_tensors(c, *p, Layout::kContig, Layout::kContig);
  check_problem(c, *p);
}

TEST_P(OpTableResize, ErrorsNameTheArgument) {
  reseed_for_current_test();
  const ResizeTableCase &c = GetParam();
  const char *api = c.api.c_str();
  auto p = make_problem(c, c.dtypes.front(), Layout::kContig, Layout::kContig);
  SCOPED_TRACE(describe(*p));
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto expect_fail = [&](const ResizeArgs &a, int code, const std::string &word) {
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), code, {api, word.c_str()})) << word;
  };
  const ResizeArgs good = args_of(c, *p);
  ASSERT_EQ(c.phase1(good, &ws, &ex), 0) << aclGetRecentErrMsg();
  aclDestroyAclOpExecutor(ex);
  ex = nullptr;
  // Null tensors and arrays: 161001.
  {
    ResizeArgs a = good;
    a.self = nullptr;
    expect_fail(a, ACLNN_ERR_PARAM_NULLPTR, c.self_name);
    a = good;
    a.out = nullptr;
    expect_fail(a, ACLNN_ERR_PARAM_NULLPTR, c.out_name);
    a = good;
    a.output_size = nullptr;
    expect_fail(a, ACLNN_ERR_PARAM_NULLPTR, "outputSize");
    if (c.backward) {
      a = good;
      a.input_size = nullptr;
      expect_fail(a, ACLNN_ERR_PARAM_NULLPTR, "inputSize");
    }
  }
  auto arr = [&](std::vector<int64_t> v) {
    p->arrays.push_back(aclCreateIntArray(v.data(), v.size()));
    return p->arrays.back();
  };
  // outputSize of the wrong length, or a value <= 0.
  {
    ResizeArgs a = good;
    std::vector<int64_t> v = p->output_size;
    v.push_back(2);
    a.output_size = arr(v);
    expect_fail(a, ACLNN_ERR_PARAM_INVALID, "outputSize");
    for (int64_t bad : {0, -3}) {
      v = p->output_size;
      v.back() = bad;
      a.output_size = arr(v);
      expect_fail(a, ACLNN_ERR_PARAM_INVALID, "outputSize");
    }
  }
  // A different outputSize: the output (forward) or gradOut (backward) no longer matches.
  {
    ResizeArgs a = good;
    std::vector<int64_t> v = p->output_size;
    v.front() += 1;
    a.output_size = arr(v);
    expect_fail(a, ACLNN_ERR_PARAM_INVALID, c.backward ? c.self_name : c.out_name);
  }
  if (c.backward) {  // inputSize: wrong length, or N not gradOut's, or a spatial value <= 0
    ResizeArgs a = good;
    std::vector<int64_t> v = p->input_size;
    v.pop_back();
    a.input_size = arr(v);
    expect_fail(a, ACLNN_ERR_PARAM_INVALID, "inputSize");
    v = p->input_size;
    v[0] += 1;
    a.input_size = arr(v);
    expect_fail(a, ACLNN_ERR_PARAM_INVALID, c.self_name);
    v = p->input_size;
    v.back() = 0;
    a.input_size = arr(v);
    expect_fail(a, ACLNN_ERR_PARAM_INVALID, "inputSize");
  }
  // Wrong rank of the input.
  {
    std::vector<int64_t> d = p->ldims(!c.backward);
    d.push_back(2);
    DeviceTensor t(d, p->dt);
    ResizeArgs a = good;
    a.self = t.get();
    expect_fail(a, ACLNN_ERR_PARAM_INVALID, c.self_name);
  }
  // Dtypes: an integer input; an output of another dtype.
  {
    DeviceTensor t(p->ldims(!c.backward), ACL_INT32);
    ResizeArgs a = good;
    a.self = t.get();
    expect_fail(a, ACLNN_ERR_PARAM_INVALID, c.self_name);
    DeviceTensor o(p->ldims(c.backward), p->dt == ACL_FLOAT ? ACL_FLOAT16 : ACL_FLOAT);
    a = good;
    a.out = o.get();
    expect_fail(a, ACLNN_ERR_PARAM_INVALID, c.out_name);
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableResize, ::testing::ValuesIn(all_cases()), harness::case_name<ResizeTableCase>);

}  // namespace
}  // namespace opsnn::test
