// Fused attention on the CPU, flash style: for each (batch, KV head, block of query rows) the keys
// are visited in blocks; S = Q.K^T of one block (the GEMM engine, fp32 out), scaled, shifted by the
// optional pse, masked, folded into a running row max / sum (online softmax, fp32), and P.V of the
// block accumulated into an fp32 output tile (the GEMM engine, beta = 1) after rescaling it. The
// full Sq x Skv score matrix never exists: per worker, one [rows x key block] tile.
//
// Everything about the shapes, strides, masks and lengths is fixed in phase 1
// (flash_attention_plan); phase 2 (flash_attention_run) only walks the tasks. Tasks are
// independent and each output element is computed by one task with a fixed key order, so results
// are bit-identical for any thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "acl/acl_base.h"
#include "kernels/attention/attention_rows.h"
#include "kernels/matmul/gemm.h"

namespace opsnn::kernels {

// A 4-D operand [B, N, S, D] (or a mask / pse [B, N, Sq, Skv]) by element strides (0: broadcast).
struct AttnOperand {
  aclDataType dtype = ACL_FLOAT;
  int64_t b = 0, n = 0, s = 0, d = 0;
};

// Sparse modes (the vendor's sparseMode): which (query i, key j) pairs are visible besides the
// explicit mask and the actual lengths. off = kv_len - q_len of the batch.
enum class AttnSparse : int {
  kDefault = 0,    // the mask (if any) and the band i - pre <= j <= i + next
  kAllMask = 1,    // the mask only
  kLeftUp = 2,     // j <= i
  kRightDown = 3,  // j <= i + off
  kBand = 4,       // i + off - pre <= j <= i + off + next
};

struct AttnDesc {
  int64_t batch = 0, heads = 0, kv_heads = 0, sq = 0, skv = 0, dim = 0;
  AttnOperand q, k, v, out;
  bool has_mask = false;   // 1-byte elements (BOOL / INT8 / UINT8), non-zero = masked out
  AttnOperand mask;        // [B, N, Sq, Skv] strides (d: along the keys)
  bool has_pse = false;    // added after scaling
  AttnOperand pse;
  bool has_lse = false;    // FLOAT [B, N, Sq, 1]
  AttnOperand lse;         // b, n, s used
  float scale = 1.0f;
  AttnSparse sparse = AttnSparse::kDefault;
  int64_t pre_tokens = 0, next_tokens = 0;  // clamped to +-2^40
  bool band = true;        // kDefault: the pre / next band applies (not in the decode branch)
  std::vector<int64_t> q_len, kv_len;  // per batch (actual lengths; rows / keys beyond are padding)
  // Packed variable lengths (layout TND): batch b's query rows are q_start[b] .. + q_len[b] along S of
  // q / out / lse (their b strides 0), its keys kv_start[b] .. + kv_len[b] of k / v; no padding rows
  // exist, so none is written.
  bool varlen = false;
  std::vector<int64_t> q_start, kv_start;
  // INT8 key / value (antiquant): element (b, n, j, c) of K is (k + offset) * scale with aq[0]'s scale /
  // offset, V likewise with aq[1]'s; each per channel (scale at n * a + c * c_) or per token (at b * a + j * c_).
  struct Antiquant {
    bool per_token = false, has_offset = false;
    aclDataType dtype = ACL_FLOAT;  // scale's (offset: the same)
    int64_t a = 0, c = 0;
  };
  bool kv_int8 = false;
  Antiquant aq[2];
  // Paged KV: key j of batch b is row j % block_size of cache block table[b][j / block_size]; k / v
  // strides: b = between blocks, s = between rows of a block. The table is INT32 [B, max blocks].
  bool paged = false;
  int64_t block_size = 0, num_blocks = 0, table_b = 0, table_c = 0;
};

struct AttnPlan {
  AttnDesc desc;
  const AttnRowFns *rows = nullptr;  // the row operations' ISA tier
  bool group_rows = false;  // decode (Sq == 1): a task's rows are the query heads sharing a KV head
  bool stream = false;      // decode_stream: scores and P.V by the row units (no GEMM), split KV
  int64_t q_block = 0, k_block = 0, rows_max = 0;
  struct Task {
    int64_t b, kvh, h, nh, q0, rows;  // query heads [h, h + nh) x positions [q0, q0 + rows)
    bool pad;                         // rows beyond the actual query length: written 0 (lse +inf)
    int64_t k0 = 0, k1 = INT64_MAX;   // the keys this task visits (a split of the KV length)
    int64_t part = -1;                // >= 0: a split; its unnormalised O, max and sum go to partial `part`
  };
  std::vector<Task> tasks;
  // Split-KV decode: the splits of (b, kvh) are partials [first, first + count), merged in that order
  // after every task ran (log-sum-exp). The split depends on the shapes only, never the thread count.
  struct Merge {
    int64_t b, kvh, first, count;
  };
  std::vector<Merge> merges;
  size_t partial_bytes = 0;  // at the start of the workspace: rows_max x (D + 2) floats per partial
  struct Gemm {
    int64_t m, n;
    GemmPlan qk, pv;
  };
  std::vector<Gemm> gemms;  // one pair per (rows, key-block width) that occurs
  size_t worker_bytes = 0;  // per worker scratch (after the partials)
  int workers = 1;
  size_t workspace_bytes = 0;
};

// Phase 1: checks nothing (the op's phase 1 did), plans the tasks, the GEMMs and the workspace.
// Records the choice ("attention:decode_rows" / "attention:flash") in the verbose trace.
bool flash_attention_plan(const AttnDesc &desc, AttnPlan *plan);

// Phase 2. Pointers are the first elements of the views (lse / mask / pse / block_table may be null
// when absent). Returns 0, or 161002 (set_last_error) for a block-table entry outside the cache.
int flash_attention_run(const AttnPlan &plan, const void *q, const void *k, const void *v, const void *mask,
                        const void *pse, void *out, float *lse, const int32_t *block_table, void *workspace,
                        const void *const *aq_scale = nullptr, const void *const *aq_offset = nullptr);
// aq_scale / aq_offset: the key's and the value's antiquant scale / offset (INT8 key / value).

}  // namespace opsnn::kernels
