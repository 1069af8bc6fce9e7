// The test harness of InplaceQuantScatter / V2 (src/ops/layout/dynamic.ops, kind quant_scatter), cases
// registered from the table by tools/gen_ops.py --tests (dyn_table_cases.inc). Exact INT8 checks against the
// reference written here from the formula (saturate(rint(updates / quantScales + quantZeroPoints)) written at
// batch b, offset start along axis, in index order):
//   - both documented dtype pairs (FLOAT16 / FLOAT / INT32, BF16 / BF16 / BF16), with and without zero points,
//     random 3-5-D shapes, every axis the op takes, [n] and (V2) [n, 2] indices, contiguous and strided views
//     (nothing written outside selfRef's view), empty updates;
//   - halves rounded to even, saturation at -128 / 127, NaN to 0;
//   - indices outside selfRef fail the launch with 161002 naming indices, selfRef untouched;
//   - the errors: each argument named (null, dtype, shape, axis / quantAxis / reduction / roundMode).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "dyn_table_case.h"
#include "error_cases.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

#include "dyn_table_cases.inc"

std::vector<DynTableCase> quant_scatter_cases() {
  std::vector<DynTableCase> v;
  for (DynTableCase &c : harness::sampled(dyn_table_cases()))
    if (c.kind == "quant_scatter") v.push_back(std::move(c));
  return v;
}

int64_t uniform(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng()); }

using Dev = std::unique_ptr<DeviceTensor>;

Dev make(const std::vector<int64_t> &shape, aclDataType dt, bool strided) {
  return strided ? transposed_view(shape, dt) : std::make_unique<DeviceTensor>(shape, dt);
}

struct Problem {
  std::vector<int64_t> shape, ushape;
  int axis = 1;
  bool pairs = false;
  std::vector<int64_t> batch, start;  // each updates batch's target
  Dev self, indices, updates, scales, zeros;
  DynArgs a;
};

bool is_v2(const DynTableCase &c) { return c.has("round_mode"); }

// A random problem: updates FLOAT16 (scales FLOAT, zero points INT32) or BF16 (both BF16).
Problem make_problem(const DynTableCase &c, bool bf16, bool strided, bool with_zeros) {
  Problem p;
  const bool v2 = is_v2(c);
  const int nd = static_cast<int>(uniform(3, v2 ? 5 : 4));
  for (int d = 0; d < nd; ++d) p.shape.push_back(uniform(1, 5));
  p.axis = v2 ? static_cast<int>(uniform(1, nd - 2)) : nd - 2;
  p.pairs = v2 && uniform(0, 1) == 1;
  const int64_t n = uniform(1, p.shape[0]);
  p.ushape = p.shape;
  p.ushape[0] = n;
  p.ushape[static_cast<size_t>(p.axis)] = uniform(1, p.shape[static_cast<size_t>(p.axis)]);
  const int64_t room = p.shape[static_cast<size_t>(p.axis)] - p.ushape[static_cast<size_t>(p.axis)];
  std::vector<double> iv;
  for (int64_t i = 0; i < n; ++i) {
    p.batch.push_back(p.pairs ? uniform(0, p.shape[0] - 1) : i);
    p.start.push_back(uniform(0, room));
    if (p.pairs) iv.push_back(static_cast<double>(p.batch.back()));
    iv.push_back(static_cast<double>(p.start.back()));
  }
  const aclDataType idt = uniform(0, 1) ? ACL_INT32 : ACL_INT64;
  p.indices = p.pairs ? make({n, 2}, idt, strided) : make({n}, idt, strided);
  p.indices->set_values(iv);
  p.self = make(p.shape, ACL_INT8, strided);
  p.self->fill_random(-128, 127);
  p.updates = make(p.ushape, bf16 ? ACL_BF16 : ACL_FLOAT16, strided);
  p.updates->fill_random(-40, 40);
  const int64_t h = p.shape.back();
  // quantScales / quantZeroPoints in the documented [1, .., 1, h] form or 1-D.
  std::vector<int64_t> pshape(uniform(0, 1) ? static_cast<size_t>(nd) : size_t{1}, 1);
  pshape.back() = h;
  p.scales = make(pshape, bf16 ? ACL_BF16 : ACL_FLOAT, strided);
  std::vector<double> sv;
  for (int64_t k = 0; k < h; ++k) sv.push_back((uniform(0, 1) ? 1 : -1) * static_cast<double>(uniform(5, 400)) / 1000);
  p.scales->set_values(sv);
  if (with_zeros) {
    p.zeros = make(pshape, bf16 ? ACL_BF16 : ACL_INT32, strided);
    p.zeros->fill_random(-20, 20);
  }
  p.a.self = *p.self;
  p.a.index = *p.indices;
  p.a.source = *p.updates;
  p.a.quant_scales = *p.scales;
  p.a.quant_zero_points = p.zeros ? p.zeros->get() : nullptr;
  p.a.dim = uniform(0, 1) ? p.axis : p.axis - nd;
  p.a.quant_axis = uniform(0, 1) ? -1 : nd - 1;
  p.a.reduction = 1;
  p.a.round_mode = "rint";
  return p;
}

// selfRef after the op, from the formula: each updates batch i in order, quantised, at (batch[i], start[i]).
std::vector<double> reference(const Problem &p) {
  std::vector<double> out = p.self->values();
  const std::vector<double> u = p.updates->values(), s = p.scales->values();
  const std::vector<double> z = p.zeros ? p.zeros->values() : std::vector<double>(s.size(), 0.0);
  const std::vector<int64_t> ds = contiguous_strides(p.shape);
  const int64_t total = numel_of(p.ushape);
  for (int64_t lin = 0; lin < total; ++lin) {
    std::vector<int64_t> at = unravel(lin, p.ushape);
    const size_t h = static_cast<size_t>(at.back());
    const double q = std::nearbyint(u[static_cast<size_t>(lin)] / s[h] + z[h]);
    const double v = std::isnan(q) ? 0 : std::min(127.0, std::max(-128.0, q));
    const size_t i = static_cast<size_t>(at[0]);
    at[0] = p.batch[i];
    at[static_cast<size_t>(p.axis)] += p.start[i];
    int64_t off = 0;
    for (size_t d = 0; d < at.size(); ++d) off += at[d] * ds[d];
    out[static_cast<size_t>(off)] = v;
  }
  return out;
}

// The arguments of a fixed problem along axis -2 (zero points: optional).
DynArgs fixed_args(const DeviceTensor &self, const DeviceTensor &idx, const DeviceTensor &upd, const DeviceTensor &sc,
                   const DeviceTensor *zp) {
  DynArgs a;
  a.self = self;
  a.index = idx;
  a.source = upd;
  a.quant_scales = sc;
  a.quant_zero_points = zp != nullptr ? zp->get() : nullptr;
  a.dim = -2;
  return a;
}

int run(const DynTableCase &c, const DynArgs &a) {
  return run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
}

class OpTableQuantScatter : public ::testing::TestWithParam<DynTableCase> {};

TEST_P(OpTableQuantScatter, MatchesTheFormulaExactly) {
  reseed_for_current_test();
  const DynTableCase &c = GetParam();
  for (int trial = 0; trial < 48; ++trial) {
    const bool bf16 = trial % 2 == 1, strided = trial % 3 == 2, zeros = trial % 4 < 2;
    Problem p = make_problem(c, bf16, strided, zeros);
    SCOPED_TRACE(::testing::Message() << "trial " << trial << " bf16 " << bf16 << " strided " << strided
                                      << " zero points " << zeros << " axis " << p.axis << " pairs " << p.pairs);
    const std::vector<double> want = reference(p);
    ASSERT_EQ(run(c, p.a), 0) << aclGetRecentErrMsg();
    EXPECT_EQ(p.self->values(), want);
    EXPECT_TRUE(p.self->untouched_outside_view());
  }
}

TEST_P(OpTableQuantScatter, HalvesToEvenSaturationAndNaN) {
  const DynTableCase &c = GetParam();
  for (bool bf16 : {false, true}) {
    DeviceTensor self({1, 2, 8}, ACL_INT8), idx({1}, ACL_INT64), upd({1, 1, 8}, bf16 ? ACL_BF16 : ACL_FLOAT16),
        sc({8}, bf16 ? ACL_BF16 : ACL_FLOAT), zp({8}, bf16 ? ACL_BF16 : ACL_INT32);
    self.set_values(std::vector<double>(16, 7));
    idx.set_values({1});
    upd.set_values({2.5, -0.5, 1.5, -2.5, 300, -300, NAN, 0.25});
    sc.set_values({1, 1, 1, 1, 1, 0.5, 1, 0.5});
    zp.set_values({0, 0, 0, 0, 0, 0, 0, 0});
    ASSERT_EQ(run(c, fixed_args(self, idx, upd, sc, &zp)), 0) << aclGetRecentErrMsg();
    const std::vector<double> want = {7, 7, 7, 7, 7, 7, 7, 7, 2, 0, 2, -2, 127, -128, 0, 0};
    EXPECT_EQ(self.values(), want) << "bf16 " << bf16;
  }
}

TEST_P(OpTableQuantScatter, EmptyUpdatesWriteNothing) {
  const DynTableCase &c = GetParam();
  DeviceTensor self({2, 3, 4}, ACL_INT8), idx({0}, ACL_INT32), upd({0, 3, 4}, ACL_FLOAT16), sc({4}, ACL_FLOAT);
  self.fill_random(-100, 100);
  sc.set_values({1, 1, 1, 1});
  const std::vector<double> before = self.values();
  ASSERT_EQ(run(c, fixed_args(self, idx, upd, sc, nullptr)), 0) << aclGetRecentErrMsg();
  EXPECT_EQ(self.values(), before);
}

TEST_P(OpTableQuantScatter, IndicesOutsideSelfFailTheLaunch) {
  reseed_for_current_test();
  const DynTableCase &c = GetParam();
  for (int trial = 0; trial < 6; ++trial) {
    Problem p = make_problem(c, trial % 2 == 1, false, true);
    std::vector<double> iv = p.indices->values();
    const size_t i = static_cast<size_t>(uniform(0, static_cast<int64_t>(p.batch.size()) - 1));
    const int64_t room = p.shape[static_cast<size_t>(p.axis)] - p.ushape[static_cast<size_t>(p.axis)];
    const size_t at = p.pairs ? 2 * i + 1 : i;
    iv[at] = trial % 3 == 0 ? -1 : static_cast<double>(room + 1);
    if (p.pairs && trial % 3 == 2) iv[2 * i] = static_cast<double>(p.shape[0]);  // a batch outside
    p.indices->set_values(iv);
    const std::vector<double> before = p.self->values();
    SCOPED_TRACE(::testing::Message() << "trial " << trial);
    EXPECT_TRUE(fails_with(run(c, p.a), ACLNN_ERR_PARAM_INVALID, {"indices", "out of range"}));
    EXPECT_EQ(p.self->values(), before) << "nothing written";
  }
}

TEST_P(OpTableQuantScatter, ErrorsNameTheArgument) {
  const DynTableCase &c = GetParam();
  const char *api = c.api.c_str();
  const bool v2 = is_v2(c);
  DeviceTensor self({2, 4, 8}, ACL_INT8), idx({2}, ACL_INT64), upd({2, 1, 8}, ACL_FLOAT16), sc({1, 1, 8}, ACL_FLOAT),
      zp({1, 1, 8}, ACL_INT32);
  idx.set_values({0, 3});
  sc.set_values(std::vector<double>(8, 0.5));
  const DynArgs good = fixed_args(self, idx, upd, sc, &zp);
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  auto phase1 = [&](const DynArgs &a, uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); };
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  using harness::ArgField;
  using F = std::vector<ArgField<DynArgs>>;
  const F fields = {{&DynArgs::self, "selfRef"},
                    {&DynArgs::index, "indices"},
                    {&DynArgs::source, "updates"},
                    {&DynArgs::quant_scales, "quantScales"},
                    {&DynArgs::quant_zero_points, "quantZeroPoints", true}};
  harness::expect_each_rejected(api, good, fields, {}, ACLNN_ERR_PARAM_NULLPTR, nullptr, phase1);
  // Dtypes: selfRef not INT8, float indices, FLOAT updates, the pairs crossed.
  DeviceTensor self_f({2, 4, 8}, ACL_FLOAT), idx_f({2}, ACL_FLOAT), upd_f({2, 1, 8}, ACL_FLOAT),
      sc_b({1, 1, 8}, ACL_BF16), zp_b({1, 1, 8}, ACL_BF16);
  harness::expect_each_rejected(api, good, fields, {self_f, idx_f, upd_f, sc_b, zp_b}, ACLNN_ERR_PARAM_INVALID,
                                "dtype", phase1);
  // Shapes: 2-D selfRef, updates of another rank / batch count / longer along axis, wrong counts of
  // scales and zero points, [n, 3] indices.
  DeviceTensor self2({2, 8}, ACL_INT8), upd4({2, 1, 1, 8}, ACL_FLOAT16), upd3({3, 1, 8}, ACL_FLOAT16),
      upd_long({2, 5, 8}, ACL_FLOAT16), sc7({7}, ACL_FLOAT), zp9({9}, ACL_INT32), idx3({2, 3}, ACL_INT64);
  harness::expect_each_rejected(api, good, F{{&DynArgs::self, "selfRef"}, {&DynArgs::source, "updates"},
                                             {&DynArgs::source, "updates"}, {&DynArgs::source, "updates"},
                                             {&DynArgs::quant_scales, "quantScales"},
                                             {&DynArgs::quant_zero_points, "quantZeroPoints"},
                                             {&DynArgs::index, "indices"}},
                                {self2, upd4, upd3, upd_long, sc7, zp9, idx3}, ACLNN_ERR_PARAM_INVALID, nullptr, phase1);
  {  // [n, 2] indices: V2 only
    DeviceTensor pairs({2, 2}, ACL_INT64);
    pairs.set_values({0, 0, 1, 2});
    DynArgs a = good;
    a.index = pairs;
    if (v2) {
      EXPECT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
    } else {
      EXPECT_TRUE(fails_with(phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "indices"}));
    }
  }
  auto rejects = [&](DynArgs a, const char *word) { return fails_with(phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, word}); };
  for (int64_t axis : {0, 2, -1, -3}) {
    DynArgs a = good;
    a.dim = axis;
    EXPECT_TRUE(rejects(a, "axis")) << axis;
  }
  {  // V2 takes any middle dim of a 4-D selfRef; V1 only -2
    DeviceTensor s4({2, 3, 4, 8}, ACL_INT8), u4({2, 2, 4, 8}, ACL_FLOAT16), i4({2}, ACL_INT64);
    i4.set_values({1, 0});
    DynArgs a = good;
    a.self = s4;
    a.source = u4;
    a.index = i4;
    a.dim = 1;
    if (v2) {
      EXPECT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
    } else {
      EXPECT_TRUE(rejects(a, "axis"));
    }
  }
  for (int64_t qa : {0, 1, -2}) {
    DynArgs a = good;
    a.quant_axis = qa;
    EXPECT_TRUE(rejects(a, "quantAxis")) << qa;
  }
  for (int64_t red : {0, 2}) {
    DynArgs a = good;
    a.reduction = red;
    EXPECT_TRUE(rejects(a, "reduction")) << red;
  }
  if (!v2) return;
  for (const char *mode : {"round", "hybrid", "floor"}) {
    DynArgs a = good;
    a.round_mode = mode;
    EXPECT_TRUE(rejects(a, "roundMode")) << mode;
  }
  DynArgs a = good;
  a.round_mode = nullptr;
  EXPECT_TRUE(fails_with(phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "roundMode"}));
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableQuantScatter, ::testing::ValuesIn(quant_scatter_cases()),
                         [](const ::testing::TestParamInfo<DynTableCase> &i) { return i.param.name; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTableQuantScatter);

}  // namespace
}  // namespace opsnn::test
