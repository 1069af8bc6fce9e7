#include "ops/copy/copy_common.h"

#include "core/dtype.h"

namespace opsnn::ops {

aclDataType conversion_compute_dtype(aclDataType from, aclDataType to) {
  if (core::is_integral(from, true) && core::is_integral(to, true)) return ACL_INT64;
  auto fits_float = [](aclDataType dt) {
    return dt == ACL_FLOAT || dt == ACL_FLOAT16 || dt == ACL_BF16 || dt == ACL_BOOL || dt == ACL_INT8 ||
           dt == ACL_UINT8 || dt == ACL_INT16;
  };
  return fits_float(from) && fits_float(to) ? ACL_FLOAT : ACL_DOUBLE;
}

}  // namespace opsnn::ops
