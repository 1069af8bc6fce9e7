// Forward activations with two inputs or split inputs: AddRelu (the INT8 wrap before the relu)
// and the GLU family (Glu, SwiGlu, GeGlu, GeGluV3, GeluMul, FatreluMul, ClippedSwiglu(V2),
// SituGlu), against float64 references built from the halves; strided inputs, odd sizes, errors;
// ClippedSwiglu(V2) with groupIndexOptional (rows at and after the sum are zero).
// (Heaviside and AddRelu also run the n-ary harness: src/ops/activation/activation_binary.ops.)
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

#include "aclnnop/aclnn_add_relu.h"
#include "aclnnop/aclnn_clipped_swiglu.h"
#include "aclnnop/aclnn_clipped_swiglu_v2.h"
#include "aclnnop/aclnn_fatrelu_mul.h"
#include "aclnnop/aclnn_geglu.h"
#include "aclnnop/aclnn_gelu_mul.h"
#include "aclnnop/aclnn_glu.h"
#include "aclnnop/aclnn_situ_glu.h"
#include "aclnnop/aclnn_swi_glu.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

const double kPi = 3.14159265358979323846;
double sigm(double x) { return 1 / (1 + std::exp(-x)); }
double gelu(double x, int approx) {
  return approx ? 0.5 * x * (1 + std::tanh(std::sqrt(2 / kPi) * (x + 0.044715 * x * x * x)))
                : 0.5 * x * std::erfc(-x / std::sqrt(2.0));
}

// Golden of a gated op on x (shape, row-major values) split along dim: f(first, second) per
// output element; interleaved takes even / odd elements instead of halves.
std::vector<double> gated_ref(const std::vector<double> &x, const std::vector<int64_t> &shape, int dim,
                              const std::function<double(double, double)> &f, bool interleaved = false) {
  std::vector<int64_t> oshape = shape;
  oshape[dim] /= 2;
  const int64_t n = numel_of(oshape), half = oshape[dim];
  std::vector<double> r(n);
  for (int64_t i = 0; i < n; ++i) {
    auto idx = unravel(i, oshape);
    auto a = idx, b = idx;
    a[dim] = interleaved ? 2 * idx[dim] : idx[dim];
    b[dim] = interleaved ? 2 * idx[dim] + 1 : idx[dim] + half;
    auto lin = [&](const std::vector<int64_t> &k) {
      int64_t l = 0;
      for (size_t d = 0; d < shape.size(); ++d) l = l * shape[d] + k[d];
      return l;
    };
    r[i] = f(x[lin(a)], x[lin(b)]);
  }
  return r;
}


using GatedRun = std::function<int(aclTensor *x, int64_t dim, aclTensor *out)>;
struct GatedCase {
  const char *name;
  GatedRun run;
  std::function<double(double, double)> ref;
  bool interleaved = false;
  bool last_dim_only = false;
};

template <class P1, class P2>
int run2(P1 p1, P2 p2) {
  return run_op(p1, p2);
}

std::vector<GatedCase> gated_cases() {
  std::vector<GatedCase> c;
  c.push_back({"Glu", [](aclTensor *x, int64_t d, aclTensor *o) {
                 return run2([&](uint64_t *w, aclOpExecutor **e) { return aclnnGluGetWorkspaceSize(x, d, o, w, e); }, aclnnGlu);
               }, [](double a, double b) { return a * sigm(b); }});
  c.push_back({"SwiGlu", [](aclTensor *x, int64_t d, aclTensor *o) {
                 return run2([&](uint64_t *w, aclOpExecutor **e) { return aclnnSwiGluGetWorkspaceSize(x, d, o, w, e); }, aclnnSwiGlu);
               }, [](double a, double b) { return a * sigm(a) * b; }});
  for (int approx : {0, 1}) {
    c.push_back({approx ? "GeluMul.tanh" : "GeluMul.none", [approx](aclTensor *x, int64_t, aclTensor *o) {
                   char mode[8];
                   std::snprintf(mode, sizeof(mode), "%s", approx ? "tanh" : "none");
                   return run2([&](uint64_t *w, aclOpExecutor **e) { return aclnnGeluMulGetWorkspaceSize(x, mode, o, w, e); }, aclnnGeluMul);
                 }, [approx](double a, double b) { return gelu(a, approx) * b; }, false, true});
  }
  c.push_back({"ClippedSwiglu", [](aclTensor *x, int64_t d, aclTensor *o) {
                 return run2([&](uint64_t *w, aclOpExecutor **e) { return aclnnClippedSwigluGetWorkspaceSize(x, nullptr, d, 1.702, 1.5, 1.0, false, o, w, e); }, aclnnClippedSwiglu);
               }, [](double a, double b) {
                 a = std::fmin(a, 1.5);
                 b = std::fmax(-1.5, std::fmin(b, 1.5));
                 return a * sigm(1.702 * a) * (b + 1.0);
               }});
  c.push_back({"ClippedSwiglu.interleaved", [](aclTensor *x, int64_t d, aclTensor *o) {
                 return run2([&](uint64_t *w, aclOpExecutor **e) { return aclnnClippedSwigluGetWorkspaceSize(x, nullptr, d, 1.702, 1.5, 1.0, true, o, w, e); }, aclnnClippedSwiglu);
               }, [](double a, double b) {
                 a = std::fmin(a, 1.5);
                 b = std::fmax(-1.5, std::fmin(b, 1.5));
                 return a * sigm(1.702 * a) * (b + 1.0);
               }, true, true});
  c.push_back({"ClippedSwigluV2.mode1", [](aclTensor *x, int64_t d, aclTensor *o) {
                 return run2([&](uint64_t *w, aclOpExecutor **e) { return aclnnClippedSwigluV2GetWorkspaceSize(x, nullptr, d, 1.702, 1.5, 1.0, false, 1, o, w, e); }, aclnnClippedSwigluV2);
               }, [](double a, double b) { return std::fmin(a * sigm(a), 1.5) * std::fmax(-1.5, std::fmin(b, 1.5)); }});
  c.push_back({"SituGlu", [](aclTensor *x, int64_t d, aclTensor *o) {
                 return run2([&](uint64_t *w, aclOpExecutor **e) { return aclnnSituGluGetWorkspaceSize(x, d, 1.5, 0.0, true, o, w, e); }, aclnnSituGlu);
               }, [](double g, double u) { return 1.5 * std::tanh(g / 1.5) * sigm(g) * u; }});
  c.push_back({"SituGlu.right.linear", [](aclTensor *x, int64_t d, aclTensor *o) {
                 return run2([&](uint64_t *w, aclOpExecutor **e) { return aclnnSituGluGetWorkspaceSize(x, d, 1.5, 2.0, false, o, w, e); }, aclnnSituGlu);
               }, [](double u, double g) { return 1.5 * std::tanh(g / 1.5) * sigm(g) * 2.0 * std::tanh(u / 2.0); }});
  return c;
}

TEST(ActivationGated, EveryOpDtypeDimAndView) {
  reseed_for_current_test();
  const std::vector<int64_t> shape = {3, 6, 8};
  for (const auto &c : gated_cases()) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
      for (int dim : {1, 2}) {
        if (c.last_dim_only && dim != 2) continue;
        SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " dim " << dim);
        auto x = transposed_view(shape, dt);
        x->fill_random(-4, 4);
        auto oshape = shape;
        oshape[dim] /= 2;
        DeviceTensor out(oshape, dt);
        out.poison();
        ASSERT_EQ(c.run(*x, dim == 2 ? -1 : dim, out), 0) << aclGetRecentErrMsg();
        auto gold = gated_ref(x->values(), shape, dim, c.ref, c.interleaved);
        for (auto &g : gold) g = round_to(dt, g);
        EXPECT_TRUE(meets_precision(dt, out.values(), gold));
        EXPECT_TRUE(out.untouched_outside_view());
      }
    }
  }
}

TEST(ActivationGated, OddSizeWrongOutAndDim) {
  uint64_t ws;
  aclOpExecutor *ex;
  DeviceTensor x({4, 5}, ACL_FLOAT), o({4, 2}, ACL_FLOAT), o2({2, 5}, ACL_FLOAT), o3({4, 5}, ACL_FLOAT);
  EXPECT_TRUE(fails_with(aclnnGluGetWorkspaceSize(x, -1, o, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"odd", "self"}));
  EXPECT_TRUE(fails_with(aclnnSwiGluGetWorkspaceSize(x, 1, o, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"odd", "x"}));
  EXPECT_TRUE(fails_with(aclnnGluGetWorkspaceSize(x, 2, o, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"dim", "out of range"}));
  EXPECT_TRUE(fails_with(aclnnGluGetWorkspaceSize(x, 0, o3, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"out", "[2, 5]"}));
  EXPECT_EQ(aclnnGluGetWorkspaceSize(x, 0, o2, &ws, &ex), 0);
  aclDestroyAclOpExecutor(ex);
  EXPECT_EQ(aclnnGluGetWorkspaceSize(nullptr, 0, o2, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(fails_with(aclnnGeGluV3GetWorkspaceSize(x, 0, 2, true, o2, o2, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"approximate"}));
  char bad[] = "fast";
  DeviceTensor y({4, 6}, ACL_FLOAT), yo({4, 3}, ACL_FLOAT);
  EXPECT_TRUE(fails_with(aclnnGeluMulGetWorkspaceSize(y, bad, yo, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"approximateOptional"}));
  DeviceTensor gi({2}, ACL_INT64);
  EXPECT_TRUE(fails_with(aclnnClippedSwigluV2GetWorkspaceSize(y, nullptr, -1, 1.7, 7, 1, false, 3, yo, &ws, &ex),
                         ACLNN_ERR_PARAM_INVALID, {"clampMode"}));
  DeviceTensor i32({4, 6}, ACL_INT32);
  EXPECT_TRUE(fails_with(aclnnSwiGluGetWorkspaceSize(i32, -1, yo, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"x", "INT32"}));
}

// ClippedSwiglu(V2) with groupIndexOptional: rows (indices of the dims before dim, row-major) below
// sum(groupIndex) get the op, the rest zero; the sum is clamped to [0, rows] as the gradient does.
double clipped_ref(double a, double b, int mode) {
  if (mode == 1) return std::fmin(a * sigm(a), 1.5) * std::fmax(-1.5, std::fmin(b, 1.5));
  a = std::fmin(a, 1.5);
  b = std::fmax(-1.5, std::fmin(b, 1.5));
  return a * sigm(1.702 * a) * (b + 1.0);
}
int run_clipped_grouped(aclTensor *x, aclTensor *gi, int64_t dim, bool interleaved, int mode, aclTensor *out) {
  if (mode < 0)
    return run_op([&](uint64_t *w, aclOpExecutor **e) {
      return aclnnClippedSwigluGetWorkspaceSize(x, gi, dim, 1.702, 1.5, 1.0, interleaved, out, w, e);
    }, aclnnClippedSwiglu);
  return run_op([&](uint64_t *w, aclOpExecutor **e) {
    return aclnnClippedSwigluV2GetWorkspaceSize(x, gi, dim, 1.702, 1.5, 1.0, interleaved, mode, out, w, e);
  }, aclnnClippedSwigluV2);
}
std::vector<double> grouped_ref(const std::vector<double> &x, const std::vector<int64_t> &shape, int dim,
                                bool interleaved, int mode, int64_t sum, aclDataType dt) {
  auto gold = gated_ref(x, shape, dim, [mode](double a, double b) { return clipped_ref(a, b, mode); }, interleaved);
  int64_t row_elems = 1, rows = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (static_cast<int>(d) < dim) rows *= shape[d];
    else row_elems *= static_cast<int>(d) == dim ? shape[d] / 2 : shape[d];
  }
  const int64_t valid = std::max<int64_t>(0, std::min(sum, rows));
  for (size_t i = 0; i < gold.size(); ++i)
    gold[i] = static_cast<int64_t>(i) / row_elems < valid ? round_to(dt, gold[i]) : 0.0;
  return gold;
}

TEST(ActivationGated, ClippedSwigluGroupIndexEverySum) {
  reseed_for_current_test();
  // Two row dims (2 x 3 rows): every prefix length, past the end, and a negative sum.
  const std::vector<int64_t> shape = {2, 3, 8};
  DeviceTensor x(shape, ACL_FLOAT), out({2, 3, 4}, ACL_FLOAT), gi({3}, ACL_INT64);
  x.fill_random(-4, 4);
  for (int64_t sum : {0, 1, 2, 3, 4, 5, 6, 7, 100, -2}) {
    for (bool interleaved : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "sum " << sum << " interleaved " << interleaved);
      gi.set_values({1, static_cast<double>(sum - 1), 0});
      out.poison();
      ASSERT_EQ(run_clipped_grouped(x, gi, -1, interleaved, -1, out), 0) << aclGetRecentErrMsg();
      auto gold = grouped_ref(x.values(), shape, 2, interleaved, 0, sum, ACL_FLOAT);
      auto o = out.values();
      EXPECT_TRUE(meets_precision(ACL_FLOAT, o, gold));
      for (size_t i = 0; i < o.size(); ++i)
        if (gold[i] == 0.0) EXPECT_EQ(o[i], 0.0) << i;  // zeroed rows are exactly +0
    }
  }
}

TEST(ActivationGated, ClippedSwigluGroupIndexDtypesViewsDims) {
  reseed_for_current_test();
  const std::vector<int64_t> shape = {2, 4, 6};  // 1 row along dim 0, 2 along dim 1, 8 along dim 2
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
    for (int dim : {0, 1, 2}) {
      for (int mode : {-1, 0, 1}) {  // -1: aclnnClippedSwiglu, else V2's clampMode
        const bool interleaved = dim == 2 && mode != 0;
        auto x = transposed_view(shape, dt);  // strided x
        x->fill_random(-4, 4);
        auto oshape = shape;
        oshape[dim] /= 2;
        // A strided out (transposed too) and a strided groupIndex.
        auto out = transposed_view(oshape, dt);
        DeviceTensor gi({2}, ACL_INT64, {2}, 1);
        const int64_t rows = dim == 0 ? 1 : dim == 1 ? 2 : 8;
        for (int64_t sum : {int64_t{0}, rows * 5 / 8, rows}) {
          SCOPED_TRACE(::testing::Message() << "dtype " << dt << " dim " << dim << " mode " << mode << " sum " << sum);
          gi.set_values({static_cast<double>(sum / 2), static_cast<double>(sum - sum / 2)});
          out->poison();
          ASSERT_EQ(run_clipped_grouped(*x, gi, dim, interleaved, mode, *out), 0) << aclGetRecentErrMsg();
          EXPECT_TRUE(meets_precision(dt, out->values(), grouped_ref(x->values(), shape, dim, interleaved, mode < 0 ? 0 : mode, sum, dt)));
          EXPECT_TRUE(out->untouched_outside_view());
        }
      }
    }
  }
  // A FLOAT16 result written to a FLOAT out takes its FLOAT16 value first.
  DeviceTensor xh({4, 8}, ACL_FLOAT16), of({4, 4}, ACL_FLOAT), gi({1}, ACL_INT64);
  xh.fill_random(-4, 4);
  gi.set_values({3});
  of.poison();
  ASSERT_EQ(run_clipped_grouped(xh, gi, -1, false, -1, of), 0) << aclGetRecentErrMsg();
  auto o = of.values();
  for (double v : o) EXPECT_EQ(v, round_to(ACL_FLOAT16, v));
  EXPECT_TRUE(meets_precision(ACL_FLOAT16, o, grouped_ref(xh.values(), {4, 8}, 1, false, 0, 3, ACL_FLOAT16)));
}

TEST(ActivationGated, ClippedSwigluGroupIndexErrors) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  DeviceTensor x({4, 6}, ACL_FLOAT), out({4, 3}, ACL_FLOAT), i32({2}, ACL_INT32), two_d({2, 1}, ACL_INT64),
      fl({2}, ACL_FLOAT);
  EXPECT_TRUE(fails_with(aclnnClippedSwigluGetWorkspaceSize(x, i32, -1, 1.7, 7, 1, false, out, &ws, &ex),
                         ACLNN_ERR_PARAM_INVALID, {"aclnnClippedSwiglu", "groupIndexOptional", "INT64", "INT32"}));
  EXPECT_TRUE(fails_with(aclnnClippedSwigluGetWorkspaceSize(x, two_d, -1, 1.7, 7, 1, false, out, &ws, &ex),
                         ACLNN_ERR_PARAM_INVALID, {"groupIndexOptional", "1-D", "2 dims"}));
  EXPECT_TRUE(fails_with(aclnnClippedSwigluV2GetWorkspaceSize(x, fl, -1, 1.7, 7, 1, false, 0, out, &ws, &ex),
                         ACLNN_ERR_PARAM_INVALID, {"aclnnClippedSwigluV2", "groupIndexOptional", "FLOAT"}));
  // The other checks still apply with a group index.
  DeviceTensor gi({1}, ACL_INT64), bad_out({4, 6}, ACL_FLOAT);
  EXPECT_TRUE(fails_with(aclnnClippedSwigluGetWorkspaceSize(x, gi, -1, 1.7, 7, 1, false, bad_out, &ws, &ex),
                         ACLNN_ERR_PARAM_INVALID, {"out"}));
  EXPECT_TRUE(fails_with(aclnnClippedSwigluGetWorkspaceSize(x, gi, 2, 1.7, 7, 1, false, out, &ws, &ex),
                         ACLNN_ERR_PARAM_INVALID, {"dim"}));
  EXPECT_TRUE(fails_with(aclnnClippedSwigluGetWorkspaceSize(x, gi, -1, 1.7, 7, 1, false, nullptr, &ws, &ex),
                         ACLNN_ERR_PARAM_NULLPTR, {"out"}));
}

TEST(ActivationGated, GeGluBothOutputsBothSides) {
  reseed_for_current_test();
  const std::vector<int64_t> shape = {4, 10};
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (int approx : {0, 1}) {
      for (int v3left : {-1, 0, 1}) {  // -1: aclnnGeGlu (activates the second half)
        SCOPED_TRACE(::testing::Message() << "dtype " << dt << " approx " << approx << " left " << v3left);
        DeviceTensor x(shape, dt), out({4, 5}, dt), og({4, 5}, dt);
        x.fill_random(-4, 4);
        out.poison();
        og.poison();
        int st;
        if (v3left < 0)
          st = run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnGeGluGetWorkspaceSize(x, -1, approx, out, og, w, e); }, aclnnGeGlu);
        else
          st = run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnGeGluV3GetWorkspaceSize(x, 1, approx, v3left == 1, out, og, w, e); }, aclnnGeGluV3);
        ASSERT_EQ(st, 0) << aclGetRecentErrMsg();
        const bool left = v3left == 1;
        auto g1 = gated_ref(x.values(), shape, 1, [&](double a, double b) { return left ? gelu(a, approx) * b : a * gelu(b, approx); });
        auto g2 = gated_ref(x.values(), shape, 1, [&](double a, double b) { return gelu(left ? a : b, approx); });
        for (auto &g : g1) g = round_to(dt, g);
        for (auto &g : g2) g = round_to(dt, g);
        EXPECT_TRUE(meets_precision(dt, out.values(), g1));
        EXPECT_TRUE(meets_precision(dt, og.values(), g2));
      }
    }
  }
}

TEST(ActivationGated, FatreluMul) {
  reseed_for_current_test();
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    SCOPED_TRACE(::testing::Message() << "dtype " << dt);
    auto x = transposed_view({5, 12}, dt);
    x->fill_random(-2, 2);
    DeviceTensor th({1}, dt), out({5, 6}, dt);
    th.set_values({0.25});
    out.poison();
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnFatreluMulGetWorkspaceSize(*x, th, out, w, e); }, aclnnFatreluMul), 0)
        << aclGetRecentErrMsg();
    auto gold = gated_ref(x->values(), {5, 12}, 1, [](double a, double b) { return (a < 0.25 ? 0.0 : a) * b; });
    for (auto &g : gold) g = round_to(dt, g);
    EXPECT_TRUE(meets_precision(dt, out.values(), gold));
  }
  uint64_t ws;
  aclOpExecutor *ex;
  DeviceTensor x({2, 4}, ACL_FLOAT), th2({2}, ACL_FLOAT), o({2, 2}, ACL_FLOAT);
  EXPECT_TRUE(fails_with(aclnnFatreluMulGetWorkspaceSize(x, th2, o, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"threshold"}));
}

TEST(ActivationBinary, AddReluBroadcastAlphaInplace) {
  reseed_for_current_test();
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_INT32, ACL_INT8}) {
    SCOPED_TRACE(::testing::Message() << "dtype " << dt);
    auto a = transposed_view({4, 3, 5}, dt);
    DeviceTensor b({3, 1}, dt), out({4, 3, 5}, dt);
    a->fill_random(-20, 20);
    b.fill_random(-20, 20);
    const bool fl = dt == ACL_FLOAT || dt == ACL_FLOAT16 || dt == ACL_BF16;
    double alpha_v = fl ? 1.5 : 2;
    float af = static_cast<float>(alpha_v);
    int32_t ai = static_cast<int32_t>(alpha_v);
    aclScalar *alpha = fl ? aclCreateScalar(&af, ACL_FLOAT) : aclCreateScalar(&ai, ACL_INT32);
    out.poison();
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnAddReluGetWorkspaceSize(*a, b, alpha, out, w, e); }, aclnnAddRelu), 0)
        << aclGetRecentErrMsg();
    auto av = a->values(), bv = b.values();
    std::vector<double> gold(av.size());
    for (size_t i = 0; i < av.size(); ++i) {
      auto idx = unravel(static_cast<int64_t>(i), {4, 3, 5});
      double r = av[i] + alpha_v * bv[broadcast_source(idx, {4, 3, 5}, {3, 1})];
      if (dt == ACL_INT8) r = round_to(ACL_INT8, r);  // wraps in the result dtype before the relu
      gold[i] = round_to(dt, r > 0 ? r : 0);
    }
    EXPECT_TRUE(meets_precision(dt, out.values(), gold));
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceAddReluGetWorkspaceSize(*a, b, alpha, w, e); }, aclnnInplaceAddRelu), 0)
        << aclGetRecentErrMsg();
    EXPECT_TRUE(meets_precision(dt, a->values(), gold));
    uint64_t ws;
    aclOpExecutor *ex;
    DeviceTensor small({3, 1}, dt);
    EXPECT_TRUE(fails_with(aclnnInplaceAddReluGetWorkspaceSize(small, *a, alpha, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"selfRef"}));
    aclDestroyScalar(alpha);
  }
}

}  // namespace
}  // namespace opsnn::test
