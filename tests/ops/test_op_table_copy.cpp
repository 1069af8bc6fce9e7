// The test harness of the table-driven copy family (src/ops/copy/copy.ops), cases registered from the
// table by tools/gen_ops.py --tests (copy_table_cases.inc). Against a float64 conversion reference
// (round to nearest between floats, truncation toward zero from float to integer with NaN -> 0,
// != 0 for BOOL):
//   - ops with a source: every dtype pair, transposed / offset views on both sides, source shapes
//     that broadcast (where the row allows it), empty tensors; special values (NaN, infinities,
//     beyond FLOAT16's range, fractions) into every dtype;
//   - one-element sources (InplaceFillTensor): every (value, destination) dtype pair, castable ones
//     written everywhere (0-d, [1] at an offset; strided, 1-D, 0-d and empty destinations; NaN,
//     infinities, -0.0 kept), the others a 161002; the value read when the launch runs;
//   - fills: every dtype, values that need converting, an INT64 beyond 2^53 kept exact, zero;
//   - nothing written outside the destination view;
//   - errors: each argument named (null: 161001; shape, broadcast, dtype: 161002).
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "kernels/elementwise/stream_copy.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

using Dims = std::vector<int64_t>;
using Dev = std::unique_ptr<DeviceTensor>;

struct CopyArgs {
  aclTensor *dst = nullptr, *src = nullptr;
  aclScalar *value = nullptr;
  aclDataType dtype = ACL_DT_UNDEFINED;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct CopyTableCase {
  std::string name, api;
  std::vector<aclDataType> dtypes;
  bool broadcast = false, one_element = false, inplace = false;
  std::string dst_name, src_name, value_name, dtype_name;  // "" where the op has no such parameter
  int (*phase1)(const CopyArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
  bool has_src() const { return !src_name.empty(); }
  bool has_value() const { return !value_name.empty(); }
};
void PrintTo(const CopyTableCase &c, std::ostream *os) { *os << c.name; }

#include "copy_table_cases.inc"

const std::vector<CopyTableCase> &all_cases() {
  static const std::vector<CopyTableCase> c = harness::sampled(copy_table_cases());
  return c;
}
template <class Pred>
std::vector<CopyTableCase> cases_where(Pred pred) {
  std::vector<CopyTableCase> v;
  for (const CopyTableCase &c : all_cases())
    if (pred(c)) v.push_back(c);
  return v;
}

// The conversion of one value into `to`.
double convert(double v, aclDataType to) {
  if (to == ACL_BOOL) return v != 0;
  if (!harness::is_float(to)) return std::isnan(v) ? 0 : round_to(to, std::trunc(v));
  return round_to(to, v);
}

// A view of `shape` with its dims stored in reverse order and an offset (`strided`), else contiguous.
Dev make_view(const Dims &shape, aclDataType dt, bool strided) {
  if (!strided) return std::make_unique<DeviceTensor>(shape, dt);
  Dims strides(shape.size());
  int64_t acc = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    strides[i] = acc;
    acc *= std::max<int64_t>(shape[i], 1);
  }
  return std::make_unique<DeviceTensor>(shape, dt, strides, 3);
}

// A value the dtype takes (a float to integer conversion out of range is undefined, as in C).
bool in_range(aclDataType dt, double v) {
  if (harness::is_float(dt) || dt == ACL_BOOL) return true;
  const double t = std::trunc(v), lo = dt == ACL_UINT8 ? 0 : dt == ACL_INT8 ? -128 : dt == ACL_INT16 ? -32768 : -2e9;
  const double hi = dt == ACL_UINT8 ? 255 : dt == ACL_INT8 ? 127 : dt == ACL_INT16 ? 32767 : 2e9;
  return t >= lo && t <= hi;
}

int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng()); }

// Runs the case with the given tensors (value: a FLOAT scalar unless `scalar` is given).
int run(const CopyTableCase &c, DeviceTensor *dst, DeviceTensor *src, aclScalar *scalar = nullptr) {
  return run_op(
      [&](uint64_t *ws, aclOpExecutor **ex) {
        CopyArgs a;
        a.dst = dst ? dst->get() : nullptr;
        a.src = src ? src->get() : nullptr;
        a.value = scalar;
        a.dtype = dst ? dst->dtype() : ACL_FLOAT;
        return c.phase1(a, ws, ex);
      },
      c.launch);
}

// The ops converting a source tensor.
class CopyTableSource : public ::testing::TestWithParam<CopyTableCase> {};

TEST_P(CopyTableSource, EveryDtypePairViewsBroadcasts) {
  reseed_for_current_test();
  const CopyTableCase &c = GetParam();
  for (aclDataType from : c.dtypes)
    for (aclDataType to : c.dtypes) {
      Dims shape = {pick(1, 4), pick(1, 5), pick(1, 6)};
      if (pick(0, 5) == 0) shape[static_cast<size_t>(pick(0, 2))] = 0;
      Dims sshape = shape;
      if (c.broadcast) {  // dims of 1 and fewer leading dims
        for (auto &d : sshape)
          if (pick(0, 2) == 0) d = 1;
        sshape.erase(sshape.begin(), sshape.begin() + pick(0, 2));
      }
      SCOPED_TRACE(::testing::Message() << c.name << " " << from << " -> " << to << " dst "
                                        << ::testing::PrintToString(shape) << " src " << ::testing::PrintToString(sshape));
      auto dst = make_view(shape, to, pick(0, 1) == 1);
      auto src = make_view(sshape, from, pick(0, 1) == 1);
      src->fill_random(from == ACL_UINT8 ? 0 : -100, 100);
      dst->poison();
      ASSERT_EQ(run(c, dst.get(), src.get()), 0) << aclGetRecentErrMsg();
      const auto sv = src->values();
      std::vector<double> want(static_cast<size_t>(numel_of(shape)));
      for (int64_t i = 0; i < numel_of(shape); ++i)
        want[static_cast<size_t>(i)] = convert(sv[static_cast<size_t>(broadcast_source(unravel(i, shape), shape, sshape))], to);
      EXPECT_TRUE(meets_precision(to, dst->values(), want));
      EXPECT_TRUE(dst->untouched_outside_view());
      if (HasFailure()) return;
    }
}

// Same-dtype copies whose destination exceeds the streaming threshold
// (kernels/elementwise/stream_copy.h): a whole FLOAT / INT8 vector at offsets that leave 64-byte
// alignment on either side (an unaligned head, streamed lines, a tail), and a padded destination
// whose rows stream one at a time; compared exactly with the source.
TEST_P(CopyTableSource, LargeCopiesStreamAtAnyAlignment) {
  reseed_for_current_test();
  const CopyTableCase &c = GetParam();
  for (aclDataType dt : {ACL_FLOAT, ACL_INT8}) {
    const int64_t es = static_cast<int64_t>(aclDataTypeSize(dt));
    const int64_t n = static_cast<int64_t>(kernels::stream_copy_min_bytes()) / es + 4099;
    for (const auto &[src_off, dst_off] : {std::pair<int64_t, int64_t>{0, 0}, {1, 3}, {0, 5}}) {
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " offsets " << src_off << ", " << dst_off);
      DeviceTensor src({n}, dt, {1}, src_off, n + src_off), dst({n}, dt, {1}, dst_off, n + dst_off + 7);
      src.fill_random(-100, 100);
      dst.poison();
      ASSERT_EQ(run(c, &dst, &src), 0) << aclGetRecentErrMsg();
      EXPECT_EQ(dst.values(), src.values());
      EXPECT_TRUE(dst.untouched_outside_view());
    }
    const int64_t cols = 1000, rows = n / cols + 1;  // rows of 1000 in a destination of 1003-element rows
    DeviceTensor src({rows, cols}, dt), dst({rows, cols}, dt, {cols + 3, 1}, 2, rows * (cols + 3) + 2);
    src.fill_random(-100, 100);
    dst.poison();
    ASSERT_EQ(run(c, &dst, &src), 0) << aclGetRecentErrMsg();
    EXPECT_EQ(dst.values(), src.values());
    EXPECT_TRUE(dst.untouched_outside_view());
  }
}

// Same-dtype copies of a source whose dims are stored in reverse order (x.t().contiguous(), and its
// batched form) into a contiguous or a reversed destination: the layout family's tiled transposes
// (kernels/layout/transpose_tile.h) with block and tile edges, every dtype; compared exactly.
TEST_P(CopyTableSource, TransposingCopiesEveryDtype) {
  reseed_for_current_test();
  const CopyTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes)
    for (const Dims &shape : {Dims{70, 1030}, Dims{1030, 17}, Dims{3, 45, 67}, Dims{5, 5}})
      for (bool dst_reversed : {false, true}) {
        SCOPED_TRACE(::testing::Message() << c.name << " " << dt << " " << ::testing::PrintToString(shape)
                                          << " destination reversed " << dst_reversed);
        auto src = make_view(shape, dt, true);
        auto dst = make_view(shape, dt, dst_reversed);
        src->fill_random(dt == ACL_UINT8 ? 0 : -100, 100);
        dst->poison();
        ASSERT_EQ(run(c, dst.get(), src.get()), 0) << aclGetRecentErrMsg();
        EXPECT_EQ(dst->values(), src->values());
        EXPECT_TRUE(dst->untouched_outside_view());
        if (HasFailure()) return;
      }
}

TEST_P(CopyTableSource, SpecialValuesIntoEveryDtype) {
  const CopyTableCase &c = GetParam();
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  for (aclDataType from : {ACL_FLOAT, ACL_DOUBLE})
    for (aclDataType to : c.dtypes) {
      SCOPED_TRACE(::testing::Message() << c.name << " " << from << " -> " << to);
      // Integers: NaN -> 0 and fractions truncate (out-of-range values are undefined, as in C).
      const std::vector<double> v = harness::is_float(to) ? std::vector<double>{nan, inf, -inf, 70000.0, -2.75, 1e-8}
                                                          : std::vector<double>{nan, -2.75, 1e-8, 0.999, 100.5, 0.0};
      auto src = make_view({static_cast<int64_t>(v.size())}, from, false);
      auto dst = make_view({static_cast<int64_t>(v.size())}, to, false);
      src->set_values(v);
      dst->poison();
      ASSERT_EQ(run(c, dst.get(), src.get()), 0) << aclGetRecentErrMsg();
      const auto got = dst->values(), stored = src->values();
      for (size_t i = 0; i < v.size(); ++i) {
        const double w = convert(stored[i], to);
        EXPECT_TRUE(std::isnan(w) ? std::isnan(got[i]) : got[i] == w) << "element " << i << " (" << v[i] << "): got "
                                                                      << got[i] << ", expected " << w;
      }
    }
}

// The one-element sources: a 0-d or [1] tensor written everywhere, read when the launch runs.
class CopyTableOneElement : public ::testing::TestWithParam<CopyTableCase> {};

// The dtype as the error messages name it.
const char *name_of(aclDataType dt) {
  switch (dt) {
    case ACL_FLOAT: return "FLOAT";
    case ACL_FLOAT16: return "FLOAT16";
    case ACL_BF16: return "BF16";
    case ACL_DOUBLE: return "DOUBLE";
    case ACL_INT8: return "INT8";
    case ACL_INT16: return "INT16";
    case ACL_INT32: return "INT32";
    case ACL_INT64: return "INT64";
    case ACL_UINT8: return "UINT8";
    case ACL_BOOL: return "BOOL";
    default: return "?";
  }
}

// torch.can_cast, written out: no floating -> integral / BOOL, no non-BOOL -> BOOL.
bool castable(aclDataType from, aclDataType to) {
  if (to == ACL_BOOL) return from == ACL_BOOL;
  return !(harness::is_float(from) && !harness::is_float(to));
}

::testing::AssertionResult all_equal(const DeviceTensor &t, double want) {
  for (double v : t.values()) {
    const bool same = (std::isnan(v) && std::isnan(want)) || (v == want && std::signbit(v) == std::signbit(want));
    if (!same) return ::testing::AssertionFailure() << v << " vs expected " << want;
  }
  return ::testing::AssertionSuccess();
}

// Every (value, destination) dtype pair; the destination transposed + offset, 1-D, 0-d or empty; the
// value 0-d or a [1] view at an offset, with NaN, infinities and -0.0 (its sign kept).
TEST_P(CopyTableOneElement, EveryDtypePairShapeAndSpecialValue) {
  reseed_for_current_test();
  const CopyTableCase &c = GetParam();
  const double floats[] = {-7.25, 3.5e38, NAN, INFINITY, -INFINITY, -0.0, 1e-30};
  int checked = 0;
  for (aclDataType to : c.dtypes)
    for (aclDataType from : c.dtypes)
      for (int form = 0; form < 4; ++form) {
        SCOPED_TRACE(::testing::Message() << c.name << " " << c.src_name << " " << from << " -> " << c.dst_name << " "
                                          << to << " form " << form);
        Dev dst = form == 0   ? make_view({2, 3, 4}, to, true)
                  : form == 1 ? std::make_unique<DeviceTensor>(Dims{5}, to)
                  : form == 2 ? std::make_unique<DeviceTensor>(Dims{}, to)
                              : std::make_unique<DeviceTensor>(Dims{0, 3}, to);
        Dev src = form % 2 ? std::make_unique<DeviceTensor>(Dims{1}, from, Dims{1}, 2, 4)
                           : std::make_unique<DeviceTensor>(Dims{}, from);
        if (!castable(from, to)) {
          EXPECT_TRUE(fails_with(run(c, dst.get(), src.get()), ACLNN_ERR_PARAM_INVALID,
                                 {c.src_name.c_str(), name_of(from), name_of(to)}));
          continue;
        }
        const double v = harness::is_float(from) ? floats[pick(0, 6)] : from == ACL_BOOL ? 1 : from == ACL_UINT8 ? 201 : -37;
        src->set_values({v});
        dst->poison();
        ASSERT_EQ(run(c, dst.get(), src.get()), 0) << aclGetRecentErrMsg();
        EXPECT_TRUE(all_equal(*dst, convert(src->values()[0], to)));
        EXPECT_TRUE(dst->untouched_outside_view());
        ++checked;
      }
  EXPECT_GT(checked, 100);
}

// A repeatable executor writes the value each launch finds.
TEST_P(CopyTableOneElement, ValueReadAtLaunch) {
  const CopyTableCase &c = GetParam();
  DeviceTensor dst({3, 2}, ACL_FLOAT), src({}, ACL_DOUBLE);
  src.set_values({1.5});
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  CopyArgs a{dst, src, nullptr, ACL_FLOAT};
  ASSERT_EQ(c.phase1(a, &ws, &ex), 0) << aclGetRecentErrMsg();
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  void *w = nullptr;
  if (ws) ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), 0);
  for (double v : {1.5, -2.0}) {
    src.set_values({v});
    ASSERT_EQ(c.launch(w, ws, ex, nullptr), 0) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtSynchronizeDevice(), 0);
    EXPECT_TRUE(all_equal(dst, v));
  }
  aclDestroyAclOpExecutor(ex);
  if (w) aclrtFree(w);
}

// The fills (a value, or 0).
class CopyTableFill : public ::testing::TestWithParam<CopyTableCase> {};

TEST_P(CopyTableFill, EveryDtypeOnStridedViews) {
  const CopyTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes)
    for (double value : {-7.25, 200.0, 1.0, std::numeric_limits<double>::infinity()}) {
      if (!c.has_value() ? value != 1.0 : !in_range(dt, value)) continue;  // InplaceZero: one pass per dtype
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " value " << value);
      auto t = make_view({2, 3, 4}, dt, true);
      t->poison();
      float f = static_cast<float>(value);
      aclScalar *s = aclCreateScalar(&f, ACL_FLOAT);  // the clients pass FLOAT scalars for every dtype
      ASSERT_EQ(run(c, t.get(), nullptr, s), 0) << aclGetRecentErrMsg();
      aclDestroyScalar(s);
      EXPECT_EQ(t->values(), std::vector<double>(24, c.has_value() ? convert(value, dt) : 0.0));
      EXPECT_TRUE(t->untouched_outside_view());
    }
}

TEST_P(CopyTableFill, Int64BeyondTwoTo53IsExact) {
  const CopyTableCase &c = GetParam();
  DeviceTensor t({3}, ACL_INT64);
  t.poison();
  int64_t big = (int64_t{1} << 53) + 1;
  aclScalar *s = aclCreateScalar(&big, ACL_INT64);
  ASSERT_EQ(run(c, &t, nullptr, s), 0) << aclGetRecentErrMsg();
  aclDestroyScalar(s);
  int64_t got[3];
  std::memcpy(got, t.data(), sizeof(got));
  for (int64_t g : got) EXPECT_EQ(g, c.has_value() ? big : 0);
}

class CopyTable : public ::testing::TestWithParam<CopyTableCase> {};

TEST_P(CopyTable, ErrorsNameTheArgument) {
  const CopyTableCase &c = GetParam();
  DeviceTensor dst({2, 3}, ACL_INT32), src({2, 3}, ACL_FLOAT);
  float one = 1;
  aclScalar *value = aclCreateScalar(&one, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto call = [&](aclTensor *d, aclTensor *s, aclScalar *v, aclDataType dt) {
    CopyArgs a{d, s, v, dt};
    return c.phase1(a, &ws, &ex);
  };
  auto fails = [&](int st, int code, const std::string &word) {
    return fails_with(st, code, {c.api.c_str(), word.c_str()});
  };
  EXPECT_TRUE(fails(call(nullptr, src, value, ACL_INT32), ACLNN_ERR_PARAM_NULLPTR, c.dst_name));
  if (c.has_src()) {
    EXPECT_TRUE(fails(call(dst, nullptr, value, ACL_INT32), ACLNN_ERR_PARAM_NULLPTR, c.src_name));
    DeviceTensor wrong({4, 3}, ACL_FLOAT);
    EXPECT_TRUE(fails(call(dst, wrong, value, ACL_INT32), ACLNN_ERR_PARAM_INVALID, "[4, 3]"));
    if (c.one_element) {
      DeviceTensor col({2, 1}, ACL_FLOAT), one11({1, 1}, ACL_FLOAT);
      EXPECT_TRUE(fails(call(dst, col, value, ACL_INT32), ACLNN_ERR_PARAM_INVALID, c.src_name));
      EXPECT_TRUE(fails(call(dst, one11, value, ACL_INT32), ACLNN_ERR_PARAM_INVALID, "[1, 1]"));
    } else if (c.broadcast) {
      DeviceTensor col({2, 1}, ACL_FLOAT);
      ASSERT_EQ(call(dst, col, value, ACL_INT32), 0) << aclGetRecentErrMsg();
      aclDestroyAclOpExecutor(ex);
    } else {
      DeviceTensor col({2, 1}, ACL_FLOAT);
      EXPECT_TRUE(fails(call(dst, col, value, ACL_INT32), ACLNN_ERR_PARAM_INVALID, c.dst_name));
    }
  }
  if (c.has_value()) EXPECT_TRUE(fails(call(dst, nullptr, nullptr, ACL_INT32), ACLNN_ERR_PARAM_NULLPTR, c.value_name));
  {  // a destination dtype outside the rule
    DeviceTensor u16({2, 3}, ACL_UINT16), one({}, ACL_INT32);
    EXPECT_TRUE(fails(call(u16, c.has_src() ? one.get() : nullptr, value, ACL_UINT16), ACLNN_ERR_PARAM_INVALID, c.dst_name));
  }
  if (!c.dtype_name.empty()) {
    EXPECT_TRUE(fails(call(dst, src, value, ACL_FLOAT16), ACLNN_ERR_PARAM_INVALID, "FLOAT16"));
    EXPECT_TRUE(fails(call(dst, src, value, ACL_FLOAT16), ACLNN_ERR_PARAM_INVALID, "INT32"));
    EXPECT_TRUE(fails(call(dst, src, value, ACL_COMPLEX64), ACLNN_ERR_PARAM_INVALID, "COMPLEX64"));
  }
  aclDestroyScalar(value);
}

INSTANTIATE_TEST_SUITE_P(Tables, CopyTable, ::testing::ValuesIn(all_cases()), harness::case_name<CopyTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, CopyTableSource,
                         ::testing::ValuesIn(cases_where([](const CopyTableCase &c) { return c.has_src() && !c.one_element; })),
                         harness::case_name<CopyTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, CopyTableOneElement,
                         ::testing::ValuesIn(cases_where([](const CopyTableCase &c) { return c.one_element; })),
                         harness::case_name<CopyTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, CopyTableFill,
                         ::testing::ValuesIn(cases_where([](const CopyTableCase &c) { return !c.has_src(); })),
                         harness::case_name<CopyTableCase>);

}  // namespace
}  // namespace opsnn::test
