// AddRelu / InplaceAddRelu beyond the n-ary harness (src/ops/activation/activation_binary.ops): the INT8
// wrap-around of the sum before the relu, broadcasting, alpha and the in-place form on transposed views.
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

#include "aclnnop/aclnn_add_relu.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

TEST(ActivationBinary, AddReluBroadcastAlphaInplace) {
  reseed_for_current_test();
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_INT32, ACL_INT8}) {
    SCOPED_TRACE(::testing::Message() << "dtype " << dt);
    auto a = transposed_view({4, 3, 5}, dt);
    DeviceTensor b({3, 1}, dt), out({4, 3, 5}, dt);
    a->fill_random(-20, 20);
    b.fill_random(-20, 20);
    const bool fl = dt == ACL_FLOAT || dt == ACL_FLOAT16 || dt == ACL_BF16;
    double alpha_v = fl ? 1.5 : 2;
    float af = static_cast<float>(alpha_v);
    int32_t ai = static_cast<int32_t>(alpha_v);
    aclScalar *alpha = fl ? aclCreateScalar(&af, ACL_FLOAT) : aclCreateScalar(&ai, ACL_INT32);
    out.poison();
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnAddReluGetWorkspaceSize(*a, b, alpha, out, w, e); }, aclnnAddRelu), 0)
        << aclGetRecentErrMsg();
    auto av = a->values(), bv = b.values();
    std::vector<double> gold(av.size());
    for (size_t i = 0; i < av.size(); ++i) {
      auto idx = unravel(static_cast<int64_t>(i), {4, 3, 5});
      double r = av[i] + alpha_v * bv[broadcast_source(idx, {4, 3, 5}, {3, 1})];
      if (dt == ACL_INT8) r = round_to(ACL_INT8, r);  // wraps in the result dtype before the relu
      gold[i] = round_to(dt, r > 0 ? r : 0);
    }
    EXPECT_TRUE(meets_precision(dt, out.values(), gold));
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceAddReluGetWorkspaceSize(*a, b, alpha, w, e); }, aclnnInplaceAddRelu), 0)
        << aclGetRecentErrMsg();
    EXPECT_TRUE(meets_precision(dt, a->values(), gold));
    uint64_t ws;
    aclOpExecutor *ex;
    DeviceTensor small({3, 1}, dt);
    EXPECT_TRUE(fails_with(aclnnInplaceAddReluGetWorkspaceSize(small, *a, alpha, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"selfRef"}));
    aclDestroyScalar(alpha);
  }
}

}  // namespace
}  // namespace opsnn::test
