// Add / Sub / Mul / Div and their scalar and in-place forms against a float64 reference:
// random shapes with broadcasting, every supported dtype (mixed), strided and offset views,
// poisoned and guarded outputs; plus every error path.
#include <cmath>

#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_sub.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

enum class Op { kAdd, kSub, kMul, kDiv };
const char *op_name(Op op) {
  static const char *n[] = {"Add", "Sub", "Mul", "Div"};
  return n[static_cast<int>(op)];
}

const aclDataType kAllTypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8, ACL_INT16,
                                 ACL_INT32, ACL_INT64,   ACL_UINT8, ACL_BOOL};

bool is_float(aclDataType dt) { return dt == ACL_FLOAT || dt == ACL_FLOAT16 || dt == ACL_BF16 || dt == ACL_DOUBLE; }
int category(aclDataType dt) { return dt == ACL_BOOL ? 0 : is_float(dt) ? 2 : 1; }

// torch.promote_types, written independently of the library's table (by rules, not a table).
aclDataType promote(aclDataType a, aclDataType b) {
  if (a == b) return a;
  if (a == ACL_BOOL) return b;
  if (b == ACL_BOOL) return a;
  if (is_float(a) || is_float(b)) {
    if (!is_float(a)) return b;
    if (!is_float(b)) return a;
    if (a == ACL_DOUBLE || b == ACL_DOUBLE) return ACL_DOUBLE;
    if (a == ACL_FLOAT || b == ACL_FLOAT) return ACL_FLOAT;
    return ACL_FLOAT;  // FLOAT16 with BF16
  }
  // integers
  auto bits = [](aclDataType d) { return d == ACL_INT8 || d == ACL_UINT8 ? 8 : d == ACL_INT16 ? 16 : d == ACL_INT32 ? 32 : 64; };
  if ((a == ACL_UINT8) != (b == ACL_UINT8)) {
    aclDataType s = a == ACL_UINT8 ? b : a;
    return bits(s) > 8 ? s : ACL_INT16;
  }
  return bits(a) >= bits(b) ? a : b;
}

// torch.result_type of two tensors: a zero-dim tensor only matters when it is of a higher
// category (bool < integer < floating) than a tensor with dims.
aclDataType result_type(aclDataType a, size_t a_rank, aclDataType b, size_t b_rank) {
  if ((a_rank == 0) == (b_rank == 0)) return promote(a, b);
  aclDataType dim = a_rank ? a : b, zero = a_rank ? b : a;
  return category(zero) > category(dim) ? promote(dim, zero) : dim;
}

std::vector<int64_t> random_shape(int max_rank) {
  std::uniform_int_distribution<int> rank_d(0, max_rank), dim_d(1, 6), zero_d(0, 30);
  std::vector<int64_t> s(static_cast<size_t>(rank_d(rng())));
  for (auto &d : s) d = zero_d(rng()) == 0 ? 0 : dim_d(rng());
  return s;
}

// A shape that broadcasts to `shape`: some leading dims dropped, some dims set to 1.
std::vector<int64_t> broadcastable_to(const std::vector<int64_t> &shape) {
  std::uniform_int_distribution<int> coin(0, 3);
  size_t drop = shape.empty() ? 0 : static_cast<size_t>(coin(rng())) % (shape.size() + 1);
  std::vector<int64_t> s(shape.begin() + static_cast<long>(drop), shape.end());
  for (auto &d : s)
    if (coin(rng()) == 0) d = 1;
  return s;
}

// A view of `shape` laid out non-contiguously: permuted storage order, padded rows, an offset.
std::unique_ptr<DeviceTensor> make_view(const std::vector<int64_t> &shape, aclDataType dt, bool strided) {
  if (!strided) return std::make_unique<DeviceTensor>(shape, dt);
  std::vector<size_t> perm(shape.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), rng());
  std::vector<int64_t> strides(shape.size());
  int64_t acc = 1;
  for (size_t k = perm.size(); k-- > 0;) {
    strides[perm[k]] = acc;
    acc *= std::max<int64_t>(shape[perm[k]], 1) + (k % 2);  // padding in every other dim
  }
  std::uniform_int_distribution<int64_t> off(0, 5);
  return std::make_unique<DeviceTensor>(shape, dt, strides, off(rng()));
}

double random_value_range(aclDataType dt, double *lo) {
  if (dt == ACL_UINT8) { *lo = 0; return 100; }
  if (is_float(dt)) { *lo = -4; return 4; }
  if (dt == ACL_BOOL) { *lo = 0; return 1; }
  *lo = -60; return 60;
}

double apply(Op op, double a, double b, double alpha) {
  switch (op) {
    case Op::kAdd: return a + alpha * b;
    case Op::kSub: return a - alpha * b;
    case Op::kMul: return a * b;
    default: return a / b;
  }
}

struct Case {
  Op op;
  bool scalar_other, inplace;
  aclDataType self_t, other_t, out_t;
  std::vector<int64_t> self_shape, other_shape, out_shape;
  double alpha;
  aclDataType alpha_t;
};

void run_case(const Case &c) {
  SCOPED_TRACE(::testing::Message() << op_name(c.op) << (c.scalar_other ? "s" : "") << (c.inplace ? " inplace" : "")
                                    << " self " << c.self_t << " other " << c.other_t << " out " << c.out_t);
  std::uniform_int_distribution<int> coin(0, 1);
  auto self = make_view(c.self_shape, c.self_t, coin(rng()));
  double lo, hi = random_value_range(c.self_t, &lo);
  self->fill_random(lo, hi);
  std::unique_ptr<DeviceTensor> other;
  aclScalar *other_s = nullptr;
  double other_value = 0;
  if (c.scalar_other) {
    double olo, ohi = random_value_range(c.other_t, &olo);
    other_value = round_to(c.other_t, std::uniform_real_distribution<double>(olo, ohi)(rng()));
    if (!is_float(c.other_t)) other_value = std::round(other_value);
    if (c.op == Op::kDiv && other_value == 0) other_value = 3;
    unsigned char buf[8];
    write_elem(c.other_t, buf, other_value);
    other_s = aclCreateScalar(buf, c.other_t);
  } else {
    other = make_view(c.other_shape, c.other_t, coin(rng()));
    double olo, ohi = random_value_range(c.other_t, &olo);
    other->fill_random(olo, ohi);
  }
  unsigned char abuf[8];
  write_elem(c.alpha_t, abuf, c.alpha);
  aclScalar *alpha = aclCreateScalar(abuf, c.alpha_t);
  std::unique_ptr<DeviceTensor> out;
  if (!c.inplace) {
    out = make_view(c.out_shape, c.out_t, coin(rng()));
    out->poison();
  }

  // Golden: per element in float64, through the promoted dtype, then to the output dtype.
  aclDataType promoted;
  if (c.scalar_other) {
    int cs = category(c.self_t), co = category(c.other_t);
    promoted = co > cs ? (co == 2 ? (cs == 2 ? c.self_t : ACL_FLOAT) : ACL_INT64) : c.self_t;
    if (cs == 0 && co == 1) promoted = ACL_INT64;
  } else {
    promoted = result_type(c.self_t, c.self_shape.size(), c.other_t, c.other_shape.size());
  }
  if (c.op == Op::kDiv && !is_float(promoted)) promoted = ACL_FLOAT;
  const auto sv = self->values();
  const auto ov = other ? other->values() : std::vector<double>{};
  const auto &oshape = c.inplace ? c.self_shape : c.out_shape;
  std::vector<double> golden(static_cast<size_t>(numel_of(oshape)));
  for (size_t i = 0; i < golden.size(); ++i) {
    auto idx = unravel(static_cast<int64_t>(i), oshape);
    double a = sv[static_cast<size_t>(broadcast_source(idx, oshape, c.self_shape))];
    double b = other ? ov[static_cast<size_t>(broadcast_source(idx, oshape, c.other_shape))] : other_value;
    double r = apply(c.op, a, b, c.alpha);
    if (promoted == ACL_BOOL) r = r != 0;
    golden[i] = round_to(c.inplace ? c.self_t : c.out_t, round_to(promoted, r));
  }

  int rc;
  aclTensor *o = c.inplace ? nullptr : out->get();
  auto ph2 = [&](void *w, uint64_t s, aclOpExecutor *e, aclrtStream st) {
    switch (c.op) {
      case Op::kAdd: return c.scalar_other ? (c.inplace ? aclnnInplaceAdds(w, s, e, st) : aclnnAdds(w, s, e, st)) : (c.inplace ? aclnnInplaceAdd(w, s, e, st) : aclnnAdd(w, s, e, st));
      case Op::kSub: return c.scalar_other ? (c.inplace ? aclnnInplaceSubs(w, s, e, st) : aclnnSubs(w, s, e, st)) : (c.inplace ? aclnnInplaceSub(w, s, e, st) : aclnnSub(w, s, e, st));
      case Op::kMul: return c.scalar_other ? (c.inplace ? aclnnInplaceMuls(w, s, e, st) : aclnnMuls(w, s, e, st)) : (c.inplace ? aclnnInplaceMul(w, s, e, st) : aclnnMul(w, s, e, st));
      default: return c.scalar_other ? (c.inplace ? aclnnInplaceDivs(w, s, e, st) : aclnnDivs(w, s, e, st)) : (c.inplace ? aclnnInplaceDiv(w, s, e, st) : aclnnDiv(w, s, e, st));
    }
  };
  auto ph1 = [&](uint64_t *ws, aclOpExecutor **ex) {
    aclTensor *s = self->get();
    aclTensor *t = other ? other->get() : nullptr;
    switch (c.op) {
      case Op::kAdd: return c.scalar_other ? (c.inplace ? aclnnInplaceAddsGetWorkspaceSize(s, other_s, alpha, ws, ex) : aclnnAddsGetWorkspaceSize(s, other_s, alpha, o, ws, ex)) : (c.inplace ? aclnnInplaceAddGetWorkspaceSize(s, t, alpha, ws, ex) : aclnnAddGetWorkspaceSize(s, t, alpha, o, ws, ex));
      case Op::kSub: return c.scalar_other ? (c.inplace ? aclnnInplaceSubsGetWorkspaceSize(s, other_s, alpha, ws, ex) : aclnnSubsGetWorkspaceSize(s, other_s, alpha, o, ws, ex)) : (c.inplace ? aclnnInplaceSubGetWorkspaceSize(s, t, alpha, ws, ex) : aclnnSubGetWorkspaceSize(s, t, alpha, o, ws, ex));
      case Op::kMul: return c.scalar_other ? (c.inplace ? aclnnInplaceMulsGetWorkspaceSize(s, other_s, ws, ex) : aclnnMulsGetWorkspaceSize(s, other_s, o, ws, ex)) : (c.inplace ? aclnnInplaceMulGetWorkspaceSize(s, t, ws, ex) : aclnnMulGetWorkspaceSize(s, t, o, ws, ex));
      default: return c.scalar_other ? (c.inplace ? aclnnInplaceDivsGetWorkspaceSize(s, other_s, ws, ex) : aclnnDivsGetWorkspaceSize(s, other_s, o, ws, ex)) : (c.inplace ? aclnnInplaceDivGetWorkspaceSize(s, t, ws, ex) : aclnnDivGetWorkspaceSize(s, t, o, ws, ex));
    }
  };
  rc = run_op(ph1, ph2);
  ASSERT_EQ(rc, 0) << aclGetRecentErrMsg();
  DeviceTensor &written = c.inplace ? *self : *out;
  EXPECT_TRUE(meets_precision(written.dtype(), written.values(), golden));
  EXPECT_TRUE(written.untouched_outside_view());
  aclDestroyScalar(alpha);
  aclDestroyScalar(other_s);
}

aclDataType pick(std::initializer_list<aclDataType> from) {
  std::uniform_int_distribution<size_t> d(0, from.size() - 1);
  return *(from.begin() + static_cast<long>(d(rng())));
}

class BinaryArithRandom : public ::testing::TestWithParam<Op> {};

TEST_P(BinaryArithRandom, TensorTensorAllDtypesBroadcastStrided) {
  reseed_for_current_test();
  const Op op = GetParam();
  for (int iter = 0; iter < 250; ++iter) {
    Case c{op, false, false};
    c.self_t = pick({kAllTypes[0], kAllTypes[1], kAllTypes[2], kAllTypes[3], kAllTypes[4], kAllTypes[5], kAllTypes[6], kAllTypes[7], kAllTypes[8], kAllTypes[9]});
    c.other_t = iter % 3 == 0 ? c.self_t : pick({ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64, ACL_UINT8, ACL_BOOL});
    auto full = random_shape(4);
    c.out_shape = full;
    if (iter % 2) { c.self_shape = full; c.other_shape = broadcastable_to(full); }
    else { c.self_shape = broadcastable_to(full); c.other_shape = full; }
    aclDataType p = result_type(c.self_t, c.self_shape.size(), c.other_t, c.other_shape.size());
    if (op == Op::kSub && p == ACL_BOOL) c.other_t = c.self_t = ACL_INT32, p = ACL_INT32;
    if (op == Op::kSub && (c.self_t == ACL_BOOL || c.other_t == ACL_BOOL) && p == ACL_BOOL) continue;
    if (op == Op::kDiv && !is_float(p)) p = ACL_FLOAT;
    // Output: the promoted dtype, or sometimes another dtype it can be cast to.
    c.out_t = p;
    if (iter % 4 == 1 && is_float(p)) c.out_t = pick({ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE});
    if (iter % 4 == 1 && !is_float(p)) c.out_t = pick({ACL_INT32, ACL_INT64, ACL_FLOAT});
    c.alpha = 1; c.alpha_t = ACL_INT64;
    if (op == Op::kAdd || op == Op::kSub) {
      if (is_float(p)) { c.alpha = 0.75; c.alpha_t = ACL_FLOAT; }
      else if (p != ACL_BOOL) { c.alpha = 3; c.alpha_t = ACL_INT32; }
      else { c.alpha = 1; c.alpha_t = ACL_BOOL; }
    }
    run_case(c);
    if (HasFatalFailure()) return;
  }
}

TEST_P(BinaryArithRandom, ScalarAndInplaceForms) {
  reseed_for_current_test();
  const Op op = GetParam();
  for (int iter = 0; iter < 160; ++iter) {
    Case c{op, iter % 2 == 0, iter % 4 >= 2};
    c.self_t = pick({ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8, ACL_INT32, ACL_INT64, ACL_UINT8});
    c.other_t = pick({ACL_FLOAT, ACL_DOUBLE, ACL_INT32, ACL_INT64, ACL_FLOAT16, ACL_INT8});
    c.self_shape = random_shape(3);
    c.other_shape = broadcastable_to(c.self_shape);
    aclDataType p;
    if (c.scalar_other) {
      int cs = category(c.self_t), co = category(c.other_t);
      p = co > cs ? ACL_FLOAT : c.self_t;
    } else {
      p = result_type(c.self_t, c.self_shape.size(), c.other_t, c.other_shape.size());
    }
    if (op == Op::kDiv && !is_float(p)) p = ACL_FLOAT;
    if (c.inplace && ((is_float(p) && !is_float(c.self_t)) || (p != c.self_t && !c.scalar_other && category(p) > category(c.self_t)))) {
      c.self_t = is_float(p) ? p : c.self_t;  // the in-place result must be castable back to selfRef
    }
    c.out_t = p;
    c.out_shape = c.self_shape;
    c.alpha = 1; c.alpha_t = ACL_INT64;
    aclDataType rp = c.scalar_other ? (category(c.other_t) > category(c.self_t) ? ACL_FLOAT : c.self_t)
                                    : result_type(c.self_t, c.self_shape.size(), c.other_t, c.other_shape.size());
    if ((op == Op::kAdd || op == Op::kSub) && is_float(rp)) { c.alpha = -1.5; c.alpha_t = ACL_DOUBLE; }
    run_case(c);
    if (HasFatalFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, BinaryArithRandom, ::testing::Values(Op::kAdd, Op::kSub, Op::kMul, Op::kDiv),
                         [](const auto &info) { return std::string(op_name(info.param)); });

// ---------------------------------------------------------------- specific semantics

TEST(BinaryArith, IntegerOverflowWrapsThroughPromotedDtype) {
  DeviceTensor a({4}, ACL_INT8), b({4}, ACL_INT8), out({4}, ACL_INT32);
  a.set_values({100, -100, 127, 1});
  b.set_values({100, -100, 1, 1});
  int64_t one = 1;
  aclScalar *alpha = aclCreateScalar(&one, ACL_INT64);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnAddGetWorkspaceSize(a, b, alpha, out, w, e); },
                   aclnnAdd), 0);
  // int8 arithmetic wraps (PyTorch computes in the promoted int8), then widens to int32.
  EXPECT_EQ(out.values(), (std::vector<double>{-56, 56, -128, 2}));
  aclDestroyScalar(alpha);
}

TEST(BinaryArith, DivOfIntegersIsTrueDivisionWithInfAndNan) {
  DeviceTensor a({4}, ACL_INT32), b({4}, ACL_INT32), out({4}, ACL_FLOAT);
  a.set_values({7, -7, 1, 0});
  b.set_values({2, 2, 0, 0});
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnDivGetWorkspaceSize(a, b, out, w, e); }, aclnnDiv), 0);
  auto v = out.values();
  EXPECT_EQ(v[0], 3.5);
  EXPECT_EQ(v[1], -3.5);
  EXPECT_TRUE(std::isinf(v[2]) && v[2] > 0);
  EXPECT_TRUE(std::isnan(v[3]));
}

TEST(BinaryArith, FloatScalarOnHalfTensorComputesInHalf) {
  // Clients create ACL_FLOAT scalars for FLOAT16 tensors: the result stays FLOAT16.
  DeviceTensor a({3}, ACL_FLOAT16), out({3}, ACL_FLOAT16);
  a.set_values({1.5, -2, 1000});
  float two = 2.0f, one = 1.0f;
  aclScalar *s = aclCreateScalar(&two, ACL_FLOAT), *alpha = aclCreateScalar(&one, ACL_FLOAT);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnAddsGetWorkspaceSize(a, s, alpha, out, w, e); }, aclnnAdds), 0);
  EXPECT_EQ(out.values(), (std::vector<double>{3.5, 0, 1002}));
  aclDestroyScalar(s);
  aclDestroyScalar(alpha);
}

TEST(BinaryArith, NanPropagates) {
  DeviceTensor a({2}, ACL_FLOAT), b({2}, ACL_FLOAT), out({2}, ACL_FLOAT);
  a.set_values({NAN, 1});
  b.set_values({1, INFINITY});
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnMulGetWorkspaceSize(a, b, out, w, e); }, aclnnMul), 0);
  auto v = out.values();
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_TRUE(std::isinf(v[1]));
}

TEST(BinaryArith, LargeContiguousRunsInParallelChunks) {
  // Bigger than one parallel task: exercises the split across the pool.
  const int64_t n = 300001;
  DeviceTensor a({n}, ACL_FLOAT), b({n}, ACL_FLOAT), out({n}, ACL_FLOAT);
  a.fill_random(-1, 1);
  b.fill_random(-1, 1);
  out.poison();
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnMulGetWorkspaceSize(a, b, out, w, e); }, aclnnMul), 0);
  auto av = a.values(), bv = b.values();
  std::vector<double> g(av.size());
  for (size_t i = 0; i < g.size(); ++i) g[i] = av[i] * bv[i];
  EXPECT_TRUE(meets_precision(ACL_FLOAT, out.values(), g));
  EXPECT_TRUE(out.untouched_outside_view());
}

// ---------------------------------------------------------------- errors

class BinaryArithErrors : public ::testing::Test {
 protected:
  DeviceTensor f32{{2, 3}, ACL_FLOAT}, f32b{{2, 3}, ACL_FLOAT}, out{{2, 3}, ACL_FLOAT};
  DeviceTensor i32{{2, 3}, ACL_INT32};
  DeviceTensor bad_shape{{4}, ACL_FLOAT};
  DeviceTensor boolt{{2, 3}, ACL_BOOL};
  float one_f = 1, half_f = 0.5f;
  aclScalar *one = aclCreateScalar(&one_f, ACL_FLOAT);
  aclScalar *half = aclCreateScalar(&half_f, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ~BinaryArithErrors() override {
    aclDestroyScalar(one);
    aclDestroyScalar(half);
  }
};

TEST_F(BinaryArithErrors, NullArguments) {
  EXPECT_TRUE(fails_with(aclnnAddGetWorkspaceSize(nullptr, f32b, one, out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"aclnnAdd", "self"}));
  EXPECT_TRUE(fails_with(aclnnAddGetWorkspaceSize(f32, nullptr, one, out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"other"}));
  EXPECT_TRUE(fails_with(aclnnAddGetWorkspaceSize(f32, f32b, nullptr, out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"alpha"}));
  EXPECT_TRUE(fails_with(aclnnAddGetWorkspaceSize(f32, f32b, one, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"out"}));
  EXPECT_TRUE(fails_with(aclnnAddGetWorkspaceSize(f32, f32b, one, out, nullptr, &ex), ACLNN_ERR_PARAM_NULLPTR, {"workspaceSize"}));
  EXPECT_TRUE(fails_with(aclnnAddGetWorkspaceSize(f32, f32b, one, out, &ws, nullptr), ACLNN_ERR_PARAM_NULLPTR, {"executor"}));
  EXPECT_TRUE(fails_with(aclnnMulsGetWorkspaceSize(f32, nullptr, out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"aclnnMuls", "other"}));
}

TEST_F(BinaryArithErrors, ShapesThatDoNotBroadcast) {
  EXPECT_TRUE(fails_with(aclnnMulGetWorkspaceSize(f32, bad_shape, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"broadcast", "[2, 3]", "[4]"}));
}

TEST_F(BinaryArithErrors, OutputOfWrongShape) {
  EXPECT_TRUE(fails_with(aclnnSubGetWorkspaceSize(f32, f32b, one, bad_shape, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"out", "[4]", "[2, 3]"}));
}

TEST_F(BinaryArithErrors, InplaceCannotGrow) {
  DeviceTensor row({1, 3}, ACL_FLOAT);
  EXPECT_TRUE(fails_with(aclnnInplaceMulGetWorkspaceSize(row, f32, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"selfRef", "grow"}));
}

TEST_F(BinaryArithErrors, ResultNotCastableToOutput) {
  EXPECT_TRUE(fails_with(aclnnAddGetWorkspaceSize(f32, f32b, one, i32, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"FLOAT", "INT32"}));
  EXPECT_TRUE(fails_with(aclnnInplaceDivGetWorkspaceSize(i32, i32, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"selfRef"}));
}

TEST_F(BinaryArithErrors, AlphaRules) {
  EXPECT_TRUE(fails_with(aclnnAddGetWorkspaceSize(i32, i32, half, i32, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"alpha", "integral"}));
  bool t = true;
  aclScalar *balpha = aclCreateScalar(&t, ACL_BOOL);
  EXPECT_TRUE(fails_with(aclnnAddGetWorkspaceSize(f32, f32b, balpha, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"alpha", "BOOL"}));
  aclDestroyScalar(balpha);
}

TEST_F(BinaryArithErrors, BoolSubtraction) {
  EXPECT_TRUE(fails_with(aclnnSubGetWorkspaceSize(boolt, boolt, one, boolt, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"BOOL"}));
}

TEST_F(BinaryArithErrors, UnsupportedDtypeAndFormat) {
  int64_t dims[] = {2};
  aclTensor *c64 = aclCreateTensor(dims, 1, ACL_COMPLEX64, nullptr, 0, ACL_FORMAT_ND, dims, 1, f32.data());
  ASSERT_NE(c64, nullptr);
  EXPECT_TRUE(fails_with(aclnnMulGetWorkspaceSize(c64, c64, c64, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"self", "COMPLEX64"}));
  aclDestroyTensor(c64);
  int64_t d2[] = {2, 3};
  aclTensor *nz = aclCreateTensor(d2, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_FRACTAL_NZ, d2, 2, f32.data());
  EXPECT_TRUE(fails_with(aclnnMulGetWorkspaceSize(nz, f32, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"self", "FRACTAL_NZ"}));
  aclDestroyTensor(nz);
}

TEST_F(BinaryArithErrors, OverlappingOutput) {
  int64_t dims[] = {2, 3}, strides[] = {0, 1}, storage[] = {3};
  aclTensor *alias = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, storage, 1, out.data());
  ASSERT_NE(alias, nullptr);
  EXPECT_TRUE(fails_with(aclnnMulGetWorkspaceSize(f32, f32b, alias, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"overlap"}));
  aclDestroyTensor(alias);
}

}  // namespace
}  // namespace opsnn::test
