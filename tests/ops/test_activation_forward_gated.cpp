// Forward activations with two inputs: AddRelu (the INT8 wrap before the relu), Prelu and RReluWithNoise.
// (Heaviside and AddRelu also run the n-ary harness: src/ops/activation/activation_binary.ops; the
// GLU family runs the gated harness: tests/ops/test_op_table_gated.cpp.)
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

#include "aclnnop/aclnn_add_relu.h"
#include "aclnnop/aclnn_prelu.h"
#include "aclnnop/aclnn_rrelu_with_noise.h"
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

TEST(ActivationBinary, PreluChannelAndSingleWeight) {
  reseed_for_current_test();
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
    for (int64_t nw : {1, 3}) {
      SCOPED_TRACE(::testing::Message() << "dtype " << dt << " weights " << nw);
      auto x = transposed_view({2, 3, 4}, dt);
      x->fill_random(-3, 3);
      DeviceTensor w({nw}, dt), out({2, 3, 4}, dt);
      w.fill_random(0.1, 0.9);
      out.poison();
      ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **e) { return aclnnPreluGetWorkspaceSize(*x, w, out, ws, e); }, aclnnPrelu), 0)
          << aclGetRecentErrMsg();
      auto xv = x->values(), wv = w.values();
      for (size_t i = 0; i < xv.size(); ++i) {
        const double wt = wv[nw == 1 ? 0 : unravel(static_cast<int64_t>(i), {2, 3, 4})[1]];
        xv[i] = round_to(dt, xv[i] > 0 ? xv[i] : wt * xv[i]);
      }
      EXPECT_TRUE(meets_precision(dt, out.values(), xv));
    }
  }
  uint64_t ws;
  aclOpExecutor *ex;
  DeviceTensor x({2, 3, 4}, ACL_FLOAT), w2({2}, ACL_FLOAT), o({2, 3, 4}, ACL_FLOAT);
  EXPECT_TRUE(fails_with(aclnnPreluGetWorkspaceSize(x, w2, o, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"weight", "channels"}));
}

TEST(ActivationBinary, RReluWithNoiseEvalAndTraining) {
  reseed_for_current_test();
  DeviceTensor x({3, 4}, ACL_FLOAT), noise({3, 4}, ACL_FLOAT), out({3, 4}, ACL_FLOAT);
  x.fill_random(-2, 2);
  noise.fill_random(0.1, 0.3);
  float lo = 0.125f, hi = 0.375f;
  aclScalar *l = aclCreateScalar(&lo, ACL_FLOAT), *h = aclCreateScalar(&hi, ACL_FLOAT);
  for (bool training : {false, true}) {
    SCOPED_TRACE(training);
    out.poison();
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnRReluWithNoiseGetWorkspaceSize(x, noise, l, h, training, 1, 0, out, w, e); },
                     aclnnRReluWithNoise), 0)
        << aclGetRecentErrMsg();
    auto xv = x.values(), nv = noise.values();
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = xv[i] > 0 ? xv[i] : xv[i] * (training ? nv[i] : 0.25);
    EXPECT_TRUE(meets_precision(ACL_FLOAT, out.values(), xv));
  }
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceRReluWithNoiseGetWorkspaceSize(x, noise, l, h, false, 1, 0, w, e); },
                   aclnnInplaceRReluWithNoise), 0);
  uint64_t ws;
  aclOpExecutor *ex;
  DeviceTensor small({5}, ACL_FLOAT);
  EXPECT_TRUE(fails_with(aclnnRReluWithNoiseGetWorkspaceSize(x, small, l, h, true, 1, 0, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"noise"}));
  aclDestroyScalar(l);
  aclDestroyScalar(h);
}

}  // namespace
}  // namespace opsnn::test
