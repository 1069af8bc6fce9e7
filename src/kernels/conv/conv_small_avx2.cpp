// The few-input-channel direct convolution compiled for AVX2 (GCC vectors of 8 floats; phase 1 chooses).
#define OPSNN_SC_VW 8
#include "kernels/conv/conv_small_impl.h"

namespace opsnn::kernels {

void conv_small_avx2(const SmallArgs &a, float *scratch, int threads) { small_body(a, scratch, threads); }

}  // namespace opsnn::kernels
