// The dim-wise line kernels built for the avx512 tier (cmake/isa_flags.cmake gives the flags).
#include "kernels/dimwise/dimwise_lines.h"
#include "kernels/dimwise/dimwise_lines_impl.h"

namespace opsnn::kernels {

void dimwise_lines_avx512(const DimwiseLoop &L, const char *const *in, char *const *out, char *scratch, int64_t l0,
                          int64_t l1) {
  dimwise_impl::run_lines_any(L, in, out, scratch, l0, l1);
}

}  // namespace opsnn::kernels
