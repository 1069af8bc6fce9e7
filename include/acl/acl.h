/* OpsNN — umbrella header of the ACL runtime API (CPU implementation). */
#ifndef OPSNN_ACL_H_
#define OPSNN_ACL_H_

#include "acl_rt.h"
#include "acl_op.h"
#include "acl_mdl.h"

#endif /* OPSNN_ACL_H_ */
