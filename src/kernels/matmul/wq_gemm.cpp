// Weight-quantised GEMM: portable paths, dispatch and the float64 reference (see wq_gemm.h).
#include "kernels/matmul/wq_gemm.h"

#include <algorithm>
#include <cmath>

#include "core/cpu_features.h"
#include "core/thread_pool.h"
#include "kernels/matmul/gemm.h"
#include "kernels/matmul/gemm_elem.h"

namespace opsnn::kernels {

using gemm_detail::load_elem;

namespace {

inline int load_w(const WqDesc &d, const void *w, int64_t p, int64_t j) {
  const int64_t e = p * d.w_row + j * d.w_col;
  if (d.w_dtype == ACL_INT8) return static_cast<const int8_t *>(w)[e];
  const uint8_t byte = static_cast<const uint8_t *>(w)[e >> 1];
  const int nib = (e & 1) ? byte >> 4 : byte & 15;
  return (nib ^ 8) - 8;
}

int64_t group_rows(const WqDesc &d) { return d.group > 0 ? d.group : std::max<int64_t>(d.k, 1); }

// The small-M formula for columns [n0, n1), element by element (the AVX2 kernel follows the same
// per-element sequence of roundings).
void small_m_generic(const WqDesc &d, const float *x, const float *xsum, const void *w, const void *scale,
                     const void *offset, int64_t n0, int64_t n1, float *y32, int64_t ldy) {
  const int64_t G = wq_groups(d), gr = group_rows(d);
  for (int64_t i = 0; i < d.m; ++i)
    for (int64_t j = n0; j < n1; ++j) {
      float total = 0.0f;
      for (int64_t g = 0; g < G; ++g) {
        float acc = 0.0f;
        const int64_t p1 = std::min(d.k, (g + 1) * gr);
        for (int64_t p = g * gr; p < p1; ++p)
          acc = std::fma(x[i * d.k + p], static_cast<float>(load_w(d, w, p, j)), acc);
        if (d.has_offset)
          acc = std::fma(load_elem(offset, d.o_dtype, g * d.o_row + j * d.o_col), xsum[i * G + g], acc);
        total = std::fma(load_elem(scale, d.s_dtype, g * d.s_row + j * d.s_col), acc, total);
      }
      y32[i * ldy + j] = total;
    }
}

}  // namespace

size_t wq_small_m_workspace(const WqDesc &d, int threads) {
  const int64_t t = threads > 0 ? threads : core::num_threads();
  return static_cast<size_t>(d.m * d.k + d.m * wq_groups(d) + 16 + t * kWqScratchFloats) * sizeof(float);
}

void wq_small_m_run(const WqDesc &d, aclDataType x_dtype, const void *x, int64_t x_row, int64_t x_col,
                    const void *w, const void *scale, const void *offset, float *y32, int64_t ldy, void *workspace,
                    int threads) {
  if (d.m == 0 || d.n == 0) return;
  const int64_t G = wq_groups(d), gr = group_rows(d);
  float *xf = static_cast<float *>(workspace);
  float *xsum = xf + d.m * d.k;
  float *scratch = xsum + d.m * G + 16;
  for (int64_t i = 0; i < d.m; ++i) {
    for (int64_t p = 0; p < d.k; ++p) xf[i * d.k + p] = load_elem(x, x_dtype, i * x_row + p * x_col);
    for (int64_t g = 0; g < G; ++g) {
      float s = 0.0f;
      for (int64_t p = g * gr; p < std::min(d.k, (g + 1) * gr); ++p) s += xf[i * d.k + p];
      xsum[i * G + g] = s;
    }
  }
  const core::CpuFeatures &f = core::cpu_features();
  const bool avx2 = f.avx2 && f.fma && f.f16c && f.best != core::Isa::kPortable;
  auto range = [&](int64_t task, int64_t n0, int64_t n1) {
#if defined(__x86_64__)
    if (avx2 &&
        wq_detail::wq_small_m_avx2(d, xf, xsum, w, scale, offset, n0, n1, y32, ldy, scratch + task * kWqScratchFloats))
      return;
#else
    (void)task;
#endif
    small_m_generic(d, xf, xsum, w, scale, offset, n0, n1, y32, ldy);
  };
  // Columns in chunks of 64 (whole cache lines of an INT8 row), one contiguous range per thread.
  const int64_t chunks = (d.n + 63) / 64;
  const int64_t bytes = d.k * d.n * (d.w_dtype == ACL_INT8 ? 2 : 1) / 2;
  int64_t tasks = std::min<int64_t>(threads > 0 ? threads : core::num_threads(), chunks);
  if (bytes < (int64_t{1} << 16)) tasks = 1;
  if (tasks <= 1) return range(0, 0, d.n);
  core::parallel_for(tasks, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t)
      range(t, std::min(d.n, chunks * t / tasks * 64), std::min(d.n, chunks * (t + 1) / tasks * 64));
  });
}

void wq_dequant_prepacked(const WqDesc &d, const void *w, const void *scale, const void *offset, float *dst,
                          int threads) {
  const int64_t panels = (d.n + kPrepackWidth - 1) / kPrepackWidth, gr = group_rows(d);
  const core::CpuFeatures &f = core::cpu_features();
  const bool avx2 = f.avx2 && f.fma && f.f16c && f.best != core::Isa::kPortable;
  auto run = [&](int64_t q0, int64_t q1) {
#if defined(__x86_64__)
    if (avx2 && wq_detail::wq_dequant_panels_avx2(d, w, scale, offset, q0, q1, dst)) return;
#endif
    for (int64_t q = q0; q < q1; ++q) {
      float *dq = dst + q * kPrepackWidth * d.k;
      for (int64_t p = 0; p < d.k; ++p) {
        const int64_t g = p / gr;
        for (int64_t c = 0; c < kPrepackWidth; ++c) {
          const int64_t j = q * kPrepackWidth + c;
          float v = 0.0f;
          if (j < d.n) {
            float x = static_cast<float>(load_w(d, w, p, j));
            if (d.has_offset) x += load_elem(offset, d.o_dtype, g * d.o_row + j * d.o_col);
            v = x * load_elem(scale, d.s_dtype, g * d.s_row + j * d.s_col);
          }
          dq[p * kPrepackWidth + c] = v;
        }
      }
    }
  };
  const int64_t t = std::min<int64_t>(threads > 0 ? threads : core::num_threads(), panels);
  if (t <= 1 || d.k * d.n < (int64_t{1} << 16)) return run(0, panels);
  core::parallel_for(panels, (panels + t - 1) / t, run);
}

void wq_reference(const WqDesc &d, aclDataType x_dtype, const void *x, int64_t x_row, int64_t x_col,
                  const void *w, const void *scale, const void *offset, double *y64) {
  const int64_t gr = group_rows(d);
  for (int64_t i = 0; i < d.m; ++i)
    for (int64_t j = 0; j < d.n; ++j) {
      double acc = 0.0;
      for (int64_t p = 0; p < d.k; ++p) {
        const int64_t g = p / gr;
        double wv = load_w(d, w, p, j);
        if (d.has_offset) wv += load_elem(offset, d.o_dtype, g * d.o_row + j * d.o_col);
        wv *= load_elem(scale, d.s_dtype, g * d.s_row + j * d.s_col);
        acc += static_cast<double>(load_elem(x, x_dtype, i * x_row + p * x_col)) * wv;
      }
      y64[i * d.n + j] = acc;
    }
}

}  // namespace opsnn::kernels
