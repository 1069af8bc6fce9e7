/* OpsNN — shared definitions of the operator headers. */
#ifndef OPSNN_ACLNN_UTIL_H_
#define OPSNN_ACLNN_UTIL_H_

#if defined(__GNUC__) || defined(__clang__)
#define ACLNN_API __attribute__((visibility("default")))
#else
#define ACLNN_API
#endif

#endif /* OPSNN_ACLNN_UTIL_H_ */
