// The in-place 3x3 stride-1 depthwise kernel, portable unit (GCC vectors of 4 floats).
#include "kernels/conv/conv_dw_s1_impl.h"

namespace opsnn::kernels {

void conv_dw_s1_portable(const DepthwiseArgs &a, float *, int threads) { dw_s1_body(a, threads); }

}  // namespace opsnn::kernels
