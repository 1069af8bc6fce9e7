// The row-ring depthwise kernel compiled for AVX2 (GCC vectors of 8 floats; phase 1 chooses).
#define OPSNN_DW_VW 8
#include "kernels/conv/conv_dw_rows_impl.h"

namespace opsnn::kernels {

void conv_dw_rows_avx2(const DepthwiseArgs &a, float *scratch, int threads) { dw_rows_body(a, scratch, threads); }

}  // namespace opsnn::kernels
