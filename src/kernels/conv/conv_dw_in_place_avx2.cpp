// The in-place 3x3 stride-1 depthwise kernel compiled for AVX2 (GCC vectors of 8 floats; phase 1 chooses).
#define OPSNN_DW_VW 8
#include "kernels/conv/conv_dw_in_place_impl.h"

namespace opsnn::kernels {

void conv_dw_in_place_avx2(const DepthwiseArgs &a, float *, int threads) { dw_in_place_body(a, threads); }

}  // namespace opsnn::kernels
