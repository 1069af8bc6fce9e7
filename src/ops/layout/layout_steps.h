// The layout ops' own steps, for what a view and a copy cannot express: the triangle masks of
// tril / triu, and the values of arange.
#pragma once

#include "core/op_builder.h"

namespace opsnn::ops {

// out = tril(in, diagonal) (lower) or triu(in, diagonal) over the last two dims; in and out have
// the same dtype and shape (they may be the same view: in place).
void record_triangle(core::OpBuilder &b, int in_slot, int out_slot, bool lower, int64_t diagonal);

// A same-dtype copy out_view <- in_view (views of slots) whose input runs along another dim than the
// output's innermost one (a transpose-like permute): recorded as a copy in 2-D tiles (each tile
// read along the input's unit-stride dim and written along the output's), and true; false (nothing
// recorded) when the input already runs along the output's rows (the element-wise engine's case).
bool record_blocked_copy(core::OpBuilder &b, int out_slot, const aclTensor &out_view, int in_slot,
                         const aclTensor &in_view);

// out[k] = start + k * step for the 1-D view out (computed in INT64 for integer outputs, else DOUBLE,
// then converted to out's dtype).
void record_arange(core::OpBuilder &b, int out_slot, double start, double step, int64_t istart, int64_t istep);
// out[k] = linspace(start, end, n)[k] as PyTorch computes it (from start up to the middle, from end
// after it), in DOUBLE, converted to out's dtype.
void record_linspace(core::OpBuilder &b, int out_slot, double start, double end);

}  // namespace opsnn::ops

namespace opsnn::ops {

// The index step: slabs (every dim but one) copied by index. For each position k (row-major over
// pos_dims) the value v = index[k] (checked in [0, bound) at launch: 161002 otherwise):
//   gather:  dst[pos(k)] <- src[v * val_stride + pos_val(k)]   (GatherV2, IndexSelect, Embedding,
//            Gather, Take, repeat_interleave)
//   scatter: dst[v * val_stride + pos_val(k)] <- src[pos(k)]   (IndexCopy, IndexFill, Scatter*, IndexAdd)
// (GatherNd / ScatterNd: v * val_stride is the sum over the position's nd_k index values).
// where a scatter may combine instead of replace: dst = dst + alpha * src, or dst * src.
// Offsets are in elements from each view's first element; a slab is `slab_ndim` dims with their
// own strides on each side. With `repeats`, the index slot holds repeat counts (one, broadcast, or
// one per source position) expanded at launch into the booked map (they must sum to the position
// count); with map_only the expanded indices are the output (RepeatInterleaveTensor).
struct IndexPlan {
  bool scatter = false;
  int src_slot = -1, dst_slot = -1, index_slot = -1;
  core::WsKey src_ws;    // src is this workspace block (a contiguous copy) instead of a slot
  core::WsKey index_ws;  // the index is this workspace block (described by `index`) instead of a slot
  core::WsKey dst_ws;    // dst is this workspace block (described by `dst`) instead of a slot
  aclTensor src{}, dst{}, index{};
  int pos_ndim = 0;
  int64_t pos_dims[core::kMaxDims] = {};
  int64_t pos_strides[core::kMaxDims] = {};  // in dst (gather) or src (scatter)
  int64_t pos_val_strides[core::kMaxDims] = {};  // the indexed side also moves with the position (gather / scatter)
  int64_t val_stride = 0;                    // in src (gather) or dst (scatter)
  int64_t bound = 0;
  // GatherNd / ScatterNd: each position reads nd_k index values (the index's last dim), value j in
  // [0, nd_bounds[j]) stepping nd_strides[j]; the position count is the index's numel / nd_k.
  int nd_k = 0;
  int64_t nd_bounds[core::kMaxDims] = {};
  int64_t nd_strides[core::kMaxDims] = {};
  int slab_ndim = 0;
  int64_t slab_dims[core::kMaxDims] = {};
  int64_t slab_src[core::kMaxDims] = {};
  int64_t slab_dst[core::kMaxDims] = {};
  const char *index_name = "index";
  bool wrap_negative = false;  // values in [-bound, 0) count from the end
  bool src_constant = false;   // src is `constant` (one element of dst's dtype, every slab stride 0)
  // scatter only; kMax / kMin: a NaN wins (torch.maximum); kDiv: dst / src
  enum class Combine : uint8_t { kReplace, kAdd, kMul, kMax, kMin, kDiv } combine = Combine::kReplace;
  double alpha = 1;  // kAdd: dst + alpha * src
  alignas(8) unsigned char constant[8] = {};
  bool repeats = false;
  bool map_only = false;
  core::WsKey map;  // repeats: booked by record_index_copy
};
void record_index_copy(core::OpBuilder &b, const IndexPlan &plan);

// The search step (Bucketize, SearchSorted(s)): out[p] = the insertion point of value p in its row
// of the sequence (the first j with seq[j] >= v, or > v when `right`; N when there is none), each
// row ordered by the sorter when given (its values checked in [0, N) at launch: 161002). Values and
// sequence are rounded to `compare` (their promoted dtype) and compared in it (INT64 for integers).
struct SearchPlan {
  int val_slot = -1;  // -1: the scalar value
  int seq_slot = -1, sorter_slot = -1, out_slot = -1;
  bool right = false;
  aclDataType compare = ACL_FLOAT;
  double scalar_double = 0;
  int64_t scalar_int = 0;
};
void record_search(core::OpBuilder &b, const SearchPlan &plan);

// torch.scatter_reduce over a scatter plan along `dim` (one element per position, as Scatter's): the reduce
// codes of aclnnScatterReduce, 0 replace, 1 sum, 2 prod, 3 amax, 4 amin, 5 mean. Every element the
// index reaches is reduced in an accumulator (DOUBLE for floating dtypes, INT64 otherwise; booked
// in the workspace) over the positions in row-major order, starting from dst's value
// (include_self) or the reduction's identity, and rounded to dst's dtype once; a mean divides by
// the count of values reduced (integers: floor division of the sum wrapped to the dtype); an amax
// / amin meeting a NaN is NaN. Elements no index reaches keep their value.
void record_scatter_reduce(core::OpBuilder &b, const IndexPlan &plan, int dim, int reduce, bool include_self);

}  // namespace opsnn::ops
