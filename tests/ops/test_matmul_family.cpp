// Addmm / InplaceAddmm, Baddbmm / InplaceBaddbmm, Addbmm / InplaceAddbmm, Addmv, Mv, Dot, Ger and Gemm
// against a float64 reference: dtypes (incl. FLOAT16 x FLOAT), cubeMathType, transposed and padded
// views, every broadcast shape of the addend, sizes 1 / primes / non-multiples of the vector width,
// alpha and beta (beta = 0 ignores NaN in self, as in PyTorch), and every error path.
//
// Accuracy uses precision.md's absolute-bound variant (a dot product's relative error is unbounded
// near zero): rel_i = |actual - golden| / (|alpha| sum_k |a_ik b_kj| + |beta self_ij| + 1e-7), then
// MERE < T and MARE < 10 T for the output dtype. Outputs are poisoned and guarded.
#include <cmath>
#include <limits>
#include <memory>

#include "aclnnop/aclnn_addbmm.h"
#include "aclnnop/aclnn_addmm.h"
#include "aclnnop/aclnn_addmv.h"
#include "aclnnop/aclnn_baddbmm.h"
#include "aclnnop/aclnn_dot.h"
#include "aclnnop/aclnn_gemm.h"
#include "aclnnop/aclnn_ger.h"
#include "aclnnop/aclnn_mv.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

using Shape = std::vector<int64_t>;
using Tensor = std::unique_ptr<DeviceTensor>;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A view of `shape` whose last two dims are stored transposed (when `transposed`), in padded
// storage with an offset (when `padded`).
Tensor make_view(const Shape &shape, aclDataType dt, bool transposed = false, bool padded = false) {
  const size_t r = shape.size();
  std::vector<int64_t> strides(r);
  std::vector<size_t> order(r);
  for (size_t i = 0; i < r; ++i) order[i] = i;
  if (transposed && r >= 2) std::swap(order[r - 1], order[r - 2]);
  int64_t acc = 1;
  for (size_t k = r; k-- > 0;) {
    strides[order[k]] = acc;
    acc *= std::max<int64_t>(shape[order[k]], 1) + (padded && k == r - 1 ? 3 : 0);
  }
  return std::make_unique<DeviceTensor>(shape, dt, strides, padded ? 5 : 0);
}

struct Scalar {
  aclScalar *s;
  explicit Scalar(float v) : s(aclCreateScalar(&v, ACL_FLOAT)) {}
  ~Scalar() { aclDestroyScalar(s); }
  operator aclScalar *() const { return s; }
};

aclDataType pick_float() {
  static const aclDataType t[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  return t[std::uniform_int_distribution<int>(0, 2)(rng())];
}
int64_t pick_size() {
  static const int64_t s[] = {1, 2, 3, 5, 7, 8, 13, 16, 17, 31, 33, 64};
  return s[std::uniform_int_distribution<int>(0, 11)(rng())];
}
bool coin() { return std::uniform_int_distribution<int>(0, 1)(rng()) == 1; }

// USE_FP16 on FLOAT x FLOAT is defined as multiplying fp16-rounded inputs.
void apply_cube_rounding(int8_t cube, aclDataType ta, aclDataType tb, std::vector<double> &a, std::vector<double> &b) {
  if (cube != 2 || ta != ACL_FLOAT || tb != ACL_FLOAT) return;
  for (auto &v : a) v = round_to(ACL_FLOAT16, v);
  for (auto &v : b) v = round_to(ACL_FLOAT16, v);
}
int8_t pick_cube(aclDataType ta, aclDataType tb) {
  (void)ta, (void)tb;  // every mode is accepted with every dtype (USE_FP16 on BF16: BF16 products)
  return static_cast<int8_t>(std::uniform_int_distribution<int>(0, 4)(rng()));
}

// The float64 reference of out[bt, i, j] = alpha * sum_s sum_k A(s, bt, i, k) B(s, bt, k, j) + beta * S(bt, i, j)
// (S = 0 when beta == 0), with the bound of the absolute-error criterion.
struct Reference {
  std::vector<double> golden, bound;
};
template <class FA, class FB, class FS>
Reference reference(int64_t nb, int64_t M, int64_t N, int64_t K, int64_t sum_n, double alpha, double beta, FA a, FB b,
                    FS s) {
  Reference r;
  r.golden.resize(static_cast<size_t>(nb * M * N));
  r.bound.resize(r.golden.size());
  for (int64_t bt = 0; bt < nb; ++bt)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double acc = 0, mag = 0;
        for (int64_t q = 0; q < sum_n; ++q)
          for (int64_t k = 0; k < K; ++k) {
            const double p = a(q, bt, i, k) * b(q, bt, k, j);
            acc += p;
            mag += std::fabs(p);
          }
        const double add = beta == 0 ? 0.0 : beta * s(bt, i, j);
        const size_t o = static_cast<size_t>((bt * M + i) * N + j);
        r.golden[o] = alpha * acc + add;
        r.bound[o] = std::fabs(alpha) * mag + std::fabs(add);
      }
  return r;
}

void expect_close(const DeviceTensor &out, const Reference &r) {
  const auto got = out.values();
  ASSERT_EQ(got.size(), r.golden.size());
  const double T = precision_threshold(out.dtype());
  double sum = 0, worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_TRUE(std::isfinite(got[i])) << "element " << i << " is " << got[i] << " (golden " << r.golden[i] << ")";
    const double rel = std::fabs(got[i] - r.golden[i]) / (r.bound[i] + 1e-7);
    sum += rel;
    worst = std::max(worst, rel);
  }
  if (!got.empty()) {
    EXPECT_LT(sum / static_cast<double>(got.size()), T);
    EXPECT_LT(worst, 10 * T);
  }
  EXPECT_TRUE(out.untouched_outside_view());
}

// Value of a row-major view `v` of shape `from` at the index `idx` of the broadcast shape `to`.
double bcast_at(const std::vector<double> &v, const Shape &from, const Shape &to, const Shape &idx) {
  return v[static_cast<size_t>(broadcast_source(idx, to, from))];
}

// Fills self with random values, or with NaN when beta == 0 (PyTorch ignores self then).
void fill_addend(DeviceTensor &t, float beta) {
  if (beta == 0.0f) t.set_values(std::vector<double>(static_cast<size_t>(t.numel()), kNaN));
  else t.fill_random(-1, 1);
}

float pick_beta(int iter) {
  static const float b[] = {1.0f, 0.5f, -1.25f, 0.0f, 2.0f};
  return b[iter % 5];
}
float pick_alpha(int iter) {
  static const float a[] = {1.0f, -0.75f, 2.5f, 0.3f};
  return a[iter % 4];
}

#define RUN(phase1_call, launch)                                                                       \
  run_op([&](uint64_t *ws, aclOpExecutor **ex) { return phase1_call; },                               \
         [&](void *w, uint64_t s, aclOpExecutor *e, aclrtStream st) { return launch(w, s, e, st); })

// ------------------------------------------------------------------------------------------- Addmm

void run_addmm(int iter, bool inplace) {
  const int64_t M = pick_size(), K = pick_size(), N = pick_size();
  const aclDataType ta = pick_float(), tb = iter % 3 ? ta : (ta == ACL_BF16 ? ACL_FLOAT : pick_float());
  const aclDataType tout = iter % 4 ? (ta == tb ? ta : ACL_FLOAT) : pick_float();
  const int8_t cube = pick_cube(ta, tb);
  const float alpha = pick_alpha(iter), beta = pick_beta(iter);
  static const std::vector<Shape> self_shapes = {{-2, -1}, {-1}, {1, -1}, {-2, 1}, {}, {1}, {1, 1}};
  Shape ss = inplace ? Shape{-2, -1} : self_shapes[static_cast<size_t>(iter) % self_shapes.size()];
  for (auto &d : ss) d = d == -1 ? N : (d == -2 ? M : d);
  auto mat1 = make_view({M, K}, ta, coin(), coin());
  auto mat2 = make_view({K, N}, tb, coin(), coin());
  auto self = make_view(ss, inplace ? tout : pick_float(), ss.size() == 2 && coin(), coin());
  SCOPED_TRACE(::testing::Message() << "iter " << iter << (inplace ? " inplace" : "") << " M " << M << " K " << K
                                    << " N " << N << " self " << ::testing::PrintToString(ss) << " dtypes " << ta
                                    << "," << tb << "->" << tout << " cube " << int(cube) << " alpha " << alpha
                                    << " beta " << beta);
  mat1->fill_random(-1, 1);
  mat2->fill_random(-1, 1);
  fill_addend(*self, beta);
  const auto sv = self->values();
  Scalar a(alpha), b(beta);
  Tensor out;
  if (inplace) {
    ASSERT_EQ(RUN(aclnnInplaceAddmmGetWorkspaceSize(*self, *mat1, *mat2, b, a, cube, ws, ex), aclnnInplaceAddmm), 0)
        << aclGetRecentErrMsg();
  } else {
    out = make_view({M, N}, tout, coin(), coin());
    out->poison();
    ASSERT_EQ(RUN(aclnnAddmmGetWorkspaceSize(*self, *mat1, *mat2, b, a, *out, cube, ws, ex), aclnnAddmm), 0)
        << aclGetRecentErrMsg();
  }
  auto av = mat1->values(), bv = mat2->values();
  apply_cube_rounding(cube, ta, tb, av, bv);
  const Shape to = {M, N};
  auto r = reference(
      1, M, N, K, 1, alpha, beta, [&](int64_t, int64_t, int64_t i, int64_t k) { return av[i * K + k]; },
      [&](int64_t, int64_t, int64_t k, int64_t j) { return bv[k * N + j]; },
      [&](int64_t, int64_t i, int64_t j) { return bcast_at(sv, ss, to, {i, j}); });
  expect_close(inplace ? *self : *out, r);
}

TEST(Addmm, DtypesCubeTransposesBroadcasts) {
  reseed_for_current_test();
  for (int iter = 0; iter < 70; ++iter) {
    run_addmm(iter, false);
    if (HasFatalFailure()) return;
  }
}

TEST(Addmm, InplaceDtypesCubeTransposes) {
  reseed_for_current_test();
  for (int iter = 0; iter < 40; ++iter) {
    run_addmm(iter, true);
    if (HasFatalFailure()) return;
  }
}

TEST(Addmm, LargeAndLongK) {
  reseed_for_current_test();
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    const int64_t M = 97, K = 2051, N = 131;
    auto mat1 = make_view({M, K}, dt), mat2 = make_view({K, N}, dt, true), self = make_view({N}, dt);
    auto out = make_view({M, N}, dt);
    mat1->fill_random(-1, 1);
    mat2->fill_random(-1, 1);
    self->fill_random(-1, 1);
    out->poison();
    Scalar a(0.5f), b(1.5f);
    ASSERT_EQ(RUN(aclnnAddmmGetWorkspaceSize(*self, *mat1, *mat2, b, a, *out, 0, ws, ex), aclnnAddmm), 0)
        << aclGetRecentErrMsg();
    auto av = mat1->values(), bv = mat2->values(), sv = self->values();
    auto r = reference(
        1, M, N, K, 1, 0.5, 1.5, [&](int64_t, int64_t, int64_t i, int64_t k) { return av[i * K + k]; },
        [&](int64_t, int64_t, int64_t k, int64_t j) { return bv[k * N + j]; },
        [&](int64_t, int64_t, int64_t j) { return sv[j]; });
    expect_close(*out, r);
  }
}

TEST(Addmm, EmptyAndZeroK) {
  // K == 0: out = beta * self; M == 0: nothing to do.
  auto mat1 = make_view({3, 0}, ACL_FLOAT), mat2 = make_view({0, 4}, ACL_FLOAT), self = make_view({3, 4}, ACL_FLOAT16);
  auto out = make_view({3, 4}, ACL_FLOAT);
  self->fill_random(-1, 1);
  out->poison();
  Scalar a(1.0f), b(2.0f);
  ASSERT_EQ(RUN(aclnnAddmmGetWorkspaceSize(*self, *mat1, *mat2, b, a, *out, 0, ws, ex), aclnnAddmm), 0)
      << aclGetRecentErrMsg();
  auto sv = self->values(), ov = out->values();
  for (size_t i = 0; i < ov.size(); ++i) EXPECT_EQ(ov[i], 2.0 * sv[i]);
  auto e1 = make_view({0, 5}, ACL_FLOAT), e2 = make_view({5, 4}, ACL_FLOAT), es = make_view({4}, ACL_FLOAT),
       eo = make_view({0, 4}, ACL_FLOAT);
  EXPECT_EQ(RUN(aclnnAddmmGetWorkspaceSize(*es, *e1, *e2, b, a, *eo, 0, ws, ex), aclnnAddmm), 0);
}

TEST(Addmm, BetaZeroIgnoresNaNInSelf) {
  // PyTorch: beta == 0 ignores self, so NaN / Inf in self do not reach the result.
  for (bool inplace : {false, true}) {
    auto mat1 = make_view({5, 7}, ACL_FLOAT), mat2 = make_view({7, 3}, ACL_FLOAT), self = make_view({5, 3}, ACL_FLOAT);
    mat1->fill_random(-1, 1);
    mat2->fill_random(-1, 1);
    std::vector<double> s(15, kNaN);
    s[3] = std::numeric_limits<double>::infinity();
    self->set_values(s);
    auto out = make_view({5, 3}, ACL_FLOAT);
    out->poison();
    Scalar a(1.0f), b(0.0f);
    if (inplace)
      ASSERT_EQ(RUN(aclnnInplaceAddmmGetWorkspaceSize(*self, *mat1, *mat2, b, a, 0, ws, ex), aclnnInplaceAddmm), 0);
    else
      ASSERT_EQ(RUN(aclnnAddmmGetWorkspaceSize(*self, *mat1, *mat2, b, a, *out, 0, ws, ex), aclnnAddmm), 0);
    for (double v : (inplace ? *self : *out).values()) EXPECT_TRUE(std::isfinite(v));
  }
}

TEST(Addmm, OutAliasesSelf) {
  // out and self the same tensor (torch.addmm(x, a, b, out=x)): each element of self is read
  // before the same element of out is written. Also Gemm with out == C.
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    const int64_t M = 37, K = 300, N = 45;
    auto mat1 = make_view({M, K}, dt), mat2 = make_view({K, N}, dt, true), x = make_view({M, N}, dt, false, true);
    mat1->fill_random(-1, 1);
    mat2->fill_random(-1, 1);
    x->fill_random(-1, 1);
    const auto xv = x->values();
    Scalar a(1.5f), b(-0.5f);
    ASSERT_EQ(RUN(aclnnAddmmGetWorkspaceSize(*x, *mat1, *mat2, b, a, *x, 0, ws, ex), aclnnAddmm), 0)
        << aclGetRecentErrMsg();
    auto av = mat1->values(), bv = mat2->values();
    auto r = reference(
        1, M, N, K, 1, 1.5, -0.5, [&](int64_t, int64_t, int64_t i, int64_t k) { return av[i * K + k]; },
        [&](int64_t, int64_t, int64_t k, int64_t j) { return bv[k * N + j]; },
        [&](int64_t, int64_t i, int64_t j) { return xv[i * N + j]; });
    expect_close(*x, r);
    const auto xv2 = x->values();
    ASSERT_EQ(RUN(aclnnGemmGetWorkspaceSize(*mat1, *mat2, *x, 0.25f, 2.0f, 0, 0, *x, 0, ws, ex), aclnnGemm), 0)
        << aclGetRecentErrMsg();
    auto r2 = reference(
        1, M, N, K, 1, 0.25, 2.0, [&](int64_t, int64_t, int64_t i, int64_t k) { return av[i * K + k]; },
        [&](int64_t, int64_t, int64_t k, int64_t j) { return bv[k * N + j]; },
        [&](int64_t, int64_t i, int64_t j) { return xv2[i * N + j]; });
    expect_close(*x, r2);
  }
}

TEST(Addmm, RepeatableExecutorRebinds) {
  auto m1 = make_view({6, 5}, ACL_FLOAT), m2 = make_view({5, 4}, ACL_FLOAT), s = make_view({4}, ACL_FLOAT);
  auto o1 = make_view({6, 4}, ACL_FLOAT), o2 = make_view({6, 4}, ACL_FLOAT), s2 = make_view({4}, ACL_FLOAT);
  m1->fill_random(-1, 1);
  m2->fill_random(-1, 1);
  s->fill_random(-1, 1);
  s2->fill_random(-1, 1);
  Scalar a(1.0f), b(1.0f);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(aclnnAddmmGetWorkspaceSize(*s, *m1, *m2, b, a, *o1, 0, &ws, &ex), 0);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  void *w = nullptr;
  if (ws) ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), 0);
  ASSERT_EQ(aclnnAddmm(w, ws, ex, nullptr), 0);
  ASSERT_EQ(aclSetInputTensorAddr(ex, 0, *s2, s2->data()), 0);  // self is input 0
  ASSERT_EQ(aclSetOutputTensorAddr(ex, 0, *o2, o2->data()), 0);
  ASSERT_EQ(aclnnAddmm(w, ws, ex, nullptr), 0);
  ASSERT_EQ(aclrtSynchronizeDevice(), 0);
  auto av = m1->values(), bv = m2->values();
  for (auto [self, out] : {std::pair{s.get(), o1.get()}, std::pair{s2.get(), o2.get()}}) {
    auto sv = self->values(), ov = out->values();
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 4; ++j) {
        double acc = sv[j];
        for (int k = 0; k < 5; ++k) acc += av[i * 5 + k] * bv[k * 4 + j];
        EXPECT_NEAR(ov[i * 4 + j], acc, 1e-5);
      }
  }
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
  if (w) aclrtFree(w);
}

// ---------------------------------------------------------------------------------------- Baddbmm

TEST(Baddbmm, DtypesCubeTransposesBroadcasts) {
  reseed_for_current_test();
  for (int iter = 0; iter < 50; ++iter) {
    const bool inplace = iter % 4 == 3;
    const int64_t B = 1 + iter % 3, M = pick_size(), K = pick_size(), N = pick_size();
    const aclDataType ta = pick_float(), tb = iter % 3 ? ta : (ta == ACL_BF16 ? ACL_FLOAT : pick_float());
    const aclDataType tout = ta == tb ? ta : ACL_FLOAT;
    const int8_t cube = pick_cube(ta, tb);
    const float alpha = pick_alpha(iter), beta = pick_beta(iter);
    const std::vector<Shape> shapes = {{B, M, N}, {1, M, N}, {M, N}, {N}, {B, 1, N}, {B, M, 1}, {}, {1, 1, 1}};
    const Shape ss = inplace ? Shape{B, M, N} : shapes[static_cast<size_t>(iter) % shapes.size()];
    SCOPED_TRACE(::testing::Message() << "iter " << iter << " B " << B << " M " << M << " K " << K << " N " << N
                                      << " self " << ::testing::PrintToString(ss) << " cube " << int(cube));
    auto b1 = make_view({B, M, K}, ta, coin(), coin()), b2 = make_view({B, K, N}, tb, coin(), coin());
    auto self = make_view(ss, inplace ? tout : pick_float(), ss.size() >= 2 && coin(), coin());
    b1->fill_random(-1, 1);
    b2->fill_random(-1, 1);
    fill_addend(*self, beta);
    const auto sv = self->values();
    Scalar a(alpha), b(beta);
    Tensor out;
    if (inplace) {
      ASSERT_EQ(RUN(aclnnInplaceBaddbmmGetWorkspaceSize(*self, *b1, *b2, b, a, cube, ws, ex), aclnnInplaceBaddbmm), 0)
          << aclGetRecentErrMsg();
    } else {
      out = make_view({B, M, N}, tout, coin(), coin());
      out->poison();
      ASSERT_EQ(RUN(aclnnBaddbmmGetWorkspaceSize(*self, *b1, *b2, b, a, *out, cube, ws, ex), aclnnBaddbmm), 0)
          << aclGetRecentErrMsg();
    }
    auto av = b1->values(), bv = b2->values();
    apply_cube_rounding(cube, ta, tb, av, bv);
    const Shape to = {B, M, N};
    auto r = reference(
        B, M, N, K, 1, alpha, beta, [&](int64_t, int64_t bt, int64_t i, int64_t k) { return av[(bt * M + i) * K + k]; },
        [&](int64_t, int64_t bt, int64_t k, int64_t j) { return bv[(bt * K + k) * N + j]; },
        [&](int64_t bt, int64_t i, int64_t j) { return bcast_at(sv, ss, to, {bt, i, j}); });
    expect_close(inplace ? *self : *out, r);
    if (HasFatalFailure()) return;
  }
}

// ----------------------------------------------------------------------------------------- Addbmm

TEST(Addbmm, BatchSumsInEveryOutputDtype) {
  reseed_for_current_test();
  for (int iter = 0; iter < 40; ++iter) {
    const bool inplace = iter % 4 == 2;
    const int64_t B = std::vector<int64_t>{1, 2, 3, 5, 0}[static_cast<size_t>(iter) % 5];
    const int64_t M = pick_size(), K = pick_size(), N = pick_size();
    const aclDataType ta = pick_float(), tb = ta;
    const aclDataType tout = std::vector<aclDataType>{ACL_FLOAT, ACL_FLOAT16, ACL_BF16}[static_cast<size_t>(iter) % 3];
    const int8_t cube = pick_cube(ta, tb);
    const float alpha = pick_alpha(iter), beta = pick_beta(iter + 1);
    const std::vector<Shape> shapes = {{M, N}, {N}, {M, 1}, {}, {1, N}};
    const Shape ss = inplace ? Shape{M, N} : shapes[static_cast<size_t>(iter) % shapes.size()];
    SCOPED_TRACE(::testing::Message() << "iter " << iter << (inplace ? " inplace" : "") << " B " << B << " M " << M
                                      << " K " << K << " N " << N << " out " << tout << " self "
                                      << ::testing::PrintToString(ss));
    auto b1 = make_view({B, M, K}, ta, coin(), coin()), b2 = make_view({B, K, N}, tb, coin(), coin());
    auto self = make_view(ss, inplace ? tout : pick_float(), ss.size() == 2 && coin(), coin());
    b1->fill_random(-1, 1);
    b2->fill_random(-1, 1);
    fill_addend(*self, beta);
    const auto sv = self->values();
    Scalar a(alpha), b(beta);
    Tensor out;
    if (inplace) {
      ASSERT_EQ(RUN(aclnnInplaceAddbmmGetWorkspaceSize(*self, *b1, *b2, b, a, cube, ws, ex), aclnnInplaceAddbmm), 0)
          << aclGetRecentErrMsg();
    } else {
      out = make_view({M, N}, tout, coin(), coin());
      out->poison();
      ASSERT_EQ(RUN(aclnnAddbmmGetWorkspaceSize(*self, *b1, *b2, b, a, *out, cube, ws, ex), aclnnAddbmm), 0)
          << aclGetRecentErrMsg();
    }
    auto av = b1->values(), bv = b2->values();
    apply_cube_rounding(cube, ta, tb, av, bv);
    const Shape to = {M, N};
    auto r = reference(
        1, M, N, K, B, alpha, beta, [&](int64_t q, int64_t, int64_t i, int64_t k) { return av[(q * M + i) * K + k]; },
        [&](int64_t q, int64_t, int64_t k, int64_t j) { return bv[(q * K + k) * N + j]; },
        [&](int64_t, int64_t i, int64_t j) { return bcast_at(sv, ss, to, {i, j}); });
    expect_close(inplace ? *self : *out, r);
    if (HasFatalFailure()) return;
  }
}

// ------------------------------------------------------------------------------------ Mv / Addmv

TEST(Mv, DtypesCubeTransposes) {
  reseed_for_current_test();
  for (int iter = 0; iter < 40; ++iter) {
    const int64_t n = iter == 0 ? 1 : pick_size() * (iter % 7 == 0 ? 37 : 1), m = pick_size() * (iter % 5 == 0 ? 61 : 1);
    const aclDataType ta = pick_float(), tb = iter % 3 ? ta : (ta == ACL_BF16 ? ACL_FLOAT : pick_float());
    const aclDataType tout = ta == tb ? ta : ACL_FLOAT;
    const int8_t cube = pick_cube(ta, tb);
    SCOPED_TRACE(::testing::Message() << "iter " << iter << " n " << n << " m " << m << " cube " << int(cube));
    auto mat = make_view({n, m}, ta, coin(), coin());
    auto vec = iter % 2 ? make_view({m}, tb) : std::make_unique<DeviceTensor>(Shape{m}, tb, Shape{3}, 2);
    auto out = iter % 3 ? make_view({n}, tout) : std::make_unique<DeviceTensor>(Shape{n}, tout, Shape{2}, 1);
    mat->fill_random(-1, 1);
    vec->fill_random(-1, 1);
    out->poison();
    ASSERT_EQ(RUN(aclnnMvGetWorkspaceSize(*mat, *vec, *out, cube, ws, ex), aclnnMv), 0) << aclGetRecentErrMsg();
    auto av = mat->values(), bv = vec->values();
    apply_cube_rounding(cube, ta, tb, av, bv);
    auto r = reference(
        1, n, 1, m, 1, 1.0, 0.0, [&](int64_t, int64_t, int64_t i, int64_t k) { return av[i * m + k]; },
        [&](int64_t, int64_t, int64_t k, int64_t) { return bv[k]; }, [](int64_t, int64_t, int64_t) { return 0.0; });
    expect_close(*out, r);
    if (HasFatalFailure()) return;
  }
}

TEST(Addmv, DtypesCubeBroadcastAlphaBeta) {
  reseed_for_current_test();
  for (int iter = 0; iter < 40; ++iter) {
    const int64_t n = pick_size() * (iter % 6 == 0 ? 29 : 1), m = pick_size();
    const aclDataType ta = pick_float(), tb = iter % 3 ? ta : (ta == ACL_BF16 ? ACL_FLOAT : pick_float());
    const aclDataType tout = ta == tb ? ta : ACL_FLOAT;
    const int8_t cube = pick_cube(ta, tb);
    const float alpha = pick_alpha(iter), beta = pick_beta(iter);
    const std::vector<Shape> shapes = {{n}, {1}, {}};
    const Shape ss = shapes[static_cast<size_t>(iter) % 3];
    SCOPED_TRACE(::testing::Message() << "iter " << iter << " n " << n << " m " << m << " self "
                                      << ::testing::PrintToString(ss) << " beta " << beta);
    auto mat = make_view({n, m}, ta, coin(), coin()), vec = make_view({m}, tb);
    auto self = make_view(ss, pick_float(), false, coin()), out = make_view({n}, tout, false, coin());
    mat->fill_random(-1, 1);
    vec->fill_random(-1, 1);
    fill_addend(*self, beta);
    out->poison();
    Scalar a(alpha), b(beta);
    // Note the prototype's order: alpha before beta.
    ASSERT_EQ(RUN(aclnnAddmvGetWorkspaceSize(*self, *mat, *vec, a, b, *out, cube, ws, ex), aclnnAddmv), 0)
        << aclGetRecentErrMsg();
    auto av = mat->values(), bv = vec->values(), sv = self->values();
    apply_cube_rounding(cube, ta, tb, av, bv);
    auto r = reference(
        1, n, 1, m, 1, alpha, beta, [&](int64_t, int64_t, int64_t i, int64_t k) { return av[i * m + k]; },
        [&](int64_t, int64_t, int64_t k, int64_t) { return bv[k]; },
        [&](int64_t, int64_t i, int64_t) { return bcast_at(sv, ss, {n}, {i}); });
    expect_close(*out, r);
    if (HasFatalFailure()) return;
  }
}

// -------------------------------------------------------------------------------------------- Dot

TEST(Dot, DtypesSizesStrides) {
  reseed_for_current_test();
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
    for (int64_t n : {0, 1, 2, 7, 16, 17, 33, 1000, 4099}) {
      SCOPED_TRACE(::testing::Message() << "dtype " << dt << " n " << n);
      auto x = make_view({n}, dt);
      auto y = n % 2 ? std::make_unique<DeviceTensor>(Shape{n}, dt, Shape{2}, 3) : make_view({n}, dt);
      auto out = make_view({}, dt);
      x->fill_random(-1, 1);
      y->fill_random(-1, 1);
      out->poison();
      ASSERT_EQ(RUN(aclnnDotGetWorkspaceSize(*x, *y, *out, ws, ex), aclnnDot), 0) << aclGetRecentErrMsg();
      auto xv = x->values(), yv = y->values();
      auto r = reference(
          1, 1, 1, n, 1, 1.0, 0.0, [&](int64_t, int64_t, int64_t, int64_t k) { return xv[k]; },
          [&](int64_t, int64_t, int64_t k, int64_t) { return yv[k]; }, [](int64_t, int64_t, int64_t) { return 0.0; });
      expect_close(*out, r);
      if (HasFatalFailure()) return;
    }
}

// -------------------------------------------------------------------------------------------- Ger

TEST(Ger, DtypesSizesStrides) {
  reseed_for_current_test();
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
    for (int64_t n : {0, 1, 3, 17, 64})
      for (int64_t m : {1, 5, 33}) {
        SCOPED_TRACE(::testing::Message() << "dtype " << dt << " n " << n << " m " << m);
        auto x = n % 2 ? std::make_unique<DeviceTensor>(Shape{n}, dt, Shape{3}, 1) : make_view({n}, dt);
        auto y = make_view({m}, dt);
        auto out = make_view({n, m}, dt, /*transposed=*/m % 2 == 1);
        x->fill_random(-1, 1);
        y->fill_random(-1, 1);
        out->poison();
        ASSERT_EQ(RUN(aclnnGerGetWorkspaceSize(*x, *y, *out, ws, ex), aclnnGer), 0) << aclGetRecentErrMsg();
        auto xv = x->values(), yv = y->values();
        auto r = reference(
            1, n, m, 1, 1, 1.0, 0.0, [&](int64_t, int64_t, int64_t i, int64_t) { return xv[i]; },
            [&](int64_t, int64_t, int64_t, int64_t j) { return yv[j]; }, [](int64_t, int64_t, int64_t) { return 0.0; });
        expect_close(*out, r);
        if (HasFatalFailure()) return;
      }
}

TEST(Ger, Errors) {
  DeviceTensor x({3}, ACL_FLOAT), y({4}, ACL_FLOAT), out({3, 4}, ACL_FLOAT), bad({4, 3}, ACL_FLOAT), x2({3, 1}, ACL_FLOAT),
      xi({3}, ACL_INT32);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_TRUE(fails_with(aclnnGerGetWorkspaceSize(nullptr, y, out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"aclnnGer", "self"}));
  EXPECT_TRUE(fails_with(aclnnGerGetWorkspaceSize(x, y, bad, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"out", "[4, 3]"}));
  EXPECT_TRUE(fails_with(aclnnGerGetWorkspaceSize(x2, y, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"self"}));
  EXPECT_TRUE(fails_with(aclnnGerGetWorkspaceSize(xi, y, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"INT32"}));
}

// ------------------------------------------------------------------------------------------- Gemm

TEST(Gemm, TransposesBroadcastDtypesCube) {
  reseed_for_current_test();
  for (int iter = 0; iter < 60; ++iter) {
    const int64_t M = pick_size(), K = pick_size(), N = pick_size();
    const bool ta_flag = iter % 2, tb_flag = (iter / 2) % 2;
    const aclDataType ta = pick_float(), tb = iter % 3 ? ta : (ta == ACL_BF16 ? ACL_FLOAT : pick_float());
    const aclDataType tout = iter % 5 ? (ta == tb ? ta : ACL_FLOAT) : pick_float();
    const int8_t cube = pick_cube(ta, tb);
    const float alpha = pick_alpha(iter), beta = pick_beta(iter / 4);
    const std::vector<Shape> cshapes = {{M, N}, {1, N}, {M, 1}, {1, 1}};
    const Shape cs = cshapes[static_cast<size_t>(iter / 4) % 4];
    SCOPED_TRACE(::testing::Message() << "iter " << iter << " M " << M << " K " << K << " N " << N << " trans "
                                      << ta_flag << tb_flag << " C " << ::testing::PrintToString(cs) << " cube "
                                      << int(cube) << " beta " << beta);
    // A stored [K, M] when transA (read transposed); storage itself may be a transposed view too.
    auto A = make_view(ta_flag ? Shape{K, M} : Shape{M, K}, ta, coin(), coin());
    auto B = make_view(tb_flag ? Shape{N, K} : Shape{K, N}, tb, coin(), coin());
    auto C = make_view(cs, pick_float(), coin(), coin());
    auto out = make_view({M, N}, tout, coin(), coin());
    A->fill_random(-1, 1);
    B->fill_random(-1, 1);
    fill_addend(*C, beta);
    out->poison();
    ASSERT_EQ(RUN(aclnnGemmGetWorkspaceSize(*A, *B, *C, alpha, beta, ta_flag ? 1 : 0, tb_flag ? 7 : 0, *out, cube,
                                            ws, ex),
                  aclnnGemm),
              0)
        << aclGetRecentErrMsg();
    auto av = A->values(), bv = B->values(), cv = C->values();
    apply_cube_rounding(cube, ta, tb, av, bv);
    auto r = reference(
        1, M, N, K, 1, alpha, beta,
        [&](int64_t, int64_t, int64_t i, int64_t k) { return ta_flag ? av[k * M + i] : av[i * K + k]; },
        [&](int64_t, int64_t, int64_t k, int64_t j) { return tb_flag ? bv[j * K + k] : bv[k * N + j]; },
        [&](int64_t, int64_t i, int64_t j) { return bcast_at(cv, cs, {M, N}, {i, j}); });
    expect_close(*out, r);
    if (HasFatalFailure()) return;
  }
}

// ------------------------------------------------------------------------------------------ errors

TEST(MatmulFamilyErrors, AddmmAndInplaceAddmm) {
  DeviceTensor s({4, 2}, ACL_FLOAT), m1({4, 3}, ACL_FLOAT), m2({3, 2}, ACL_FLOAT), out({4, 2}, ACL_FLOAT);
  DeviceTensor bad_k({5, 2}, ACL_FLOAT), m3({1, 4, 3}, ACL_FLOAT), bad_self({3, 2}, ACL_FLOAT), bad_out({4, 3}, ACL_FLOAT);
  DeviceTensor i32({4, 2}, ACL_INT32), bf({3, 2}, ACL_BF16), s_col({4, 1}, ACL_FLOAT);
  Scalar a(1.0f), b(1.0f);
  uint64_t ws;
  aclOpExecutor *ex;
  auto addmm = [&](aclTensor *self, aclTensor *x, aclTensor *y, aclScalar *beta, aclScalar *alpha, aclTensor *o, int8_t c) {
    return aclnnAddmmGetWorkspaceSize(self, x, y, beta, alpha, o, c, &ws, &ex);
  };
  EXPECT_TRUE(fails_with(addmm(nullptr, m1, m2, b, a, out, 0), ACLNN_ERR_PARAM_NULLPTR, {"aclnnAddmm", "self"}));
  EXPECT_TRUE(fails_with(addmm(s, nullptr, m2, b, a, out, 0), ACLNN_ERR_PARAM_NULLPTR, {"mat1"}));
  EXPECT_TRUE(fails_with(addmm(s, m1, nullptr, b, a, out, 0), ACLNN_ERR_PARAM_NULLPTR, {"mat2"}));
  EXPECT_TRUE(fails_with(addmm(s, m1, m2, nullptr, a, out, 0), ACLNN_ERR_PARAM_NULLPTR, {"beta"}));
  EXPECT_TRUE(fails_with(addmm(s, m1, m2, b, nullptr, out, 0), ACLNN_ERR_PARAM_NULLPTR, {"alpha"}));
  EXPECT_TRUE(fails_with(addmm(s, m1, m2, b, a, nullptr, 0), ACLNN_ERR_PARAM_NULLPTR, {"out"}));
  EXPECT_TRUE(fails_with(addmm(s, m1, bad_k, b, a, out, 0), ACLNN_ERR_PARAM_INVALID, {"inner dims", "3", "5"}));
  EXPECT_TRUE(fails_with(addmm(s, m3, m2, b, a, out, 0), ACLNN_ERR_PARAM_INVALID, {"mat1", "2-D"}));
  EXPECT_TRUE(fails_with(addmm(bad_self, m1, m2, b, a, out, 0), ACLNN_ERR_PARAM_INVALID, {"self", "[3, 2]", "broadcast"}));
  EXPECT_TRUE(fails_with(addmm(s, m1, m2, b, a, bad_out, 0), ACLNN_ERR_PARAM_INVALID, {"out", "[4, 2]"}));
  EXPECT_TRUE(fails_with(addmm(i32, m1, m2, b, a, out, 0), ACLNN_ERR_PARAM_INVALID, {"self", "INT32"}));
  EXPECT_TRUE(fails_with(addmm(s, m1, m2, b, a, out, 5), ACLNN_ERR_PARAM_INVALID, {"cubeMathType", "5"}));
  EXPECT_TRUE(fails_with(addmm(s, m1, m2, b, a, out, -3), ACLNN_ERR_PARAM_INVALID, {"cubeMathType"}));
  EXPECT_EQ(addmm(s_col, m1, m2, b, a, out, 0), 0);  // [M, 1] broadcasts
  aclDestroyAclOpExecutor(ex);
  EXPECT_TRUE(fails_with(aclnnInplaceAddmmGetWorkspaceSize(s_col, m1, m2, b, a, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"aclnnInplaceAddmm", "selfRef", "[4, 2]"}));
  EXPECT_TRUE(fails_with(aclnnInplaceAddmmGetWorkspaceSize(nullptr, m1, m2, b, a, 0, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR,
                         {"selfRef"}));
}

TEST(MatmulFamilyErrors, BatchedOps) {
  DeviceTensor b1({2, 4, 3}, ACL_FLOAT), b2({2, 3, 5}, ACL_FLOAT), b2_batch({3, 3, 5}, ACL_FLOAT), b2_k({2, 4, 5}, ACL_FLOAT);
  DeviceTensor out3({2, 4, 5}, ACL_FLOAT), out2({4, 5}, ACL_FLOAT), self3({2, 4, 5}, ACL_FLOAT), bad_self({3, 4, 5}, ACL_FLOAT);
  DeviceTensor m2d({4, 3}, ACL_FLOAT);
  Scalar a(1.0f), b(1.0f);
  uint64_t ws;
  aclOpExecutor *ex;
  EXPECT_TRUE(fails_with(aclnnBaddbmmGetWorkspaceSize(self3, b1, b2_batch, b, a, out3, 0, &ws, &ex),
                         ACLNN_ERR_PARAM_INVALID, {"aclnnBaddbmm", "batch size"}));
  EXPECT_TRUE(fails_with(aclnnBaddbmmGetWorkspaceSize(self3, b1, b2_k, b, a, out3, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"inner dims"}));
  EXPECT_TRUE(fails_with(aclnnBaddbmmGetWorkspaceSize(self3, m2d, b2, b, a, out3, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"batch1", "3-D"}));
  EXPECT_TRUE(fails_with(aclnnBaddbmmGetWorkspaceSize(bad_self, b1, b2, b, a, out3, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"self", "broadcast"}));
  EXPECT_TRUE(fails_with(aclnnBaddbmmGetWorkspaceSize(self3, b1, b2, b, a, out2, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"out"}));
  EXPECT_TRUE(fails_with(aclnnBaddbmmGetWorkspaceSize(self3, b1, b2, b, a, out3, 9, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"cubeMathType"}));
  EXPECT_TRUE(fails_with(aclnnInplaceBaddbmmGetWorkspaceSize(out2, b1, b2, b, a, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"selfRef"}));
  EXPECT_TRUE(fails_with(aclnnAddbmmGetWorkspaceSize(out2, b1, b2, b, a, out3, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"aclnnAddbmm", "out", "[4, 5]"}));
  EXPECT_TRUE(fails_with(aclnnAddbmmGetWorkspaceSize(self3, b1, b2, b, a, out2, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"self", "dims", "[2, 4, 5]"}));
  EXPECT_TRUE(fails_with(aclnnAddbmmGetWorkspaceSize(out2, b1, b2_batch, b, a, out2, 0, &ws, &ex),
                         ACLNN_ERR_PARAM_INVALID, {"batch size"}));
  EXPECT_TRUE(fails_with(aclnnAddbmmGetWorkspaceSize(out2, b1, b2, nullptr, a, out2, 0, &ws, &ex),
                         ACLNN_ERR_PARAM_NULLPTR, {"beta"}));
  EXPECT_TRUE(fails_with(aclnnInplaceAddbmmGetWorkspaceSize(self3, b1, b2, b, a, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"aclnnInplaceAddbmm", "selfRef"}));
}

TEST(MatmulFamilyErrors, MvAddmvDotGemm) {
  DeviceTensor mat({4, 3}, ACL_FLOAT), vec({3}, ACL_FLOAT), vec2({3, 1}, ACL_FLOAT), bad_vec({5}, ACL_FLOAT);
  DeviceTensor out({4}, ACL_FLOAT), bad_out({3}, ACL_FLOAT), self({4}, ACL_FLOAT), bad_self({2}, ACL_FLOAT);
  Scalar a(1.0f), b(1.0f);
  uint64_t ws;
  aclOpExecutor *ex;
  EXPECT_TRUE(fails_with(aclnnMvGetWorkspaceSize(mat, vec2, out, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"aclnnMv", "vec", "1-D"}));
  EXPECT_TRUE(fails_with(aclnnMvGetWorkspaceSize(mat, bad_vec, out, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"inner dims"}));
  EXPECT_TRUE(fails_with(aclnnMvGetWorkspaceSize(mat, vec, bad_out, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"out"}));
  EXPECT_TRUE(fails_with(aclnnMvGetWorkspaceSize(vec, vec, out, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"self", "2-D"}));
  EXPECT_TRUE(fails_with(aclnnMvGetWorkspaceSize(mat, vec, nullptr, 0, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"out"}));
  EXPECT_TRUE(fails_with(aclnnMvGetWorkspaceSize(mat, vec, out, 7, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"cubeMathType"}));
  EXPECT_TRUE(fails_with(aclnnAddmvGetWorkspaceSize(bad_self, mat, vec, a, b, out, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"aclnnAddmv", "self", "broadcast"}));
  EXPECT_TRUE(fails_with(aclnnAddmvGetWorkspaceSize(nullptr, mat, vec, a, b, out, 0, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR,
                         {"self"}));
  EXPECT_TRUE(fails_with(aclnnAddmvGetWorkspaceSize(self, mat, vec, nullptr, b, out, 0, &ws, &ex),
                         ACLNN_ERR_PARAM_NULLPTR, {"alpha"}));
  EXPECT_TRUE(fails_with(aclnnAddmvGetWorkspaceSize(self, mat, vec, a, b, bad_out, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"out"}));

  DeviceTensor x({5}, ACL_FLOAT), y({5}, ACL_FLOAT), y6({6}, ACL_FLOAT), yh({5}, ACL_FLOAT16), d0({}, ACL_FLOAT),
      d1({1}, ACL_FLOAT), xi({5}, ACL_INT32), x2({5, 1}, ACL_FLOAT);
  EXPECT_TRUE(fails_with(aclnnDotGetWorkspaceSize(x, yh, d0, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"aclnnDot", "same dtype"}));
  EXPECT_TRUE(fails_with(aclnnDotGetWorkspaceSize(x, y6, d0, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"same shape"}));
  EXPECT_TRUE(fails_with(aclnnDotGetWorkspaceSize(x, y, d1, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"out", "0-D"}));
  EXPECT_TRUE(fails_with(aclnnDotGetWorkspaceSize(x2, y, d0, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"self", "1-D"}));
  EXPECT_TRUE(fails_with(aclnnDotGetWorkspaceSize(xi, xi, d0, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"INT32"}));
  EXPECT_TRUE(fails_with(aclnnDotGetWorkspaceSize(x, nullptr, d0, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"tensor"}));

  DeviceTensor A({4, 3}, ACL_FLOAT), B({3, 5}, ACL_FLOAT), C({4, 5}, ACL_FLOAT), o({4, 5}, ACL_FLOAT), badC({3, 5}, ACL_FLOAT);
  DeviceTensor C1({5}, ACL_FLOAT);
  auto gemm = [&](aclTensor *a_, aclTensor *b_, aclTensor *c_, int64_t ta, int64_t tb, aclTensor *o_, int8_t cube) {
    return aclnnGemmGetWorkspaceSize(a_, b_, c_, 1.0f, 1.0f, ta, tb, o_, cube, &ws, &ex);
  };
  EXPECT_TRUE(fails_with(gemm(A, B, C, 1, 0, o, 0), ACLNN_ERR_PARAM_INVALID, {"aclnnGemm", "inner dims"}));
  EXPECT_TRUE(fails_with(gemm(A, B, badC, 0, 0, o, 0), ACLNN_ERR_PARAM_INVALID, {"C", "broadcast"}));
  EXPECT_TRUE(fails_with(gemm(A, B, C1, 0, 0, o, 0), ACLNN_ERR_PARAM_INVALID, {"C", "2-D"}));
  EXPECT_TRUE(fails_with(gemm(A, B, nullptr, 0, 0, o, 0), ACLNN_ERR_PARAM_NULLPTR, {"C"}));
  EXPECT_TRUE(fails_with(gemm(A, B, C, 0, 0, C1, 0), ACLNN_ERR_PARAM_INVALID, {"out"}));
  EXPECT_TRUE(fails_with(gemm(A, B, C, 0, 0, o, 12), ACLNN_ERR_PARAM_INVALID, {"cubeMathType"}));
}

}  // namespace
}  // namespace opsnn::test
