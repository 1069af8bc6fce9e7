// The row-ring depthwise kernels (rows, 3x3 row groups) compiled for AVX512 (GCC vectors of 16 floats; phase 1 chooses).
#define OPSNN_DW_VW 16
#include "kernels/conv/conv_dw_groups_impl.h"

namespace opsnn::kernels {

void conv_dw_rows_avx512(const DepthwiseArgs &a, float *scratch, int threads) { dw_rows_body(a, scratch, threads); }
void conv_dw_groups_avx512(const DepthwiseArgs &a, float *scratch, int threads) { dw_groups_body(a, scratch, threads); }

}  // namespace opsnn::kernels
