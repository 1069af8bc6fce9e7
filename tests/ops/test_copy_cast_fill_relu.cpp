// Cast, InplaceCopy, InplaceFillScalar, InplaceFillTensor, InplaceZero, Relu / InplaceRelu: every supported dtype
// pair, strided and broadcast views, special values; compared exactly where the conversion is
// exact and per precision.md otherwise.
#include <cmath>
#include <cstring>
#include <limits>

#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_fill_scalar.h"
#include "aclnnop/aclnn_fill_tensor.h"
#include "aclnnop/aclnn_relu.h"
#include "aclnnop/aclnn_zero.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

const aclDataType kTypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8,
                              ACL_INT16, ACL_INT32,   ACL_INT64, ACL_UINT8, ACL_BOOL};
bool is_float(aclDataType dt) { return dt == ACL_FLOAT || dt == ACL_FLOAT16 || dt == ACL_BF16 || dt == ACL_DOUBLE; }

// Conversion of one value as defined for Cast: round to nearest for floats, truncation toward zero
// for float -> integer (NaN -> 0), wrap-around between integers, != 0 for BOOL.
double convert(double v, aclDataType to) {
  if (to == ACL_BOOL) return v != 0;
  if (!is_float(to)) {
    if (std::isnan(v)) return 0;
    return round_to(to, std::trunc(v));
  }
  return round_to(to, v);
}

std::unique_ptr<DeviceTensor> transposed_view(const std::vector<int64_t> &shape, aclDataType dt) {
  // Reverse storage order of the dims, with an offset.
  std::vector<int64_t> strides(shape.size());
  int64_t acc = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    strides[i] = acc;
    acc *= shape[i];
  }
  return std::make_unique<DeviceTensor>(shape, dt, strides, 3);
}

TEST(Cast, EveryDtypePairOnStridedViews) {
  reseed_for_current_test();
  for (aclDataType from : kTypes) {
    for (aclDataType to : kTypes) {
      SCOPED_TRACE(::testing::Message() << "cast " << from << " -> " << to);
      auto in = transposed_view({3, 4, 5}, from);
      in->fill_random(from == ACL_UINT8 ? 0 : -100, 100);
      DeviceTensor out({3, 4, 5}, to);
      out.poison();
      ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnCastGetWorkspaceSize(*in, to, out, w, e); },
                       aclnnCast), 0) << aclGetRecentErrMsg();
      auto v = in->values();
      for (auto &x : v) x = convert(x, to);
      EXPECT_TRUE(meets_precision(to, out.values(), v));
      EXPECT_TRUE(out.untouched_outside_view());
    }
  }
}

TEST(Cast, SpecialValues) {
  DeviceTensor in({6}, ACL_FLOAT), to_i32({6}, ACL_INT32), to_h({6}, ACL_FLOAT16), to_b({6}, ACL_BOOL);
  in.set_values({NAN, INFINITY, -INFINITY, 70000.0, -2.75, 1e-8});
  auto cast = [&](DeviceTensor &out) {
    return run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnCastGetWorkspaceSize(in, out.dtype(), out, w, e); },
                  aclnnCast);
  };
  ASSERT_EQ(cast(to_h), 0);
  auto h = to_h.values();
  EXPECT_TRUE(std::isnan(h[0]));
  EXPECT_EQ(h[1], INFINITY);
  EXPECT_EQ(h[2], -INFINITY);
  EXPECT_EQ(h[3], INFINITY);  // beyond the FLOAT16 range
  EXPECT_EQ(h[4], -2.75);
  ASSERT_EQ(cast(to_i32), 0);
  auto i = to_i32.values();
  EXPECT_EQ(i[0], 0);  // NaN -> 0 as documented
  EXPECT_EQ(i[3], 70000);
  EXPECT_EQ(i[4], -2);
  ASSERT_EQ(cast(to_b), 0);
  EXPECT_EQ(to_b.values(), (std::vector<double>{1, 1, 1, 1, 1, 1}));
}

TEST(Cast, Errors) {
  DeviceTensor in({2, 3}, ACL_FLOAT), out({2, 3}, ACL_INT32), wrong({3, 2}, ACL_INT32);
  uint64_t ws;
  aclOpExecutor *ex;
  EXPECT_TRUE(fails_with(aclnnCastGetWorkspaceSize(in, ACL_FLOAT16, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"out", "FLOAT16", "INT32"}));
  EXPECT_TRUE(fails_with(aclnnCastGetWorkspaceSize(in, ACL_INT32, wrong, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"out", "[3, 2]"}));
  EXPECT_TRUE(fails_with(aclnnCastGetWorkspaceSize(nullptr, ACL_INT32, out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"aclnnCast", "self"}));
  EXPECT_TRUE(fails_with(aclnnCastGetWorkspaceSize(in, ACL_COMPLEX64, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"COMPLEX64"}));
}

TEST(InplaceCopy, BroadcastConvertIntoStridedDestination) {
  reseed_for_current_test();
  for (aclDataType from : kTypes) {
    for (aclDataType to : {ACL_FLOAT, ACL_FLOAT16, ACL_INT32, ACL_BF16, ACL_INT64}) {
      SCOPED_TRACE(::testing::Message() << "copy " << from << " -> " << to);
      auto dst = transposed_view({4, 3, 5}, to);
      dst->poison();
      DeviceTensor src({3, 1}, from);  // broadcasts over dims 0 and 2
      src.fill_random(from == ACL_UINT8 ? 0 : -50, 50);
      ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceCopyGetWorkspaceSize(*dst, src, w, e); },
                       aclnnInplaceCopy), 0) << aclGetRecentErrMsg();
      auto sv = src.values();
      std::vector<double> golden(60);
      for (int64_t i = 0; i < 60; ++i) golden[static_cast<size_t>(i)] = convert(sv[static_cast<size_t>(unravel(i, {4, 3, 5})[1])], to);
      EXPECT_TRUE(meets_precision(to, dst->values(), golden));
      EXPECT_TRUE(dst->untouched_outside_view());
    }
  }
}

TEST(InplaceCopy, ErrorsAndEmpty) {
  DeviceTensor dst({2, 3}, ACL_FLOAT), bigger({4, 3}, ACL_FLOAT), empty({0, 3}, ACL_FLOAT), empty_src({0, 3}, ACL_FLOAT);
  uint64_t ws;
  aclOpExecutor *ex;
  EXPECT_TRUE(fails_with(aclnnInplaceCopyGetWorkspaceSize(dst, bigger, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"src", "[4, 3]", "selfRef"}));
  EXPECT_TRUE(fails_with(aclnnInplaceCopyGetWorkspaceSize(nullptr, dst, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"selfRef"}));
  EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceCopyGetWorkspaceSize(empty, empty_src, w, e); },
                   aclnnInplaceCopy), 0);
}

TEST(Fill, ScalarAndZeroOnEveryDtype) {
  for (aclDataType dt : kTypes) {
    SCOPED_TRACE(::testing::Message() << "dtype " << dt);
    auto t = transposed_view({2, 3, 4}, dt);
    t->poison();
    double value = dt == ACL_UINT8 ? 200 : dt == ACL_BOOL ? 1 : -7.25;
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) {
                float f = static_cast<float>(value);
                aclScalar *s = aclCreateScalar(&f, ACL_FLOAT);  // clients pass FLOAT scalars for every dtype
                int rc = aclnnInplaceFillScalarGetWorkspaceSize(*t, s, w, e);
                aclDestroyScalar(s);
                return rc;
              }, aclnnInplaceFillScalar), 0) << aclGetRecentErrMsg();
    EXPECT_EQ(t->values(), std::vector<double>(24, convert(value, dt)));
    EXPECT_TRUE(t->untouched_outside_view());
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceZeroGetWorkspaceSize(*t, w, e); },
                     aclnnInplaceZero), 0);
    EXPECT_EQ(t->values(), std::vector<double>(24, 0.0));
  }
}

TEST(Fill, LargeInt64ValueIsExact) {
  DeviceTensor t({3}, ACL_INT64);
  int64_t big = (int64_t{1} << 53) + 1;
  aclScalar *s = aclCreateScalar(&big, ACL_INT64);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceFillScalarGetWorkspaceSize(t, s, w, e); },
                   aclnnInplaceFillScalar), 0);
  int64_t got[3];
  std::memcpy(got, t.data(), sizeof(got));
  EXPECT_EQ(got[0], big);
  EXPECT_EQ(got[2], big);
  aclDestroyScalar(s);
}

// torch.can_cast, written out: no floating -> integral / BOOL, no non-BOOL -> BOOL.
bool castable(aclDataType from, aclDataType to) {
  if (to == ACL_BOOL) return from == ACL_BOOL;
  return !(is_float(from) && !is_float(to));
}

int fill_tensor(aclTensor *self, aclTensor *value) {
  return run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceFillTensorGetWorkspaceSize(self, value, w, e); },
                aclnnInplaceFillTensor);
}

::testing::AssertionResult all_equal(const DeviceTensor &t, double want) {
  for (double v : t.values()) {
    const bool same = (std::isnan(v) && std::isnan(want)) || (v == want && std::signbit(v) == std::signbit(want));
    if (!same) return ::testing::AssertionFailure() << v << " vs expected " << want;
  }
  return ::testing::AssertionSuccess();
}

// Every castable (value, selfRef) dtype pair; selfRef transposed + offset, 1-D, 0-d and empty; value
// 0-d or a [1] view at an offset; values with NaN, infinities and -0.0 (sign kept).
TEST(FillTensor, EveryCastablePairShapeAndSpecialValue) {
  reseed_for_current_test();
  const double floats[] = {-7.25, 3.5e38, NAN, INFINITY, -INFINITY, -0.0, 1e-30};
  int checked = 0;
  for (aclDataType sdt : kTypes)
    for (aclDataType vdt : kTypes) {
      if (!castable(vdt, sdt)) continue;
      for (int form = 0; form < 4; ++form) {
        SCOPED_TRACE(::testing::Message() << "value " << vdt << " -> selfRef " << sdt << " form " << form);
        std::unique_ptr<DeviceTensor> self = form == 0   ? transposed_view({2, 3, 4}, sdt)
                                             : form == 1 ? std::make_unique<DeviceTensor>(std::vector<int64_t>{5}, sdt)
                                             : form == 2 ? std::make_unique<DeviceTensor>(std::vector<int64_t>{}, sdt)
                                                         : std::make_unique<DeviceTensor>(std::vector<int64_t>{0, 3}, sdt);
        self->poison();
        std::unique_ptr<DeviceTensor> value =
            form % 2 ? std::make_unique<DeviceTensor>(std::vector<int64_t>{1}, vdt, std::vector<int64_t>{1}, 2, 4)
                     : std::make_unique<DeviceTensor>(std::vector<int64_t>{}, vdt);
        const double v = is_float(vdt) ? floats[std::uniform_int_distribution<int>(0, 6)(rng())]
                         : vdt == ACL_BOOL ? 1
                         : vdt == ACL_UINT8 ? 201
                                            : -37;
        value->set_values({v});
        ASSERT_EQ(fill_tensor(*self, *value), 0) << aclGetRecentErrMsg();
        EXPECT_TRUE(all_equal(*self, convert(value->values()[0], sdt)));
        EXPECT_TRUE(self->untouched_outside_view());
        ++checked;
      }
    }
  EXPECT_GT(checked, 100);
}

// The value is read when the launch runs: a repeatable executor fills with the value of each launch.
TEST(FillTensor, ValueReadAtLaunch) {
  DeviceTensor self({3, 2}, ACL_FLOAT), value({}, ACL_DOUBLE);
  value.set_values({1.5});
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(aclnnInplaceFillTensorGetWorkspaceSize(self, value, &ws, &ex), 0) << aclGetRecentErrMsg();
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  void *w = nullptr;
  if (ws) ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), 0);
  for (double v : {1.5, -2.0}) {
    value.set_values({v});
    ASSERT_EQ(aclnnInplaceFillTensor(w, ws, ex, nullptr), 0) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtSynchronizeDevice(), 0);
    EXPECT_TRUE(all_equal(self, v));
  }
  aclDestroyAclOpExecutor(ex);
  if (w) aclrtFree(w);
}

TEST(FillTensor, Errors) {
  DeviceTensor self({2, 3}, ACL_INT32), v0({}, ACL_INT32), v2({2}, ACL_INT32), v11({1, 1}, ACL_INT32),
      vf({}, ACL_FLOAT), boolself({2}, ACL_BOOL), u16({2}, ACL_UINT16);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_TRUE(fails_with(aclnnInplaceFillTensorGetWorkspaceSize(nullptr, v0, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"selfRef"}));
  EXPECT_TRUE(fails_with(aclnnInplaceFillTensorGetWorkspaceSize(self, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"value"}));
  EXPECT_TRUE(fails_with(aclnnInplaceFillTensorGetWorkspaceSize(self, v2, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"value", "[2]"}));
  EXPECT_TRUE(fails_with(aclnnInplaceFillTensorGetWorkspaceSize(self, v11, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"value", "[1, 1]"}));
  EXPECT_TRUE(fails_with(aclnnInplaceFillTensorGetWorkspaceSize(self, vf, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"value", "FLOAT", "INT32"}));
  EXPECT_TRUE(fails_with(aclnnInplaceFillTensorGetWorkspaceSize(boolself, v0, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"value", "BOOL"}));
  EXPECT_TRUE(fails_with(aclnnInplaceFillTensorGetWorkspaceSize(u16, v0, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"selfRef"}));
}

TEST(Relu, DtypesStridesSpecialValues) {
  reseed_for_current_test();
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8, ACL_INT32, ACL_INT64}) {
    SCOPED_TRACE(::testing::Message() << "dtype " << dt);
    auto in = transposed_view({5, 7, 3}, dt);
    in->fill_random(-10, 10);
    DeviceTensor out({5, 7, 3}, dt);
    out.poison();
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnReluGetWorkspaceSize(*in, out, w, e); }, aclnnRelu), 0);
    auto v = in->values();
    for (auto &x : v) x = x > 0 ? x : 0;
    EXPECT_TRUE(meets_precision(dt, out.values(), v));
    EXPECT_TRUE(out.untouched_outside_view());
  }
  DeviceTensor s({4}, ACL_FLOAT);
  s.set_values({NAN, -INFINITY, INFINITY, -0.0});
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceReluGetWorkspaceSize(s, w, e); }, aclnnInplaceRelu), 0);
  auto v = s.values();
  EXPECT_TRUE(std::isnan(v[0]));  // NaN propagates, as in PyTorch
  EXPECT_EQ(v[1], 0);
  EXPECT_EQ(v[2], INFINITY);
}

TEST(Relu, InplaceUint8AndErrors) {
  DeviceTensor u({4}, ACL_UINT8), boolt({4}, ACL_BOOL), out({5}, ACL_FLOAT), f({4}, ACL_FLOAT);
  u.set_values({0, 1, 200, 255});
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceReluGetWorkspaceSize(u, w, e); }, aclnnInplaceRelu), 0);
  EXPECT_EQ(u.values(), (std::vector<double>{0, 1, 200, 255}));
  uint64_t ws;
  aclOpExecutor *ex;
  EXPECT_TRUE(fails_with(aclnnReluGetWorkspaceSize(boolt, boolt, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"self", "BOOL"}));
  EXPECT_TRUE(fails_with(aclnnReluGetWorkspaceSize(f, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"out", "[5]", "[4]"}));
  EXPECT_TRUE(fails_with(aclnnReluGetWorkspaceSize(f, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"out"}));
}

}  // namespace
}  // namespace opsnn::test
