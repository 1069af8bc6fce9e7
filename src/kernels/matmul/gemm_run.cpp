// Phase 2 of the GEMM engine: runs the tasks of a plan (see gemm_plan.cpp for the loop nest).
#include <algorithm>

#include "core/thread_pool.h"
#include "kernels/matmul/gemm.h"
#include "kernels/matmul/gemm_elem.h"
#include "kernels/matmul/gemm_pack.h"
#include "kernels/matmul/gemm_panel_impl.h"
#include "kernels/matmul/ukernels.h"

namespace opsnn::kernels {

using namespace gemm_detail;

namespace {

struct Ctx {
  const GemmPlan &plan;
  const GemmDesc &d;
  const Ukernel &uk;
  const void *a, *b;
  void *c;
  bool simd;  // plan.pack_simd
  const void *dp = nullptr;  // addend D (desc.has_d)
  int64_t m_tasks = 0;       // tasks along M of this run (plan.m_tasks, fewer with gemm_run_rows)
};

constexpr int64_t kEpilogueChunk = 64;  // >= kMaxNr

// The epilogue of one row segment [i, j .. j + w), w <= kEpilogueChunk:
//   C = act(alpha * acc + beta * (D or old C)), stored in C's dtype (rounding once).
// acc == nullptr is a zero product (K == 0): C = act(beta * (D or C)), or act(0) when beta == 0.
// The addend of an element is read before that element of C is written, so D may be C's view.
// The activation of a finished segment: the plan's element-wise kernel, else the inline loops.
struct Act {
  GemmActivation a = GemmActivation::kNone;
  ContigKernel k = nullptr;
};
Act act_of(const GemmPlan &p) { return {p.desc.activation, p.act_kernel}; }
void activate(const Act &act, float *v, int64_t w) {
  if (act.k != nullptr) {
    const void *in[1] = {v};
    act.k(w, v, in, OpScalars{});
  } else {
    gemm_activate_row(v, w, act.a);
  }
}

void epilogue_row(const GemmDesc &d, const float *acc, int64_t w, int64_t i, int64_t j, void *cb, const void *db,
                  const Act &act) {
  float v[kEpilogueChunk];
  const bool read = d.beta != 0.0f;
  if (read) {
    if (d.has_d)
      load_row(db, d.d.dtype, i * d.d.row_stride + j * d.d.col_stride, d.d.col_stride, w, v);
    else
      load_row(cb, d.c.dtype, i * d.c.row_stride + j * d.c.col_stride, d.c.col_stride, w, v);
  }
  const float alpha = d.alpha, beta = d.beta;
  if (acc != nullptr) {
    if (read && alpha == 1.0f) {
      // fmaf(1, acc, beta v) rounds acc + beta v once, as the plain sum does: bit-identical, and it
      // vectorises in this baseline unit (fmaf is an out-of-line call here; the bias epilogue of
      // a [512, 768] GEMM spent more time in it than in the product's tiles).
      for (int64_t t = 0; t < w; ++t) v[t] = acc[t] + beta * v[t];
    } else if (read) {
      for (int64_t t = 0; t < w; ++t) v[t] = __builtin_fmaf(alpha, acc[t], beta * v[t]);
    } else {
      for (int64_t t = 0; t < w; ++t) v[t] = alpha * acc[t];
    }
  } else {
    if (read) {
      for (int64_t t = 0; t < w; ++t) v[t] = beta * v[t];
    } else {
      for (int64_t t = 0; t < w; ++t) v[t] = 0.0f;
    }
  }
  activate(act, v, w);
  store_row(cb, d.c.dtype, i * d.c.row_stride + j * d.c.col_stride, d.c.col_stride, w, v);
}

// The whole result when K == 0: C = act(beta * (D or C)), or act(0) when beta == 0.
void scale_c(const GemmDesc &d, void *c, const void *dptr, const Act &act) {
  for (int64_t bt = 0; bt < d.batch; ++bt) {
    void *cb = offset_ptr(c, d.c.dtype, bt * d.c.batch_stride);
    const void *db = d.has_d ? offset_ptr(dptr, d.d.dtype, bt * d.d.batch_stride) : nullptr;
    for (int64_t i = 0; i < d.m; ++i)
      for (int64_t j = 0; j < d.n; j += kEpilogueChunk)
        epilogue_row(d, nullptr, std::min(kEpilogueChunk, d.n - j), i, j, cb, db, act);
  }
}

// Adds the rows x cols corner of an MR x NR tile (row stride nr) into `c`, like the kernels do.
void merge_tile(const float *tile, int64_t nr, int64_t rows, int64_t cols, float *c, int64_t ldc,
                float alpha, float beta) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      float &dst = c[i * ldc + j];
      dst = gemm_combine(tile[i * nr + j], alpha, beta, beta == 0.0f ? 0.0f : dst);
    }
}

// Epilogue of a block computed in an fp32 buffer: alpha, beta * (D or C), activation, C's dtype
// (rounding once) and strides.
void store_block(const GemmDesc &d, const Act &act, void *cb, const void *db, const float *buf, int64_t ldbuf, int64_t i0,
                 int64_t i1, int64_t j0, int64_t j1) {
  for (int64_t i = i0; i < i1; ++i) {
    const float *row = buf + (i - i0) * ldbuf;
    for (int64_t j = j0; j < j1; j += kEpilogueChunk)
      epilogue_row(d, row + (j - j0), std::min(kEpilogueChunk, j1 - j), i, j, cb, db, act);
  }
}

const void *addend_batch(const Ctx &x, int64_t bt) {
  return x.d.has_d ? offset_ptr(x.dp, x.d.d.dtype, bt * x.d.d.batch_stride) : nullptr;
}

// Small M: all rows of A against B streamed row by row, nc columns per pass.
void run_stream_task(const Ctx &x, int64_t bt, int64_t n0, int64_t n1, char *ws) {
  const GemmPlan &p = x.plan;
  const GemmDesc &d = x.d;
  const void *ab = offset_ptr(x.a, d.a.dtype, bt * d.a.batch_stride);
  const void *bb = offset_ptr(x.b, d.b.dtype, bt * d.b.batch_stride);
  void *cb = offset_ptr(x.c, d.c.dtype, bt * d.c.batch_stride);
  float *apack = reinterpret_cast<float *>(ws);
  float *acc = reinterpret_cast<float *>(ws + p.a_pack_bytes);
  PackSrc asrc{ab, d.a.dtype, d.a.row_stride, d.a.col_stride};
  pack_panels(asrc, d.m, d.k, static_cast<int>(p.mr), d.input_rounding, x.simd, apack);
  const StreamHalfFn half = d.b.dtype == ACL_FLOAT16 ? x.uk.stream_f16 : x.uk.stream_bf16;
  for (int64_t jc = n0; jc < n1; jc += p.nc) {
    const int64_t w = std::min(p.nc, n1 - jc);
    for (int64_t i = 0; i < d.m; ++i)
      for (int64_t j = 0; j < w; ++j) acc[i * p.nc + j] = 0.0f;
    if (d.b.dtype == ACL_FLOAT)
      x.uk.stream(static_cast<int>(d.m), d.k, apack, p.mr, static_cast<const float *>(bb) + jc, d.b.row_stride, w,
                  acc, p.nc);
    else
      half(static_cast<int>(d.m), d.k, apack, p.mr, static_cast<const uint16_t *>(bb) + jc, d.b.row_stride, w, acc,
           p.nc);
    store_block(d, act_of(x.plan), cb, addend_batch(x, bt), acc, p.nc, 0, d.m, jc, jc + w);
  }
}

// Small M with B stored [N,K]: dot products over contiguous rows of A and B, nc columns per store.
void run_gemv_nt_task(const Ctx &x, int64_t bt, int64_t n0, int64_t n1, char *ws) {
  const GemmPlan &p = x.plan;
  const GemmDesc &d = x.d;
  const void *ab = offset_ptr(x.a, d.a.dtype, bt * d.a.batch_stride);
  const void *bb = offset_ptr(x.b, d.b.dtype, bt * d.b.batch_stride);
  void *cb = offset_ptr(x.c, d.c.dtype, bt * d.c.batch_stride);
  const float *a;
  int64_t lda;
  if (d.a.dtype == ACL_FLOAT && d.a.col_stride == 1) {
    a = static_cast<const float *>(ab);
    lda = d.a.row_stride;
  } else {
    float *apack = reinterpret_cast<float *>(ws);
    for (int64_t i = 0; i < d.m; ++i)
      for (int64_t q = 0; q < d.k; ++q)
        apack[i * d.k + q] = load_elem(ab, d.a.dtype, i * d.a.row_stride + q * d.a.col_stride);
    a = apack;
    lda = d.k;
  }
  float *acc = reinterpret_cast<float *>(ws + p.a_pack_bytes);
  for (int64_t jc = n0; jc < n1; jc += p.nc) {
    const int64_t w = std::min(p.nc, n1 - jc);
    if (d.b.dtype == ACL_FLOAT)
      (p.dot_k_chunked ? x.uk.dot_k_chunked : x.uk.dot)(static_cast<int>(d.m), d.k, a, lda,
                                                        static_cast<const float *>(bb) + jc * d.b.col_stride,
                                                        d.b.col_stride, w, acc, p.nc);
    else
      (d.b.dtype == ACL_FLOAT16 ? x.uk.dot_f16 : x.uk.dot_bf16)(static_cast<int>(d.m), d.k, a, lda,
                                                                 static_cast<const uint16_t *>(bb) + jc * d.b.col_stride,
                                                                 d.b.col_stride, w, acc, p.nc);
    store_block(d, act_of(x.plan), cb, addend_batch(x, bt), acc, p.nc, 0, d.m, jc, jc + w);
  }
}

// Small M over a pre-packed B, in the summation order of the plain plan (plan.prepacked_small).
void run_prepacked_small_task(const Ctx &x, int64_t bt, int64_t n0, int64_t n1, char *ws) {
  const GemmPlan &p = x.plan;
  const GemmDesc &d = x.d;
  const void *ab = offset_ptr(x.a, d.a.dtype, bt * d.a.batch_stride);
  const void *bb = offset_ptr(x.b, d.b.dtype, bt * d.b.batch_stride);
  void *cb = offset_ptr(x.c, d.c.dtype, bt * d.c.batch_stride);
  float *apack = reinterpret_cast<float *>(ws);
  for (int64_t i = 0; i < d.m; ++i)
    for (int64_t q = 0; q < d.k; ++q)
      apack[i * d.k + q] = load_elem(ab, d.a.dtype, i * d.a.row_stride + q * d.a.col_stride);
  float *acc = reinterpret_cast<float *>(ws + p.a_pack_bytes);
  float *widened = reinterpret_cast<float *>(ws + p.a_pack_bytes + p.c_buf_bytes);  // half B: one panel
  PanelFn fn = p.prepacked_small == 1 ? (x.uk.panel_stream ? x.uk.panel_stream : &panel_stream_generic)
                                      : (x.uk.panel_dot ? x.uk.panel_dot : &panel_dot_generic);
  const int64_t ldacc = p.nc + kPrepackWidth;  // a task may start inside a panel (nr = 8 kernels)
  for (int64_t jc = n0; jc < n1; jc += p.nc) {
    const int64_t w = std::min(p.nc, n1 - jc), j0 = jc / kPrepackWidth * kPrepackWidth;
    const int64_t npanels = (jc + w - j0 + kPrepackWidth - 1) / kPrepackWidth;
    if (d.b.dtype == ACL_FLOAT) {
      fn(static_cast<int>(d.m), d.k, apack, d.k, static_cast<const float *>(bb) + j0 * d.k, npanels, acc, ldacc);
    } else {
      // Each element's arithmetic is per panel, so widening panel by panel keeps the plain plan's bits.
      for (int64_t q = 0; q < npanels; ++q) {
        pack_prepacked(bb, d.b.dtype, d.k, j0 + q * kPrepackWidth, kPrepackWidth, 0, d.k,
                       static_cast<int>(kPrepackWidth), ACL_FLOAT, x.simd, widened);
        fn(static_cast<int>(d.m), d.k, apack, d.k, widened, 1, acc + q * kPrepackWidth, ldacc);
      }
    }
    store_block(d, act_of(x.plan), cb, addend_batch(x, bt), acc + (jc - j0), ldacc, 0, d.m, jc, jc + w);
  }
}

void run_task(const Ctx &x, int64_t task, char *ws) {
  const GemmPlan &p = x.plan;
  const GemmDesc &d = x.d;
  const int64_t mr = p.mr, nr = p.nr;

  const int64_t per_batch = x.m_tasks * p.n_tasks;
  const int64_t bt = task / per_batch;
  const int64_t mt = task % per_batch % x.m_tasks;
  const int64_t nt = task % per_batch / x.m_tasks;
  const int64_t m0 = mt * p.m_task, m1 = std::min(d.m, m0 + p.m_task);
  const int64_t n0 = nt * p.n_task, n1 = std::min(d.n, n0 + p.n_task);

  if (p.stream) return run_stream_task(x, bt, n0, n1, ws);
  if (p.gemv_nt) return run_gemv_nt_task(x, bt, n0, n1, ws);
  if (p.prepacked_small) return run_prepacked_small_task(x, bt, n0, n1, ws);

  const void *ab = offset_ptr(x.a, d.a.dtype, bt * d.a.batch_stride);
  const void *bb = offset_ptr(x.b, d.b.dtype, bt * d.b.batch_stride);
  void *cb = offset_ptr(x.c, d.c.dtype, bt * d.c.batch_stride);
  const void *db = addend_batch(x, bt);

  float *apack = reinterpret_cast<float *>(ws);
  float *bpack = reinterpret_cast<float *>(ws + p.a_pack_bytes);
  float *cbuf = reinterpret_cast<float *>(ws + p.a_pack_bytes + p.b_pack_bytes);
  const int64_t ldbuf = p.n_task;
  alignas(64) float tmp[kMaxMr * kMaxNr];

  for (int64_t jc = n0; jc < n1; jc += p.nc) {
    const int64_t ncb = std::min(p.nc, n1 - jc);
    if (p.b_full_k) {
      PackSrc bsrc{offset_ptr(bb, d.b.dtype, jc * d.b.col_stride), d.b.dtype, d.b.col_stride, d.b.row_stride};
      pack_panels(bsrc, ncb, d.k, static_cast<int>(nr), d.input_rounding, x.simd, bpack);
    }
    for (int64_t pc = 0; pc < d.k; pc += p.kc) {
      const int64_t kcb = std::min(p.kc, d.k - pc);
      const bool first = pc == 0, last = pc + kcb >= d.k;
      // Steps per packed panel row: K, or k-pairs (4-byte units either way) with bf16_dot.
      const int64_t ks = p.bf16_dot ? (kcb + 1) / 2 : kcb;
      // Pre-packed fp32 weights in 16-wide panels are read in place by a 16-wide kernel.
      const bool b_in_place = d.b_prepacked && nr == kPrepackWidth && d.b.dtype == ACL_FLOAT &&
                              d.input_rounding == ACL_FLOAT;
      const int64_t b_full = ncb / nr * nr;  // with b_direct: columns read in place
      if (d.b_prepacked && p.bf16_dot) {
        pack_pairs_bf16_prepacked(bb, d.k, jc, ncb, pc, kcb, static_cast<int>(nr), reinterpret_cast<uint32_t *>(bpack));
      } else if (d.b_prepacked && !b_in_place) {
        pack_prepacked(bb, d.b.dtype, d.k, jc, ncb, pc, kcb, static_cast<int>(nr), d.input_rounding, x.simd,
                       bpack);
      } else if (p.b_direct) {
        if (b_full < ncb) {  // the last, partial panel is packed (zero-padded)
          PackSrc bsrc{offset_ptr(bb, d.b.dtype, pc * d.b.row_stride + (jc + b_full) * d.b.col_stride), d.b.dtype,
                       d.b.col_stride, d.b.row_stride};
          pack_panels(bsrc, ncb - b_full, kcb, static_cast<int>(nr), d.input_rounding, x.simd, bpack);
        }
      } else if (p.bf16_dot) {
        PackSrc bsrc{offset_ptr(bb, d.b.dtype, pc * d.b.row_stride + jc * d.b.col_stride), d.b.dtype,
                     d.b.col_stride, d.b.row_stride};
        pack_pairs_bf16(bsrc, ncb, kcb, static_cast<int>(nr), reinterpret_cast<uint32_t *>(bpack));
      } else if (!d.b_prepacked && !p.b_full_k) {
        PackSrc bsrc{offset_ptr(bb, d.b.dtype, pc * d.b.row_stride + jc * d.b.col_stride), d.b.dtype,
                     d.b.col_stride, d.b.row_stride};
        pack_panels(bsrc, ncb, kcb, static_cast<int>(nr), d.input_rounding, x.simd, bpack);
      }

      for (int64_t ic = m0; ic < m1; ic += p.mc) {
        const int64_t mcb = std::min(p.mc, m1 - ic);
        PackSrc asrc{offset_ptr(ab, d.a.dtype, ic * d.a.row_stride + pc * d.a.col_stride), d.a.dtype,
                     d.a.row_stride, d.a.col_stride};
        if (p.bf16_dot)
          pack_pairs_bf16(asrc, mcb, kcb, static_cast<int>(mr), reinterpret_cast<uint32_t *>(apack));
        else if (!p.a_direct)
          pack_panels(asrc, mcb, kcb, static_cast<int>(mr), d.input_rounding, x.simd, apack);
        // The tile kernel over rows [ir, ir + rows) of this block, A packed or read in place.
        auto tile = [&](int64_t ir, int64_t rows, const float *bp, int64_t ldb, float *c, int64_t ldc, float alpha,
                        float beta) {
          if (p.bf16_dot)
            x.uk.rows_bf16[rows](ks, reinterpret_cast<const uint32_t *>(apack) + ir * ks,
                                 reinterpret_cast<const uint32_t *>(bp), c, ldc, alpha, beta);
          else if (p.a_direct)
            x.uk.rows_a_in_place[rows](kcb, static_cast<const float *>(asrc.origin) + ir * d.a.row_stride,
                                       d.a.row_stride, bp, ldb, c, ldc, alpha, beta);
          else
            x.uk.rows[rows](kcb, apack + ir * kcb, bp, ldb, c, ldc, alpha, beta);
        };

        for (int64_t jr = 0; jr < ncb; jr += nr) {
          const int64_t cols = std::min(nr, ncb - jr);
          const float *bp = b_in_place   ? static_cast<const float *>(bb) + (jc + jr) * d.k + pc * kPrepackWidth
                            : p.b_full_k ? bpack + jr * d.k + pc * nr
                                         : bpack + jr * ks;
          int64_t ldb = nr;
          if (p.b_direct) {
            if (jr < b_full) {
              bp = static_cast<const float *>(bb) + pc * d.b.row_stride + jc + jr;
              ldb = d.b.row_stride;
            } else {
              bp = bpack;
            }
          }
          for (int64_t ir = 0; ir < mcb; ir += mr) {
            const int64_t rows = std::min(mr, mcb - ir);
            float *cp;
            int64_t ldc;
            float alpha, beta;
            if (p.c_direct) {
              if (first && d.has_d) {
                // alpha * A@B + beta * D replaces C (D may be C itself): through the tile.
                tile(ir, rows, bp, ldb, tmp, nr, 1.0f, 0.0f);
                for (int64_t r = 0; r < rows; ++r)
                  epilogue_row(d, tmp + r * nr, cols, ic + ir + r, jc + jr, cb, db,
                               last ? act_of(p) : Act{});
                continue;
              }
              cp = static_cast<float *>(cb) + (ic + ir) * d.c.row_stride + (jc + jr);
              ldc = d.c.row_stride;
              alpha = d.alpha;
              beta = first ? d.beta : 1.0f;
            } else {
              cp = cbuf + (ic + ir - m0) * ldbuf + (jc + jr - n0);
              ldc = ldbuf;
              alpha = 1.0f;
              beta = first ? 0.0f : 1.0f;
            }
            if (cols == nr) {
              tile(ir, rows, bp, ldb, cp, ldc, alpha, beta);
            } else {
              tile(ir, rows, bp, ldb, tmp, nr, 1.0f, 0.0f);
              merge_tile(tmp, nr, rows, cols, cp, ldc, alpha, beta);
            }
            if (p.c_direct && last && d.activation != GemmActivation::kNone)
              for (int64_t r = 0; r < rows; ++r) activate(act_of(p), cp + r * ldc, cols);
          }
        }
      }
    }
  }

  if (!p.c_direct) store_block(d, act_of(p), cb, db, cbuf, ldbuf, m0, m1, n0, n1);
}

}  // namespace

namespace {

// The plan over `d` (its desc, or a copy with fewer rows): M tasks recounted, everything else as planned.
void run_plan(const GemmPlan &plan, const GemmDesc &d, const void *a, const void *b, void *c, void *workspace,
              const void *dp) {
  if (d.batch == 0 || d.m == 0 || d.n == 0) return;
  if (plan.kernel < 0) return gemm_reference(d, a, b, c, dp);
  if (d.k == 0) return scale_c(d, c, dp, act_of(plan));
  const int64_t m_tasks = plan.m_task > 0 ? std::min(plan.m_tasks, (d.m + plan.m_task - 1) / plan.m_task)
                                          : plan.m_tasks;
  const int64_t tasks = d.m == plan.desc.m ? plan.tasks : d.batch * m_tasks * plan.n_tasks;
  const int64_t workers = std::max<int64_t>(1, std::min<int64_t>(plan.threads, tasks));
  const Ctx x{plan, d, ukernel_by_index(plan.kernel), a, b, c, plan.pack_simd, dp, m_tasks};
  auto worker = [&](int64_t w) {
    char *ws = static_cast<char *>(workspace) + static_cast<size_t>(w) * plan.thread_workspace_bytes;
    for (int64_t t = w; t < tasks; t += workers) run_task(x, t, ws);
  };
  if (workers == 1) {
    worker(0);
  } else {
    core::parallel_for(workers, 1, [&](int64_t begin, int64_t end) {
      for (int64_t w = begin; w < end; ++w) worker(w);
    });
  }
}

}  // namespace

void gemm_run(const GemmPlan &plan, const void *a, const void *b, void *c, void *workspace, const void *dp) {
  const GemmDesc &d = plan.desc;
  if (plan.prepacked_alt && gemm_prepacked_b_registered(b, d.k, d.n, d.b.dtype, d.b.row_stride, d.b.col_stride))
    return gemm_run(*plan.prepacked_alt, a, b, c, workspace, dp);
  run_plan(plan, d, a, b, c, workspace, dp);
}

void gemm_run_rows(const GemmPlan &plan, int64_t m, const void *a, const void *b, void *c, void *workspace,
                   const void *dp) {
  const GemmDesc &pd = plan.desc;
  if (plan.prepacked_alt && gemm_prepacked_b_registered(b, pd.k, pd.n, pd.b.dtype, pd.b.row_stride, pd.b.col_stride))
    return gemm_run_rows(*plan.prepacked_alt, m, a, b, c, workspace, dp);
  if (m >= pd.m) return run_plan(plan, pd, a, b, c, workspace, dp);
  GemmDesc d = pd;  // plain data: no allocation
  d.m = std::max<int64_t>(m, 0);
  run_plan(plan, d, a, b, c, workspace, dp);
}

}  // namespace opsnn::kernels

namespace opsnn::kernels::gemm_detail {

void panel_stream_generic(int rows, int64_t k, const float *a, int64_t lda, const float *panels, int64_t npanels,
                          float *c, int64_t ldc) {
  panel_impl::panel_stream(rows, k, a, lda, panels, npanels, c, ldc);
}
void panel_dot_generic(int rows, int64_t k, const float *a, int64_t lda, const float *panels, int64_t npanels,
                       float *c, int64_t ldc) {
  panel_impl::panel_dot(rows, k, a, lda, panels, npanels, c, ldc);
}

}  // namespace opsnn::kernels::gemm_detail
