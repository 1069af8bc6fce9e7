// The phase 1 of the table-driven embedding ops (src/ops/layout/embedding.ops): the gradient of an
// embedding lookup (EmbeddingDenseBackward), the in-place renormalisation of the rows an index
// reaches (EmbeddingRenorm) and bags of looked-up rows reduced by sum / mean / max (EmbeddingBag).
// The entry points are generated from the table (tools/gen_ops_embed.py); each fills an EmbedCall
// from its arguments by their names.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"

namespace opsnn::ops {

enum class EmbedKind : uint8_t {
  kDenseBackward,  // out[numWeights, D] = sum of grad's rows by index (padding skipped, / frequency)
  kRenorm,         // selfRef rows the indices reach scaled to norm <= maxNorm (torch.embedding_renorm_)
  kBag,            // torch.embedding_bag: output, offset2bag, bagSize, maxIndices
  kTopKTopP,       // ApplyTopKTopP: per row, logits outside the top k, then outside the top-p mass, -inf
};

struct EmbedRule {
  EmbedKind kind;
  core::DtypeMask dtypes;  // accepted weight / grad dtypes
};

// The arguments by role (the weight role is weight, grad, selfRef or logits).
struct EmbedCall {
  const aclTensor *weight = nullptr;
  const char *weight_name = "weight";
  const aclTensor *indices = nullptr;
  const char *indices_name = "indices";
  const aclTensor *offsets = nullptr;
  const char *offsets_name = "offsets";
  const aclTensor *per_sample_weights = nullptr;  // optional
  const char *per_sample_weights_name = "perSampleWeights";
  const aclTensor *out = nullptr;
  const char *out_name = "out";
  const aclTensor *offset2bag = nullptr;
  const char *offset2bag_name = "offset2bag";
  const aclTensor *bag_size = nullptr;
  const char *bag_size_name = "bagSize";
  const aclTensor *max_indices = nullptr;
  const char *max_indices_name = "maxIndices";
  const aclTensor *p = nullptr;  // ApplyTopKTopP's per-row thresholds (optional, not both)
  const char *p_name = "p";
  const aclTensor *k = nullptr;
  const char *k_name = "k";
  int64_t num_weights = 0;
  int64_t padding_idx = -1;  // negative: none
  int64_t mode = 0;          // bag: 0 sum, 1 mean, other max
  bool scale_grad = false;
  bool sparse = false;
  bool include_last = false;
  double max_norm = 0;
  double norm_type = 2;
};

void embed_phase1(core::OpBuilder &b, const EmbedRule &rule, const EmbedCall &c);

}  // namespace opsnn::ops
