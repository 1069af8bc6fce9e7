/* OpsNN — aclnn library initialisation. */
#ifndef OPSNN_ACLNN_BASE_H_
#define OPSNN_ACLNN_BASE_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnInit(const char *configPath);
ACL_FUNC_VISIBILITY aclnnStatus aclnnFinalize();

#ifdef __cplusplus
}
#endif

#endif /* OPSNN_ACLNN_BASE_H_ */
