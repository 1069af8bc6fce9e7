// The direct depthwise and convolution kernels compiled for AVX512
// (GCC vector extensions of 16 floats; chosen in phase 1).
#define OPSNN_DW_VW 16
#include "kernels/conv/conv_depthwise_impl.h"
#include "kernels/conv/conv_direct_impl.h"

namespace opsnn::kernels {

void conv_depthwise_avx512(const DepthwiseArgs &a, float *scratch, int threads) { depthwise_body(a, scratch, threads); }
void conv_depthwise_nhwc_avx512(const DepthwiseArgs &a, float *scratch, int threads) {
  depthwise_nhwc_body(a, scratch, threads);
}

void conv_direct_avx512(const DirectArgs &a, int threads) { direct_body(a, threads); }

}  // namespace opsnn::kernels
