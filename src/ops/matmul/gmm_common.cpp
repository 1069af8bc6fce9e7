#include "ops/matmul/gmm_common.h"

#include <cstring>

#include "aclnn/acl_meta.h"
#include "common/error.h"

namespace opsnn::ops {

int gmm_read_group_ends(const int64_t *gl, int64_t stride, size_t groups, int64_t limit, const char *what,
                        int64_t *ends) {
  int64_t prev = 0;
  for (size_t g = 0; g < groups; ++g) {
    const int64_t v = ends[g] = gl[static_cast<int64_t>(g) * stride];
    if (v < prev || v > limit)
      return fail(ACLNN_ERR_PARAM_INVALID,
                  "groupListOptional[%zu] = %lld is outside [%lld, %lld]: the cumulative group ends must be "
                  "non-decreasing and at most x's %s %lld",
                  g, static_cast<long long>(v), static_cast<long long>(prev), static_cast<long long>(limit), what,
                  static_cast<long long>(limit));
    prev = v;
  }
  return 0;
}

void gmm_zero_rows(char *y, int64_t r0, int64_t r1, int64_t n, int64_t row_bytes, int64_t col_bytes, size_t esize) {
  for (int64_t i = r0; i < r1; ++i)
    for (int64_t j = 0; j < n; ++j) std::memset(y + i * row_bytes + j * col_bytes, 0, esize);
}

}  // namespace opsnn::ops
