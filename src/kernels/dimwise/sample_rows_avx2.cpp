// The sampling row kernel built for the avx2 tier (cmake/isa_flags.cmake gives the flags).
#include "kernels/dimwise/sample_rows_impl.h"

namespace opsnn::kernels {

int64_t sample_row_keep_avx2(const float *x, int64_t n, const SampleRowRule &rule, void *scratch, int64_t *pos,
                             double *prob) {
  return sample_impl::keep_row(x, n, rule, scratch, pos, prob);
}

}  // namespace opsnn::kernels
