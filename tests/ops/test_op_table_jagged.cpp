// The test harness of the jagged-permute table (src/ops/serving/jagged_permute.ops), cases registered from the
// table by tools/gen_ops.py --tests (jagged_table_cases.inc). Exact integer checks against fbgemm's
// expand_into_jagged_permute written here: every dtype, random permutations and segment lengths (empty ones
// too), contiguous and strided views, nothing written outside out's view; a bad permute value or segment
// failing the launch with nothing written; every phase-1 error by name.
#include <algorithm>
#include <memory>
#include <numeric>
#include <ostream>
#include <string>
#include <vector>

#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct JaggedArgs {
  aclTensor *permute = nullptr, *in_offsets = nullptr, *out_offsets = nullptr;
  int64_t output_size = 0;
  aclTensor *out = nullptr;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct JaggedTableCase {
  std::string name, api;
  std::vector<aclDataType> dtypes;
  int (*phase1)(const JaggedArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
};
void PrintTo(const JaggedTableCase &c, std::ostream *os) { *os << c.name; }

#include "jagged_table_cases.inc"

const std::vector<JaggedTableCase> &all_cases() {
  static const std::vector<JaggedTableCase> c = harness::sampled(jagged_table_cases());
  return c;
}

using Dev = std::unique_ptr<DeviceTensor>;

Dev vec(const std::vector<double> &values, aclDataType dt, bool strided) {
  const auto n = static_cast<int64_t>(values.size());
  Dev d = strided ? std::make_unique<DeviceTensor>(std::vector<int64_t>{n}, dt, std::vector<int64_t>{3}, 2)
                  : std::make_unique<DeviceTensor>(std::vector<int64_t>{n}, dt);
  d->set_values(values);
  return d;
}

struct Problem {
  Dev permute, in_offsets, out_offsets, out;
  int64_t output_size = 0;
  JaggedArgs args() const { return {*permute, *in_offsets, *out_offsets, output_size, *out}; }
};

// A random permutation of T segments of random lengths; output segment t is input segment permute[t].
Problem make_problem(std::mt19937_64 &g, aclDataType dt, bool strided, std::vector<double> *want) {
  const int64_t t = 1 + static_cast<int64_t>(g() % 6);
  std::vector<double> perm(static_cast<size_t>(t)), len(static_cast<size_t>(t)), in_off(1, 0), out_off(1, 0);
  std::iota(perm.begin(), perm.end(), 0.0);
  std::shuffle(perm.begin(), perm.end(), g);
  for (double &l : len) l = static_cast<double>(g() % 5);
  for (int64_t i = 0; i < t; ++i) in_off.push_back(in_off.back() + len[static_cast<size_t>(i)]);
  for (int64_t i = 0; i < t; ++i) out_off.push_back(out_off.back() + len[static_cast<size_t>(perm[i])]);
  Problem p;
  p.output_size = static_cast<int64_t>(out_off.back());
  p.permute = vec(perm, dt, strided);
  p.in_offsets = vec(in_off, dt, !strided);
  p.out_offsets = vec(out_off, dt, strided);
  p.out = strided ? std::make_unique<DeviceTensor>(std::vector<int64_t>{p.output_size}, dt, std::vector<int64_t>{2}, 1)
                  : std::make_unique<DeviceTensor>(std::vector<int64_t>{p.output_size}, dt);
  p.out->fill_random(-100, -1);
  want->assign(static_cast<size_t>(p.output_size), 0);
  for (int64_t i = 0; i < t; ++i) {
    const double s = in_off[static_cast<size_t>(perm[i])];
    for (double k = 0; k < out_off[i + 1] - out_off[i]; ++k) (*want)[static_cast<size_t>(out_off[i] + k)] = s + k;
  }
  return p;
}

int run(const JaggedTableCase &c, const JaggedArgs &a) {
  return run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
}

class OpTableJagged : public ::testing::TestWithParam<JaggedTableCase> {};

TEST_P(OpTableJagged, MatchesTheExpansionExactly) {
  reseed_for_current_test();
  const JaggedTableCase &c = GetParam();
  auto &g = rng();
  for (aclDataType dt : c.dtypes)
    for (int k = 0; k < 16; ++k) {
      std::vector<double> want;
      Problem p = make_problem(g, dt, k % 2 == 1, &want);
      SCOPED_TRACE(::testing::Message() << "dtype " << dt << " k " << k << " permute "
                                        << ::testing::PrintToString(p.permute->values()));
      ASSERT_EQ(run(c, p.args()), 0) << aclGetRecentErrMsg();
      EXPECT_EQ(p.out->values(), want);
      EXPECT_TRUE(p.out->untouched_outside_view());
    }
}

TEST_P(OpTableJagged, BadPermuteOrSegmentFailsTheLaunch) {
  const JaggedTableCase &c = GetParam();
  const aclDataType dt = c.dtypes.back();
  auto p_perm = vec({1, 0, 2}, dt, false), in = vec({0, 2, 3, 5}, dt, false), out_off = vec({0, 1, 3, 5}, dt, false);
  DeviceTensor out({5}, dt);
  out.fill_random(-9, -1);
  const auto before = out.values();
  for (const std::vector<double> &bad_perm : {std::vector<double>{1, 0, 3}, std::vector<double>{-1, 0, 2}}) {
    p_perm->set_values(bad_perm);
    EXPECT_EQ(run(c, {*p_perm, *in, *out_off, 5, out}), ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("permute"), std::string::npos) << aclGetRecentErrMsg();
  }
  p_perm->set_values({1, 0, 2});
  for (const std::vector<double> &bad_off : {std::vector<double>{0, 1, 3, 6}, std::vector<double>{0, 3, 1, 5},
                                            std::vector<double>{-1, 1, 3, 5}}) {
    out_off->set_values(bad_off);
    EXPECT_EQ(run(c, {*p_perm, *in, *out_off, 5, out}), ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("outputOffset"), std::string::npos) << aclGetRecentErrMsg();
  }
  EXPECT_EQ(out.values(), before) << "nothing written";
}

TEST_P(OpTableJagged, ErrorsNameTheArgument) {
  const JaggedTableCase &c = GetParam();
  const char *api = c.api.c_str();
  const aclDataType dt = c.dtypes.front(), other = dt == ACL_INT32 ? ACL_INT64 : ACL_INT32;
  auto perm = vec({1, 0}, dt, false), in = vec({0, 2, 3}, dt, false), out_off = vec({0, 1, 3}, dt, false);
  DeviceTensor out({3}, dt), wrong_dt({3}, other), f32({2}, ACL_FLOAT), four({4}, dt), empty({0}, dt);
  const JaggedArgs good{*perm, *in, *out_off, 3, out};
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  using F = aclTensor *JaggedArgs::*;
  for (const auto &[name, f] : {std::pair{"permute", &JaggedArgs::permute}, std::pair{"inputOffset", &JaggedArgs::in_offsets},
                                std::pair{"outputOffset", &JaggedArgs::out_offsets},
                                std::pair{"outputPermuteOut", &JaggedArgs::out}}) {
    JaggedArgs a = good;
    a.*f = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, name})) << name;
    a.*f = f == static_cast<F>(&JaggedArgs::permute) ? f32.get() : wrong_dt.get();
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name, "dtype"})) << name;
    if (f == static_cast<F>(&JaggedArgs::permute)) continue;
    a.*f = four;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name, "shape"})) << name;
  }
  JaggedArgs a = good;
  a.permute = empty;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "permute", "empty"}));
  a = good;
  a.output_size = -1;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "outputSize"}));
  a = good;
  a.out = a.in_offsets;
  a.output_size = 3;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "outputPermuteOut", "overlaps"}));
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableJagged, ::testing::ValuesIn(all_cases()), harness::case_name<JaggedTableCase>);

}  // namespace
}  // namespace opsnn::test
