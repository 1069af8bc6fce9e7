// The Winograd transforms compiled for avx512 (GCC vector extensions of 16 floats; chosen in phase 1).
#define OPSNN_WINO_VW 16
#include "kernels/conv/conv_winograd_impl.h"

namespace opsnn::kernels {

void wino_input_avx512(const WinoArgs &a, int64_t tile0, int64_t count, float *v, int64_t ldp) {
  wino_input_body(a, tile0, count, v, ldp);
}
void wino_output_avx512(const WinoArgs &a, int64_t tile0, int64_t count, const float *mm, int64_t ldp) {
  wino_output_body(a, tile0, count, mm, ldp);
}

}  // namespace opsnn::kernels
