// The test harness of the tensor-list sum table (src/ops/math/accumulate.ops), cases registered from the table by
// tools/gen_ops.py --tests (accumulate_table_cases.inc). The reference adds the listed tensors in list order in
// float64, each partial sum stored as out's dtype would store it (integers wrapping), over broadcast shapes:
//   - every dtype, 1 to 5 tensors, broadcast shapes, contiguous / transposed / padded views;
//   - out sharing memory with a listed tensor (the sum goes through a workspace copy), empty outputs;
//   - the errors: nulls, an empty list, dtypes, shapes that do not broadcast to out's, naming the argument.
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "device_lists.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct AccumulateArgs {
  aclTensorList *tensors = nullptr;
  aclTensor *out = nullptr;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct AccumulateTableCase {
  std::string name, api;
  std::vector<aclDataType> dtypes;
  int (*phase1)(const AccumulateArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
};
void PrintTo(const AccumulateTableCase &c, std::ostream *os) { *os << c.name; }

#include "accumulate_table_cases.inc"

const std::vector<AccumulateTableCase> &all_cases() {
  static const std::vector<AccumulateTableCase> c = harness::sampled(accumulate_table_cases());
  return c;
}

using Dev = std::unique_ptr<DeviceTensor>;

// v as out's dtype stores a sum: floating types rounded, integers wrapped to their width.
double store(aclDataType dt, double v) {
  const int64_t i = static_cast<int64_t>(v);
  switch (dt) {
    case ACL_INT8: return static_cast<int8_t>(static_cast<uint8_t>(i & 0xFF));
    case ACL_UINT8: return static_cast<uint8_t>(i & 0xFF);
    case ACL_INT32: return static_cast<int32_t>(static_cast<uint32_t>(i & 0xFFFFFFFF));
    default: return round_to(dt, v);
  }
}

bool is_int(aclDataType dt) { return dt == ACL_INT8 || dt == ACL_UINT8 || dt == ACL_INT32; }

// form 0: contiguous; 1: dims reversed in storage; 2: padded with an offset.
Dev make(const std::vector<int64_t> &shape, aclDataType dt, int form) {
  if (form == 1) return transposed_view(shape, dt);
  if (form == 2) return padded_view(shape, dt, 2);
  return std::make_unique<DeviceTensor>(shape, dt);
}

void fill(DeviceTensor &t) {
  switch (t.dtype()) {
    case ACL_INT8: t.fill_random(-128, 127); break;
    case ACL_UINT8: t.fill_random(0, 255); break;
    case ACL_INT32: t.fill_random(-2147483647.0, 2147483647.0); break;  // sums wrap
    default: t.fill_random(-4, 4);
  }
}

// The list-order sum of `ins` (values in row-major view order, shapes `shapes`) broadcast to `out_shape`.
std::vector<double> reference(const std::vector<std::vector<double>> &ins, const std::vector<std::vector<int64_t>> &shapes,
                              const std::vector<int64_t> &out_shape, aclDataType dt) {
  const int64_t n = numel_of(out_shape);
  std::vector<double> acc(static_cast<size_t>(n));
  for (int64_t e = 0; e < n; ++e) {
    const std::vector<int64_t> idx = unravel(e, out_shape);
    double s = 0;
    for (size_t i = 0; i < ins.size(); ++i) {
      const double v = ins[i][static_cast<size_t>(broadcast_source(idx, out_shape, shapes[i]))];
      s = i == 0 ? v : store(dt, s + v);
    }
    acc[static_cast<size_t>(e)] = s;
  }
  return acc;
}

int run(const AccumulateTableCase &c, const AccumulateArgs &a) {
  return run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
}

::testing::AssertionResult matches(aclDataType dt, const DeviceTensor &out, const std::vector<double> &want) {
  if (!is_int(dt)) return meets_precision(dt, out.values(), want);
  const std::vector<double> got = out.values();
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i]) return ::testing::AssertionFailure() << "at " << i << ": " << got[i] << " != " << want[i];
  return ::testing::AssertionSuccess();
}

class OpTableAccumulate : public ::testing::TestWithParam<AccumulateTableCase> {};

TEST_P(OpTableAccumulate, EveryDtypeCountBroadcastAndLayout) {
  reseed_for_current_test();
  const AccumulateTableCase &c = GetParam();
  const std::vector<int64_t> out_shape{3, 4, 5};
  const std::vector<std::vector<int64_t>> shapes{{3, 4, 5}, {4, 5}, {1, 5}, {3, 1, 5}, {5}, {1}, {1, 1, 1, 1}};
  for (aclDataType dt : c.dtypes)
    for (int count : {1, 2, 3, 5})
      for (int form = 0; form < 3; ++form) {
        std::vector<Dev> ins;
        std::vector<std::vector<int64_t>> in_shapes;
        std::vector<std::vector<double>> vals;
        for (int i = 0; i < count; ++i) {
          // count 1 into a [3, 4, 5] out: a broadcast copy from the second shape when the form is odd
          std::vector<int64_t> s = shapes[static_cast<size_t>((i * 3 + form + count) % shapes.size())];
          if (s.size() > out_shape.size()) s = {1, 4, 1};
          in_shapes.push_back(s);
          ins.push_back(make(s, dt, form));
          fill(*ins.back());
          vals.push_back(ins.back()->values());
        }
        SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " tensors " << count << " form " << form);
        Dev out = make(out_shape, dt, (form + 1) % 3);
        out->poison();
        auto list = list_of(ins);
        ASSERT_EQ(run(c, {list.get(), out->get()}), 0) << aclGetRecentErrMsg();
        EXPECT_TRUE(matches(dt, *out, reference(vals, in_shapes, out_shape, dt)));
        EXPECT_TRUE(out->untouched_outside_view());
        for (const Dev &d : ins) EXPECT_TRUE(d->untouched_outside_view());
      }
}

// out is also one of the listed tensors (first, middle, last): the sums read every input before out is written.
TEST_P(OpTableAccumulate, OutSharingAListedTensor) {
  reseed_for_current_test();
  const AccumulateTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes)
    for (size_t at = 0; at < 3; ++at) {
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " out at " << at);
      std::vector<Dev> ins;
      for (int i = 0; i < 3; ++i) {
        ins.push_back(std::make_unique<DeviceTensor>(std::vector<int64_t>{6, 7}, dt));
        fill(*ins.back());
      }
      std::vector<std::vector<double>> vals;
      for (const Dev &d : ins) vals.push_back(d->values());
      const std::vector<std::vector<int64_t>> shapes(3, {6, 7});
      const std::vector<double> want = reference(vals, shapes, {6, 7}, dt);
      auto list = list_of(ins);
      ASSERT_EQ(run(c, {list.get(), ins[at]->get()}), 0) << aclGetRecentErrMsg();
      EXPECT_TRUE(matches(dt, *ins[at], want));
    }
}

TEST_P(OpTableAccumulate, EmptyOutput) {
  const AccumulateTableCase &c = GetParam();
  const aclDataType dt = c.dtypes.front();
  std::vector<Dev> ins;
  ins.push_back(std::make_unique<DeviceTensor>(std::vector<int64_t>{0, 3}, dt));
  ins.push_back(std::make_unique<DeviceTensor>(std::vector<int64_t>{3}, dt));
  DeviceTensor out({0, 3}, dt);
  auto list = list_of(ins);
  EXPECT_EQ(run(c, {list.get(), out.get()}), 0) << aclGetRecentErrMsg();
}

TEST_P(OpTableAccumulate, ErrorsNameTheArgument) {
  const AccumulateTableCase &c = GetParam();
  const aclDataType dt = c.dtypes.front();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto p1 = [&](aclTensorList *l, aclTensor *o) { return c.phase1({l, o}, &ws, &ex); };
  std::vector<Dev> two;
  two.push_back(std::make_unique<DeviceTensor>(std::vector<int64_t>{4, 5}, dt));
  two.push_back(std::make_unique<DeviceTensor>(std::vector<int64_t>{5}, dt));
  auto list = list_of(two);
  DeviceTensor out({4, 5}, dt);
  EXPECT_TRUE(fails_with(p1(nullptr, out.get()), ACLNN_ERR_PARAM_NULLPTR, {"tensors"}));
  EXPECT_TRUE(fails_with(p1(list.get(), nullptr), ACLNN_ERR_PARAM_NULLPTR, {"out"}));
  {  // (a list with a null entry cannot be made: aclCreateTensorList refuses it)
    std::vector<aclTensor *> with_null{two[0]->get(), nullptr};
    EXPECT_EQ(aclCreateTensorList(with_null.data(), with_null.size()), nullptr);
  }
  {
    aclTensorList *l = aclCreateTensorList(nullptr, 0);
    EXPECT_TRUE(fails_with(p1(l, out.get()), ACLNN_ERR_PARAM_INVALID, {"tensors", "empty"}));
    aclDestroyTensorList(l);
  }
  {  // a dtype outside the row's list (on every side), a dtype unlike out's
    DeviceTensor d_out({4, 5}, ACL_DOUBLE);
    std::vector<Dev> dbl;
    dbl.push_back(std::make_unique<DeviceTensor>(std::vector<int64_t>{4, 5}, ACL_DOUBLE));
    auto dl = list_of(dbl);
    EXPECT_TRUE(fails_with(p1(dl.get(), d_out.get()), ACLNN_ERR_PARAM_INVALID, {"out"}));
    EXPECT_TRUE(fails_with(p1(dl.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"tensors[0]"}));
    const aclDataType other = dt == ACL_FLOAT ? ACL_INT32 : ACL_FLOAT;
    std::vector<Dev> mixed;
    mixed.push_back(std::make_unique<DeviceTensor>(std::vector<int64_t>{4, 5}, dt));
    mixed.push_back(std::make_unique<DeviceTensor>(std::vector<int64_t>{4, 5}, other));
    auto ml = list_of(mixed);
    EXPECT_TRUE(fails_with(p1(ml.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"tensors[1]", "dtype"}));
  }
  for (const std::vector<int64_t> &bad : {std::vector<int64_t>{3}, {2, 4, 5}, {4, 6}}) {  // no broadcast to out
    std::vector<Dev> ts;
    ts.push_back(std::make_unique<DeviceTensor>(std::vector<int64_t>{4, 5}, dt));
    ts.push_back(std::make_unique<DeviceTensor>(bad, dt));
    auto l = list_of(ts);
    EXPECT_TRUE(fails_with(p1(l.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"tensors[1]"}))
        << ::testing::PrintToString(bad);
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableAccumulate, ::testing::ValuesIn(all_cases()),
                         harness::case_name<AccumulateTableCase>);

}  // namespace
}  // namespace opsnn::test
