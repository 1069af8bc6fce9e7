// The dtypes stored two elements a byte, low nibble first (INT4, FLOAT4_E2M1, FLOAT4_E1M2): their views'
// offsets and strides count nibbles.
#pragma once

#include "acl/acl_base.h"

namespace opsnn::core {

inline bool dtype_packs_two(aclDataType dt) { return dt == ACL_INT4 || dt == ACL_FLOAT4_E2M1 || dt == ACL_FLOAT4_E1M2; }

}  // namespace opsnn::core
