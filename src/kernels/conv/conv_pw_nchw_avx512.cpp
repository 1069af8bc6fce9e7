// The channels-first pointwise kernel compiled for AVX512 (GCC vectors of 16 floats; phase 1 chooses).
#define OPSNN_PW_VW 16
#include "kernels/conv/conv_pw_nchw_impl.h"

namespace opsnn::kernels {

void conv_pw_nchw_avx512(const DirectArgs &a, int threads) { pw_nchw_body(a, threads); }

}  // namespace opsnn::kernels
