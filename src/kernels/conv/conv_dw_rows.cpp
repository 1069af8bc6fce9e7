// The row-ring depthwise kernels (rows, 3x3 row groups): their scratch sizes and the portable unit (conv_dw_rows_avx2.cpp /
// conv_dw_rows_avx512.cpp compile the same body wider).
#include "kernels/conv/conv_dw_rows.h"

#include "kernels/conv/conv_dw_groups_impl.h"

namespace opsnn::kernels {

int64_t conv_dw_rows_scratch_floats(const ConvGeom &g, int64_t mult) { return dw_rows_floats(g, mult); }
int64_t conv_dw_groups_scratch_floats(const ConvGeom &g, int64_t mult) { return dw_groups_floats(g, mult); }

void conv_dw_rows_portable(const DepthwiseArgs &a, float *scratch, int threads) { dw_rows_body(a, scratch, threads); }
void conv_dw_groups_portable(const DepthwiseArgs &a, float *scratch, int threads) { dw_groups_body(a, scratch, threads); }

}  // namespace opsnn::kernels
