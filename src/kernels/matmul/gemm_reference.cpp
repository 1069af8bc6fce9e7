// Reference GEMM: the definition, in the plainest form. fp32 accumulation in k order.
#include "kernels/matmul/gemm.h"
#include "kernels/matmul/gemm_elem.h"
#include "kernels/matmul/ukernels.h"

namespace opsnn::kernels {

using namespace gemm_detail;

void gemm_reference(const GemmDesc &d, const void *a, const void *b, void *c, const void *dp) {
  for (int64_t bt = 0; bt < d.batch; ++bt) {
    const void *ab = offset_ptr(a, d.a.dtype, bt * d.a.batch_stride);
    const void *bb = offset_ptr(b, d.b.dtype, bt * d.b.batch_stride);
    void *cb = offset_ptr(c, d.c.dtype, bt * d.c.batch_stride);
    const void *db = d.has_d ? offset_ptr(dp, d.d.dtype, bt * d.d.batch_stride) : nullptr;
    for (int64_t i = 0; i < d.m; ++i) {
      for (int64_t j = 0; j < d.n; ++j) {
        float acc = 0.0f;
        for (int64_t p = 0; p < d.k; ++p) {
          const float x = round_input(load_elem(ab, d.a.dtype, i * d.a.row_stride + p * d.a.col_stride), d.input_rounding);
          const float y = round_input(load_elem(bb, d.b.dtype, d.b_prepacked ? gemm_prepacked_offset(p, j, d.k) : p * d.b.row_stride + j * d.b.col_stride), d.input_rounding);
          acc += x * y;
        }
        const int64_t off = i * d.c.row_stride + j * d.c.col_stride;
        const float old = d.beta == 0.0f ? 0.0f
                          : d.has_d      ? load_elem(db, d.d.dtype, i * d.d.row_stride + j * d.d.col_stride)
                                         : load_elem(cb, d.c.dtype, off);
        const float v = d.k == 0 ? d.beta * old : gemm_combine(acc, d.alpha, d.beta, old);
        store_elem(cb, d.c.dtype, off, gemm_activate(v, d.activation));
      }
    }
  }
}

}  // namespace opsnn::kernels
