/* OpsNN — single-operator execution API. OpsNN exposes operators through the aclnn two-phase
 * API (aclnnop/ headers); this header exists so that clients including it still build. */
#ifndef OPSNN_ACL_OP_H_
#define OPSNN_ACL_OP_H_

#include "acl_base.h"

#endif /* OPSNN_ACL_OP_H_ */
