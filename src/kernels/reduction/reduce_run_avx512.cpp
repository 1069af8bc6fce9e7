// The reduction runner built for the avx512 tier (cmake/isa_flags.cmake gives the flags).
#include "kernels/reduction/reduce_run_impl.h"

namespace opsnn::kernels {

void reduce_run_avx512(const ReduceLoop &loop, const char *in, char *const *out, void *partials,
                        const char *in2) {
  reduce_impl::run_any(loop, in, out, partials, in2);
}

}  // namespace opsnn::kernels
