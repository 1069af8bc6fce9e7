// The test harness of the modulate table (src/ops/vfusion/modulate.ops), cases registered from the table by
// tools/gen_ops.py --tests (modulate_table_cases.inc). Against float64 references written here from the
// definition out = self * (1 + scale) + shift (scale / shift per batch and feature, broadcast along L) and
// its gradients, every dtype:
//   - random [B, L, D] shapes, scale / shift as [B, 1, D] or [B, D], each optional one null, contiguous and
//     padded + offset views; nothing written outside the views;
//   - the errors: each argument named (null, dtype, shape, rank, overlap).
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct ModulateArgs {
  aclTensor *x = nullptr, *scale = nullptr, *shift = nullptr, *out = nullptr, *dy = nullptr, *dx = nullptr,
            *dscale = nullptr, *dshift = nullptr;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct ModulateTableCase {
  std::string name, api;
  std::vector<aclDataType> dtypes;
  bool backward = false;
  int (*phase1)(const ModulateArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
};
void PrintTo(const ModulateTableCase &c, std::ostream *os) { *os << c.name; }

#include "modulate_table_cases.inc"

const std::vector<ModulateTableCase> &all_cases() {
  static const std::vector<ModulateTableCase> c = harness::sampled(modulate_table_cases());
  return c;
}

using Dev = std::unique_ptr<DeviceTensor>;

Dev make(const std::vector<int64_t> &shape, aclDataType dt, bool padded) {
  return padded ? padded_view(shape, dt, 2) : std::make_unique<DeviceTensor>(shape, dt);
}

struct Problem {
  int64_t B = 0, L = 0, D = 0;
  Dev x, scale, shift, y, dy, dscale, dshift;  // y: out or grad_input
  ModulateArgs args(bool backward) const {
    ModulateArgs a;
    a.x = x ? x->get() : nullptr;
    a.scale = scale ? scale->get() : nullptr;
    a.shift = shift ? shift->get() : nullptr;
    (backward ? a.dx : a.out) = y->get();
    if (backward) {
      a.dy = dy->get();
      a.dscale = dscale ? dscale->get() : nullptr;
      a.dshift = dshift ? dshift->get() : nullptr;
    }
    return a;
  }
};

// k's bits: 1 scale null, 2 shift null, 4 scale-like tensors [B, D] (else [B, 1, D]), 8 padded views.
Problem make_problem(std::mt19937_64 &g, aclDataType dt, int k, bool backward) {
  Problem p;
  p.B = 1 + static_cast<int64_t>(g() % 3);
  p.L = 1 + static_cast<int64_t>(g() % 9);
  p.D = 1 + static_cast<int64_t>(g() % 17);
  const bool padded = k & 8;
  const std::vector<int64_t> full{p.B, p.L, p.D};
  const std::vector<int64_t> bd = k & 4 ? std::vector<int64_t>{p.B, p.D} : std::vector<int64_t>{p.B, 1, p.D};
  p.x = make(full, dt, padded);
  p.x->fill_random(-2, 2);
  p.y = make(full, dt, !padded);
  if (!(k & 1)) {
    p.scale = make(bd, dt, padded);
    p.scale->fill_random(-1, 1);
  }
  if (!(k & 2)) {
    p.shift = make(bd, dt, !padded);
    p.shift->fill_random(-1, 1);
  }
  if (backward) {
    p.dy = make(full, dt, !padded);
    p.dy->fill_random(-1, 1);
    if (!(k & 1)) p.dscale = make(bd, dt, !padded);
    if (!(k & 2)) p.dshift = make(bd, dt, padded);
  }
  return p;
}

int run(const ModulateTableCase &c, const ModulateArgs &a) {
  return run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
}

class OpTableModulate : public ::testing::TestWithParam<ModulateTableCase> {};

TEST_P(OpTableModulate, EveryDtypeShapeAndOptionalAgainstFloat64) {
  reseed_for_current_test();
  const ModulateTableCase &c = GetParam();
  auto &g = rng();
  for (aclDataType dt : c.dtypes)
    for (int k = 0; k < 16; ++k) {
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " k " << k);
      Problem p = make_problem(g, dt, k, c.backward);
      ASSERT_EQ(run(c, p.args(c.backward)), 0) << aclGetRecentErrMsg();
      const auto x = p.x->values(), dy = c.backward ? p.dy->values() : std::vector<double>{};
      const auto s = p.scale ? p.scale->values() : std::vector<double>(p.B * p.D, 0.0);
      const auto t = p.shift ? p.shift->values() : std::vector<double>(p.B * p.D, 0.0);
      std::vector<double> want_y(x.size()), want_ds(p.B * p.D, 0.0), want_dt(p.B * p.D, 0.0);
      for (int64_t b = 0; b < p.B; ++b)
        for (int64_t l = 0; l < p.L; ++l)
          for (int64_t d = 0; d < p.D; ++d) {
            const size_t i = static_cast<size_t>((b * p.L + l) * p.D + d), j = static_cast<size_t>(b * p.D + d);
            if (c.backward) {
              want_y[i] = dy[i] * (1.0 + s[j]);
              want_ds[j] += dy[i] * x[i];
              want_dt[j] += dy[i];
            } else {
              want_y[i] = x[i] * (1.0 + s[j]) + t[j];
            }
          }
      auto rounded = [&](std::vector<double> v) {
        for (double &e : v) e = round_to(dt, e);
        return v;
      };
      EXPECT_TRUE(meets_precision(dt, p.y->values(), rounded(want_y))) << (c.backward ? "grad_input" : "out");
      EXPECT_TRUE(p.y->untouched_outside_view());
      if (p.dscale) {
        EXPECT_TRUE(meets_precision(dt, p.dscale->values(), rounded(want_ds))) << "grad_scale";
        EXPECT_TRUE(p.dscale->untouched_outside_view());
      }
      if (p.dshift) {
        EXPECT_TRUE(meets_precision(dt, p.dshift->values(), rounded(want_dt))) << "grad_shift";
        EXPECT_TRUE(p.dshift->untouched_outside_view());
      }
    }
}

TEST_P(OpTableModulate, ErrorsNameTheArgument) {
  const ModulateTableCase &c = GetParam();
  const char *api = c.api.c_str();
  Problem p = make_problem(rng(), ACL_FLOAT, 0, c.backward);
  const ModulateArgs good = p.args(c.backward);
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  using F = aclTensor *ModulateArgs::*;
  const F y = c.backward ? &ModulateArgs::dx : &ModulateArgs::out;
  const std::vector<std::pair<std::string, F>> required =
      c.backward ? std::vector<std::pair<std::string, F>>{{"grad_output", &ModulateArgs::dy},
                                                          {"input", &ModulateArgs::x},
                                                          {"grad_input", y}}
                 : std::vector<std::pair<std::string, F>>{{"self", &ModulateArgs::x}, {"out", y}};
  for (const auto &[name, f] : required) {
    ModulateArgs a = good;
    a.*f = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, name.c_str()})) << name;
  }
  const std::string scale_name = c.backward ? "scale" : "scaleOptional", shift_name = c.backward ? "shift" : "shiftOptional";
  std::vector<std::pair<std::string, F>> bd = {{scale_name, &ModulateArgs::scale}, {shift_name, &ModulateArgs::shift}};
  if (c.backward) {
    bd.push_back({"grad_scale", &ModulateArgs::dscale});
    bd.push_back({"grad_shift", &ModulateArgs::dshift});
  }
  DeviceTensor half({p.B, 1, p.D}, ACL_FLOAT16), wrong({p.B, p.D + 1}, ACL_FLOAT), many({p.B, 2, p.D}, ACL_FLOAT),
      flat({p.B * p.L * p.D}, ACL_FLOAT), i32({p.B, p.L, p.D}, ACL_INT32);
  for (const auto &[name, f] : bd) {
    ModulateArgs a = good;
    a.*f = half;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name.c_str(), "dtype"})) << name;
    for (aclTensor *bad : {wrong.get(), many.get()}) {
      a.*f = bad;
      EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name.c_str(), "shape"})) << name;
    }
  }
  {  // the leading tensor: 3 dims, a floating dtype
    const F lead = c.backward ? &ModulateArgs::dy : &ModulateArgs::x;
    const char *lead_name = c.backward ? "grad_output" : "self";
    ModulateArgs a = good;
    a.*lead = flat;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, lead_name, "3 dims"}));
    a.*lead = i32;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, lead_name, "dtype"}));
  }
  {  // the output of another shape, or sharing memory with an input
    ModulateArgs a = good;
    DeviceTensor other({p.B, p.L + 1, p.D}, ACL_FLOAT);
    a.*y = other;
    const char *y_name = c.backward ? "grad_input" : "out";
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, y_name}));
    a = good;
    a.*y = a.x;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, y_name, "overlaps"}));
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableModulate, ::testing::ValuesIn(all_cases()), harness::case_name<ModulateTableCase>);

}  // namespace
}  // namespace opsnn::test
