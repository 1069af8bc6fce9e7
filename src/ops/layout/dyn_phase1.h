// The phase 1 of the table-driven ops whose output size depends on the data
// (src/ops/layout/dynamic.ops): Nonzero / NonzeroV2, Unique / Unique2 / UniqueConsecutive / UniqueDim,
// InplaceMaskedScatter (the count of its mask decides how much of source is read), MaskedSelect, and the
// offset scatters whose targets are data (InplaceScatterUpdate, ScatterList, InplaceQuantScatter /
// V2: the updates quantised to INT8 on the way). The entry
// points are generated from the table (tools/gen_ops_dyn.py); each fills a DynCall by role.
//
// Outputs of data-dependent size (the "dynamic" outputs): the caller allocates them at the maximum
// size (Nonzero: [numel, ndim], NonzeroV2: [ndim, numel], unique values / counts: numel or the
// dim's length) and describes them so; phase 1 checks that they are at least that large. When the
// launch runs, the step computes the real count, writes the result and then rewrites the view
// shape of the CALLER's descriptor (the aclTensor passed to phase 1) to the real size, so
// aclGetViewShape / aclGetViewStrides return it:
//   - an output whose view was contiguous at its maximum shape is packed contiguously at the real
//     shape (its strides become the real shape's contiguous strides: the layout a client gets by
//     resizing a contiguous buffer, as torch_npu does);
//   - any other output keeps its strides; the shrunk dim is just shorter.
// The rewrite happens when the launch runs on the stream, not when aclnnXxx returns: a caller must
// synchronise the stream (aclrtSynchronizeStream) before reading the shape, and must keep the
// descriptor alive (not destroyed) until then. Every launch starts from the maximum shape recorded
// in phase 1, so a repeatable executor's runs never shrink cumulatively.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"

namespace opsnn::ops {

enum class DynKind : uint8_t {
  kNonzero,            // out [N, ndim]: the row-major positions of self's nonzero elements
  kNonzeroT,           // NonzeroV2: out [ndim, N]
  kUnique,             // torch.unique (flattened): valueOut [U], inverseOut self's shape, countsOut [U]
  kUniqueConsecutive,  // torch.unique_consecutive (flattened, or along dim; dim 1000 = none)
  kUniqueDim,          // torch.unique(dim=): slices along dim, sorted lexicographically
  kMaskedScatter,      // Tensor.masked_scatter_: selfRef[mask] = source's first count(mask) elements
  kMaskedSelect,       // torch.masked_select: out [count] = self[mask] (self and mask broadcast)
  kScatterUpdate,      // InplaceScatterUpdate: data[b_i, .., start_i + k, ..] = updates[i, .., k, ..] along axis
  kScatterList,        // ScatterList: varRef[i][.., start_i + k, ..] = updates[i, .., k, ..], k < len_i, if mask[i]
  kQuantScatter,       // InplaceQuantScatter (V2): kScatterUpdate of INT8 rint(updates / quantScales + quantZeroPoints)
};

struct DynRule {
  DynKind kind;
  core::DtypeMask dtypes;  // accepted self dtypes
};

// torch_npu's "no dim" for aclnnUniqueConsecutive (its NoneN): the flattened tensor.
constexpr int64_t kDynNoDim = 1000;

struct DynCall {
  const aclTensor *self = nullptr;
  const char *self_name = "self";
  const aclTensor *out = nullptr;  // out / valueOut
  const char *out_name = "out";
  const aclTensor *inverse = nullptr;
  const char *inverse_name = "inverseOut";
  const aclTensor *counts = nullptr;
  const char *counts_name = "countsOut";
  const aclTensor *mask = nullptr;
  const char *mask_name = "mask";
  const aclTensor *source = nullptr;
  const char *source_name = "source";
  const aclTensor *index = nullptr;  // InplaceScatterUpdate's indices, ScatterList's indice
  const char *index_name = "indices";
  const aclTensorList *list = nullptr;  // ScatterList's varRef (updated in place)
  const char *list_name = "varRef";
  const char *reduce = nullptr;  // ScatterList's reduceOptional (null: "update")
  const aclTensor *quant_scales = nullptr;  // InplaceQuantScatter's, per last-dim position of updates
  const char *quant_scales_name = "quantScales";
  const aclTensor *quant_zero_points = nullptr;  // optional (null: 0)
  const char *quant_zero_points_name = "quantZeroPoints";
  int64_t quant_axis = -1, reduction = 1;
  const char *round_mode = nullptr;  // V2's roundMode
  bool has_round_mode = false;       // the prototype has roundMode (InplaceQuantScatterV2)
  bool sorted = true;
  bool return_inverse = false;
  bool return_counts = false;
  bool has_return_counts = false;  // the prototype has returnCounts (else counts are always written)
  int64_t dim = kDynNoDim;
};

void dyn_phase1(core::OpBuilder &b, const DynRule &rule, const DynCall &c);

}  // namespace opsnn::ops
