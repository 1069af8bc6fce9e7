// The phase 1 of every table-driven copy / layout op (src/ops/layout/layout.ops): the output is a
// view-and-copy plan over the input (permute, slice, flip, pads, roll, repeat, cat), or one of the
// small layout steps (tril / triu, arange / linspace, the index step of the gathers and scatters). The entry points are generated from the table
// (tools/gen_ops.py --entry); each fills a LayoutCall from its arguments in prototype order.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"

namespace opsnn::ops {

enum class LayoutKind : uint8_t {
  kPermute,
  kCat,
  kSlice,
  kConstantPad,
  kReflectionPad,
  kReplicationPad,
  kTril,
  kTriu,
  kRoll,
  kRepeat,
  kRepeatInterleave,
  kFlip,
  kArange,
  kLinspace,
  kEye,
  kStack,
  kGather,        // GatherV2 (index of any rank replaces dim), Embedding (dim 0)
  kIndexSelect,   // index 0-d or 1-d: dim's length becomes the index's
  kIndexCopy,     // out = self; out[..., index[k], ...] = source[..., k, ...]
  kIndexAdd,      // out = self; out[..., index[k], ...] += alpha * source[..., k, ...]
  kScatter,       // torch.scatter (reduce 0 / 1 / 2: replace / add / multiply) of src or a value
  kIndexFill,     // out = self; out[..., i, ...] = value for the indices i (host list or device tensor)
  kGatherElements,  // torch.gather: out[..., k, ...] = self[..., index[..., k, ...], ...] along dim
  kTake,          // out = self.flatten()[index] (negative indices count from the end)
  kRepeatInterleaveTensor,  // repeats a device tensor (with or without dim; or alone: the indices)
  kRepeatInterleaveGrad,    // out[..., i, ...] = sum of yGrad's slabs repeated from i (repeats on device)
  kGatherNd,      // out[p..., r...] = self[indices[p..., :], r...]
  kScatterNd,     // out = data; out[indices[p..., :], r...] = updates[p..., r...]
  kIndexTensors,  // aclnnIndex: out = self[indices[0], ..., indices[K-1]] (broadcast index tensors)
  kIndexPut,      // IndexPutImpl: selfRef[indices[0], ..., indices[K-1]] = (or +=) values (broadcast)
  kPut,           // InplacePut: selfRef.flatten()[index] = (or +=) source.flatten()
  kSplit,         // SplitTensor / SplitWithSize: the list `list` (the output) gets self's chunks along dim
  kNarrow,        // out = self[..., start:start + length, ...] along dim (start may count from the end)
  kDiag,          // torch.diag: 1-D -> a matrix with self on diagonal i[0]; 2-D -> that diagonal
  kCircularPad,   // CircularPad1d/2d/3d: out[j] = self[(j - left) mod n] per padded dim
  kSearch,        // Bucketize, SearchSorted(s): insertion points of self in source (sorter: index)
  kCircularPadGrad,  // CircularPad2d/3dBackward: gradInput[i] = sum of gradOutput (self) where j wraps to i
  kScatterReduce,  // torch.scatter_reduce (reduce 0..5: replace, sum, prod, amax, amin, mean; includeSelf)
  kScatterMax,     // varRef[indices[p...], r...] = max(it, updates[p..., r...]) in order (tf.scatter_max)
  kScatterMin,
  kScatterMul,
  kScatterDiv,
  kScatterAddTf,   // tf.scatter_add: varRef[indices[p...], r...] += updates[p..., r...] in order
};

struct LayoutRule {
  LayoutKind kind;
  core::DtypeMask dtypes;  // accepted input dtypes (arange: output dtypes)
  bool out_castable;       // the output may have any dtype the input casts to (else the same)
  int pad_dims;            // reflection / replication / circular pads: the padded trailing dims
};

// The arguments by role; arr / i / s hold the op's int lists, int64 and scalar parameters in
// prototype order (their meaning is the kind's).
struct LayoutCall {
  const aclTensor *self = nullptr;
  const char *self_name = "self";
  const aclTensorList *list = nullptr;
  const char *list_name = "tensors";
  const aclTensor *out = nullptr;
  const char *out_name = "out";
  bool inplace = false;  // out is self (registered once, read and written)
  const aclTensor *index = nullptr;  // index ops: the index (repeat_interleave: the repeats)
  const char *index_name = "";  // "" when the op has no index tensor
  const aclTensor *source = nullptr;  // index_copy: the source
  const char *source_name = "";
  const aclIntArray *arr[2] = {nullptr, nullptr};
  const char *arr_name[2] = {"", ""};
  int64_t i[4] = {0, 0, 0, 0};
  const char *i_name[4] = {"", "", "", ""};
  const aclScalar *s[3] = {nullptr, nullptr, nullptr};
  const char *s_name[3] = {"", "", ""};
};

void layout_phase1(core::OpBuilder &b, const LayoutRule &rule, const LayoutCall &c);

}  // namespace opsnn::ops
