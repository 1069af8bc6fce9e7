// The phase 1 of the table-driven attention family (src/ops/attention/attention.ops):
// FusedInferAttentionScoreV2 and PromptFlashAttentionV3 on the flash-attention kernel
// (kernels/attention/flash_attention.h), TriangularSolve on kernels/attention/trisolve.h. Checks every argument (161001 for a missing one,
// 161002 naming the argument otherwise), reads the layout into [B, N, S, D] strides, the masks
// and the actual lengths, plans the kernel and records one step.
#pragma once

#include <cstdint>
#include <vector>

#include "core/dtype.h"
#include "core/op_builder.h"

namespace opsnn::ops {

enum class AttentionKind { kFlash, kTriSolve, kMaskedSoftmax };

struct AttentionRule {
  AttentionKind kind;
  bool decode;             // Sq = 1 is the incremental branch (pre / next tokens do not apply)
  core::DtypeMask dtypes;  // query / key / value / output dtypes
};

struct Unsupported {
  const void *arg;
  const char *name;
  bool tensor;   // an aclTensor (registered in its place), not an int array
  bool handled;  // supported after all (the block table): not refused
};

struct AttentionCall {
  const aclTensor *query = nullptr;
  const char *query_name = "query";
  const void *key = nullptr, *value = nullptr;  // aclTensor, or aclTensorList where the prototype has one
  const char *key_name = "key", *value_name = "value";
  const aclTensor *pse = nullptr, *mask = nullptr;
  const char *pse_name = "pseShift", *mask_name = "attenMask";
  const aclIntArray *act_q = nullptr, *act_kv = nullptr;
  const char *act_q_name = "actualSeqLengths", *act_kv_name = "actualSeqLengthsKv";
  std::vector<Unsupported> unsupported;  // the optional inputs after the mask, in prototype order
  const aclTensor *block_table = nullptr;  // paged KV (INT32 [B, max blocks per sequence])
  const char *block_table_name = "blockTable";
  int64_t block_size = 0;
  // INT8 key / value (antiquant): scale / offset, first dim 2 (key, value); mode 0 per channel, 1 per token.
  const aclTensor *aq_scale = nullptr, *aq_offset = nullptr;
  const char *aq_scale_name = "antiquantScale", *aq_offset_name = "antiquantOffset";
  int64_t aq_mode = 0;
  // The separate form: the key's and the value's own scale / offset ([Nkv * D], [Nkv, D], [Nkv, 1, D] per
  // channel, [B, Skv] per token, each optionally with a leading 1), modes keyAntiquantMode / valueAntiquantMode.
  const aclTensor *kaq_scale = nullptr, *kaq_offset = nullptr, *vaq_scale = nullptr, *vaq_offset = nullptr;
  const char *kaq_scale_name = "keyAntiquantScale", *kaq_offset_name = "keyAntiquantOffset",
             *vaq_scale_name = "valueAntiquantScale", *vaq_offset_name = "valueAntiquantOffset";
  int64_t kaq_mode = 0, vaq_mode = 0;
  int64_t num_heads = 0, pre_tokens = 2147483647, next_tokens = 2147483647, num_kv_heads = 0, sparse_mode = 0,
          inner_precise = 0;
  double scale = 1.0;
  const char *layout = nullptr;
  bool lse_flag = false;
  const aclTensor *out = nullptr, *lse = nullptr;
  const char *out_name = "attentionOut", *lse_name = "softmaxLse";
  bool key_list = false;  // set by the entry (the prototype's key is an aclTensorList)
  // TriangularSolve.
  const aclTensor *self = nullptr, *a = nullptr, *x_out = nullptr, *m_out = nullptr;
  const char *self_name = "self", *a_name = "A", *x_out_name = "xOut", *m_out_name = "mOut";
  bool upper = true, transpose = false, unit = false;
  // ScaledMaskedSoftmax (+Backward: grad given; y is then an input).
  const aclTensor *x = nullptr, *y = nullptr, *grad = nullptr;
  const char *x_name = "x", *y_name = "y", *grad_name = "gradOutput";
  bool triu = false;
  bool backward = false;  // set by the entry (the prototype has a gradOutput)
};

void attention_phase1(core::OpBuilder &b, const AttentionRule &rule, AttentionCall &c);

}  // namespace opsnn::ops
