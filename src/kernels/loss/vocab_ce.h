// Vocabulary-parallel cross-entropy (Megatron style: each rank holds a shard [start, start + V)
// of the classes), the two local halves around the all-reduces. Over raw pointers and element
// strides; knows nothing of aclTensor. Rows r run over the leading dims (1 or 2) of the logits
// x [..., V]; the exponentials and their sums in FLOAT (as the vendor documents: rows of other
// dtypes or strides go through a float buffer) by the per-ISA row loops of vocab_rows.h, the
// scalars in double; each row by one task, so results never depend on the thread count.
//
//   sum-exp (kSumExp), with m = rowMax[r] and t = target[r]:
//     mask[r] = t outside [start, start + range);  offset[r] = mask ? 0 : t - start  (range <= V, default V)
//     predicted[r] = mask ? 0 : x[r, offset] - m;  exp[r, j] = exp(x[r, j] - m);  sumExp[r] = sum_j exp
//   loss (kLoss), from the reduced rowMax, sumExp and predicted:
//     loss[r] = log(sumExp[r]) - predicted[r];  softmax[r, j] = exp(x[r, j] - rowMax[r]) / sumExp[r]
// Every output is optional (plan.has); softmax may be written over x itself (the same dense FLOAT rows).
#pragma once

#include <cstdint>

#include "acl/acl_base.h"

namespace opsnn::core {
struct ImplTrace;
}

namespace opsnn::kernels {

enum class VocabCeMode : uint8_t { kSumExp, kLoss };

// One operand indexed by row (and column): element strides along the leading dims and the vocabulary.
struct VocabOperand {
  aclDataType dtype = ACL_FLOAT;
  int64_t outer = 0, inner = 0;  // row r is (r / inner_rows, r % inner_rows)
  int64_t col = 0;
};

enum VocabRole : int { kVcX, kVcMax, kVcTarget, kVcPredicted, kVcSumExp, kVcExp, kVcOffset, kVcMask, kVcLoss,
                       kVcSoftmax, kVcRoleCount };

struct VocabCePlan {
  VocabCeMode mode = VocabCeMode::kSumExp;
  int64_t rows = 0, inner_rows = 1, vocab = 0, start = 0;
  int64_t range = -1;  // kSumExp: targets in [start, start + range) are inside (-1: range = vocab)
  VocabOperand op[kVcRoleCount];
  bool has[kVcRoleCount] = {};
  int tasks = 1;
  int tier = 0;  // the row loops' ISA tier (choose_vocab_tier)
  // Per task: a float row of x and one of the output, when they are not dense FLOAT.
  uint64_t workspace_bytes() const { return static_cast<uint64_t>(tasks) * static_cast<uint64_t>(vocab) * 8 + 64; }
};

struct VocabCeArgs {
  char *p[kVcRoleCount] = {};  // inputs are read through these too
  void *workspace = nullptr;
};

void vocab_ce_run(const VocabCePlan &plan, const VocabCeArgs &args);

// The FLOAT row loops per ISA tier (vocab_rows_<tier>.cpp): y = exp(x - m) returning its sum, and
// the softmax y = exp(x - m) * inv.
float vocab_exp_sum_portable(const float *x, float *y, int64_t n, float m);
float vocab_exp_sum_avx2(const float *x, float *y, int64_t n, float m);
float vocab_exp_sum_avx512(const float *x, float *y, int64_t n, float m);
void vocab_softmax_portable(const float *x, float *y, int64_t n, float m, float inv);
void vocab_softmax_avx2(const float *x, float *y, int64_t n, float m, float inv);
void vocab_softmax_avx512(const float *x, float *y, int64_t n, float m, float inv);
// Sets plan.tier from the ordered tier list (rejections into `trace`, may be null); returns its name.
const char *choose_vocab_tier(VocabCePlan &plan, core::ImplTrace *trace);

}  // namespace opsnn::kernels
