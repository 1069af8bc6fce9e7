// The in-place 3x3 stride-1 depthwise kernel, portable unit (GCC vectors of 4 floats).
#include "kernels/conv/conv_dw_in_place_impl.h"

namespace opsnn::kernels {

void conv_dw_in_place_portable(const DepthwiseArgs &a, float *, int threads) { dw_in_place_body(a, threads); }

}  // namespace opsnn::kernels
