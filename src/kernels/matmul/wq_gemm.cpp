// Weight-quantised GEMM: portable paths, dispatch and the float64 reference (see wq_gemm.h).
#include "kernels/matmul/wq_gemm.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/cpu_features.h"
#include "core/impl_list.h"
#include "core/thread_pool.h"
#include "core/verbose.h"
#include "kernels/matmul/gemm.h"
#include "kernels/matmul/gemm_elem.h"
#include "kernels/matmul/gemm_pack.h"
#include "kernels/matmul/requant.h"
#include "kernels/matmul/ukernels.h"

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

// The paths, in order (wq_gemm.h): stream the quantised weight (m <= kWqSmallM; up to kWqStreamMaxM
// for a [K, N] weight where the AVX2 kernels run), dequantise blocks for the GEMM engine's tiles,
// and the reference: dequantise the whole weight, then the GEMM engine (its reference kernel).
bool stream_ok(const WqDesc &d, const core::Why &why) {
  if (d.m <= kWqSmallM) return true;
  if (d.m > kWqStreamMaxM) return why("M=%lld > %lld", static_cast<long long>(d.m), static_cast<long long>(kWqStreamMaxM));
#if defined(__x86_64__)
  if (core::isa_rejection(core::Isa::kAvx2) != nullptr)
    return why("M=%lld > %lld without avx2", static_cast<long long>(d.m), static_cast<long long>(kWqSmallM));
  if (d.w_col != 1) return why("M=%lld > %lld and the weight is not [K N]", static_cast<long long>(d.m),
                               static_cast<long long>(kWqSmallM));
  if (d.w_dtype == ACL_INT4 && d.w_row % 2 != 0) return why("INT4 weight rows not byte-aligned");
  return true;
#else
  return why("M=%lld > %lld", static_cast<long long>(d.m), static_cast<long long>(kWqSmallM));
#endif
}
const core::Impl<WqDesc> kWqPaths[] = {
    {"stream", static_cast<int>(core::Isa::kPortable), &stream_ok},
    {"fused", static_cast<int>(core::Isa::kPortable), nullptr},
    {"dequant_gemm", static_cast<int>(core::Isa::kPortable), nullptr},
};
// The SIMD helpers of every path (wq_gemm_avx2.cpp, wq_gemm_neon.cpp), best first.
const core::Impl<WqDesc> kWqSimd[] = {
#if defined(__x86_64__)
    {"avx2", static_cast<int>(core::Isa::kAvx2), nullptr},
#elif defined(__aarch64__)
    {"neon", static_cast<int>(core::Isa::kNeon), nullptr},
#endif
    {"portable", static_cast<int>(core::Isa::kPortable), nullptr},
};
WqSimd simd_of(const char *name) {
  return name[0] == 'a' ? WqSimd::kAvx2 : name[0] == 'n' ? WqSimd::kNeon : WqSimd::kNone;
}
WqSimd choose_simd(const WqDesc &d, core::ImplTrace *trace) { return simd_of(kWqSimd[core::choose(kWqSimd, d, trace)].name); }

// The dequantised weight (w + offset) * scale of element (p, j) in fp32 (j < n).
inline float dequant(const WqDesc &d, const void *w, const void *scale, const void *offset, int64_t p, int64_t j) {
  const int64_t g = p / group_rows(d);
  float v = static_cast<float>(load_w(d, w, p, j));
  if (d.has_offset) v += load_elem(offset, d.o_dtype, g * d.o_row + j * d.o_col);
  return v * load_elem(scale, d.s_dtype, g * d.s_row + j * d.s_col);
}

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

namespace {
// A transposed ([N, K]) INT4 weight has even K in the low nibbles and odd K in the high ones: the
// AVX2 kernel reads x split the same way (wq_detail::wq_split_pairs), in a copy of its own.
bool wants_split_x(const WqDesc &d) {
#if defined(__x86_64__)
  return d.w_dtype == ACL_INT4 && d.w_row == 1;
#else
  (void)d;
  return false;  // only the AVX2 kernel reads the split copy
#endif
}
// y by the definition, element by element: sum_p x_p * ((w_pj + o) * s). Taken when x holds an
// infinity or NaN: the factored formula of the fast paths, s * (sum x u + o' sum x), would turn an
// infinite product into inf - inf = NaN where the definition gives +-inf.
void small_m_definition(const WqDesc &d, const float *x, const void *w, const void *scale, const void *offset,
                        int64_t n0, int64_t n1, float *y32, int64_t ldy) {
  for (int64_t i = 0; i < d.m; ++i)
    for (int64_t j = n0; j < n1; ++j) {
      float acc = 0.0f;
      for (int64_t p = 0; p < d.k; ++p) acc = std::fma(x[i * d.k + p], dequant(d, w, scale, offset, p, j), acc);
      y32[i * ldy + j] = acc;
    }
}

}  // namespace

size_t wq_small_m_workspace(const WqDesc &d, int threads) {
  const int64_t t = threads > 0 ? threads : core::num_threads();
  const int64_t xs = d.m * d.k * (wants_split_x(d) ? 2 : 1);
  return static_cast<size_t>(xs + d.m * wq_groups(d) + 16 + t * wq_scratch_floats(d.m)) * sizeof(float);
}

WqChoice wq_choose(const WqDesc &d, bool record) {
  core::ImplTrace trace;
  core::ImplTrace *t = record && core::current_phase1_trace() != nullptr ? &trace : nullptr;
  WqChoice c;
  const int path = core::choose(kWqPaths, d, t);
  c.path = static_cast<WqPath>(path);
  const int simd = core::choose(kWqSimd, d, t);
  c.simd = simd_of(kWqSimd[simd].name);
  if (t != nullptr) core::record_choice(std::string("wq:") + kWqPaths[path].name + "/" + kWqSimd[simd].name, t);
  return c;
}

bool wq_stream_supported(const WqDesc &d) { return wq_choose(d, false).path == WqPath::kStream; }

void wq_small_m_run(const WqDesc &d, aclDataType x_dtype, const void *x, int64_t x_row, int64_t x_col,
                    const void *w, const void *scale, const void *offset, float *y32, int64_t ldy, void *workspace,
                    WqSimd simd, int threads) {
  if (d.m == 0 || d.n == 0) return;
  const int64_t G = wq_groups(d), gr = group_rows(d);
  float *xf = static_cast<float *>(workspace);
  float *xsplit = wants_split_x(d) ? xf + d.m * d.k : nullptr;
  float *xsum = xf + d.m * d.k * (xsplit ? 2 : 1);
  [[maybe_unused]] float *scratch = xsum + d.m * G + 16;
  bool finite = true;
  for (int64_t i = 0; i < d.m; ++i) {
    for (int64_t p = 0; p < d.k; ++p) {
      const float v = load_elem(x, x_dtype, i * x_row + p * x_col);
      finite &= std::fabs(v) <= std::numeric_limits<float>::max();
      xf[i * d.k + p] = v;
    }
    for (int64_t g = 0; g < G; ++g) {
      float s = 0.0f;
      for (int64_t p = g * gr; p < std::min(d.k, (g + 1) * gr); ++p) s += xf[i * d.k + p];
      xsum[i * G + g] = s;
    }
  }
  [[maybe_unused]] const bool avx2 = simd == WqSimd::kAvx2;
  [[maybe_unused]] const bool neon = simd == WqSimd::kNeon;
#if defined(__x86_64__)
  if (avx2 && xsplit != nullptr) wq_detail::wq_split_pairs(d, xf, xsplit);
#endif
  auto range = [&](int64_t task, int64_t n0, int64_t n1) {
    if (!finite) return small_m_definition(d, xf, w, scale, offset, n0, n1, y32, ldy);
#if defined(__x86_64__)
    if (avx2 && wq_detail::wq_small_m_avx2(d, xf, xsplit, xsum, w, scale, offset, n0, n1, y32, ldy,
                                           scratch + task * wq_scratch_floats(d.m)))
      return;
#elif defined(__aarch64__)
    if (neon && wq_detail::wq_small_m_neon(d, xf, xsum, w, scale, offset, n0, n1, y32, ldy,
                                           scratch + task * wq_scratch_floats(d.m)))
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
                          WqSimd simd, int threads) {
  const int64_t panels = (d.n + kPrepackWidth - 1) / kPrepackWidth;
  [[maybe_unused]] const bool avx2 = simd == WqSimd::kAvx2;
  auto run = [&](int64_t q0, int64_t q1) {
#if defined(__x86_64__)
    if (avx2 && wq_detail::wq_dequant_panels_avx2(d, w, scale, offset, q0, q1, dst)) return;
#endif
    for (int64_t q = q0; q < q1; ++q) {
      float *dq = dst + q * kPrepackWidth * d.k;
      for (int64_t p = 0; p < d.k; ++p)
        for (int64_t c = 0; c < kPrepackWidth; ++c) {
          const int64_t j = q * kPrepackWidth + c;
          dq[p * kPrepackWidth + c] = j < d.n ? dequant(d, w, scale, offset, p, j) : 0.0f;
        }
    }
  };
  const int64_t t = std::min<int64_t>(threads > 0 ? threads : core::num_threads(), panels);
  if (t <= 1 || d.k * d.n < (int64_t{1} << 16)) return run(0, panels);
  core::parallel_for(panels, (panels + t - 1) / t, run);
}

namespace {

size_t align64(size_t b) { return (b + 63) / 64 * 64; }

// Rows [p0, p0 + kc), columns [j0, j0 + W) of the dequantised weight into dst[(p - p0) * W + c].
void dequant_block_generic(const WqDesc &d, const void *w, const void *scale, const void *offset, int64_t p0,
                           int64_t kc, int64_t j0, int64_t W, float *dst) {
  for (int64_t p = p0; p < p0 + kc; ++p)
    for (int64_t c = 0; c < W; ++c) {
      const int64_t j = j0 + c;
      dst[(p - p0) * W + c] = j < d.n ? dequant(d, w, scale, offset, p, j) : 0.0f;
    }
}

}  // namespace

bool wq_fused_plan(const WqDesc &d, WqFusedPlan *plan, int threads, int kernel) {
  WqFusedPlan q;
  // The engine's kernel for this CPU (and none when it runs reference kernels).
  GemmDesc probe;
  probe.m = probe.n = probe.k = 16;
  probe.a = probe.b = probe.c = {ACL_FLOAT, 16, 1, 0};
  GemmOptions o;
  o.detect_prepacked_b = false;
  o.threads = 1;
  o.kernel = kernel;
  o.record = false;  // a probe (the op reports wq_choose's choice)
  GemmPlan gp;
  if (!gemm_plan(probe, &gp, o) || gp.kernel < 0) return false;
  const gemm_detail::Ukernel &uk = gemm_detail::ukernel_by_index(gp.kernel);
  q.kernel = gp.kernel;
  q.simd = choose_simd(d, nullptr);
  q.pack_simd = gp.pack_simd;
  q.mr = uk.mr;
  q.nr = uk.nr;
  q.mc = std::min(std::max<int64_t>(kWqFusedMc / q.mr, 1) * q.mr, (d.m + q.mr - 1) / q.mr * q.mr);
  q.nc = std::max<int64_t>(kWqFusedNc / q.nr, 1) * q.nr;
  // K blocks of at most kWqFusedKc rows, balanced, a multiple of 8 (the transposed dequantiser
  // works in 8-row tiles). Independent of the thread count, so results are too.
  const int64_t nkb = std::max<int64_t>((d.k + kWqFusedKc - 1) / kWqFusedKc, 1);
  q.kc = std::min(d.k, ((d.k + nkb - 1) / nkb + 7) / 8 * 8);
  const int64_t panels = (d.n + q.nr - 1) / q.nr;
  int64_t t = std::min<int64_t>(threads > 0 ? threads : core::num_threads(), panels);
  if (d.m * d.n * d.k < (int64_t{1} << 18)) t = 1;
  q.threads = static_cast<int>(std::max<int64_t>(t, 1));
  q.a_bytes = align64(static_cast<size_t>(q.mc * d.k) * sizeof(float));
  q.b_bytes = align64(static_cast<size_t>(q.kc * q.nr) * sizeof(float));
  q.c_bytes = align64(static_cast<size_t>(q.mc * q.nc) * sizeof(float));
  q.thread_bytes = q.a_bytes + q.b_bytes + q.c_bytes;
  q.workspace_bytes = q.thread_bytes * static_cast<size_t>(q.threads);
  *plan = q;
  return true;
}

void wq_fused_run(const WqFusedPlan &plan, const WqDesc &d, aclDataType x_dtype, const void *x, int64_t x_row,
                  int64_t x_col, const void *w, const void *scale, const void *offset, const WqOutput &out,
                  void *workspace) {
  const gemm_detail::Ukernel &uk = gemm_detail::ukernel_by_index(plan.kernel);
  [[maybe_unused]] const bool avx2 = plan.simd == WqSimd::kAvx2;
  [[maybe_unused]] const bool neon = plan.simd == WqSimd::kNeon;
  const int64_t mr = plan.mr, nr = plan.nr, nc = plan.nc;
  const int64_t panels = (d.n + nr - 1) / nr;
  auto task = [&](int64_t t) {
    char *ws = static_cast<char *>(workspace) + static_cast<size_t>(t) * plan.thread_bytes;
    float *abuf = reinterpret_cast<float *>(ws);
    float *bbuf = reinterpret_cast<float *>(ws + plan.a_bytes);
    float *cbuf = reinterpret_cast<float *>(ws + plan.a_bytes + plan.b_bytes);
    const int64_t n0 = panels * t / plan.threads * nr, n1 = std::min(d.n, panels * (t + 1) / plan.threads * nr);
    for (int64_t i0 = 0; i0 < d.m; i0 += plan.mc) {
      const int64_t mb = std::min(plan.mc, d.m - i0), tiles = (mb + mr - 1) / mr;
      // x rows [i0, i0 + mb) over all of K, packed once: tile r at abuf + r*mr*k, row p at + p*mr.
      gemm_detail::PackSrc src{gemm_detail::offset_ptr(x, x_dtype, i0 * x_row), x_dtype, x_row, x_col};
      gemm_detail::pack_panels(src, mb, d.k, static_cast<int>(mr), ACL_FLOAT, plan.pack_simd, abuf);
      for (int64_t jc = n0; jc < n1; jc += nc) {
        const int64_t wd = std::min(nc, n1 - jc);
        for (int64_t pc = 0; pc < d.k; pc += plan.kc) {
          const int64_t kb = std::min(plan.kc, d.k - pc);
          const float beta = pc == 0 ? 0.0f : 1.0f;
          for (int64_t jp = 0; jp < wd; jp += nr) {
            bool done = false;
#if defined(__x86_64__)
            if (avx2) {
              wq_detail::WqPrefetch pf;
              pf.chunk_end = jc + wd;
              if (pc + kb < d.k) {  // the next K block of this chunk
                pf.next_rows = plan.kc;
                pf.next_col = jc;
              } else if (jc + wd < n1) {  // the first K block of the next chunk
                pf.next_rows = -pc;
                pf.next_col = jc + wd;
              }
              done = wq_detail::wq_dequant_block_avx2(d, w, scale, offset, pc, kb, jc + jp, nr, bbuf, pf);
            }
#elif defined(__aarch64__)
            if (neon) done = wq_detail::wq_dequant_block_neon(d, w, scale, offset, pc, kb, jc + jp, nr, bbuf);
#endif
            if (!done) dequant_block_generic(d, w, scale, offset, pc, kb, jc + jp, nr, bbuf);
            for (int64_t r = 0; r < tiles; ++r) {
              const int rows = static_cast<int>(std::min(mr, mb - r * mr));
              uk.rows[rows](kb, abuf + r * mr * d.k + pc * mr, bbuf, nr, cbuf + r * mr * nc + jp, nc, 1.0f, beta);
            }
          }
        }
        // Epilogue: bias, round once into y (or re-quantise).
        for (int64_t i = 0; i < mb; ++i) wq_store_row(out, i0 + i, jc, wd, cbuf + i * nc);
      }
    }
  };
  if (plan.threads <= 1) return task(0);
  core::parallel_for(plan.threads, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) task(t);
  });
}

float wq_quant_scale(const WqQuant &q, int64_t j) {
  const int64_t e = j * q.scale_stride;
  if (q.scale_dtype == ACL_FLOAT) return static_cast<const float *>(q.scale)[e];
  const uint64_t bits = static_cast<const uint64_t *>(q.scale)[e];  // UINT64 / INT64: same bits
  const uint32_t lo = static_cast<uint32_t>(bits);
  float f;
  std::memcpy(&f, &lo, 4);
  return f;
}

int8_t wq_requant(float v, float s, float o) { return requant_int8(std::fma(v, s, o)); }

void wq_store_row(const WqOutput &out, int64_t i, int64_t j0, int64_t w, float *v) {
  if (out.bias != nullptr)
    for (int64_t j = 0; j < w; ++j) v[j] += load_elem(out.bias, out.bias_dtype, (j0 + j) * out.bias_stride);
  if (out.quant.scale == nullptr) {
    gemm_detail::store_row(out.y, out.y_dtype, i * out.y_row + j0, 1, w, v);
    return;
  }
  int8_t *y = static_cast<int8_t *>(out.y) + i * out.y_row + j0;
  for (int64_t j = 0; j < w; ++j) {
    const float o = out.quant.offset ? static_cast<const float *>(out.quant.offset)[(j0 + j) * out.quant.offset_stride] : 0.0f;
    y[j] = wq_requant(v[j], wq_quant_scale(out.quant, j0 + j), o);
  }
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
