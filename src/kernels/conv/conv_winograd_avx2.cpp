// The Winograd transforms compiled for avx2 (GCC vector extensions of 8 floats; chosen in phase 1).
#define OPSNN_WINO_VW 8
#include "kernels/conv/conv_winograd_impl.h"

namespace opsnn::kernels {

void wino_input_avx2(const WinoArgs &a, int64_t tile0, int64_t count, float *v, int64_t ldp) {
  wino_input_body(a, tile0, count, v, ldp);
}
void wino_output_avx2(const WinoArgs &a, int64_t tile0, int64_t count, const float *mm, int64_t ldp) {
  wino_output_body(a, tile0, count, mm, ldp);
}

}  // namespace opsnn::kernels
