// One row of the top-k / top-p / min-p sampling ops (aclnnTopKTopPSample, V2; semantics in
// src/ops/layout/sampling.ops): the row's kept tokens in descending order of value, found with the
// dim-wise engine's selection (kernels/dimwise/line_sort.h: a k-best heap for the top-k, a radix
// sort only when the kept set may be most of the row), never a full sort of a large vocabulary
// when a filter is on.
#pragma once

#include <cstdint>

#include "core/impl_list.h"

namespace opsnn::kernels {

struct SampleRowRule {
  int64_t k = 0;                 // top-k: on when 1 <= k <= min(n, k_cap), else skipped
  int64_t k_cap = 1024;          // the largest k the op takes
  double p = 1;                  // top-p: (0, 1) on; <= 0 keeps the largest only; >= 1 (or NaN) skipped
  double min_p = 0;              // min-p: (0, 1) on; >= 1 keeps the largest only; <= 0 (or NaN) skipped
  bool input_is_logits = true;   // probabilities: softmax (of the top-k candidates when on) or the values
  int64_t guess = 32;            // first prefix tried by the top-p cut without top-k (a hint: any value works)
};

// Scratch bytes for rows of n elements.
uint64_t sample_row_scratch_bytes(int64_t n);

// x[0, n) (n >= 1; FLOAT holds every logits dtype exactly). Returns the kept count m (>= 1) and writes, for
// j < m, pos[j] the index of the j-th kept value in descending order (ties: the lower index first; NaN
// above +inf, as torch.sort) and prob[j] its probability. pos and prob hold n entries.
using SampleRowFn = int64_t (*)(const float *x, int64_t n, const SampleRowRule &rule, void *scratch, int64_t *pos,
                                double *prob);

// The best ISA tier of the row kernel (avx512, avx2, portable: one algorithm, the same results), its
// rejections into `trace` (may be null); *name gets the tier's name.
SampleRowFn choose_sample_row_kernel(core::ImplTrace *trace, const char **name);

int64_t sample_row_keep_portable(const float *x, int64_t n, const SampleRowRule &rule, void *scratch, int64_t *pos,
                                 double *prob);
#if defined(__x86_64__)
int64_t sample_row_keep_avx2(const float *x, int64_t n, const SampleRowRule &rule, void *scratch, int64_t *pos,
                             double *prob);
int64_t sample_row_keep_avx512(const float *x, int64_t n, const SampleRowRule &rule, void *scratch, int64_t *pos,
                               double *prob);
#endif

}  // namespace opsnn::kernels
