#include "kernels/serving/jagged_permute.h"

#include "aclnn/aclnn_base.h"
#include "common/error.h"

namespace opsnn::kernels {
namespace {

int64_t at(aclDataType dt, const char *base, int64_t i) {
  return dt == ACL_INT32 ? reinterpret_cast<const int32_t *>(base)[i] : reinterpret_cast<const int64_t *>(base)[i];
}

}  // namespace

int jagged_permute_run(const JaggedPermutePlan &P, const char *permute, const char *in_offsets,
                       const char *out_offsets, char *out) {
  const aclDataType dt = P.dtype;
  for (int64_t t = 0; t < P.t; ++t) {  // validate first: nothing written on failure
    const int64_t src = at(dt, permute, t * P.permute);
    if (src < 0 || src >= P.t)
      return fail(ACLNN_ERR_PARAM_INVALID, "permute[%lld] = %lld is outside [0, %lld)", static_cast<long long>(t),
                  static_cast<long long>(src), static_cast<long long>(P.t));
    const int64_t o = at(dt, out_offsets, t * P.out_offsets), e = at(dt, out_offsets, (t + 1) * P.out_offsets);
    if (o < 0 || e < o || e > P.output_size)
      return fail(ACLNN_ERR_PARAM_INVALID,
                  "outputOffset[%lld..%lld] = [%lld, %lld) is not a segment of [0, outputSize = %lld)",
                  static_cast<long long>(t), static_cast<long long>(t + 1), static_cast<long long>(o),
                  static_cast<long long>(e), static_cast<long long>(P.output_size));
  }
  for (int64_t t = 0; t < P.t; ++t) {
    const int64_t s = at(dt, in_offsets, at(dt, permute, t * P.permute) * P.in_offsets);
    const int64_t o = at(dt, out_offsets, t * P.out_offsets), e = at(dt, out_offsets, (t + 1) * P.out_offsets);
    for (int64_t i = 0; i < e - o; ++i) {
      if (dt == ACL_INT32)
        reinterpret_cast<int32_t *>(out)[(o + i) * P.out] = static_cast<int32_t>(s + i);
      else
        reinterpret_cast<int64_t *>(out)[(o + i) * P.out] = s + i;
    }
  }
  return 0;
}

}  // namespace opsnn::kernels
