// The reduction engine: one loop planner (coalesces kept and reduced dims, chooses the inner loop
// by stride, fixes the split of long reductions into blocks) and one runner that feeds contiguous
// compute-type chunks to an op's reducer. Results do not depend on the thread count: the blocks
// are fixed in phase 1 and their partial results are combined in block order.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "core/dtype.h"
#include "kernels/elementwise/elementwise.h"  // kMaxLoopDims

namespace opsnn::core {
struct ImplTrace;
}

namespace opsnn::kernels {

enum class ReduceOp : uint8_t {
  kSum, kMean, kProd,
  kMax, kMin,            // one output: the values; two outputs: values and indices (first occurrence)
  kArgMax, kArgMin,      // the index only
  kAll, kAny, kCountNonzero,
  kNansum,               // a sum with NaN read as 0
  kAminmax,              // two outputs, min and max: phase 1 records a kMin and a kMax reduction
  kNorm,                 // params.p: 0 (count), 1, 2, +-inf, or any other p
  kLogSumExp,
  kVar, kStd,            // params.correction
  kVarMean, kStdMean,    // two outputs: var (std) and mean
};
const char *reduce_op_name(ReduceOp op);
// Whether the op's result is an index (ArgMax) or carries one (Max/Min with two outputs).
bool reduce_op_indexes(ReduceOp op, int nout);

// Column mode reduces at most this many neighbouring outputs per task (the planner's tile).
constexpr int64_t kReduceColumnTile = 64;
// FLOAT column mode of the sums, extrema and arg-extrema ("wide"): up to this many neighbouring
// outputs per task, so each input row is read as one long run (a whole row of a [4096, 4096]
// matrix: the matrix streams once, in order) into a row of accumulators that stays in L1 / L2.
constexpr int64_t kReduceWideTile = 4096;

// An element map applied before reducing: the reduced value of each position is a function of two
// inputs read at that position (each with its own dtype and strides), e.g. PReLU's weight-gradient
// summand. kNone: the first input itself.
enum class ReduceMap : uint8_t {
  kNone,
  kMulUnlessPositive,  // a * b where b is not positive (NaN included), else 0
};

// The second input of a mapped reduction, over the first one's dims (element strides).
struct ReduceMapInput {
  ReduceMap map = ReduceMap::kNone;
  aclDataType dtype = ACL_FLOAT;
  const int64_t *strides = nullptr;
};

struct ReduceParams {
  double p = 2;           // kNorm
  double correction = 1;  // kVar..kStdMean: divisor max(N - correction, 0)
};

struct ReduceLoop {
  ReduceOp op = ReduceOp::kSum;
  ReduceParams params;
  core::ComputeType compute = core::ComputeType::kDouble;  // kDouble or kInt64
  aclDataType in_dtype = ACL_FLOAT;
  int nout = 1;
  aclDataType out_dtype[2] = {ACL_FLOAT, ACL_FLOAT};
  // Kept dims (the outputs), outermost first; strides in bytes.
  int nkept = 0;
  int64_t kept_shape[kMaxLoopDims] = {};
  int64_t in_kept[kMaxLoopDims] = {};
  int64_t out_kept[2][kMaxLoopDims] = {};
  // Reduced dims, outermost first; input strides in bytes.
  int nred = 0;
  int64_t red_shape[kMaxLoopDims] = {};
  int64_t in_red[kMaxLoopDims] = {};
  // A mapped reduction's second input (map != kNone): its dtype and byte strides along the same
  // kept and reduced dims (equal to the first input's when there is none).
  ReduceMap map = ReduceMap::kNone;
  aclDataType in2_dtype = ACL_FLOAT;
  int64_t in2_kept[kMaxLoopDims] = {};
  int64_t in2_red[kMaxLoopDims] = {};
  int64_t out_numel = 1, red_numel = 1;
  // Column mode: the input's fastest dim is kept, so a task reduces `tile` neighbouring outputs at
  // once, one input row per reduced index. Row mode: each output reduces a contiguous-ish row.
  bool column = false;
  bool wide = false;  // column mode on FLOAT rows read in place, tile up to kReduceWideTile
  int64_t tile = 1;
  int64_t block = 1, nblocks = 1;  // the reduced range split into fixed blocks of `block` elements
  int tier = 0;                    // the runner's ISA tier (choose_reduce_tier)
  uint64_t partial_bytes() const;  // workspace for the blocks' partial results (0 if one block)
};

// Plans the loop. `shape`/`in_strides` (elements): the input view; `reduce_mask`: bit d set when
// dim d is reduced; `out_strides[k][d]` (elements): output k's stride for input dim d (ignored for
// reduced dims). Index ops keep the reduced dims in logical order (the index is the position in
// the row-major order of the reduced dims). `second` (floating sums only): the mapped
// reduction's second input; the dims merge only where both inputs step evenly.
ReduceLoop plan_reduction(ReduceOp op, const ReduceParams &params, int ndim, const int64_t *shape,
                          const int64_t *in_strides, aclDataType in_dtype, uint32_t reduce_mask, int nout,
                          const int64_t (*out_strides)[kMaxLoopDims], const aclDataType *out_dtypes,
                          core::ComputeType compute, const ReduceMapInput &second = {});

// Chooses the runner's ISA tier (best first; OPSNN_MAX_ISA / OPSNN_KERNELS honoured); returns its
// name; rejections go to `trace` (may be null).
const char *choose_reduce_tier(ReduceLoop &loop, core::ImplTrace *trace);

// Runs the loop: `in` is the input's first element, out[k] output k's first element, `partials` the
// workspace block of loop.partial_bytes() (may be null when 0), `in2` the second input's first
// element of a mapped reduction (null otherwise).
void run_reduction(const ReduceLoop &loop, const char *in, char *const *out, void *partials,
                   const char *in2 = nullptr);

}  // namespace opsnn::kernels
