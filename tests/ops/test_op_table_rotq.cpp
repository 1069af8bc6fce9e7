// The test harness of the rotate-quant table (src/ops/matmul/rotate_quant.ops), cases registered from the
// table by tools/gen_ops.py --tests (rotq_table_cases.inc). Against a float64 reference written here from
// the documented formulas: Y = (x.reshape(-1, K) @ rotation).reshape(M, N), scale = max|Y| / C per row
// (C 127 for INT8, 7 for INT32 of eight INT4), y = round(Y / scale) by roundMode, saturated:
//   - every dtype, K and N across the documented ranges, contiguous and padded + offset views (x's rows
//     apart: one GEMM batch per row; a padded or transposed INT8 y, a padded scale), INT8 and INT32 outputs,
//     each roundMode;
//   - scales within 1e-5 relative (fp32 sums in another order), y exact except within 2e-3 of a rounding
//     boundary (there one step either way); a row of zeros gives scale 0 and y 0;
//   - the errors of phase 1, each naming its argument.
#include <cmath>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct RotqArgs {
  aclTensor *x = nullptr, *rotation = nullptr, *alpha = nullptr, *y = nullptr, *scale_out = nullptr;
  int64_t axis = -1, scale_alg = 0;
  char *round_mode = nullptr;
  double dst_type_max = 0.0;
  bool trans = false;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct RotqTableCase {
  std::string name, api;
  std::vector<aclDataType> dtypes;
  int (*phase1)(const RotqArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
};
void PrintTo(const RotqTableCase &c, std::ostream *os) { *os << c.name; }

#include "rotq_table_cases.inc"

const std::vector<RotqTableCase> &all_cases() {
  static const std::vector<RotqTableCase> c = harness::sampled(rotq_table_cases());
  return c;
}

using Dev = std::unique_ptr<DeviceTensor>;

Dev make(const std::vector<int64_t> &shape, aclDataType dt, bool padded) {
  return padded ? padded_view(shape, dt, 2) : std::make_unique<DeviceTensor>(shape, dt);
}

int run(const RotqTableCase &c, const RotqArgs &a) {
  return run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
}

// The integers of an INT8 y, or of an INT32 y holding eight INT4 a word (low nibble first).
std::vector<int> ints_of(const DeviceTensor &y, int64_t count) {
  if (y.dtype() == ACL_INT8) {
    std::vector<int> v;
    for (double e : y.values()) v.push_back(static_cast<int>(e));
    return v;
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(count / 2));
  EXPECT_EQ(aclrtMemcpy(bytes.data(), bytes.size(), y.data(), bytes.size(), ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  std::vector<int> v(static_cast<size_t>(count));
  for (int64_t e = 0; e < count; ++e) {
    const int nib = (bytes[static_cast<size_t>(e / 2)] >> ((e % 2) * 4)) & 15;
    v[static_cast<size_t>(e)] = nib >= 8 ? nib - 16 : nib;
  }
  return v;
}

double round_ref(double v, const std::string &mode) {
  if (mode == "floor") return std::floor(v);
  if (mode == "round") return std::round(v);
  return std::nearbyint(v);  // rint: ties to even
}

struct Geo {
  int64_t m, n, k;
};

class OpTableRotq : public ::testing::TestWithParam<RotqTableCase> {
 protected:
  void SetUp() override { reseed_for_current_test(); }
};

TEST_P(OpTableRotq, EveryDtypeShapeAndModeAgainstFloat64) {
  const RotqTableCase &c = GetParam();
  const Geo geos[] = {{5, 128, 16}, {17, 256, 64}, {3, 384, 128}, {1, 1024, 1024}, {33, 192, 32}, {2, 16000, 1000}};
  const char *modes[] = {nullptr, "rint", "round", "floor"};
  int variant = 0;
  for (aclDataType dt : c.dtypes)
    for (const Geo &geo : geos)
      for (aclDataType yd : {ACL_INT8, ACL_INT32}) {
        const bool padded = variant % 2 == 1;
        const char *mode = modes[variant % 4];
        ++variant;
        SCOPED_TRACE(::testing::Message() << dt << " " << geo.m << "x" << geo.n << " K " << geo.k << " y " << yd
                                          << " padded " << padded << " mode " << (mode ? mode : "null"));
        const int64_t M = geo.m, N = geo.n, K = geo.k, C = yd == ACL_INT8 ? 127 : 7;
        Dev x = make({M, N}, dt, padded), rot = make({K, K}, dt, !padded);
        x->fill_random(-2, 2);
        rot->fill_random(-1, 1);
        std::vector<double> xv = x->values();
        for (int64_t j = 0; j < N && M > 1; ++j) xv[static_cast<size_t>(N + j)] = 0.0;  // row 1: zeros
        x->set_values(xv);
        Dev y = yd == ACL_INT32 ? std::make_unique<DeviceTensor>(std::vector<int64_t>{M, N / 8}, ACL_INT32)
                : variant % 5 == 0 ? transposed_view({M, N}, ACL_INT8)  // columns apart: the scalar store
                                   : make({M, N}, ACL_INT8, padded);
        Dev so = make({M}, ACL_FLOAT, padded);
        RotqArgs a;
        a.x = *x;
        a.rotation = *rot;
        a.y = *y;
        a.scale_out = *so;
        a.round_mode = const_cast<char *>(mode);
        a.axis = variant % 3 == 0 ? 1 : -1;
        ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
        const std::vector<double> rv = rot->values(), sv = so->values();
        const std::vector<int> got = ints_of(*y, M * N);
        const std::string md = mode ? mode : "rint";
        for (int64_t i = 0; i < M; ++i) {
          std::vector<double> row(static_cast<size_t>(N), 0.0);
          double amax = 0.0;
          for (int64_t j = 0; j < N; ++j) {
            const int64_t blk = j / K, col = j % K;
            double s = 0.0;
            for (int64_t l = 0; l < K; ++l)
              s += xv[static_cast<size_t>(i * N + blk * K + l)] * rv[static_cast<size_t>(l * K + col)];
            row[static_cast<size_t>(j)] = s;
            amax = std::max(amax, std::fabs(s));
          }
          const double scale = amax / static_cast<double>(C), got_s = sv[static_cast<size_t>(i)];
          ASSERT_NEAR(got_s, scale, 1e-5 * scale) << "scaleOut " << i;
          for (int64_t j = 0; j < N; ++j) {
            const double q = got_s == 0.0 ? 0.0 : row[static_cast<size_t>(j)] / got_s;
            const double want = std::min<double>(C, std::max<double>(-C - 1, round_ref(q, md)));
            const int g = got[static_cast<size_t>(i * N + j)];
            const double frac = q - std::floor(q), to_boundary = md == "floor" ? std::min(frac, 1 - frac) : std::fabs(frac - 0.5);
            if (to_boundary < 2e-3)
              ASSERT_LE(std::fabs(g - want), 1.0) << "y " << i << "," << j;
            else
              ASSERT_EQ(g, want) << "y " << i << "," << j << " quotient " << q;
          }
        }
        EXPECT_TRUE(y->untouched_outside_view());
        EXPECT_TRUE(so->untouched_outside_view());
      }
}

TEST_P(OpTableRotq, ErrorsNameTheArgument) {
  const RotqTableCase &c = GetParam();
  const char *api = c.api.c_str();
  DeviceTensor x({4, 128}, ACL_FLOAT16), rot({32, 32}, ACL_FLOAT16), y({4, 128}, ACL_INT8), so({4}, ACL_FLOAT),
      xf({4, 128}, ACL_FLOAT), rot_bf({32, 32}, ACL_BF16), x3({1, 4, 128}, ACL_FLOAT16), rot_rect({32, 16}, ACL_FLOAT16),
      x120({4, 120}, ACL_FLOAT16), y120({4, 120}, ACL_INT8), x136({4, 136}, ACL_FLOAT16), y136({4, 136}, ACL_INT8),
      rot8({8, 8}, ACL_FLOAT16), x0({0, 128}, ACL_FLOAT16), y0({0, 128}, ACL_INT8), so0({0}, ACL_FLOAT),
      alpha({1}, ACL_BF16), y_fp8({4, 128}, ACL_FLOAT8_E4M3FN), y_fp4({4, 128}, ACL_FLOAT4_E2M1),
      y4({4, 128}, ACL_INT4), y_shape({4, 64}, ACL_INT8), so_shape({5}, ACL_FLOAT), so16({4}, ACL_FLOAT16);
  Dev y32_strided = padded_view({4, 16}, ACL_INT32, 2);
  RotqArgs good;
  good.x = x;
  good.rotation = rot;
  good.y = y;
  good.scale_out = so;
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto expect = [&](const std::function<void(RotqArgs &)> &edit, int code, const char *name, const char *word) {
    RotqArgs a = good;
    edit(a);
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), code, {api, name, word})) << name << " " << word;
  };
  const int null = ACLNN_ERR_PARAM_NULLPTR, bad = ACLNN_ERR_PARAM_INVALID;
  expect([](RotqArgs &a) { a.x = nullptr; }, null, "x", "");
  expect([](RotqArgs &a) { a.rotation = nullptr; }, null, "rotation", "");
  expect([](RotqArgs &a) { a.y = nullptr; }, null, "yOut", "");
  expect([](RotqArgs &a) { a.scale_out = nullptr; }, null, "scaleOut", "");
  expect([&](RotqArgs &a) { a.x = xf; }, bad, "x", "dtype");
  expect([&](RotqArgs &a) { a.rotation = rot_bf; }, bad, "rotation", "dtype");
  expect([&](RotqArgs &a) { a.x = x3; }, bad, "x", "2-D");
  expect([&](RotqArgs &a) { a.rotation = rot_rect; }, bad, "rotation", "square");
  expect([&](RotqArgs &a) { a.x = x120; a.y = y120; }, bad, "x", "[128, 16000]");
  expect([&](RotqArgs &a) { a.x = x136; a.y = y136; }, bad, "x", "multiple");
  expect([&](RotqArgs &a) { a.rotation = rot8; }, bad, "rotation", "[16, 1024]");
  expect([&](RotqArgs &a) { a.x = x0; a.y = y0; a.scale_out = so0; }, bad, "x", "empty");
  expect([&](RotqArgs &a) { a.alpha = alpha; }, bad, "alpha", "null");
  expect([](RotqArgs &a) { a.axis = 0; }, bad, "axis", "");
  expect([](RotqArgs &a) { a.round_mode = const_cast<char *>("ceil"); }, bad, "roundMode", "ceil");
  expect([](RotqArgs &a) { a.scale_alg = 1; }, bad, "scaleAlg", "");
  expect([](RotqArgs &a) { a.dst_type_max = 6.0; }, bad, "dstTypeMax", "");
  expect([](RotqArgs &a) { a.trans = true; }, bad, "trans", "");
  expect([&](RotqArgs &a) { a.y = y_fp8; }, bad, "yOut", "not supported");
  expect([&](RotqArgs &a) { a.y = y_fp4; }, bad, "yOut", "not supported");
  expect([&](RotqArgs &a) { a.y = y4; }, bad, "yOut", "dtype");
  expect([&](RotqArgs &a) { a.y = y_shape; }, bad, "yOut", "shape");
  expect([&](RotqArgs &a) { a.y = *y32_strided; }, bad, "yOut", "contiguous");
  expect([&](RotqArgs &a) { a.scale_out = so_shape; }, bad, "scaleOut", "shape");
  expect([&](RotqArgs &a) { a.scale_out = so16; }, bad, "scaleOut", "dtype");
  expect([&](RotqArgs &a) { a.y = a.x; }, bad, "yOut", "");
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableRotq, ::testing::ValuesIn(all_cases()), harness::case_name<RotqTableCase>);

}  // namespace
}  // namespace opsnn::test
