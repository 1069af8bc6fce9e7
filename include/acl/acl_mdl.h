/* OpsNN — offline-model API. Offline models are not supported; the graph-capture API
 * (aclmdlRI*) is declared in acl_rt.h. This header exists so that clients including it build. */
#ifndef OPSNN_ACL_MDL_H_
#define OPSNN_ACL_MDL_H_

#include "acl_rt.h"

#endif /* OPSNN_ACL_MDL_H_ */
