#include <algorithm>
#include <cstdlib>

#include "kernels/loop/loop_walk.h"
#include "kernels/reduction/reduce.h"
#include "kernels/reduction/reducers.h"

namespace opsnn::kernels {
namespace {

constexpr int64_t kBlock = 1 << 15;      // reduced elements per block when a reduction is split
constexpr int64_t kMinOutputTasks = 16;  // below this many output tasks, long reductions are split
// Wide column mode: a split reduction's block holds about this many input elements (8 MiB of
// FLOAT), so few blocks (few partials to merge) still feed two or more threads.
constexpr int64_t kWideBlockElements = 1 << 21;

// The reducers with a FLOAT column kernel reading rows in place (reducers.h col_f32).
bool has_wide_column(ReduceOp op) {
  return op == ReduceOp::kSum || op == ReduceOp::kMean || op == ReduceOp::kMax || op == ReduceOp::kMin ||
         op == ReduceOp::kArgMax || op == ReduceOp::kArgMin;
}

}  // namespace

const char *reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return "sum";
    case ReduceOp::kMean: return "mean";
    case ReduceOp::kProd: return "prod";
    case ReduceOp::kMax: return "max";
    case ReduceOp::kMin: return "min";
    case ReduceOp::kArgMax: return "argmax";
    case ReduceOp::kArgMin: return "argmin";
    case ReduceOp::kAll: return "all";
    case ReduceOp::kAny: return "any";
    case ReduceOp::kCountNonzero: return "count_nonzero";
    case ReduceOp::kNansum: return "nansum";
    case ReduceOp::kAminmax: return "aminmax";
    case ReduceOp::kNorm: return "norm";
    case ReduceOp::kLogSumExp: return "logsumexp";
    case ReduceOp::kVar: return "var";
    case ReduceOp::kStd: return "std";
    case ReduceOp::kVarMean: return "var_mean";
    case ReduceOp::kStdMean: return "std_mean";
  }
  return "?";
}

bool reduce_op_indexes(ReduceOp op, int nout) {
  return op == ReduceOp::kArgMax || op == ReduceOp::kArgMin ||
         ((op == ReduceOp::kMax || op == ReduceOp::kMin) && nout == 2);
}

uint64_t ReduceLoop::partial_bytes() const {
  if (nblocks <= 1) return 0;
  return static_cast<uint64_t>(out_numel) * static_cast<uint64_t>(nblocks) * sizeof(reduce_detail::Acc<double>);
}

ReduceLoop plan_reduction(ReduceOp op, const ReduceParams &params, int ndim, const int64_t *shape,
                          const int64_t *in_strides, aclDataType in_dtype, uint32_t reduce_mask, int nout,
                          const int64_t (*out_strides)[kMaxLoopDims], const aclDataType *out_dtypes,
                          core::ComputeType compute, const ReduceMapInput &second) {
  ReduceLoop L;
  L.map = second.map;
  const bool mapped = second.map != ReduceMap::kNone;
  L.in2_dtype = mapped ? second.dtype : in_dtype;
  const int64_t *in2_strides = mapped ? second.strides : in_strides;
  const int64_t i2es = static_cast<int64_t>(core::dtype_size(L.in2_dtype));
  L.op = op;
  L.params = params;
  L.compute = compute;
  L.in_dtype = in_dtype;
  L.nout = nout;
  for (int k = 0; k < nout; ++k) L.out_dtype[k] = out_dtypes[k];
  const int64_t ies = static_cast<int64_t>(core::dtype_size(in_dtype));
  int64_t oes[2] = {1, 1};
  for (int k = 0; k < nout; ++k) oes[k] = static_cast<int64_t>(core::dtype_size(out_dtypes[k]));

  int kept[kMaxLoopDims], red[kMaxLoopDims], nk = 0, nr = 0;
  for (int d = 0; d < ndim; ++d) {
    if (reduce_mask >> d & 1u) {
      L.red_numel *= shape[d];
      if (shape[d] != 1) red[nr++] = d;
    } else {
      L.out_numel *= shape[d];
      if (shape[d] != 1) kept[nk++] = d;
    }
  }
  // Kept dims: the first output's largest stride outermost, so outputs are written in order.
  std::stable_sort(kept, kept + nk, [&](int a, int b) { return std::llabs(out_strides[0][a]) > std::llabs(out_strides[0][b]); });
  // Reduced dims: the input's largest stride outermost, except for index results (their index
  // counts the reduced dims in logical order).
  if (!reduce_op_indexes(op, nout))
    std::stable_sort(red, red + nr, [&](int a, int b) { return std::llabs(in_strides[a]) > std::llabs(in_strides[b]); });

  // Merged where every operand steps evenly (kernels/loop/loop_walk.h): the kept dims over the
  // inputs and the outputs, the reduced dims over the inputs (the second is the first again when
  // the reduction is not mapped).
  int64_t *kept_strides[4] = {L.in_kept, L.in2_kept, L.out_kept[0], L.out_kept[1]};
  auto in_stride = [&](int op, int d) { return op == 0 ? in_strides[d] * ies : in2_strides[d] * i2es; };
  L.nkept = coalesce_dims(
      kept, nk, shape, 2 + nout,
      [&](int op, int d) { return op < 2 ? in_stride(op, d) : out_strides[op - 2][d] * oes[op - 2]; }, 0,
      L.kept_shape, kept_strides);
  int64_t *red_strides[2] = {L.in_red, L.in2_red};
  L.nred = coalesce_dims(red, nr, shape, 2, in_stride, 0, L.red_shape, red_strides);

  // Column mode when the input's fastest dim is a kept one: a task then reads rows of neighbouring
  // outputs (vectorised across outputs) instead of strided single elements. An empty output (a
  // kept dim of size 0) is no column: nothing runs (the caller records no step), and its tile would be 0.
  L.column = L.out_numel > 0 && L.nkept > 0 &&
             (L.nred == 0 || std::llabs(L.in_kept[L.nkept - 1]) < std::llabs(L.in_red[L.nred - 1]));
  int64_t output_tasks = L.out_numel;
  if (L.column) {
    const int64_t last = L.kept_shape[L.nkept - 1];
    // FLOAT rows with a unit-stride kept dim, read in place: the wide tile (row indices of the
    // arg-extrema are kept as int32 lanes, hence the bound on the reduced count).
    L.wide = in_dtype == ACL_FLOAT && !mapped && compute == core::ComputeType::kDouble && has_wide_column(op) &&
             L.in_kept[L.nkept - 1] == 4 && L.red_numel < (int64_t{1} << 31);
    L.tile = std::min(L.wide ? kReduceWideTile : kReduceColumnTile, last);
    output_tasks = L.out_numel / last * ((last + L.tile - 1) / L.tile);
  }
  // A long reduction feeding few outputs is split into fixed blocks (depending on the shape only,
  // never on the thread count), so it can run in parallel and still give the same bits.
  L.block = std::max<int64_t>(L.red_numel, 1);
  L.nblocks = 1;
  const int64_t block = L.wide ? std::max<int64_t>(kWideBlockElements / L.tile, 1) : kBlock;
  if (output_tasks < kMinOutputTasks && L.red_numel > block) {
    L.block = block;
    L.nblocks = (L.red_numel + block - 1) / block;
  }
  return L;
}

}  // namespace opsnn::kernels
