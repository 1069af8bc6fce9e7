// The direct convolution over packed input rows compiled for AVX512 (GCC vectors of 16 floats; phase 1 chooses).
#define OPSNN_DR_VW 16
#include "kernels/conv/conv_direct_rows_nchw_impl.h"

namespace opsnn::kernels {

void conv_direct_rows_avx512(const DirectArgs &a, float *scratch, int threads) { direct_rows_body(a, scratch, threads); }
void conv_direct_rows_nchw_avx512(const DirectArgs &a, float *scratch, int threads) {
  direct_rows_nchw_body(a, scratch, threads);
}

}  // namespace opsnn::kernels
