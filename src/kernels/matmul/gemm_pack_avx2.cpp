// F16C conversion used by the packing routines (compiled with -mf16c; called only when
// cpu_features().f16c).
#include <immintrin.h>

#include "common/half.h"
#include "kernels/matmul/gemm_pack.h"

namespace opsnn::kernels::gemm_detail {

void f16_to_f32_f16c(const uint16_t *src, float *dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) dst[i] = half_to_float(src[i]);
}

}  // namespace opsnn::kernels::gemm_detail
