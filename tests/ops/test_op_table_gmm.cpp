// The test harness of the table-driven grouped matmul (src/ops/matmul/grouped_matmul.ops), cases
// registered from the table by tools/gen_ops.py --tests (gmm_table_cases.inc). Against the float64
// reference grouped_matmul_ref (tests/common/float64_refs.h), every dtype:
//   - one tensor per group (x 2-D or 3-D, own M / K / N per group, empty groups, K = 0), y one tensor
//     per group or one stacked tensor; weights contiguous, transposed views or one [G, K, N] tensor;
//     bias per group or [G, N], in x's dtype or FLOAT; padded / offset views, nothing written outside;
//   - x [M, K] split along M by the device group list (random cumulative ends, empty groups, rows
//     after the last end zeroed, a strided group list);
//   - NaN / infinity propagation;
//   - the int8 quantised form (Int8Quantised: every y dtype and scale dtype, every form);
//   - errors: each argument named (null, dtype, shape, list sizes, unsupported inputs, the int8 form,
//     groupType / splitItem), and a bad group list failing the launch with nothing written.
#include <algorithm>
#include <cmath>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "float64_refs.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct GmmArgs {
  aclTensorList *x = nullptr, *weight = nullptr, *bias = nullptr, *y = nullptr;
  aclTensorList *aq_scale = nullptr, *aq_offset = nullptr;
  aclTensorList *scale = nullptr, *offset = nullptr;  // the int8 quantised form
  aclTensor *group_list = nullptr;
  int64_t split_item = 0, group_type = -1;
  std::string bogus;  // the unsupported argument passed non-null (error tests)
  aclTensorList *bogus_list = nullptr;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct GmmTableCase {
  std::string name, api;
  std::vector<aclDataType> dtypes;
  std::vector<aclDataType> int8_y, int8_scale;  // the int8 form's y / scale dtypes (empty: refused)
  std::vector<std::string> unsupported;
  int (*phase1)(const GmmArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
};
void PrintTo(const GmmTableCase &c, std::ostream *os) { *os << c.name; }

#include "gmm_table_cases.inc"

const std::vector<GmmTableCase> &all_cases() {
  static const std::vector<GmmTableCase> c = harness::sampled(gmm_table_cases());
  return c;
}

using Dev = std::unique_ptr<DeviceTensor>;

// A [r, c] view: 0 contiguous, 1 transposed (stored [c, r]), 2 padded rows with an offset.
Dev view2(int64_t r, int64_t c, aclDataType dt, int form) {
  if (form == 1) return std::make_unique<DeviceTensor>(std::vector<int64_t>{r, c}, dt, std::vector<int64_t>{1, std::max<int64_t>(r, 1)}, 0);
  if (form == 2) return std::make_unique<DeviceTensor>(std::vector<int64_t>{r, c}, dt, std::vector<int64_t>{c + 3, 1}, 5);
  return std::make_unique<DeviceTensor>(std::vector<int64_t>{r, c}, dt);
}

struct TensorList {
  aclTensorList *l = nullptr;
  TensorList() = default;
  // The list owns its descriptors (aclDestroyTensorList destroys them): copies of the views'.
  explicit TensorList(const std::vector<aclTensor *> &v) {
    std::vector<aclTensor *> copies;
    for (aclTensor *t : v)
      copies.push_back(aclCreateTensor(t->dims, static_cast<uint64_t>(t->ndim), t->dtype, t->strides, t->offset,
                                       t->format, t->storage_dims, static_cast<uint64_t>(t->storage_ndim), t->data));
    l = aclCreateTensorList(copies.data(), copies.size());
  }
  TensorList(const TensorList &) = delete;
  TensorList &operator=(const TensorList &) = delete;
  ~TensorList() {
    if (l) aclDestroyTensorList(l);
  }
};

std::vector<double> rows_of(const std::vector<double> &v, int64_t r0, int64_t r1, int64_t cols) {
  return std::vector<double>(v.begin() + r0 * cols, v.begin() + r1 * cols);
}

// got vs want with the rounding a float accumulation and the output dtype may add: T (|want| + |x| |w|
// / 100), T the dtype's precision threshold; NaN and infinities exactly.
::testing::AssertionResult close(aclDataType dt, const std::vector<double> &got, const std::vector<double> &want,
                                 const std::vector<double> &mag) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "size " << got.size() << " vs " << want.size();
  const double T = precision_threshold(dt);
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], w = want[i];
    if (std::isnan(w) || std::isinf(w)) {
      if (std::isnan(w) ? !std::isnan(g) : g != w)
        return ::testing::AssertionFailure() << "element " << i << ": got " << g << ", expected " << w;
      continue;
    }
    if (!(std::fabs(g - w) <= T * (std::fabs(w) + 0.01 * mag[i]) + 1e-30))
      return ::testing::AssertionFailure() << "element " << i << ": got " << g << ", expected " << w << " (scale "
                                           << mag[i] << ")";
  }
  return ::testing::AssertionSuccess();
}

struct Group {
  int64_t m = 0, k = 0, n = 0;
};

// The per-group problem, run in one of the forms, checked against the reference.
struct Form {
  bool x_3d = false;      // x[g] as [2, m / 2, k] (m even) in the per-group forms
  bool y_single = false;  // y one stacked tensor (splitItem 2 / 3)
  bool split = false;     // x one [M, K] split by the group list
  bool w_single = false;  // weight one [G, K, N] tensor (a permuted view when w_form == 1)
  int w_form = 0, x_form = 0, y_form = 0;
  int bias = 0;           // 0 none, 1 per group in x's dtype, 2 per group FLOAT, 3 one [G, N] FLOAT (w_single)
  int64_t group_type = 0;
  int64_t tail = 0;       // split: rows after the last group end
  bool strided_group_list = false;
  bool specials = false;
  int antiquant = 0;      // INT8 weights with 1: antiquantScale, 2: + antiquantOffset ([G, N] beside w_single)
  // The int8 quantised form (y the case's dtype): INT8 x / weight, scaleOptional of scale_dtype (+ offsetOptional
  // FLOAT when offset), bias INT32 (bias 1 / 2 per group, 3 one [G, N]).
  bool quant = false, offset = false;
  aclDataType scale_dtype = ACL_UINT64;
};

// The int8 form's output against the float64 value v of its epilogue (refs::qmm_dequant_ref, magnitude mag):
// INT8 exact (refs::int8_saturate) except within the epilogue's fp32 error of a .5 boundary (then +-1);
// FLOAT16 / BF16 within half an ulp plus that error.
::testing::AssertionResult quant_close(aclDataType dt, const std::vector<double> &got, const std::vector<double> &want,
                                       const std::vector<double> &mag) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "size " << got.size() << " vs " << want.size();
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], w = want[i], err = 1e-6 * mag[i] + 1e-30;
    bool ok;
    if (dt == ACL_INT8) {
      const bool tie = std::fabs(w - std::floor(w) - 0.5) <= err && std::fabs(w) <= 128.5 + err;
      ok = tie ? std::fabs(g - refs::int8_saturate(w)) <= 1 : g == refs::int8_saturate(w);
    } else {
      const double aw = std::fabs(w) + err;
      const int e2 = aw > 0 ? static_cast<int>(std::floor(std::log2(aw))) : -126;
      const double ulp = dt == ACL_FLOAT16 ? std::ldexp(1.0, std::max(e2, -14) - 10) : std::ldexp(1.0, e2 - 7);
      ok = std::isfinite(g) && std::fabs(g - w) <= 0.5 * ulp + err;
    }
    if (!ok) return ::testing::AssertionFailure() << "element " << i << ": got " << g << ", expected " << w;
  }
  return ::testing::AssertionSuccess();
}

// A scale the int8 form decodes: the value itself, or a UINT64 / INT64 word's fp32 scale.
double decoded_scale(aclDataType dt, double v) {
  return dt == ACL_UINT64 || dt == ACL_INT64 ? refs::quant_param_scale(static_cast<uint64_t>(v)) : v;
}

void run_case(const GmmTableCase &c, aclDataType dt, const std::vector<Group> &gs, const Form &f) {
  const size_t G = gs.size();
  SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " G " << G << (f.split ? " split" : "")
                                    << (f.y_single ? " y_single" : "") << (f.w_single ? " w_single" : "")
                                    << " w_form " << f.w_form << " x_form " << f.x_form << " y_form " << f.y_form
                                    << " bias " << f.bias << (f.x_3d ? " x_3d" : "") << " tail " << f.tail);
  std::vector<Dev> xs, ws, bs, ys;
  std::vector<std::vector<double>> xv(G), wv(G), bv(G);
  int64_t M = 0;
  for (const Group &g : gs) M += g.m;
  const int64_t K = gs[0].k, N = gs[0].n;
  // Inputs.
  const aclDataType xdt = f.quant ? ACL_INT8 : dt;
  const double xmax = f.quant ? 127 : 1;
  Dev xall;
  if (f.split) {
    xall = view2(M + f.tail, K, xdt, f.x_form);
    xall->fill_random(-xmax, xmax);
    const auto v = xall->values();
    int64_t r = 0;
    for (size_t g = 0; g < G; ++g) {
      xv[g] = rows_of(v, r, r + gs[g].m, K);
      r += gs[g].m;
    }
  } else {
    for (size_t g = 0; g < G; ++g) {
      Dev x;
      if (f.x_3d)
        x = std::make_unique<DeviceTensor>(std::vector<int64_t>{2, gs[g].m / 2, gs[g].k}, xdt,
                                           std::vector<int64_t>{gs[g].m / 2 * (gs[g].k + 2), gs[g].k + 2, 1}, 1);
      else
        x = view2(gs[g].m, gs[g].k, xdt, f.x_form);
      x->fill_random(-xmax, xmax);
      if (f.specials && x->numel() > 2) {
        auto v = x->values();
        v[1] = NAN;
        v[v.size() - 1] = INFINITY;
        x->set_values(v);
      }
      xv[g] = x->values();
      xs.push_back(std::move(x));
    }
  }
  const aclDataType wdt = f.antiquant || f.quant ? ACL_INT8 : dt;
  const double wmax = f.quant ? 127 : f.antiquant ? 9 : 1;
  Dev wall;
  if (f.w_single) {
    if (f.w_form == 1)  // stored [G, N, K]
      wall = std::make_unique<DeviceTensor>(std::vector<int64_t>{static_cast<int64_t>(G), K, N}, wdt,
                                            std::vector<int64_t>{N * K, 1, K}, 2);
    else
      wall = std::make_unique<DeviceTensor>(std::vector<int64_t>{static_cast<int64_t>(G), K, N}, wdt);
    wall->fill_random(-wmax, wmax);
    const auto v = wall->values();
    for (size_t g = 0; g < G; ++g) wv[g] = rows_of(v, static_cast<int64_t>(g) * K, static_cast<int64_t>(g + 1) * K, N);
  } else {
    for (size_t g = 0; g < G; ++g) {
      Dev w = view2(gs[g].k, gs[g].n, wdt, (f.w_form + static_cast<int>(g)) % 3);
      w->fill_random(-wmax, wmax);
      wv[g] = w->values();
      ws.push_back(std::move(w));
    }
  }
  // Antiquant scale / offset per group ([N] each, or one [G, N] beside w_single); the reference takes
  // the dequantised weight (w + offset) * scale.
  // The int8 form's scale / offset lists take the same shapes (scale words with junk in their offset field).
  std::vector<Dev> aqs, aqo;
  const int lists = f.quant ? 1 + f.offset : f.antiquant;
  for (int which = 0; which < lists; ++which) {
    std::vector<Dev> &v = which == 0 ? aqs : aqo;
    const aclDataType vdt = !f.quant ? dt : which == 0 ? f.scale_dtype : ACL_FLOAT;
    for (size_t g = 0; g < (f.w_single ? 1 : G); ++g) {
      v.push_back(f.w_single ? view2(static_cast<int64_t>(G), N, vdt, 2)
                             : std::make_unique<DeviceTensor>(std::vector<int64_t>{gs[g].n}, vdt, std::vector<int64_t>{3}, 2));
      if (!f.quant) {
        v.back()->fill_random(which == 0 ? -0.2 : -3, which == 0 ? 0.2 : 3);
        continue;
      }
      v.back()->fill_random(which == 0 ? 2e-4 : -4, which == 0 ? 2e-3 : 4);
      if (vdt == ACL_UINT64 || vdt == ACL_INT64) {
        auto words = v.back()->values();
        for (double &w : words) {
          const double junk = std::floor(w * 1e5) - 100;
          w = static_cast<double>(refs::quant_param_word(static_cast<float>(w), &junk));
        }
        v.back()->set_values(words);
      }
    }
  }
  std::vector<std::vector<double>> qscale(G), qoffset(G);  // the int8 form's per-group vectors, decoded
  for (size_t g = 0; g < G && f.quant; ++g) {
    auto vec = [&](const std::vector<Dev> &v) {
      const auto all = v[f.w_single ? 0 : g]->values();
      return f.w_single ? rows_of(all, static_cast<int64_t>(g), static_cast<int64_t>(g) + 1, gs[g].n) : all;
    };
    qscale[g] = vec(aqs);
    for (double &sc : qscale[g]) sc = decoded_scale(f.scale_dtype, sc);
    qoffset[g] = f.offset ? vec(aqo) : std::vector<double>(static_cast<size_t>(gs[g].n), 0.0);
  }
  for (size_t g = 0; g < G && f.antiquant; ++g) {
    const int64_t n = gs[g].n;
    auto vec = [&](const std::vector<Dev> &v) {
      const auto all = v[f.w_single ? 0 : g]->values();
      return f.w_single ? rows_of(all, static_cast<int64_t>(g), static_cast<int64_t>(g) + 1, n) : all;
    };
    const auto sc = vec(aqs);
    const auto of = f.antiquant == 2 ? vec(aqo) : std::vector<double>(static_cast<size_t>(n), 0.0);
    for (size_t e = 0; e < wv[g].size(); ++e) wv[g][e] = (wv[g][e] + of[e % n]) * sc[e % n];
  }
  const double bmax = f.quant ? 3000 : 1;
  Dev ball;
  if (f.bias == 3) {
    ball = view2(static_cast<int64_t>(G), N, f.quant ? ACL_INT32 : ACL_FLOAT, 2);
    ball->fill_random(-bmax, bmax);
    const auto v = ball->values();
    for (size_t g = 0; g < G; ++g) bv[g] = rows_of(v, static_cast<int64_t>(g), static_cast<int64_t>(g) + 1, N);
  } else if (f.bias > 0) {
    for (size_t g = 0; g < G; ++g) {
      Dev b = std::make_unique<DeviceTensor>(std::vector<int64_t>{gs[g].n},
                                             f.quant ? ACL_INT32 : f.bias == 2 ? ACL_FLOAT : dt, std::vector<int64_t>{2}, 1);
      b->fill_random(-bmax, bmax);
      bv[g] = b->values();
      bs.push_back(std::move(b));
    }
  }
  // Outputs.
  Dev yall;
  if (f.y_single) {
    yall = view2(M + f.tail, N, dt, f.y_form);
    yall->poison();
  } else {
    for (size_t g = 0; g < G; ++g) {
      Dev y;
      if (f.x_3d)
        y = std::make_unique<DeviceTensor>(std::vector<int64_t>{2, gs[g].m / 2, gs[g].n}, dt);
      else
        y = view2(gs[g].m, gs[g].n, dt, f.y_form);
      y->poison();
      ys.push_back(std::move(y));
    }
  }
  auto ptrs = [](const std::vector<Dev> &v) {
    std::vector<aclTensor *> p;
    for (const Dev &d : v) p.push_back(d->get());
    return p;
  };
  TensorList xl(f.split ? std::vector<aclTensor *>{xall->get()} : ptrs(xs));
  TensorList wl(f.w_single ? std::vector<aclTensor *>{wall->get()} : ptrs(ws));
  TensorList bl(f.bias == 3 ? std::vector<aclTensor *>{ball->get()} : ptrs(bs));
  TensorList yl(f.y_single ? std::vector<aclTensor *>{yall->get()} : ptrs(ys));
  TensorList sl(ptrs(aqs)), ol(ptrs(aqo));
  Dev gl;
  if (f.split) {
    std::vector<double> ends;
    int64_t r = 0;
    for (const Group &g : gs) ends.push_back(static_cast<double>(r += g.m));
    if (f.strided_group_list)
      gl = std::make_unique<DeviceTensor>(std::vector<int64_t>{static_cast<int64_t>(G)}, ACL_INT64,
                                          std::vector<int64_t>{2}, 1);
    else
      gl = std::make_unique<DeviceTensor>(std::vector<int64_t>{static_cast<int64_t>(G)}, ACL_INT64);
    gl->set_values(ends);
  }
  GmmArgs a;
  a.x = xl.l;
  a.weight = wl.l;
  a.bias = f.bias > 0 ? bl.l : nullptr;
  a.y = yl.l;
  a.group_list = f.split ? gl->get() : nullptr;
  a.aq_scale = f.antiquant ? sl.l : nullptr;
  a.aq_offset = f.antiquant == 2 ? ol.l : nullptr;
  a.scale = f.quant ? sl.l : nullptr;
  a.offset = f.quant && f.offset ? ol.l : nullptr;
  a.split_item = f.y_single ? 2 + static_cast<int64_t>(G % 2) : static_cast<int64_t>(G % 2);
  a.group_type = f.split ? 0 : f.group_type;
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  // Reference and comparison.
  std::vector<double> want_all, mag_all;
  for (size_t g = 0; g < G; ++g) {
    std::vector<double> mag;
    auto want = refs::grouped_matmul_ref(xv[g], wv[g], bv[g], gs[g].m, gs[g].k, gs[g].n, &mag);
    for (size_t e = 0; e < want.size(); ++e) {
      const size_t j = e % static_cast<size_t>(std::max<int64_t>(gs[g].n, 1));
      // The int8 form: want is the exact integer acc + bias (integers below 2^53 in float64).
      if (f.quant) want[e] = refs::qmm_dequant_ref(static_cast<int64_t>(want[e]), 0, qscale[g][j], 1, 0, qoffset[g][j], &mag[e]);
      else want[e] = round_to(dt, want[e]);
    }
    if (f.y_single) {
      want_all.insert(want_all.end(), want.begin(), want.end());
      mag_all.insert(mag_all.end(), mag.begin(), mag.end());
    } else {
      EXPECT_TRUE((f.quant ? quant_close : close)(dt, ys[g]->values(), want, mag)) << "y[" << g << "]";
      EXPECT_TRUE(ys[g]->untouched_outside_view()) << "y[" << g << "]";
    }
  }
  if (f.y_single) {
    want_all.resize(static_cast<size_t>((M + f.tail) * N), 0.0);  // rows after the last group: zero
    mag_all.resize(want_all.size(), 0.0);
    EXPECT_TRUE((f.quant ? quant_close : close)(dt, yall->values(), want_all, mag_all)) << "y[0]";
    EXPECT_TRUE(yall->untouched_outside_view());
  }
}

int64_t pick(std::mt19937_64 &g, int64_t lo, int64_t hi) {
  return lo + static_cast<int64_t>(g() % static_cast<uint64_t>(hi - lo + 1));
}

// A bad two-group list (decreasing, past the split dim of 6, negative) fails the launch of `good` with
// 161002 naming it, and y stays unwritten.
void expect_bad_group_lists_fail(const GmmTableCase &c, const GmmArgs &good, DeviceTensor &y) {
  for (const std::vector<double> &bad : {std::vector<double>{4, 2}, std::vector<double>{2, 7},
                                         std::vector<double>{-1, 6}}) {
    DeviceTensor glb({2}, ACL_INT64);
    glb.set_values(bad);
    GmmArgs a = good;
    a.group_list = glb;
    y.poison();
    const auto before = y.values();
    const int rc = run_op([&](uint64_t *w2, aclOpExecutor **e) { return c.phase1(a, w2, e); }, c.launch);
    EXPECT_EQ(rc, ACLNN_ERR_PARAM_INVALID) << bad[0] << "," << bad[1];
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("groupListOptional"), std::string::npos) << aclGetRecentErrMsg();
    const auto after = y.values();
    for (size_t i = 0; i < after.size(); ++i)
      EXPECT_TRUE(std::isnan(before[i]) ? std::isnan(after[i]) : after[i] == before[i]) << i;
  }
}

class OpTableGmm : public ::testing::TestWithParam<GmmTableCase> {};

TEST_P(OpTableGmm, OneTensorPerGroup) {
  reseed_for_current_test();
  const GmmTableCase &c = GetParam();
  auto &g = rng();
  int v = 0;
  for (aclDataType dt : c.dtypes)
    for (int k = 0; k < 6; ++k, ++v) {
      std::vector<Group> gs(static_cast<size_t>(pick(g, 1, 4)));
      Form f;
      f.x_3d = v % 4 == 3;
      for (Group &q : gs) q = {f.x_3d ? 2 * pick(g, 0, 5) : pick(g, 0, 11), v % 5 == 4 ? 0 : pick(g, 1, 40), pick(g, 1, 37)};
      f.w_form = v % 3;
      f.x_form = (v / 2) % 3;
      f.y_form = v % 3;
      f.bias = v % 3;
      f.group_type = v % 2 == 0 ? -1 : 0;
      run_case(c, dt, gs, f);
    }
}

TEST_P(OpTableGmm, StackedOutput) {
  reseed_for_current_test();
  const GmmTableCase &c = GetParam();
  auto &g = rng();
  int v = 0;
  for (aclDataType dt : c.dtypes)
    for (int k = 0; k < 6; ++k, ++v) {
      std::vector<Group> gs(static_cast<size_t>(pick(g, 1, 5)));
      const int64_t K = pick(g, 1, 48), N = pick(g, 1, 40);
      for (Group &q : gs) q = {pick(g, 0, 13), K, N};
      Form f;
      f.y_single = true;
      f.w_single = v % 2 == 1;
      f.w_form = v % 3 == 0 ? 1 : 0;
      f.x_form = v % 3;
      f.y_form = (v + 1) % 3;
      f.bias = f.w_single && v % 4 == 1 ? 3 : v % 3;
      run_case(c, dt, gs, f);
    }
}

TEST_P(OpTableGmm, SplitByGroupList) {
  reseed_for_current_test();
  const GmmTableCase &c = GetParam();
  auto &g = rng();
  int v = 0;
  for (aclDataType dt : c.dtypes)
    for (int k = 0; k < 8; ++k, ++v) {
      std::vector<Group> gs(static_cast<size_t>(pick(g, 1, 6)));
      const int64_t K = pick(g, 1, 64), N = pick(g, 1, 48);
      for (Group &q : gs) q = {g() % 3 == 0 ? 0 : pick(g, 1, 40), K, N};  // empty groups too
      Form f;
      f.split = f.y_single = true;
      f.w_single = v % 2 == 0;
      f.w_form = v % 4 < 2 ? 1 : 0;
      f.x_form = v % 3;
      f.y_form = (v / 3) % 3;
      f.bias = f.w_single && v % 4 == 2 ? 3 : v % 3;
      f.tail = v % 3 == 1 ? pick(g, 1, 5) : 0;
      f.strided_group_list = v % 2 == 1;
      run_case(c, dt, gs, f);
    }
  // Large groups: the tile paths over many row blocks, one group taking every row.
  Form f;
  f.split = f.y_single = f.w_single = true;
  run_case(c, c.dtypes[0], {{300, 96, 80}, {0, 96, 80}, {5, 96, 80}}, f);
  run_case(c, c.dtypes[0], {{0, 70, 33}, {257, 70, 33}}, f);
}

// groupType 2 (K grouping): x [M, K] (contiguous, transposed as the vendor documents, or padded) and
// weight [K, N] split along K by the cumulative group list, y one [G, M, N] tensor; empty groups give
// zeros, K after the last end is unused; a K of several hundred runs several accumulated chunks.
void run_k_grouped(const GmmTableCase &c, aclDataType dt, int64_t M, int64_t N, const std::vector<int64_t> &ks,
                   int64_t tail, int form, bool strided) {
  SCOPED_TRACE(::testing::Message() << c.name << " K grouping dtype " << dt << " M " << M << " N " << N << " groups "
                                    << ::testing::PrintToString(ks) << " tail " << tail << " form " << form);
  const int64_t G = static_cast<int64_t>(ks.size());
  int64_t K = tail;
  for (int64_t k : ks) K += k;
  Dev x = view2(M, K, dt, form), w = view2(K, N, dt, (form + 1) % 3);
  x->fill_random(-1, 1);
  w->fill_random(-1, 1);
  Dev y = strided ? std::make_unique<DeviceTensor>(std::vector<int64_t>{G, M, N}, dt,
                                                   std::vector<int64_t>{M * (N + 2), N + 2, 1}, 3)
                  : std::make_unique<DeviceTensor>(std::vector<int64_t>{G, M, N}, dt);
  y->poison();
  Dev gl = strided ? std::make_unique<DeviceTensor>(std::vector<int64_t>{G}, ACL_INT64, std::vector<int64_t>{2}, 1)
                   : std::make_unique<DeviceTensor>(std::vector<int64_t>{G}, ACL_INT64);
  std::vector<double> ends;
  int64_t e = 0;
  for (int64_t k : ks) ends.push_back(static_cast<double>(e += k));
  gl->set_values(ends);
  TensorList xl({x->get()}), wl({w->get()}), yl({y->get()});
  GmmArgs a;
  a.x = xl.l;
  a.weight = wl.l;
  a.y = yl.l;
  a.group_list = gl->get();
  a.split_item = strided ? 3 : 2;
  a.group_type = 2;
  ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) { return c.phase1(a, ws, ex); }, c.launch), 0)
      << aclGetRecentErrMsg();
  const auto xv = x->values(), wv = w->values();
  std::vector<double> want, mag;
  int64_t k0 = 0;
  for (int64_t g = 0; g < G; ++g) {
    const int64_t kg = ks[static_cast<size_t>(g)];
    std::vector<double> xg, wg = rows_of(wv, k0, k0 + kg, N), m;
    for (int64_t i = 0; i < M; ++i)
      xg.insert(xg.end(), xv.begin() + i * K + k0, xv.begin() + i * K + k0 + kg);
    auto yg = refs::grouped_matmul_ref(xg, wg, {}, M, kg, N, &m);
    for (double &v : yg) v = round_to(dt, v);
    want.insert(want.end(), yg.begin(), yg.end());
    mag.insert(mag.end(), m.begin(), m.end());
    k0 += kg;
  }
  EXPECT_TRUE(close(dt, y->values(), want, mag));
  EXPECT_TRUE(y->untouched_outside_view());
}

TEST_P(OpTableGmm, SplitAlongK) {
  reseed_for_current_test();
  const GmmTableCase &c = GetParam();
  auto &g = rng();
  int v = 0;
  for (aclDataType dt : c.dtypes)
    for (int k = 0; k < 6; ++k, ++v) {
      std::vector<int64_t> ks(static_cast<size_t>(pick(g, 1, 5)));
      for (int64_t &q : ks) q = g() % 4 == 0 ? 0 : pick(g, 1, 40);
      run_k_grouped(c, dt, pick(g, 1, 20), pick(g, 1, 24), ks, v % 3 == 1 ? pick(g, 1, 4) : 0, v % 3, v % 2 == 1);
    }
  run_k_grouped(c, c.dtypes[0], 33, 17, {0, 300, 129, 1}, 0, 1, false);
}

TEST_P(OpTableGmm, KGroupingErrorsNameTheArgument) {
  const GmmTableCase &c = GetParam();
  const char *api = c.api.c_str();
  DeviceTensor x({4, 6}, ACL_FLOAT), w({6, 3}, ACL_FLOAT), y({2, 4, 3}, ACL_FLOAT), gl({2}, ACL_INT64), b({2, 3}, ACL_FLOAT);
  x.fill_random(-1, 1);
  w.fill_random(-1, 1);
  gl.set_values({2, 6});
  TensorList xl({x.get()}), wl({w.get()}), yl({y.get()}), bl({b.get()});
  GmmArgs good;
  good.x = xl.l;
  good.weight = wl.l;
  good.y = yl.l;
  good.group_list = gl;
  good.split_item = 2;
  good.group_type = 2;
  ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **e) { return c.phase1(good, ws, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto fails = [&](const GmmArgs &a, int code, std::initializer_list<const char *> needles) {
    return fails_with(c.phase1(a, &ws, &ex), code, needles);
  };
  GmmArgs a = good;
  a.group_list = nullptr;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_NULLPTR, {api, "groupListOptional"}));
  a = good;
  a.bias = bl.l;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "biasOptional", "K grouping"}));
  a = good;
  a.split_item = 0;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "splitItem"}));
  DeviceTensor y2({4, 3}, ACL_FLOAT), w3({1, 6, 3}, ACL_FLOAT), w5({5, 3}, ACL_FLOAT), gli({2}, ACL_INT32);
  TensorList y2l({y2.get()}), w3l({w3.get()}), w5l({w5.get()}), xx({x.get(), x.get()});
  a = good;
  a.y = y2l.l;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "y[0]", "[G, M, N]"}));
  a = good;
  a.weight = w3l.l;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "weight[0]", "[K, N]"}));
  a = good;
  a.weight = w5l.l;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "weight[0]", "[K, N]"}));
  a = good;
  a.x = xx.l;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "one tensor each"}));
  a = good;
  a.group_list = gli;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "groupListOptional", "dtype"}));
  DeviceTensor wi8({6, 3}, ACL_INT8), sc({3}, ACL_FLOAT);
  TensorList wi8l({wi8.get()}), scl({sc.get()});
  a = good;
  a.weight = wi8l.l;
  a.aq_scale = scl.l;  // the weight-quantised form takes groupType -1 / 0 only
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "antiquantScaleOptional", "groupType"}));
  expect_bad_group_lists_fail(c, good, y);
}

// The weight-quantised form: INT8 weights dequantised as (w + antiquantOffset) * antiquantScale per output
// channel, in every form (per-group lists, stacked y, x split by the group list with one [G, K, N] weight
// and [G, N] scale / offset).
TEST_P(OpTableGmm, AntiquantWeights) {
  reseed_for_current_test();
  const GmmTableCase &c = GetParam();
  auto &g = rng();
  int v = 0;
  for (aclDataType dt : c.dtypes)
    for (int k = 0; k < 6; ++k, ++v) {
      Form f;
      f.antiquant = 1 + v % 2;
      f.bias = v % 3;
      const int64_t K = pick(g, 1, 40), N = pick(g, 1, 30);
      std::vector<Group> gs(static_cast<size_t>(pick(g, 1, 4)));
      for (Group &q : gs) q = {pick(g, 0, 12), v % 3 == 0 ? pick(g, 1, 40) : K, v % 3 == 0 ? pick(g, 1, 30) : N};
      if (v % 3 == 1) {
        f.y_single = true;
        f.w_form = v % 2;
      } else if (v % 3 == 2) {
        f.split = f.y_single = f.w_single = true;
        f.w_form = v % 2;
        f.bias = v % 2 == 0 ? 3 : 0;
      }
      f.x_form = v % 3;
      run_case(c, dt, gs, f);
    }
}

// The int8 quantised form: INT8 x / weight summed exactly, + INT32 bias, * scale (UINT64 / INT64 words, FLOAT,
// BF16) (+ offset, INT8 y), every y dtype, in every groupType -1 / 0 form: one tensor per group (K = 0 and empty
// groups too, 3-D x), stacked y, x split along M by the group list (random sizes with empty groups, rows after
// the last end zeroed, one [G, K, N] weight with [G, N] scale / offset / bias), and large groups that run
// several rungs of the int8 row ladder.
TEST_P(OpTableGmm, Int8Quantised) {
  reseed_for_current_test();
  const GmmTableCase &c = GetParam();
  auto &g = rng();
  ASSERT_FALSE(c.int8_y.empty() || c.int8_scale.empty()) << "the row takes no int8 form";
  int v = 0;
  for (aclDataType ydt : c.int8_y)
    for (int k = 0; k < 9; ++k, ++v) {
      Form f;
      f.quant = true;
      f.scale_dtype = c.int8_scale[static_cast<size_t>(v) % c.int8_scale.size()];
      f.offset = ydt == ACL_INT8 && v % 2 == 0;
      f.bias = v % 3;
      f.x_form = v % 3;
      f.w_form = (v / 3) % 3;
      f.y_form = (v + 1) % 3;
      std::vector<Group> gs(static_cast<size_t>(pick(g, 1, 6)));
      const int64_t K = pick(g, 1, 64), N = pick(g, 1, 48);
      if (k % 3 == 0) {  // one tensor per group, each its own M / K / N
        f.x_3d = v % 2 == 1;
        f.group_type = v % 4 == 0 ? 0 : -1;
        for (Group &q : gs) q = {f.x_3d ? 2 * pick(g, 0, 6) : pick(g, 0, 12), v % 5 == 3 ? 0 : pick(g, 1, 64), pick(g, 1, 40)};
      } else {
        for (Group &q : gs) q = {g() % 3 == 0 ? 0 : pick(g, 1, 40), K, N};
        f.y_single = true;
        f.split = k % 3 == 2;
        f.w_single = v % 2 == 0;
        if (f.w_single && v % 4 == 0) f.bias = 3;
        f.tail = f.split && v % 3 == 1 ? pick(g, 1, 5) : 0;
        f.strided_group_list = v % 2 == 1;
      }
      run_case(c, ydt, gs, f);
    }
  Form f;
  f.quant = f.split = f.y_single = f.w_single = true;
  f.bias = 3;
  run_case(c, ACL_INT8, {{300, 96, 80}, {0, 96, 80}, {17, 96, 80}, {5, 96, 80}}, f);
  f.offset = true;
  f.scale_dtype = ACL_FLOAT;
  f.tail = 3;
  run_case(c, ACL_INT8, {{0, 70, 33}, {257, 70, 33}}, f);
}

// The int8 form's errors: dtype combinations, per-group shapes of scale / offset / bias, groupType, a bad
// group list at launch; each 161002 naming the argument.
TEST_P(OpTableGmm, Int8ErrorsNameTheArgument) {
  const GmmTableCase &c = GetParam();
  const char *api = c.api.c_str();
  DeviceTensor x({6, 4}, ACL_INT8), w({2, 4, 3}, ACL_INT8), y({6, 3}, ACL_INT8), gl({2}, ACL_INT64),
      b({2, 3}, ACL_INT32), sc({2, 3}, ACL_UINT64), of({2, 3}, ACL_FLOAT);
  x.fill_random(-100, 100);
  w.fill_random(-100, 100);
  gl.set_values({2, 6});
  sc.set_values(std::vector<double>(6, static_cast<double>(refs::quant_param_word(0.01f, nullptr))));
  TensorList xl({x.get()}), wl({w.get()}), yl({y.get()}), bl({b.get()}), scl({sc.get()}), ofl({of.get()});
  GmmArgs good;
  good.x = xl.l;
  good.weight = wl.l;
  good.bias = bl.l;
  good.y = yl.l;
  good.scale = scl.l;
  good.offset = ofl.l;
  good.group_list = gl;
  good.split_item = 2;
  good.group_type = 0;
  ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **e) { return c.phase1(good, ws, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  DeviceTensor xf({6, 4}, ACL_FLOAT), wf({2, 4, 3}, ACL_FLOAT), yf({6, 3}, ACL_FLOAT), bf({2, 3}, ACL_FLOAT),
      sci({2, 3}, ACL_INT32), ofh({2, 3}, ACL_FLOAT16), yh({6, 3}, ACL_FLOAT16), sc4({2, 4}, ACL_UINT64),
      sc3({3, 3}, ACL_UINT64), b4({2, 4}, ACL_INT32), sv({3}, ACL_FLOAT);
  TensorList xfl({xf.get()}), wfl({wf.get()}), yfl({yf.get()}), bfl({bf.get()}), scil({sci.get()}), ofhl({ofh.get()}),
      yhl({yh.get()}), sc4l({sc4.get()}), sc3l({sc3.get()}), b4l({b4.get()}), svl({sv.get()}), sv3({sv.get(), sv.get(), sv.get()});
  // `good` edited one way must fail phase 1 with 161002 and a message naming the API and the needles.
  auto with = [&](auto edit, std::initializer_list<const char *> needles) {
    GmmArgs a = good;
    edit(a);
    const int rc = c.phase1(a, &ws, &ex);
    EXPECT_TRUE(fails_with(rc, ACLNN_ERR_PARAM_INVALID, {api})) << *needles.begin();
    EXPECT_TRUE(fails_with(rc, ACLNN_ERR_PARAM_INVALID, needles));
  };
  with([&](GmmArgs &a) { a.x = xfl.l; }, {"x[0]", "dtype"});
  with([&](GmmArgs &a) { a.weight = wfl.l; }, {"weight[0]", "dtype"});
  with([&](GmmArgs &a) { a.y = yfl.l; }, {"y[0]", "dtype"});
  with([&](GmmArgs &a) { a.bias = bfl.l; }, {"biasOptional[0]", "dtype"});
  with([&](GmmArgs &a) { a.scale = scil.l; }, {"scaleOptional[0]", "dtype"});
  with([&](GmmArgs &a) { a.offset = ofhl.l; }, {"offsetOptional[0]", "dtype"});
  with([&](GmmArgs &a) { a.y = yhl.l; }, {"offsetOptional", "INT8 y"});
  with([&](GmmArgs &a) { a.scale = nullptr; }, {"offsetOptional", "without", "scaleOptional"});
  with([&](GmmArgs &a) { a.scale = sc4l.l; }, {"scaleOptional[0]", "shape"});
  with([&](GmmArgs &a) { a.scale = sc3l.l; }, {"scaleOptional[0]", "shape"});
  with([&](GmmArgs &a) { a.scale = sv3.l; }, {"scaleOptional holds 3"});
  with([&](GmmArgs &a) { a.scale = svl.l; }, {"scaleOptional holds 1"});  // [N] beside a [G, K, N] weight
  with([&](GmmArgs &a) { a.bias = b4l.l; }, {"biasOptional[0]", "shape"});
  with([&](GmmArgs &a) { a.aq_scale = scl.l; }, {"scaleOptional", "antiquantScaleOptional"});
  with([&](GmmArgs &a) { a.group_type = 2; }, {"scaleOptional", "groupType"});
  with([&](GmmArgs &a) { a.group_type = -1; }, {"groupType"});
  expect_bad_group_lists_fail(c, good, y);
}

TEST_P(OpTableGmm, SpecialValuesPropagate) {
  reseed_for_current_test();
  const GmmTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes) {
    Form f;
    f.specials = true;
    f.bias = 1;
    run_case(c, dt, {{3, 5, 4}, {6, 9, 17}}, f);
  }
}

TEST_P(OpTableGmm, ErrorsNameTheArgument) {
  const GmmTableCase &c = GetParam();
  const char *api = c.api.c_str();
  DeviceTensor x({6, 4}, ACL_FLOAT), w({2, 4, 3}, ACL_FLOAT), y({6, 3}, ACL_FLOAT), gl({2}, ACL_INT64),
      b({2, 3}, ACL_FLOAT);
  x.fill_random(-1, 1);
  w.fill_random(-1, 1);
  b.fill_random(-1, 1);
  gl.set_values({2, 6});
  TensorList xl({x.get()}), wl({w.get()}), yl({y.get()}), bl({b.get()});
  GmmArgs good;
  good.x = xl.l;
  good.weight = wl.l;
  good.bias = bl.l;
  good.y = yl.l;
  good.group_list = gl;
  good.split_item = 3;
  good.group_type = 0;
  ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **e) { return c.phase1(good, ws, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto fails = [&](const GmmArgs &a, int code, std::initializer_list<const char *> needles) {
    return fails_with(c.phase1(a, &ws, &ex), code, needles);
  };
  GmmArgs a = good;
  a.x = nullptr;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_NULLPTR, {api, "x"}));
  a = good;
  a.weight = nullptr;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_NULLPTR, {api, "weight"}));
  a = good;
  a.y = nullptr;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_NULLPTR, {api, "y"}));
  a = good;
  a.group_list = nullptr;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_NULLPTR, {api, "groupListOptional"}));
  for (const std::string &u : c.unsupported) {
    a = good;
    a.bogus = u;
    a.bogus_list = bl.l;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, u.c_str(), "not supported"})) << u;
  }
  for (int64_t gt : {1, 3, -2}) {  // 2 (K grouping): KGroupingErrorsNameTheArgument
    a = good;
    a.group_type = gt;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "groupType"})) << gt;
  }
  for (int64_t si : {-1, 4}) {
    a = good;
    a.split_item = si;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "splitItem"})) << si;
  }
  a = good;
  a.split_item = 0;  // a split x needs one y tensor
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "splitItem"}));
  // Dtypes.
  DeviceTensor xi({6, 4}, ACL_INT8), xh({6, 4}, ACL_FLOAT16), wd({2, 4, 3}, ACL_DOUBLE), bi({2, 3}, ACL_INT32),
      gli({2}, ACL_INT32);
  TensorList xil({xi.get()}), xhl({xh.get()}), wdl({wd.get()}), bil({bi.get()});
  a = good;
  a.x = xil.l;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "x[0]", "dtype"}));
  a = good;
  a.x = xhl.l;  // FLOAT16 x, FLOAT weight
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "weight[0]", "dtype"}));
  a = good;
  a.weight = wdl.l;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "weight[0]", "dtype"}));
  a = good;
  a.bias = bil.l;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "biasOptional[0]", "dtype"}));
  a = good;
  a.group_list = gli;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "groupListOptional", "dtype"}));
  // Shapes and list sizes.
  DeviceTensor w5({2, 5, 3}, ACL_FLOAT), y4({6, 4}, ACL_FLOAT), gl3({3}, ACL_INT64), b4({2, 4}, ACL_FLOAT),
      w2a({4, 3}, ACL_FLOAT), w2b({4, 3}, ACL_FLOAT), w1({4}, ACL_FLOAT), x3({2, 3, 4}, ACL_FLOAT);
  TensorList w5l({w5.get()}), y4l({y4.get()}), b4l({b4.get()}), w2l({w2a.get(), w2b.get()}), w1l({w1.get()}),
      yy({y.get(), y4.get()}), x3l({x3.get()});
  a = good;
  a.weight = w5l.l;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "weight[0]"}));
  a = good;
  a.y = y4l.l;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "y[0]", "shape"}));
  a = good;
  a.y = yy.l;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "y holds 2"}));
  a = good;
  a.group_list = gl3;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "groupListOptional", "shape"}));
  a = good;
  a.bias = b4l.l;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "biasOptional[0]", "shape"}));
  a = good;
  a.weight = w1l.l;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "weight[0]", "[K, N]"}));
  a = good;
  a.x = x3l.l;  // a split x must be 2-D
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "x[0]"}));
  a = good;
  a.weight = w2l.l;
  a.bias = nullptr;
  a.group_type = -1;  // one x for two groups without M grouping
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "groupType"}));
  // One x per group: the group list must be absent; K must match.
  DeviceTensor xa({2, 4}, ACL_FLOAT), xb({4, 5}, ACL_FLOAT);
  TensorList xab({xa.get(), xb.get()}), xaa({xa.get(), xa.get(), xa.get()});
  a = good;
  a.x = xab.l;
  a.weight = w2l.l;
  a.bias = nullptr;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "groupListOptional", "null"}));
  a.group_list = nullptr;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "x[1]", "K"}));
  a.x = xaa.l;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "x holds 3"}));
  // The antiquant form: INT8 weights, scale / offset in x's dtype and shaped [N] per group (or [G, N]).
  DeviceTensor wi8({2, 4, 3}, ACL_INT8), sc({2, 3}, ACL_FLOAT), sch({2, 3}, ACL_FLOAT16), sc4({2, 4}, ACL_FLOAT);
  TensorList wi8l({wi8.get()}), scl({sc.get()}), schl({sch.get()}), sc4l({sc4.get()});
  a = good;
  a.weight = wi8l.l;
  a.aq_scale = scl.l;
  a.aq_offset = scl.l;
  EXPECT_EQ(c.phase1(a, &ws, &ex), 0) << aclGetRecentErrMsg();
  a.aq_scale = nullptr;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "antiquantOffsetOptional", "without"}));
  a = good;
  a.aq_scale = scl.l;  // a FLOAT weight
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "weight[0]", "dtype"}));
  a.weight = wi8l.l;
  a.aq_scale = schl.l;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "antiquantScaleOptional[0]", "dtype"}));
  a.aq_scale = sc4l.l;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "antiquantScaleOptional[0]", "shape"}));
  a.aq_scale = scl.l;
  a.aq_offset = sc4l.l;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "antiquantOffsetOptional[0]", "shape"}));
  expect_bad_group_lists_fail(c, good, y);
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableGmm, ::testing::ValuesIn(all_cases()), harness::case_name<GmmTableCase>);

}  // namespace
}  // namespace opsnn::test
