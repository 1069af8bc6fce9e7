// The resize kernels built for the portable tier (cmake/isa_flags.cmake gives the flags).
#include "kernels/pooling/resize_impl.h"

namespace opsnn::kernels {

ResizeTierKernels resize_kernels_portable() { return {&resize_impl::forward, &resize_impl::backward}; }

}  // namespace opsnn::kernels
