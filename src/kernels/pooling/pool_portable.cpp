// The pooling kernels built for the portable tier (cmake/isa_flags.cmake gives the flags).
#include "kernels/pooling/pool_impl.h"


namespace opsnn::kernels {

PoolTierKernels pool_kernels_portable() { return {&pool_impl::forward, &pool_impl::avg_backward}; }

}  // namespace opsnn::kernels

