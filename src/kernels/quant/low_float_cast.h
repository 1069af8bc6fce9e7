// aclnnCast to and from the low-precision floats (kernels/quant/low_float.h): FLOAT / FLOAT16 / BF16 /
// FLOAT8_E4M3FN / FLOAT8_E5M2 / FLOAT4_E2M1 / FLOAT4_E1M2 to any other of them, through fp32 (exact: every
// value of the narrower types is a float). Encoding rounds half to even and does not saturate, as PyTorch's
// float8 casts: beyond the largest finite value E5M2 gives inf, E4M3FN NaN; FLOAT4 (no inf / NaN) saturates
// and takes NaN to 0. Both tensors are walked as rows along their last dim (any strides; FLOAT4 views count
// nibbles and are contiguous).
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "kernels/quant/mx_quant.h"

namespace opsnn::kernels {

struct LfCastPlan {
  MxLines src, dst;  // rows: pre = the leading dims, n = the last dim, post = 1
  aclDataType src_dtype = ACL_FLOAT, dst_dtype = ACL_FLOAT;
  int64_t tasks = 1;  // ranges of rows, each with a buffer of n floats (FLOAT4 dst with an odd n: 1)
};

void low_float_cast_run(const LfCastPlan &p, const char *src, char *dst, float *buf);

}  // namespace opsnn::kernels
