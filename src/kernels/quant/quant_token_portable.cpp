// The per-token kernels' reference build (kernels/quant/quant_token.h): the scalar row kernels.
#include <cmath>

#include "kernels/quant/quant_rows.h"
#include "kernels/quant/quant_token.h"

namespace opsnn::kernels {

void quant_token_prep_portable(const char *x, aclDataType dt, const char *smooth, int64_t n, float *in, float *ext) {
  quant_load_row(x, dt, 1, n, in);
  if (smooth != nullptr) {
    for (int64_t j = 0; j < n; ++j) {
      float s;
      quant_load_row(smooth + j * static_cast<int64_t>(dt == ACL_FLOAT ? 4 : 2), dt, 1, 1, &s);
      in[j] *= s;
    }
  }
  quant_row_extrema(in, n, ext);
}

void quant_token_int8_portable(const float *in, int64_t n, float scale, float offset, int8_t *y) {
  for (int64_t j = 0; j < n; ++j)
    y[j] = static_cast<int8_t>(scale == 0.0f ? 0 : quant_round_sat(in[j] / scale + offset, QuantRound::kHalfEven, -128, 127));
}

}  // namespace opsnn::kernels
