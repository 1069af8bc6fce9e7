// The resize kernels built for the avx512 tier (cmake/isa_flags.cmake gives the flags).
#include "kernels/pooling/resize_impl.h"

#if defined(__x86_64__)
namespace opsnn::kernels {

ResizeTierKernels resize_kernels_avx512() { return {&resize_impl::forward, &resize_impl::backward}; }

}  // namespace opsnn::kernels
#endif
