// Shared by the data-movement ops (Cast, InplaceCopy, fills).
#pragma once

#include "acl/acl_base.h"

namespace opsnn::ops {

// The dtype whose compute type converts exactly between `from` and `to`: INT64 between integers
// (and bool), DOUBLE when either side needs more than float's 24-bit mantissa, else FLOAT.
aclDataType conversion_compute_dtype(aclDataType from, aclDataType to);

}  // namespace opsnn::ops
