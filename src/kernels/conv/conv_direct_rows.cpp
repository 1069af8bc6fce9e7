// The direct convolution over packed input rows: its scratch size and the portable unit
// (conv_direct_rows_avx2.cpp / conv_direct_rows_avx512.cpp compile the same body wider).
#include "kernels/conv/conv_direct_rows.h"

#include "kernels/conv/conv_direct_rows_impl.h"

namespace opsnn::kernels {

int64_t conv_direct_rows_scratch_floats(const ConvGeom &g, int64_t c_in, int64_t c_out) {
  const DrRing ring = dr_ring(g, c_in);
  const int64_t blocks = (c_out + kDirectBlock - 1) / kDirectBlock;
  return ring.rows * ring.pitch + g.small[2] * blocks * kDirectBlock;  // the ring, then the row buffer
}

void conv_direct_rows_portable(const DirectArgs &a, float *scratch, int threads) {
  direct_rows_body(a, scratch, threads);
}

}  // namespace opsnn::kernels
