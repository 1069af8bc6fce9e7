// AVX2/FMA build of the element-wise kernels (same source, compiled with -mavx2 -mfma).
#define OPSNN_EW_NAMESPACE avx2
#include "kernels/elementwise/ops_impl.h"

namespace opsnn::kernels {
ContigKernel ew_kernel_avx2(EwOp op, core::ComputeType ct) { return avx2::kernel_for(op, ct); }
}  // namespace opsnn::kernels
