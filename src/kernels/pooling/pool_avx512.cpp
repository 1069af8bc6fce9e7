// The pooling kernels built for the avx512 tier (cmake/isa_flags.cmake gives the flags).
#include "kernels/pooling/pool_impl.h"

#if defined(__x86_64__)
namespace opsnn::kernels {

PoolTierKernels pool_kernels_avx512() { return {&pool_impl::forward, &pool_impl::avg_backward}; }

}  // namespace opsnn::kernels
#endif
