// OpsNN example: the smallest complete aclnn client.
// out = self + alpha * other on a 2 x 4 FLOAT tensor: copy in, two-phase launch, copy out, check.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"

#define CHECK_RET(expr)                                                                      \
  do {                                                                                       \
    const long rc_ = static_cast<long>(expr);                                                \
    if (rc_ != 0) {                                                                          \
      const char *msg_ = aclGetRecentErrMsg();                                               \
      std::fprintf(stderr, "FAILED: %s returned %ld: %s\n", #expr, rc_, msg_ ? msg_ : ""); \
      return 1;                                                                              \
    }                                                                                        \
  } while (0)

static aclTensor *create_tensor(const std::vector<int64_t> &shape, void *deviceAddr) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) {
    strides[i] = shape[i + 1] * strides[i + 1];
  }
  return aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND,
                         shape.data(), shape.size(), deviceAddr);
}

int main() {
  const int32_t deviceId = 0;
  aclrtStream stream = nullptr;
  CHECK_RET(aclInit(nullptr));
  CHECK_RET(aclrtSetDevice(deviceId));
  CHECK_RET(aclrtCreateStream(&stream));

  const std::vector<int64_t> shape = {2, 4};
  const std::vector<float> selfHost = {0, 1, 2, 3, 4, 5, 6, 7};
  const std::vector<float> otherHost = {1, 1, 1, 1, -2, -2, -2, -2};
  float alphaValue = 1.5f;
  const size_t bytes = selfHost.size() * sizeof(float);

  void *selfDev = nullptr;
  void *otherDev = nullptr;
  void *outDev = nullptr;
  CHECK_RET(aclrtMalloc(&selfDev, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_RET(aclrtMalloc(&otherDev, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_RET(aclrtMalloc(&outDev, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_RET(aclrtMemcpy(selfDev, bytes, selfHost.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK_RET(aclrtMemcpy(otherDev, bytes, otherHost.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));

  aclTensor *self = create_tensor(shape, selfDev);
  aclTensor *other = create_tensor(shape, otherDev);
  aclTensor *out = create_tensor(shape, outDev);
  aclScalar *alpha = aclCreateScalar(&alphaValue, ACL_FLOAT);
  if (self == nullptr || other == nullptr || out == nullptr || alpha == nullptr) {
    std::fprintf(stderr, "FAILED: creating tensors/scalar: %s\n", aclGetRecentErrMsg());
    return 1;
  }

  // Phase 1: check, plan, and get the workspace size and the executor.
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor = nullptr;
  CHECK_RET(aclnnAddGetWorkspaceSize(self, other, alpha, out, &workspaceSize, &executor));
  void *workspace = nullptr;
  if (workspaceSize > 0) {
    CHECK_RET(aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST));
  }
  // Phase 2: launch on the stream (asynchronous), then wait.
  CHECK_RET(aclnnAdd(workspace, workspaceSize, executor, stream));
  CHECK_RET(aclrtSynchronizeStream(stream));

  std::vector<float> result(selfHost.size(), 0.0f);
  CHECK_RET(aclrtMemcpy(result.data(), bytes, outDev, bytes, ACL_MEMCPY_DEVICE_TO_HOST));

  int bad = 0;
  std::printf("aclnnAdd: out = self + %.1f * other\n", static_cast<double>(alphaValue));
  for (size_t i = 0; i < result.size(); ++i) {
    const float want = selfHost[i] + alphaValue * otherHost[i];
    const bool ok = std::fabs(result[i] - want) <= 1e-6f * (1.0f + std::fabs(want));
    bad += ok ? 0 : 1;
    std::printf("  out[%zu] = %g + %g * %g = %g%s\n", i, static_cast<double>(selfHost[i]),
                static_cast<double>(alphaValue), static_cast<double>(otherHost[i]),
                static_cast<double>(result[i]), ok ? "" : "   <-- WRONG");
  }

  aclDestroyTensor(self);
  aclDestroyTensor(other);
  aclDestroyTensor(out);
  aclDestroyScalar(alpha);
  if (workspace != nullptr) CHECK_RET(aclrtFree(workspace));
  CHECK_RET(aclrtFree(selfDev));
  CHECK_RET(aclrtFree(otherDev));
  CHECK_RET(aclrtFree(outDev));
  CHECK_RET(aclrtDestroyStream(stream));
  CHECK_RET(aclrtResetDevice(deviceId));
  CHECK_RET(aclFinalize());

  std::printf("RESULT: %s\n", bad == 0 ? "OK" : "FAILED");
  return bad == 0 ? 0 : 1;
}
