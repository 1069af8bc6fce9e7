// aclOpExecutor::small (core/executor.h): phase 1 marks a launch small when its tensors and
// workspace take at most kSmallLaunchBytes; such a launch may run inline on any idle stream
// (runtime.h, InlineRule::kIfIdle; the rule itself: tests/runtime/test_launch_path.cpp).
#include "aclnnop/aclnn_add.h"
#include "core/executor.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

bool small_add(int64_t n) {
  DeviceTensor a({n}, ACL_FLOAT), b({n}, ACL_FLOAT), out({n}, ACL_FLOAT);
  float one = 1;
  aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor *handle = nullptr;
  EXPECT_EQ(aclnnAddGetWorkspaceSize(a, b, alpha, out, &ws, &handle), 0) << aclGetRecentErrMsg();
  aclDestroyScalar(alpha);
  const aclOpExecutor *ex = core::resolve_executor(handle);
  EXPECT_NE(ex, nullptr);
  const bool small = ex != nullptr && ex->small;
  aclDestroyAclOpExecutor(handle);
  return small;
}

TEST(SmallLaunch, PhaseOneMarksLaunchesByTheBytesTheyTouch) {
  const int64_t limit = static_cast<int64_t>(core::kSmallLaunchBytes / (3 * sizeof(float)));
  EXPECT_TRUE(small_add(16));
  EXPECT_TRUE(small_add(limit));        // 3 tensors of `limit` floats: exactly the bound
  EXPECT_FALSE(small_add(limit + 1));
  EXPECT_FALSE(small_add(1 << 20));
}

}  // namespace
}  // namespace opsnn::test
