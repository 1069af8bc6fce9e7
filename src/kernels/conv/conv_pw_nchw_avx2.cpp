// The channels-first pointwise kernel compiled for AVX2 (GCC vectors of 8 floats; phase 1 chooses).
#define OPSNN_PW_VW 8
#include "kernels/conv/conv_pw_nchw_impl.h"

namespace opsnn::kernels {

void conv_pw_nchw_avx2(const DirectArgs &a, int threads) { pw_nchw_body(a, threads); }

}  // namespace opsnn::kernels
