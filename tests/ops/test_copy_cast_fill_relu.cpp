// Relu / InplaceRelu: every supported dtype, strided views, special values. (Cast, InplaceCopy,
// InplaceFillScalar and InplaceZero are the copy table's: tests/ops/test_op_table_copy.cpp.)
#include <cmath>

#include "aclnnop/aclnn_relu.h"
#include "test_util.h"

namespace opsnn::test {
namespace {


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
