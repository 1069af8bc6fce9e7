// The test harness of the linear-algebra table (src/ops/linalg/inverse.ops), cases registered from the table by
// tools/gen_ops.py --tests (linalg_table_cases.inc). Against a float64 Gauss-Jordan inverse written here (a
// different algorithm from the op's LU), every dtype:
//   - random well-conditioned matrices, 0-3 batch dims, n 1-9, contiguous / transposed + offset / padded views;
//     nothing written outside out's view; empty batches and n = 0;
//   - a singular matrix fails the launch naming its batch index, out untouched;
//   - the errors: each argument named (null, dtype, shape, overlap).
#include <cmath>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct LinalgArgs {
  aclTensor *x = nullptr, *out = nullptr;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct LinalgTableCase {
  std::string name, api;
  std::vector<aclDataType> dtypes;
  int (*phase1)(const LinalgArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
};
void PrintTo(const LinalgTableCase &c, std::ostream *os) { *os << c.name; }

#include "linalg_table_cases.inc"

const std::vector<LinalgTableCase> &all_cases() {
  static const std::vector<LinalgTableCase> c = harness::sampled(linalg_table_cases());
  return c;
}

using Dev = std::unique_ptr<DeviceTensor>;

// Layout k % 3: contiguous, transposed + offset, padded.
Dev view_of(const std::vector<int64_t> &shape, aclDataType dt, int k) {
  if (k % 3 == 1) return transposed_view(shape, dt);
  if (k % 3 == 2) return padded_view(shape, dt, 2);
  return std::make_unique<DeviceTensor>(shape, dt);
}

// The inverse of the row-major n x n matrix a by Gauss-Jordan elimination on [a | I] with row pivoting.
std::vector<double> gauss_jordan_inverse(std::vector<double> a, int64_t n) {
  std::vector<double> inv(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) inv[i * n + i] = 1.0;
  for (int64_t c = 0; c < n; ++c) {
    int64_t p = c;
    for (int64_t r = c + 1; r < n; ++r)
      if (std::fabs(a[r * n + c]) > std::fabs(a[p * n + c])) p = r;
    for (int64_t j = 0; j < n; ++j) {
      std::swap(a[c * n + j], a[p * n + j]);
      std::swap(inv[c * n + j], inv[p * n + j]);
    }
    const double d = a[c * n + c];
    for (int64_t j = 0; j < n; ++j) {
      a[c * n + j] /= d;
      inv[c * n + j] /= d;
    }
    for (int64_t r = 0; r < n; ++r) {
      if (r == c) continue;
      const double f = a[r * n + c];
      for (int64_t j = 0; j < n; ++j) {
        a[r * n + j] -= f * a[c * n + j];
        inv[r * n + j] -= f * inv[c * n + j];
      }
    }
  }
  return inv;
}

int run(const LinalgTableCase &c, const LinalgArgs &a) {
  return run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
}

class OpTableLinalg : public ::testing::TestWithParam<LinalgTableCase> {};

TEST_P(OpTableLinalg, InverseOfEveryDtypeLayoutAndBatch) {
  reseed_for_current_test();
  const LinalgTableCase &c = GetParam();
  auto &g = rng();
  for (aclDataType dt : c.dtypes)
    for (int k = 0; k < 12; ++k) {
      const int64_t n = 1 + static_cast<int64_t>(g() % 9);
      std::vector<int64_t> shape;
      for (int d = 0; d < k % 4; ++d) shape.push_back(1 + static_cast<int64_t>(g() % 3));
      shape.push_back(n);
      shape.push_back(n);
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " shape " << ::testing::PrintToString(shape));
      Dev x = view_of(shape, dt, k), out = view_of(shape, dt, k + 1);
      x->fill_random(-1, 1);
      auto xv = x->values();
      const size_t nn = static_cast<size_t>(n * n);
      for (size_t m = 0; m < xv.size(); m += nn)  // diagonally dominant: well conditioned
        for (int64_t i = 0; i < n; ++i) xv[m + static_cast<size_t>(i * n + i)] += (xv[m + i * n + i] < 0 ? -1 : 1) * n;
      x->set_values(xv);
      xv = x->values();  // as stored
      ASSERT_EQ(run(c, {*x, *out}), 0) << aclGetRecentErrMsg();
      std::vector<double> want;
      for (size_t m = 0; m < xv.size(); m += nn) {
        const auto inv = gauss_jordan_inverse(std::vector<double>(xv.begin() + m, xv.begin() + m + nn), n);
        for (double v : inv) want.push_back(round_to(dt, v));
      }
      EXPECT_TRUE(meets_precision(dt, out->values(), want));
      EXPECT_TRUE(out->untouched_outside_view());
    }
}

TEST_P(OpTableLinalg, EmptyBatchesAndEmptyMatrices) {
  const LinalgTableCase &c = GetParam();
  for (const std::vector<int64_t> &shape : {std::vector<int64_t>{0, 3, 3}, std::vector<int64_t>{2, 0, 0}}) {
    DeviceTensor x(shape, ACL_FLOAT), out(shape, ACL_FLOAT);
    EXPECT_EQ(run(c, {x, out}), 0) << aclGetRecentErrMsg();
  }
}

TEST_P(OpTableLinalg, SingularMatrixFailsTheLaunch) {
  const LinalgTableCase &c = GetParam();
  DeviceTensor x({3, 3, 3}, ACL_FLOAT), out({3, 3, 3}, ACL_FLOAT);
  std::vector<double> v = {2, 0, 0, 0, 2, 0, 0, 0, 2,   // invertible
                           1, 2, 3, 2, 4, 6, 0, 1, 1,   // row 1 = 2 row 0: singular
                           0, 0, 0, 0, 0, 0, 0, 0, 0};  // singular
  x.set_values(v);
  out.fill_random(-1, 1);
  const auto before = out.values();
  EXPECT_EQ(run(c, {x, out}), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("batch index 1"), std::string::npos) << aclGetRecentErrMsg();
  EXPECT_EQ(out.values(), before) << "nothing written";
}

TEST_P(OpTableLinalg, ErrorsNameTheArgument) {
  const LinalgTableCase &c = GetParam();
  const char *api = c.api.c_str();
  DeviceTensor x({2, 3, 3}, ACL_FLOAT), out({2, 3, 3}, ACL_FLOAT), i32({2, 3, 3}, ACL_INT32),
      half({2, 3, 3}, ACL_FLOAT16), rect({2, 3, 4}, ACL_FLOAT), vec({3}, ACL_FLOAT), other({3, 3, 3}, ACL_FLOAT);
  x.set_values({2, 0, 0, 0, 2, 0, 0, 0, 2, 1, 0, 0, 0, 1, 0, 0, 0, 1});
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(run(c, {x, out}), 0) << aclGetRecentErrMsg();
  EXPECT_TRUE(fails_with(c.phase1({nullptr, out}, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "self"}));
  EXPECT_TRUE(fails_with(c.phase1({x, nullptr}, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "out"}));
  EXPECT_TRUE(fails_with(c.phase1({i32, out}, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "self", "dtype"}));
  EXPECT_TRUE(fails_with(c.phase1({x, half}, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "out", "dtype"}));
  EXPECT_TRUE(fails_with(c.phase1({rect, rect}, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "self", "square"}));
  EXPECT_TRUE(fails_with(c.phase1({vec, vec}, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "self", "square"}));
  EXPECT_TRUE(fails_with(c.phase1({x, other}, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "out"}));
  EXPECT_TRUE(fails_with(c.phase1({x, x}, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "out", "overlaps"}));
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableLinalg, ::testing::ValuesIn(all_cases()), harness::case_name<LinalgTableCase>);

}  // namespace
}  // namespace opsnn::test
