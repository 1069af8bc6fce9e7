// The direct convolution over packed input rows compiled for AVX2 (GCC vectors of 8 floats; phase 1 chooses).
#define OPSNN_DR_VW 8
#include "kernels/conv/conv_direct_rows_nchw_impl.h"

namespace opsnn::kernels {

void conv_direct_rows_avx2(const DirectArgs &a, float *scratch, int threads) { direct_rows_body(a, scratch, threads); }
void conv_direct_rows_nchw_avx2(const DirectArgs &a, float *scratch, int threads) {
  direct_rows_nchw_body(a, scratch, threads);
}

}  // namespace opsnn::kernels
