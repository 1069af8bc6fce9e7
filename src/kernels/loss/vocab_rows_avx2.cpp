// The vocabulary-parallel cross-entropy's FLOAT row loops compiled for AVX2 (chosen in phase 1).
#include "kernels/loss/vocab_ce.h"
#include "kernels/loss/vocab_rows.h"

namespace opsnn::kernels {

float vocab_exp_sum_avx2(const float *x, float *y, int64_t n, float m) { return vocab_exp_sum_body(x, y, n, m); }
void vocab_softmax_avx2(const float *x, float *y, int64_t n, float m, float inv) {
  vocab_softmax_body(x, y, n, m, inv);
}

}  // namespace opsnn::kernels
