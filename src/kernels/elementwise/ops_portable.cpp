// Portable build of the element-wise kernels (also the reference variant).
#define OPSNN_EW_NAMESPACE portable
#include "kernels/elementwise/ops_impl.h"

namespace opsnn::kernels {
ContigKernel ew_kernel_portable(EwOp op, core::ComputeType ct) { return portable::kernel_for(op, ct); }
}  // namespace opsnn::kernels
