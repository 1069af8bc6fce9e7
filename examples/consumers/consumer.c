/* A C11 client of the install tree: runtime + tensor API, no operator.
 * Built twice by tools/main_job.sh: via find_package(OpsNN) and via pkg-config. */
#include <stdio.h>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

int main(void) {
  if (aclInit(NULL) != ACL_SUCCESS) {
    fprintf(stderr, "aclInit failed: %s\n", aclGetRecentErrMsg());
    return 1;
  }
  uint32_t count = 0;
  if (aclrtGetDeviceCount(&count) != ACL_SUCCESS || count < 1) {
    fprintf(stderr, "aclrtGetDeviceCount failed\n");
    return 1;
  }
  const int64_t shape[2] = {2, 3};
  const int64_t strides[2] = {3, 1};
  aclTensor *t = aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 2, NULL);
  if (t == NULL) {
    fprintf(stderr, "aclCreateTensor failed: %s\n", aclGetRecentErrMsg());
    return 1;
  }
  aclDataType dt = ACL_DT_UNDEFINED;
  if (aclGetDataType(t, &dt) != ACLNN_SUCCESS || dt != ACL_FLOAT) {
    fprintf(stderr, "aclGetDataType returned a wrong type\n");
    return 1;
  }
  aclDestroyTensor(t);
  const char *soc = aclrtGetSocName();
  printf("consumer: %u device(s), soc \"%s\": OK\n", (unsigned)count, soc ? soc : "(null)");
  aclFinalize();
  return 0;
}
