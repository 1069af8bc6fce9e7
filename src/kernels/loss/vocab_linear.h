// The row pieces of the fused linear cross-entropy (ops/matmul/flce_phase1) around its GEMMs and the vocab_ce
// rows: the packed outside-the-shard mask of the forward, and the gradient rows of the backward. Over raw
// pointers and element strides.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"

namespace opsnn::kernels {

// out[k] bit j (least significant first) = target[8k + j] outside [start, end); bits past `rows` are 1.
// `bytes` = (rows + 7) / 8 bytes are written, out_stride elements apart.
void vocab_pack_mask(const char *target, aclDataType target_dtype, int64_t target_stride, int64_t rows,
                     int64_t start, int64_t end, uint8_t *out, int64_t out_stride);

// The logits' gradient in place over the fp32 softmax rows g [rows, vocab] (row stride ld):
//   g[r, :] = (g[r, :] - (bit r of mask clear ? onehot(maskedTarget[r]) : 0)) * grad[r].
// Checks every unmasked row's maskedTarget in [0, vocab) first: 161002 naming it, nothing written.
struct VocabGradRows {
  int64_t rows = 0, vocab = 0, ld = 0;
  const char *grad = nullptr;  // FLOAT
  int64_t grad_stride = 0;
  const uint8_t *mask = nullptr;  // packed bits
  int64_t mask_stride = 0;
  const char *target = nullptr;  // maskedTarget, INT32 / INT64
  aclDataType target_dtype = ACL_INT64;
  int64_t target_stride = 0;
};
int vocab_grad_rows(const VocabGradRows &a, float *g);

}  // namespace opsnn::kernels
