// Phase 2 of the grouped matmul's int8 quantised form (ops/matmul/gmm_int8_step.h).
#include "ops/matmul/gmm_int8_step.h"

#include <algorithm>

#include "kernels/matmul/qmm_epilogue.h"
#include "ops/matmul/gmm_common.h"

namespace opsnn::ops {
namespace {

struct BlockCtx {
  kernels::QmmEpilogue e;
  char *y;  // row 0 of the rows this GEMM run covers
  int64_t y_row, y_col, esize;
};

// One finished int32 block of a group's GEMM through the epilogue, straight into y.
void epilogue_block(void *vctx, int64_t, int64_t i0, int64_t j0, int64_t rows, int64_t cols, const int32_t *acc,
                    int64_t ldacc) {
  const BlockCtx &c = *static_cast<const BlockCtx *>(vctx);
  for (int64_t r = 0; r < rows; ++r)
    kernels::qmm_epilogue_row(c.e, acc + r * ldacc, j0, cols, 1.0f,
                              c.y + ((i0 + r) * c.y_row + j0 * c.y_col) * c.esize, c.y_col);
}

}  // namespace

int GmmInt8Step::run(const core::LaunchArgs &a) const {
  int64_t *ends = nullptr;
  if (split) {
    ends = reinterpret_cast<int64_t *>(a.get(ws_ends));
    const int rc = gmm_read_group_ends(reinterpret_cast<const int64_t *>(group_list.address(a)), gl_stride,
                                       groups.size(), total_m, "rows", ends);
    if (rc != 0) return rc;
  }
  // The group's parameters, decoded once into plain vectors: scale, offset (fp32), bias, zeros (int32).
  float *scale = reinterpret_cast<float *>(a.get(ws_params)), *offset = scale + max_n;
  int32_t *bias = reinterpret_cast<int32_t *>(offset + max_n), *zeros = bias + max_n;
  std::fill(zeros, zeros + max_n, 0);
  void *work = has_gemm_ws ? a.get(ws_gemm) : nullptr;
  const int64_t esize = y_dtype == ACL_INT8 ? 1 : 2;
  int64_t start = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    const GmmInt8Group &gr = groups[g];
    const int64_t rows = split ? ends[g] - start : gr.m;
    if (rows > 0 && gr.n > 0) {
      BlockCtx c{};
      kernels::qmm_decode_floats(gr.scale.address(a), scale_dtype, gr.n, gr.scale_stride, gr.n, scale);
      c.e.scale = scale;
      if (gr.offset.slot >= 0) {
        kernels::qmm_decode_floats(gr.offset.address(a), ACL_FLOAT, gr.n, gr.offset_stride, gr.n, offset);
        c.e.offset = offset;
      }
      if (gr.bias.slot >= 0) {
        kernels::qmm_decode_int32(reinterpret_cast<const int32_t *>(gr.bias.address(a)), gr.bias_stride, gr.n, bias);
        c.e.bias_i32 = bias;
      }
      c.e.out_dtype = y_dtype;
      c.y_row = gr.y_row;
      c.y_col = gr.y_col;
      c.esize = esize;
      const int8_t *x = reinterpret_cast<const int8_t *>(gr.x.address(a)) + (split ? start * gr.x_row : 0);
      const int8_t *w = reinterpret_cast<const int8_t *>(gr.w.address(a));
      char *y = gr.y.address(a) + (split ? start * gr.y_row * esize : 0);
      if (gr.plan < 0) {  // K = 0
        c.y = y;
        for (int64_t i = 0; i < rows; ++i) epilogue_block(&c, 0, i, 0, 1, gr.n, zeros, 0);
      } else if (!split) {
        c.y = y;
        kernels::igemm_run(plans[static_cast<size_t>(gr.plan)], x, w, work, &epilogue_block, &c);
      } else {
        for (int64_t done = 0; done < rows;) {
          size_t i = ladder.size();
          while (ladder[--i] > rows - done) {}  // the largest rung that fits (1..16 are all there)
          c.y = y + done * gr.y_row * esize;
          kernels::igemm_run(plans[static_cast<size_t>(gr.plan) + i], x + done * gr.x_row, w, work, &epilogue_block, &c);
          done += ladder[i];
        }
      }
    }
    if (split) start = ends[g];
  }
  if (split && !groups.empty()) {
    const GmmInt8Group &g0 = groups[0];
    gmm_zero_rows(g0.y.address(a), start, total_m, g0.n, g0.y_row * esize, g0.y_col * esize, static_cast<size_t>(esize));
  }
  return 0;
}

}  // namespace opsnn::ops
