// aclnnInplaceFillTensor: every castable (value, selfRef) dtype pair on strided, 0-d and empty
// destinations, the value read at launch, special values, errors.
#include <cmath>
#include <cstring>
#include <limits>

#include "aclnnop/aclnn_fill_tensor.h"
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

}  // namespace
}  // namespace opsnn::test
