#include "kernels/attention/trisolve.h"

#include <algorithm>
#include <atomic>
#include <string>

#include "core/impl_list.h"
#include "core/thread_pool.h"
#include "core/verbose.h"

namespace opsnn::kernels {
namespace {

constexpr int64_t kColBlock = 64;
constexpr int64_t kBlockedColBlock = 256;
constexpr int64_t kRowBlock = 64;

const core::Impl<TriSolveDesc> kPaths[] = {
    {"blocked", core::kNoIsa,
     [](const TriSolveDesc &d, const core::Why &why) {
       if (d.dtype != ACL_FLOAT) return why("not FLOAT");
       if (d.m < 2 * kRowBlock) return why("m=%lld < %lld", static_cast<long long>(d.m),
                                           static_cast<long long>(2 * kRowBlock));
       return true;
     }},
    {"direct", core::kNoIsa, nullptr},
};

// The blocked path for FLOAT: X (m x kc, fp32, row stride kc) solved in place.
void run_blocked(const TriSolvePlan &p, const float *A, float *xs, int64_t kc, bool last_cols, char *gemm_ws) {
  const TriSolveDesc &d = p.desc;
  const int64_t m = d.m, nb = p.row_block, blocks = (m + nb - 1) / nb;
  const int64_t rs = d.transpose ? d.a_cs : d.a_rs, cs = d.transpose ? d.a_rs : d.a_cs;
  const bool up = d.upper != d.transpose;
  for (int64_t q = 0; q < blocks; ++q) {
    // Rows [r0, r1) in solve order: from the top (lower) or the bottom (upper).
    const int64_t r0 = up ? std::max<int64_t>(0, m - (q + 1) * nb) : q * nb, r1 = up ? m - q * nb : std::min(m, (q + 1) * nb);
    for (int64_t s = 0; s < r1 - r0; ++s) {
      const int64_t i = up ? r1 - 1 - s : r0 + s;
      float *xi = xs + i * kc;
      const int64_t j_lo = up ? i + 1 : r0, j_hi = up ? r1 : i;
      for (int64_t j = j_lo; j < j_hi; ++j) {
        const float aij = A[i * rs + j * cs];
        const float *xj = xs + j * kc;
        for (int64_t c = 0; c < kc; ++c) xi[c] -= aij * xj[c];
      }
      if (!d.unit) {
        const float inv = 1.0f / A[i * rs + i * cs];
        for (int64_t c = 0; c < kc; ++c) xi[c] *= inv;
      }
    }
    // The rows still to solve: X_rest -= op(A)[rest, r0:r1] . X[r0:r1].
    const int64_t rest0 = up ? 0 : r1, rest1 = up ? r0 : m;
    if (rest1 <= rest0) continue;
    const GemmPlan &g = p.updates[static_cast<size_t>(q * 2 + (last_cols ? 1 : 0))];
    gemm_run(g, A + rest0 * rs + r0 * cs, xs + r0 * kc, xs + rest0 * kc, gemm_ws);
  }
}

template <class T>
void run_task(const TriSolvePlan &p, const char *a0, const char *b0, char *x0, char *m0, int64_t t, double *xs) {
  const TriSolveDesc &d = p.desc;
  const int64_t batch = t / p.col_blocks, cb = t % p.col_blocks;
  // Offsets of this batch along the broadcast dims.
  int64_t rem = batch, ao = 0, bo = 0, xo = 0, mo = 0;
  for (int i = static_cast<int>(d.batch_dims.size()) - 1; i >= 0; --i) {
    const int64_t idx = rem % d.batch_dims[static_cast<size_t>(i)];
    rem /= d.batch_dims[static_cast<size_t>(i)];
    ao += idx * d.a_bs[static_cast<size_t>(i)];
    bo += idx * d.b_bs[static_cast<size_t>(i)];
    xo += idx * d.x_bs[static_cast<size_t>(i)];
    mo += idx * d.m_bs[static_cast<size_t>(i)];
  }
  const T *A = reinterpret_cast<const T *>(a0) + ao;
  const T *B = reinterpret_cast<const T *>(b0) + bo;
  T *X = reinterpret_cast<T *>(x0) + xo;
  const int64_t m = d.m, c0 = cb * p.col_block, kc = std::min(p.col_block, d.k - c0);
  // op(A)(i, j): A read through swapped strides when transposed.
  const int64_t rs = d.transpose ? d.a_cs : d.a_rs, cs = d.transpose ? d.a_rs : d.a_cs;
  const bool op_upper = d.upper != d.transpose;
  if (p.blocked) {  // FLOAT only (the candidate's condition)
    float *xf = reinterpret_cast<float *>(xs);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t c = 0; c < kc; ++c) xf[i * kc + c] = static_cast<float>(B[i * d.b_rs + (c0 + c) * d.b_cs]);
    run_blocked(p, reinterpret_cast<const float *>(A), xf, kc, cb == p.col_blocks - 1 && kc != p.col_block,
                reinterpret_cast<char *>(xf) + (m * p.col_block * 4 + 63) / 64 * 64);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t c = 0; c < kc; ++c) X[i * d.x_rs + (c0 + c) * d.x_cs] = static_cast<T>(xf[i * kc + c]);
  } else {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t c = 0; c < kc; ++c) xs[i * kc + c] = static_cast<double>(B[i * d.b_rs + (c0 + c) * d.b_cs]);
  for (int64_t s = 0; s < m; ++s) {
    const int64_t i = op_upper ? m - 1 - s : s;
    double *xi = xs + i * kc;
    const int64_t j_lo = op_upper ? i + 1 : 0, j_hi = op_upper ? m : i;
    for (int64_t j = j_lo; j < j_hi; ++j) {
      const double aij = static_cast<double>(A[i * rs + j * cs]);
      const double *xj = xs + j * kc;
      for (int64_t c = 0; c < kc; ++c) xi[c] -= aij * xj[c];
    }
    if (!d.unit) {
      const double aii = static_cast<double>(A[i * rs + i * cs]);
      for (int64_t c = 0; c < kc; ++c) xi[c] /= aii;
    }
  }
  for (int64_t i = 0; i < m; ++i)
    for (int64_t c = 0; c < kc; ++c) X[i * d.x_rs + (c0 + c) * d.x_cs] = static_cast<T>(xs[i * kc + c]);
  }
  if (cb == 0 && d.write_m) {  // M: the (broadcast) copy of A
    T *M = reinterpret_cast<T *>(m0) + mo;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < m; ++j) M[i * d.mo_rs + j * d.mo_cs] = A[i * d.a_rs + j * d.a_cs];
  }
}

}  // namespace

bool trisolve_plan(const TriSolveDesc &d, TriSolvePlan *plan) {
  TriSolvePlan &p = *plan;
  p = TriSolvePlan{};
  p.desc = d;
  p.batches = 1;
  for (int64_t b : d.batch_dims) p.batches *= b;
  core::ImplTrace trace;
  const bool traced = core::current_phase1_trace() != nullptr;
  const int path = core::choose(kPaths, d, traced ? &trace : nullptr);
  p.blocked = path == 0 && d.k > 0;
  p.col_block = std::max<int64_t>(1, std::min(p.blocked ? kBlockedColBlock : kColBlock, d.k));
  p.col_blocks = d.k == 0 ? (d.write_m ? 1 : 0) : (d.k + p.col_block - 1) / p.col_block;
  p.worker_bytes = static_cast<size_t>((d.m * p.col_block * 8 + 63) / 64 * 64);
  if (p.blocked) {
    p.row_block = kRowBlock;
    const int64_t m = d.m, nb = kRowBlock, blocks = (m + nb - 1) / nb, last = d.k - (p.col_blocks - 1) * p.col_block;
    const int64_t rs = d.transpose ? d.a_cs : d.a_rs, cs = d.transpose ? d.a_rs : d.a_cs;
    const bool up = d.upper != d.transpose;
    size_t gws = 0;
    for (int64_t q = 0; q < blocks; ++q) {
      const int64_t r0 = up ? std::max<int64_t>(0, m - (q + 1) * nb) : q * nb, r1 = up ? m - q * nb : std::min(m, (q + 1) * nb);
      const int64_t rest = up ? r0 : m - r1;
      for (int w = 0; w < 2; ++w) {
        const int64_t kc = w == 0 ? p.col_block : last;
        GemmPlan g;
        if (rest > 0) {
          GemmDesc gd;
          gd.m = rest;
          gd.n = kc;
          gd.k = r1 - r0;
          gd.a = {ACL_FLOAT, rs, cs, 0};
          gd.b = {ACL_FLOAT, kc, 1, 0};
          gd.c = {ACL_FLOAT, kc, 1, 0};
          gd.alpha = -1.0f;
          gd.beta = 1.0f;
          GemmOptions opt;
          opt.threads = 1;
          opt.detect_prepacked_b = false;
          opt.record = q == 0 && w == 0;
          if (!gemm_plan(gd, &g, opt)) return false;
          gws = std::max(gws, g.workspace_bytes);
        }
        p.updates.push_back(std::move(g));
      }
    }
    p.worker_bytes = static_cast<size_t>((d.m * p.col_block * 4 + 63) / 64 * 64) + (gws + 63) / 64 * 64;
  }
  const int64_t tasks = p.batches * p.col_blocks;
  p.workers = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(core::num_threads(), tasks)));
  p.workspace_bytes = tasks == 0 ? 0 : p.worker_bytes * static_cast<size_t>(p.workers);
  if (traced) core::record_choice(std::string("trisolve:") + kPaths[path].name, &trace);
  return true;
}

void trisolve_run(const TriSolvePlan &p, const void *a, const void *b, void *x, void *m_out, void *workspace) {
  const int64_t tasks = p.batches * p.col_blocks;
  if (tasks == 0 || p.desc.m == 0) return;
  std::atomic<int64_t> next{0};
  auto worker = [&](int64_t w) {
    double *xs = reinterpret_cast<double *>(static_cast<char *>(workspace) + static_cast<size_t>(w) * p.worker_bytes);
    for (int64_t t = next.fetch_add(1); t < tasks; t = next.fetch_add(1)) {
      if (p.desc.dtype == ACL_DOUBLE)
        run_task<double>(p, static_cast<const char *>(a), static_cast<const char *>(b), static_cast<char *>(x),
                         static_cast<char *>(m_out), t, xs);
      else
        run_task<float>(p, static_cast<const char *>(a), static_cast<const char *>(b), static_cast<char *>(x),
                        static_cast<char *>(m_out), t, xs);
    }
  };
  if (p.workers == 1) {
    worker(0);
  } else {
    core::parallel_for(p.workers, 1, [&](int64_t begin, int64_t end) {
      for (int64_t w = begin; w < end; ++w) worker(w);
    });
  }
}

}  // namespace opsnn::kernels
