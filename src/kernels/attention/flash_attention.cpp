#include "kernels/attention/flash_attention.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "aclnn/aclnn_base.h"
#include "common/error.h"
#include "core/dtype.h"
#include "core/impl_list.h"
#include "core/thread_pool.h"
#include "core/verbose.h"
#include "kernels/attention/attention_rows.h"
#include "kernels/elementwise/convert.h"

namespace opsnn::kernels {
namespace {

constexpr int64_t kTaskRows = 256;     // query rows per prefill task (heads x positions)
constexpr int64_t kMinQueryBlock = 16;  // query positions per prefill task, at least
constexpr int64_t kMaxTaskRows = 512;
constexpr int64_t kKeyBlock = 256;     // keys per block (prefill)
constexpr int64_t kDecodeKeyBlock = 512;
constexpr int64_t kStreamKeyBlock = 128;  // decode_stream: keys per block (the score tile and V pass stay in L2)
// Split-KV decode: the KV length is split until B x Nkv x splits reaches kDecodeTasks (enough for
// the workers of any machine here), no split shorter than kMinSplitKeys. Fixed by the shapes, so the
// results never depend on the thread count.
constexpr int64_t kDecodeTasks = 32;
constexpr int64_t kMinSplitKeys = 512;

size_t bytes64(size_t n) { return (n + 63) / 64 * 64; }

// The paths, best first; the last one (every shape) is also what OPSNN_KERNELS=reference runs (its
// GEMMs then plan the reference kernel).
struct PathCtx {
  const AttnDesc &d;
};
const core::Impl<PathCtx> kRowTiers[] = {
#if defined(__x86_64__)
    {"avx512bf16", static_cast<int>(core::Isa::kAvx512Bf16),
     [](const PathCtx &c, const core::Why &why) {
       // It differs from avx512 only in decode_stream's q.k over BF16 keys.
       if (c.d.k.dtype != ACL_BF16) return why("key not BF16");
       return true;
     }},
    {"avx512", static_cast<int>(core::Isa::kAvx512), nullptr},
    {"avx2", static_cast<int>(core::Isa::kAvx2), nullptr},
#endif
    {"portable", core::kNoIsa, nullptr},
};
const AttnRowFns &(*const kRowFns[])() = {
#if defined(__x86_64__)
    &attn_rows_avx512bf16,
    &attn_rows_avx512,
    &attn_rows_avx2,
#endif
    &attn_rows_portable,
};
const core::Impl<PathCtx> kPaths[] = {
    {"decode_stream", core::kNoIsa,
     [](const PathCtx &c, const core::Why &why) {
       if (c.d.sq != 1) return why("Sq=%lld > 1", static_cast<long long>(c.d.sq));
       if (c.d.kv_int8) return why("INT8 key / value (dequantised per block by the GEMM path)");
       if (c.d.k.d != 1 || c.d.v.d != 1) return why("key / value rows not contiguous along D");
       return true;
     }},
    {"decode_rows", core::kNoIsa,
     [](const PathCtx &c, const core::Why &why) {
       if (c.d.sq != 1) return why("Sq=%lld > 1", static_cast<long long>(c.d.sq));
       if (c.d.heads == c.d.kv_heads) return why("no grouped query heads");
       return true;
     }},
    {"flash", core::kNoIsa, nullptr},
};

// The visible key range [lo, hi) of query row i of batch b (before the explicit mask).
inline void key_range(const AttnDesc &d, int64_t b, int64_t i, int64_t *lo, int64_t *hi) {
  const int64_t kv = d.kv_len[static_cast<size_t>(b)], off = kv - d.q_len[static_cast<size_t>(b)];
  int64_t l = 0, h = kv;
  switch (d.sparse) {
    case AttnSparse::kDefault:
      if (d.band) {
        l = std::max(l, i - d.pre_tokens);
        h = std::min(h, i + d.next_tokens + 1);
      }
      break;
    case AttnSparse::kAllMask: break;
    case AttnSparse::kLeftUp: h = std::min(h, i + 1); break;
    case AttnSparse::kRightDown: h = std::min(h, i + off + 1); break;
    case AttnSparse::kBand:
      l = std::max(l, i + off - d.pre_tokens);
      h = std::min(h, i + off + d.next_tokens + 1);
      break;
  }
  *lo = std::max<int64_t>(l, 0);
  *hi = std::min(h, kv);
}

struct Scratch {
  float *q, *s, *o, *m, *l, *row;
  float *kq, *vq;  // dequantised INT8 key / value rows of a block (kv_int8)
  char *gemm;
};

Scratch carve(const AttnPlan &p, char *base) {
  const int64_t R = p.rows_max, D = p.desc.dim, KB = p.k_block;
  Scratch s;
  char *c = base;
  auto take = [&](size_t bytes) {
    char *r = c;
    c += bytes64(bytes);
    return r;
  };
  s.q = reinterpret_cast<float *>(take(sizeof(float) * R * D));
  s.s = reinterpret_cast<float *>(take(sizeof(float) * R * KB));
  s.o = reinterpret_cast<float *>(take(sizeof(float) * R * D));
  s.m = reinterpret_cast<float *>(take(sizeof(float) * R));
  s.l = reinterpret_cast<float *>(take(sizeof(float) * R));
  s.row = reinterpret_cast<float *>(take(sizeof(float) * KB));
  const int64_t kvq = p.desc.kv_int8 ? KB * D : 0;
  s.kq = reinterpret_cast<float *>(take(sizeof(float) * kvq));
  s.vq = reinterpret_cast<float *>(take(sizeof(float) * kvq));
  s.gemm = c;
  return s;
}

size_t scratch_bytes_before_gemm(int64_t R, int64_t D, int64_t KB, bool kv_scratch) {
  return bytes64(4 * R * D) + bytes64(4 * R * KB) + bytes64(4 * R * D) + 2 * bytes64(4 * R) + bytes64(4 * KB) +
         (kv_scratch ? 2 * bytes64(4 * KB * D) : 0);
}

struct RunCtx {
  const AttnPlan &p;
  const char *q, *k, *v, *mask, *pse;
  char *out;
  float *lse;
  const int32_t *table;
  const char *aq_scale[2] = {}, *aq_offset[2] = {};  // key, value
  float *partial = nullptr;  // split-KV decode: plan.merges' partials
};

// A partial of split-KV decode: rows_max rows of D unnormalised outputs, then the rows' max and sum.
inline float *partial_at(const RunCtx &x, int64_t part) {
  const int64_t R = x.p.rows_max, D = x.p.desc.dim;
  return x.partial + part * R * (D + 2);
}

// decode_stream reads FLOAT / BF16 / FLOAT16 key and value rows in place.
inline AttnKv kv_type(aclDataType t) {
  return t == ACL_BF16 ? AttnKv::kBf16 : t == ACL_FLOAT16 ? AttnKv::kF16 : AttnKv::kF32;
}

// Rows [j0, j0 + w) of an INT8 key (half 0) or value (half 1) of batch b, KV head n, dequantised
// into dst [w, D]: (x + offset) * scale, per channel or per token.
template <class RowPtr>
void dequant_rows(const RunCtx &x, int half, int64_t b, int64_t n, int64_t j0, int64_t w, const AttnOperand &o,
                  RowPtr row, float *dst) {
  const AttnDesc::Antiquant &aq = x.p.desc.aq[half];
  const char *scale = x.aq_scale[half], *offset = x.aq_offset[half];
  const int64_t asz = static_cast<int64_t>(core::dtype_size(aq.dtype));
  const int64_t D = x.p.desc.dim;
  float sc[1024], of[1024];  // per channel: the head's D values (D <= 1024, checked in phase 1)
  if (!aq.per_token) {
    const int64_t base = n * aq.a;
    load_as<float>(aq.dtype, scale + base * asz, aq.c * asz, sc, D);
    if (aq.has_offset)
      load_as<float>(aq.dtype, offset + base * asz, aq.c * asz, of, D);
    else
      std::fill(of, of + D, 0.0f);
  }
  for (int64_t r = 0; r < w; ++r) {
    const int8_t *src = reinterpret_cast<const int8_t *>(row(j0 + r));
    float *out = dst + r * D;
    if (aq.per_token) {
      const int64_t e = b * aq.a + (j0 + r) * aq.c;
      float t_sc, t_of = 0.0f;
      load_as<float>(aq.dtype, scale + e * asz, 0, &t_sc, 1);
      if (aq.has_offset) load_as<float>(aq.dtype, offset + e * asz, 0, &t_of, 1);
      for (int64_t c = 0; c < D; ++c) out[c] = (static_cast<float>(src[c * o.d]) + t_of) * t_sc;
    } else {
      for (int64_t c = 0; c < D; ++c) out[c] = (static_cast<float>(src[c * o.d]) + of[c]) * sc[c];
    }
  }
}

// The first query / key row of a batch along S: 0, or its start in the packed rows (varlen).
inline int64_t q_start(const AttnDesc &d, int64_t b) { return d.varlen ? d.q_start[static_cast<size_t>(b)] : 0; }
inline int64_t kv_start(const AttnDesc &d, int64_t b) { return d.varlen ? d.kv_start[static_cast<size_t>(b)] : 0; }

// Row r of a task: query head t.h + r / t.rows, query position t.q0 + r % t.rows.
inline void row_of(const AttnPlan::Task &t, int64_t r, int64_t *h, int64_t *i) {
  *h = t.h + r / t.rows;
  *i = t.q0 + r % t.rows;
}

// Output row (batch b, head h, query position i): o / l rounded once into the output's dtype, and
// the lse m + log l; a row that saw no key (l = 0) is 0, its lse +inf.
void write_row(const RunCtx &x, int64_t b, int64_t h, int64_t i, float *orow, float m, float l) {
  const AttnDesc &d = x.p.desc;
  const size_t osz = core::dtype_size(d.out.dtype);
  if (l > 0)
    x.p.rows->scale(orow, d.dim, 1.0f / l);
  else
    std::fill(orow, orow + d.dim, 0.0f);
  const int64_t ip = i + q_start(d, b);
  char *o = x.out + (b * d.out.b + h * d.out.n + ip * d.out.s) * static_cast<int64_t>(osz);
  store_from<float>(orow, d.out.dtype, o, d.out.d * static_cast<int64_t>(osz), d.dim);
  if (x.lse != nullptr)
    x.lse[b * d.lse.b + h * d.lse.n + ip * d.lse.s] = l > 0 ? m + std::log(l) : std::numeric_limits<float>::infinity();
}

void write_padding(const RunCtx &x, const AttnPlan::Task &t, const Scratch &s) {
  for (int64_t r = 0; r < t.nh * t.rows; ++r) {
    int64_t h, i;
    row_of(t, r, &h, &i);
    write_row(x, t.b, h, i, s.o, 0.0f, 0.0f);
  }
}

void run_task(const RunCtx &x, const AttnPlan::Task &t, const Scratch &s) {
  const AttnPlan &p = x.p;
  const AttnDesc &d = p.desc;
  const AttnRowFns &R = *p.rows;
  if (t.pad) return write_padding(x, t, s);
  const int64_t RM = p.rows_max, D = d.dim, KB = p.k_block;
  const size_t qsz = core::dtype_size(d.q.dtype), ksz = core::dtype_size(d.k.dtype), vsz = core::dtype_size(d.v.dtype);
  int64_t lo[512], hi[512];  // rows_max <= 512 (checked in the plan)
  const int64_t nrows = t.nh * t.rows;
  int64_t task_lo = std::numeric_limits<int64_t>::max(), task_hi = 0;
  for (int64_t r = 0; r < RM; ++r) {
    float *qr = s.q + r * D;
    s.m[r] = -std::numeric_limits<float>::infinity();
    s.l[r] = 0.0f;
    std::fill(s.o + r * D, s.o + (r + 1) * D, 0.0f);
    if (r >= nrows) {
      std::fill(qr, qr + D, 0.0f);
      lo[r] = hi[r] = 0;
      continue;
    }
    int64_t h, i;
    row_of(t, r, &h, &i);
    load_as<float>(d.q.dtype, x.q + (t.b * d.q.b + h * d.q.n + (i + q_start(d, t.b)) * d.q.s) * static_cast<int64_t>(qsz),
                   d.q.d * static_cast<int64_t>(qsz), qr, D);
    if (!p.stream) R.scale(qr, D, d.scale);  // (decode_stream's q.k scales the scores: q stays as given)
    key_range(d, t.b, i, &lo[r], &hi[r]);
    if (hi[r] > lo[r]) {
      task_lo = std::min(task_lo, lo[r]);
      task_hi = std::max(task_hi, hi[r]);
    }
  }
  const int64_t kv_len = d.kv_len[static_cast<size_t>(t.b)];
  // Key j's row: a page of the block table (paged KV), or the batch's own rows.
  const int64_t seg = d.paged ? d.block_size : KB;
  auto page_base = [&](const AttnOperand &o, const char *base, size_t esz, int64_t j) -> const char * {
    if (!d.paged) return base + (t.b * o.b + t.kvh * o.n + (j + kv_start(d, t.b)) * o.s) * static_cast<int64_t>(esz);
    const int64_t blk = x.table[t.b * d.table_b + (j / d.block_size) * d.table_c];
    return base + (blk * o.b + t.kvh * o.n + (j % d.block_size) * o.s) * static_cast<int64_t>(esz);
  };
  auto plan_for = [&](int64_t w) {
    for (const auto &e : p.gemms)
      if (e.n == w) return &e;
    return static_cast<const AttnPlan::Gemm *>(nullptr);
  };
  task_lo = std::max(task_lo, t.k0);  // a split visits its own keys only (k0, k1: multiples of KB)
  task_hi = std::min(task_hi, t.k1);
  const int64_t key_end = std::min(kv_len, t.k1);
  for (int64_t j0 = task_hi > task_lo ? task_lo / KB * KB : task_hi; j0 < task_hi; j0 += KB) {
    const int64_t n = std::min(KB, key_end - j0);
    for (int64_t js = j0; js < j0 + n; js += seg) {  // S = Q.K^T, one GEMM per page (or the whole block)
      const int64_t w = std::min(seg, j0 + n - js);
      if (p.stream) {
        R.qk(s.q, nrows, D, d.scale, page_base(d.k, x.k, ksz, js), kv_type(d.k.dtype), d.k.s, w, s.s + (js - j0), KB);
        continue;
      }
      if (d.kv_int8) {
        dequant_rows(x, 0, t.b, t.kvh, js, w, d.k, [&](int64_t j) { return page_base(d.k, x.k, 1, j); }, s.kq);
        gemm_run(plan_for(w)->qk, s.q, s.kq, s.s + (js - j0), s.gemm);
        continue;
      }
      gemm_run(plan_for(w)->qk, s.q, page_base(d.k, x.k, ksz, js), s.s + (js - j0), s.gemm);
    }
    for (int64_t r = 0; r < RM; ++r) {
      float *row = s.s + r * KB;
      if (r >= nrows || hi[r] <= j0 || lo[r] >= j0 + n) {  // nothing visible in this block
        std::fill(row, row + n, 0.0f);
        continue;
      }
      int64_t h, i;
      row_of(t, r, &h, &i);
      if (d.has_pse) {
        const size_t psz = core::dtype_size(d.pse.dtype);
        load_as<float>(d.pse.dtype,
                       x.pse + (t.b * d.pse.b + h * d.pse.n + i * d.pse.s + j0 * d.pse.d) * static_cast<int64_t>(psz),
                       d.pse.d * static_cast<int64_t>(psz), s.row, n);
        R.add(row, s.row, n);
      }
      const int64_t vlo = std::max<int64_t>(lo[r] - j0, 0), vhi = std::min<int64_t>(hi[r] - j0, n);
      const unsigned char *mrow =
          d.has_mask ? reinterpret_cast<const unsigned char *>(x.mask) + t.b * d.mask.b + h * d.mask.n + i * d.mask.s +
                           j0 * d.mask.d
                     : nullptr;
      const float mx = R.mask_max(row, n, vlo, vhi, mrow, d.mask.d);
      float &m = s.m[r];
      const float m_new = std::max(m, mx);
      if (m_new == -std::numeric_limits<float>::infinity()) {  // every key so far masked
        std::fill(row, row + n, 0.0f);
        continue;
      }
      const float corr = m == -std::numeric_limits<float>::infinity() ? 0.0f : R.exp1(m - m_new);
      const float sum = R.exp_sum(row, n, m_new);
      s.l[r] = s.l[r] * corr + sum;
      m = m_new;
      if (corr != 1.0f) R.scale(s.o + r * D, D, corr);
    }
    for (int64_t js = j0; js < j0 + n; js += seg) {  // O += P.V
      const int64_t w = std::min(seg, j0 + n - js);
      if (p.stream) {
        R.pv(s.s + (js - j0), KB, nrows, w, page_base(d.v, x.v, vsz, js), kv_type(d.v.dtype), d.v.s, D, s.o);
        continue;
      }
      if (d.kv_int8) {
        dequant_rows(x, 1, t.b, t.kvh, js, w, d.v, [&](int64_t j) { return page_base(d.v, x.v, 1, j); }, s.vq);
        gemm_run(plan_for(w)->pv, s.s + (js - j0), s.vq, s.o, s.gemm);
        continue;
      }
      gemm_run(plan_for(w)->pv, s.s + (js - j0), page_base(d.v, x.v, vsz, js), s.o, s.gemm);
    }
  }
  if (t.part >= 0) {  // a split: kept unnormalised for the merge
    float *part = partial_at(x, t.part);
    std::copy(s.o, s.o + nrows * D, part);
    std::copy(s.m, s.m + nrows, part + RM * D);
    std::copy(s.l, s.l + nrows, part + RM * D + RM);
    return;
  }
  for (int64_t r = 0; r < nrows; ++r) {
    int64_t h, i;
    row_of(t, r, &h, &i);
    write_row(x, t.b, h, i, s.o + r * D, s.m[r], s.l[r]);
  }
}

// Split-KV decode: the partials of one (batch, KV head) combined in split order. With M the largest
// partial max, O = sum_s exp(m_s - M) O_s and l = sum_s exp(m_s - M) l_s (splits that saw no key
// have m_s = -inf and add nothing).
void merge_splits(const RunCtx &x, const AttnPlan::Merge &mg, float *orow) {
  const AttnPlan &p = x.p;
  const int64_t D = p.desc.dim, RM = p.rows_max, G = p.desc.heads / p.desc.kv_heads;
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  for (int64_t r = 0; r < G; ++r) {
    float M = kNegInf;
    for (int64_t sp = 0; sp < mg.count; ++sp) M = std::max(M, partial_at(x, mg.first + sp)[RM * D + r]);
    std::fill(orow, orow + D, 0.0f);
    float l = 0.0f;
    for (int64_t sp = 0; sp < mg.count && M != kNegInf; ++sp) {
      const float *part = partial_at(x, mg.first + sp);
      const float m = part[RM * D + r];
      if (m == kNegInf) continue;
      const float c = p.rows->exp1(m - M);
      l += c * part[RM * D + RM + r];
      for (int64_t e = 0; e < D; ++e) orow[e] += c * part[r * D + e];
    }
    write_row(x, mg.b, mg.kvh * G + r, 0, orow, M, l);
  }
}

}  // namespace

bool flash_attention_plan(const AttnDesc &desc, AttnPlan *plan) {
  AttnPlan &p = *plan;
  p = AttnPlan{};
  p.desc = desc;
  const AttnDesc &d = p.desc;
  core::ImplTrace trace;
  const bool traced = core::current_phase1_trace() != nullptr;
  const int path = core::choose(kPaths, PathCtx{d}, traced ? &trace : nullptr);
  const int tier = core::choose(kRowTiers, PathCtx{d}, traced ? &trace : nullptr);
  p.rows = &kRowFns[tier]();
  if (traced) core::record_choice(std::string("attention:") + kPaths[path].name + "/" + kRowTiers[tier].name, &trace);
  const int64_t group = d.kv_heads > 0 ? d.heads / d.kv_heads : 1;
  p.stream = path == 0;
  p.group_rows = path <= 1;
  // The rows of a task: every query head of a KV head (they read the same K / V blocks, so each
  // block is packed once for all of them) times a block of query positions, about kTaskRows rows.
  int64_t heads_per_task = group;
  if (p.group_rows) {
    p.q_block = 1;
  } else {
    p.q_block = std::min<int64_t>(std::max<int64_t>(kMinQueryBlock, kTaskRows / group), std::max<int64_t>(d.sq, 1));
    if (group * p.q_block > kMaxTaskRows) {  // too many heads for one tile: one head per task
      heads_per_task = 1;
      p.q_block = std::min<int64_t>(kTaskRows, std::max<int64_t>(d.sq, 1));
    }
  }
  p.rows_max = heads_per_task * p.q_block;
  if (p.rows_max > kMaxTaskRows) {
    fail(ACLNN_ERR_PARAM_INVALID, "attention: %lld query heads per KV head (at most %lld)",
         static_cast<long long>(p.rows_max), static_cast<long long>(kMaxTaskRows));
    return false;
  }
  int64_t max_kv = 0;
  for (int64_t b = 0; b < d.batch; ++b) max_kv = std::max(max_kv, d.kv_len[static_cast<size_t>(b)]);
  p.k_block = std::max<int64_t>(
      1, std::min<int64_t>(p.stream ? kStreamKeyBlock : p.group_rows ? kDecodeKeyBlock : kKeyBlock, max_kv));
  if (d.paged)  // whole pages per key block
    p.k_block = (std::max<int64_t>(p.k_block, d.block_size) + d.block_size - 1) / d.block_size * d.block_size;

  int64_t groups = 0;  // (batch, KV head) pairs with work: split-KV decode splits until there are enough tasks
  for (int64_t b = 0; b < d.batch; ++b)
    if (d.q_len[static_cast<size_t>(b)] > 0 && d.kv_len[static_cast<size_t>(b)] > 0) groups += d.kv_heads;
  int64_t parts = 0;
  for (int64_t b = 0; b < d.batch; ++b) {
    const int64_t ql = d.q_len[static_cast<size_t>(b)], kv = d.kv_len[static_cast<size_t>(b)];
    // decode_stream's split of this batch's keys: chunks of whole key blocks (whole pages).
    const int64_t splits = std::min((kDecodeTasks + groups - 1) / std::max<int64_t>(groups, 1), kv / kMinSplitKeys);
    const int64_t chunk =
        p.stream && splits > 1 ? ((kv + splits - 1) / splits + p.k_block - 1) / p.k_block * p.k_block : kv;
    for (int64_t kvh = 0; kvh < d.kv_heads; ++kvh) {
      if (p.group_rows) {
        if (d.varlen && ql == 0) continue;
        if (ql == 0 || chunk >= kv) {
          p.tasks.push_back({b, kvh, kvh * group, group, 0, 1, ql == 0});
          continue;
        }
        AttnPlan::Merge mg{b, kvh, parts, 0};
        for (int64_t k0 = 0; k0 < kv; k0 += chunk, ++mg.count)
          p.tasks.push_back({b, kvh, kvh * group, group, 0, 1, false, k0, k0 + chunk, parts++});
        p.merges.push_back(mg);
        continue;
      }
      for (int64_t h = kvh * group; h < (kvh + 1) * group; h += heads_per_task) {
        for (int64_t q0 = 0; q0 < ql; q0 += p.q_block)
          p.tasks.push_back({b, kvh, h, heads_per_task, q0, std::min(p.q_block, ql - q0), false});
        for (int64_t q0 = ql; q0 < d.sq && !d.varlen; q0 += p.q_block)  // padding rows: 0 (lse +inf)
          p.tasks.push_back({b, kvh, h, heads_per_task, q0, std::min(p.q_block, d.sq - q0), true});
      }
    }
  }
  // Causal tasks late in the sequence do the most work: start them first.
  std::stable_sort(p.tasks.begin(), p.tasks.end(),
                   [](const AttnPlan::Task &a, const AttnPlan::Task &b) { return a.q0 > b.q0; });

  // One GEMM pair per key-block width that occurs (KB, and each batch's tail).
  std::vector<int64_t> widths;
  for (int64_t b = 0; b < d.batch && !p.stream; ++b) {
    const int64_t kv = d.kv_len[static_cast<size_t>(b)];
    if (kv == 0 || d.q_len[static_cast<size_t>(b)] == 0) continue;
    const int64_t seg = d.paged ? d.block_size : p.k_block;  // the GEMMs' key widths: whole segments and tails
    widths.push_back(std::min(seg, kv));
    if (kv > seg && kv % seg != 0) widths.push_back(kv % seg);
  }
  std::sort(widths.begin(), widths.end());
  widths.erase(std::unique(widths.begin(), widths.end()), widths.end());
  size_t gemm_ws = 0;
  const int64_t R = p.rows_max, D = d.dim, KB = p.k_block;
  if (d.kv_int8) {  // the GEMMs read the dequantised rows: fp32 [keys, D]
    for (auto &w : widths) w = std::min(w, KB);
  }
  for (size_t wi = 0; wi < widths.size(); ++wi) {
    const int64_t n = widths[wi];
    AttnPlan::Gemm g;
    g.m = R;
    g.n = n;
    GemmOptions opt;
    opt.threads = 1;
    opt.detect_prepacked_b = false;
    opt.record = wi + 1 == widths.size();  // the widest (full) block's choices go to the trace
    GemmDesc qk;
    qk.m = R;
    qk.n = n;
    qk.k = D;
    qk.a = {ACL_FLOAT, D, 1, 0};
    qk.b = d.kv_int8 ? GemmOperand{ACL_FLOAT, 1, D, 0} : GemmOperand{d.k.dtype, d.k.d, d.k.s, 0};
    qk.c = {ACL_FLOAT, KB, 1, 0};
    if (!gemm_plan(qk, &g.qk, opt)) return false;
    GemmDesc pv;
    pv.m = R;
    pv.n = D;
    pv.k = n;
    pv.a = {ACL_FLOAT, KB, 1, 0};
    pv.b = d.kv_int8 ? GemmOperand{ACL_FLOAT, D, 1, 0} : GemmOperand{d.v.dtype, d.v.s, d.v.d, 0};
    pv.c = {ACL_FLOAT, D, 1, 0};
    pv.beta = 1.0f;
    if (!gemm_plan(pv, &g.pv, opt)) return false;
    gemm_ws = std::max({gemm_ws, g.qk.workspace_bytes, g.pv.workspace_bytes});
    p.gemms.push_back(std::move(g));
  }
  p.worker_bytes = scratch_bytes_before_gemm(R, D, KB, d.kv_int8) + bytes64(gemm_ws);
  p.partial_bytes = bytes64(sizeof(float) * static_cast<size_t>(parts * R * (D + 2)));
  p.workers = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(core::num_threads(), p.tasks.size())));
  p.workspace_bytes = p.tasks.empty() ? 0 : p.partial_bytes + p.worker_bytes * static_cast<size_t>(p.workers);
  return true;
}

int flash_attention_run(const AttnPlan &plan, const void *q, const void *k, const void *v, const void *mask,
                        const void *pse, void *out, float *lse, const int32_t *block_table, void *workspace,
                        const void *const *aq_scale, const void *const *aq_offset) {
  if (plan.tasks.empty()) return 0;
  const AttnDesc &d = plan.desc;
  if (d.paged) {  // every page a batch reads must name a block of the cache
    for (int64_t b = 0; b < d.batch; ++b) {
      const int64_t pages = (d.kv_len[static_cast<size_t>(b)] + d.block_size - 1) / d.block_size;
      for (int64_t i = 0; i < pages; ++i) {
        const int64_t blk = block_table[b * d.table_b + i * d.table_c];
        if (blk < 0 || blk >= d.num_blocks)
          return fail(ACLNN_ERR_PARAM_INVALID, "blockTable[%lld][%lld] = %lld is outside [0, %lld)",
                      static_cast<long long>(b), static_cast<long long>(i), static_cast<long long>(blk),
                      static_cast<long long>(d.num_blocks));
      }
    }
  }
  RunCtx x{plan,
                 static_cast<const char *>(q),
                 static_cast<const char *>(k),
                 static_cast<const char *>(v),
                 static_cast<const char *>(mask),
                 static_cast<const char *>(pse),
                 static_cast<char *>(out),
                 lse,
                 block_table};
  x.partial = reinterpret_cast<float *>(workspace);  // the splits' partials (plan.partial_bytes)
  for (int h = 0; h < 2 && d.kv_int8; ++h) {
    x.aq_scale[h] = static_cast<const char *>(aq_scale[h]);
    x.aq_offset[h] = aq_offset != nullptr ? static_cast<const char *>(aq_offset[h]) : nullptr;
  }
  const int64_t ntasks = static_cast<int64_t>(plan.tasks.size());
  std::atomic<int64_t> next{0};  // dynamic scheduling: tasks are independent, results do not depend on it
  auto worker = [&](int64_t w) {
    const Scratch s = carve(plan, static_cast<char *>(workspace) + plan.partial_bytes +
                                      static_cast<size_t>(w) * plan.worker_bytes);
    for (int64_t t = next.fetch_add(1); t < ntasks; t = next.fetch_add(1)) run_task(x, plan.tasks[static_cast<size_t>(t)], s);
  };
  if (plan.workers == 1) {
    worker(0);
  } else {
    core::parallel_for(plan.workers, 1, [&](int64_t begin, int64_t end) {
      for (int64_t w = begin; w < end; ++w) worker(w);
    });
  }
  // The splits' merge: a few rows per (batch, KV head), on the first worker's output tile.
  float *orow = carve(plan, static_cast<char *>(workspace) + plan.partial_bytes).o;
  for (const AttnPlan::Merge &mg : plan.merges) merge_splits(x, mg, orow);
  return 0;
}

}  // namespace opsnn::kernels
