// AVX-512 build of the element-wise kernels (same source, compiled with the AVX-512 flags; chosen
// at run time only on CPUs that report AVX-512F/BW/VL/DQ with OS support).
#define OPSNN_EW_NAMESPACE avx512
#include "kernels/elementwise/ops_impl.h"

namespace opsnn::kernels {
ContigKernel ew_kernel_avx512(EwOp op, core::ComputeType ct) { return avx512::kernel_for(op, ct); }
}  // namespace opsnn::kernels
