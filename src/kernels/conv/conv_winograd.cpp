// The Winograd weight transform U = G g G^T (conv_winograd.h), once per executor.
#include "kernels/conv/conv_winograd.h"

#include <algorithm>

#include "core/thread_pool.h"
#include "kernels/conv/conv.h"
#include "kernels/matmul/gemm.h"

namespace opsnn::kernels {
namespace {

// G of F(2x2, 3x3) and F(4x4, 3x3), rows of 3.
constexpr double kG2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
constexpr double kG4[6][3] = {{1.0 / 4, 0, 0},
                              {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                              {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                              {1.0 / 24, 1.0 / 12, 1.0 / 6},
                              {1.0 / 24, -1.0 / 12, 1.0 / 6},
                              {0, 0, 1}};

size_t esize(aclDataType dt) { return dt == ACL_FLOAT ? 4 : dt == ACL_DOUBLE ? 8 : 2; }

}  // namespace

int64_t wino_weight_plane_floats(int64_t c_in, int64_t c_out) { return gemm_prepacked_b_elems(c_in, c_out); }

int64_t wino_weight_floats(int m, int64_t c_in, int64_t c_out) {
  return wino_planes(m) * wino_weight_plane_floats(c_in, c_out) + c_out;
}

void wino_transform_weight(int m, int64_t c_in, int64_t c_out, const char *w, aclDataType w_dt, const int64_t ws[5],
                           const char *bias, aclDataType bias_dt, int64_t bs, float *dst) {
  const int p = m + 2;
  const int64_t plane = wino_weight_plane_floats(c_in, c_out), wes = static_cast<int64_t>(esize(w_dt));
  const double(*g)[3] = m == 2 ? kG2 : kG4;
  std::fill(dst, dst + wino_planes(m) * plane, 0.0f);  // (the panels' padding columns stay zero)
  core::parallel_for(c_out, 1, [&](int64_t o0, int64_t o1) {
    for (int64_t oc = o0; oc < o1; ++oc)
      for (int64_t ic = 0; ic < c_in; ++ic) {
        double k[3][3], gk[6][3];
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            k[i][j] = conv_load(w_dt, w + wes * (oc * ws[0] + ic * ws[1] + i * ws[3] + j * ws[4]));
        for (int a = 0; a < p; ++a)
          for (int j = 0; j < 3; ++j) gk[a][j] = g[a][0] * k[0][j] + g[a][1] * k[1][j] + g[a][2] * k[2][j];
        for (int a = 0; a < p; ++a)
          for (int b = 0; b < p; ++b)
            dst[(a * p + b) * plane + gemm_prepacked_offset(ic, oc, c_in)] =
                static_cast<float>(gk[a][0] * g[b][0] + gk[a][1] * g[b][1] + gk[a][2] * g[b][2]);
      }
  });
  float *pb = dst + wino_planes(m) * plane;
  for (int64_t oc = 0; oc < c_out; ++oc)
    pb[oc] = bias != nullptr ? conv_load(bias_dt, bias + static_cast<int64_t>(esize(bias_dt)) * oc * bs) : 0.0f;
}

}  // namespace opsnn::kernels
