// aclnnInit / aclnnFinalize (aclnn/aclnn_base.h) and aclDumpOpTensors (aclnn/acl_meta.h).
#include "aclnn/aclnn_base.h"
#include "common/error.h"
#include "common/log.h"
#include "core/tensor.h"
#include "runtime/runtime.h"

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnInit(const char *configPath) {
  // The configuration file only carries NPU debug switches; the CPU runtime needs none of them.
  (void)configPath;
  opsnn::rt::ensure_initialized();
  return ACLNN_SUCCESS;
}

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnFinalize() { return ACLNN_SUCCESS; }

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclDumpOpTensors(const char *opType, const char *opName,
                                                            aclTensor **tensors, size_t inputTensorNum,
                                                            size_t outputTensorNum, aclrtStream stream) {
  if (opType == nullptr) return opsnn::fail(ACLNN_ERR_PARAM_NULLPTR, "aclDumpOpTensors: opType is null");
  if (tensors == nullptr && inputTensorNum + outputTensorNum > 0)
    return opsnn::fail(ACLNN_ERR_PARAM_NULLPTR, "aclDumpOpTensors: tensors is null");
  // Dumping writes the tensor descriptors to the debug log (data dumps are a later feature).
  for (size_t i = 0; i < inputTensorNum + outputTensorNum; ++i) {
    const aclTensor *t = tensors[i];
    if (!t) continue;
    OPSNN_LOG(opsnn::LogLevel::kDebug, "dump %s/%s %s %zu: dims %s dtype %d addr %p", opType, opName ? opName : "",
              i < inputTensorNum ? "input" : "output", i, opsnn::core::shape_string(*t).c_str(),
              static_cast<int>(t->dtype), t->data);
  }
  (void)stream;
  return ACLNN_SUCCESS;
}
