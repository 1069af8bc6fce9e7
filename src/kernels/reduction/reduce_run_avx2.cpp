// The reduction runner built for the avx2 tier (cmake/isa_flags.cmake gives the flags).
#include "kernels/reduction/reduce_run_impl.h"

namespace opsnn::kernels {

void reduce_run_avx2(const ReduceLoop &loop, const char *in, char *const *out, void *partials,
                        const char *in2) {
  reduce_impl::run_any(loop, in, out, partials, in2);
}

}  // namespace opsnn::kernels
