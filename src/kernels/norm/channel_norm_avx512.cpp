// The channel norm's dense FLOAT forward line compiled for AVX512 (chosen in phase 1).
#include "kernels/norm/channel_affine.h"
#include "kernels/norm/channel_norm.h"

namespace opsnn::kernels {

void chan_affine_avx512(const float *x, float *y, int64_t n, double scale, double shift) {
  chan_affine_body(x, y, n, scale, shift);
}

}  // namespace opsnn::kernels
