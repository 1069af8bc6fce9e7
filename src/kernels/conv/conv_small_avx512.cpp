// The few-input-channel direct convolution compiled for AVX512 (GCC vectors of 16 floats; phase 1 chooses).
#define OPSNN_SC_VW 16
#include "kernels/conv/conv_small_impl.h"

namespace opsnn::kernels {

void conv_small_avx512(const SmallArgs &a, float *scratch, int threads) { small_body(a, scratch, threads); }

}  // namespace opsnn::kernels
