// The pieces of the GEMM-based phase 1s (the matmul table's ops::matmul_phase1, the quantised
// matmuls, convolution): dtype and cubeMathType rules, shape checks, and the recorded GEMM step,
// which reads transposed or strided operands in place and applies the addend (beta * D) and the
// scaling in the GEMM's own epilogue.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "core/op_builder.h"
#include "core/op_checks.h"
#include "kernels/matmul/gemm.h"

namespace opsnn::ops {

// ---- Pieces for the family's phase 1 ----

// Non-null tensor of dtype FLOAT, FLOAT16 or BF16.
void check_matmul_dtype(const aclTensor *t, const char *name);
// cubeMathType is 0..4, and USE_FP16 (2) is not combined with BF16 inputs `a` / `b`.
void check_cube_math_type(int8_t cube);
// The GEMM's input rounding for cubeMathType: USE_FP16 on FLOAT x FLOAT rounds the inputs to fp16.
aclDataType gemm_input_rounding(int8_t cube, aclDataType a, aclDataType b);
// `t` has lo..hi dims, or an error "<name> must be N-D; it has shape [..]".
void require_rank(const aclTensor *t, const char *name, int lo, int hi);
// MatmulCompress(Dequant): the weight in msModelSlim's stored (uncompressed) form, 1-D with exactly
// the n * k contiguous values of W [n, k] (the codec's compressed form is not public: 161002).
// Returns W^T [k, n] over it, the plain path's b read in place.
aclTensor stored_compressed_weight(const aclTensor *w, const char *name, int64_t n, int64_t k);
// The inner (reduction) dims of the two operands agree.
void check_inner_dims(const aclTensor *a, const char *a_name, int64_t ka, const aclTensor *b, const char *b_name,
                      int64_t kb);
// `t` broadcasts to `shape` (one-directional: the broadcast result is `shape` itself).
void check_broadcasts_to(const aclTensor *t, const char *name, const core::Shape &shape);
// A non-null aclScalar as float (alpha / beta).
float scalar_value(const aclScalar *s, const char *name);

// ---- The Transpose*BatchMatMul rows' permutations (matmul and quantised-matmul tables) ----

// The permutation `perm` of ndim dims (negative entries count from the end); 161001 when null,
// 161002 when not a permutation.
std::vector<int> checked_perm(const aclIntArray *perm, const char *name, int ndim);
// t.permute(p): the same storage, dims and strides in p's order.
aclTensor permuted(const aclTensor &t, const std::vector<int> &p);
// The view y with out = y.permute(p) (the inverse permutation).
aclTensor unpermuted(const aclTensor &out, const std::vector<int> &p);
// The view of `out` a GEMM writing the result `res` [B, M, N] uses: out = res.permute(perm), or with
// split > 1, the contiguous bytes of that permuted result regrouped as [d0, split, d1 * d2 / split]
// (out's checked shape); 161002 naming the argument otherwise.
aclTensor permuted_out_view(const aclIntArray *perm, const char *perm_name, int64_t split, const char *split_name,
                            const aclTensor &out, const char *out_name, const core::Shape &res);

// ---- Recording GEMMs over views ----

enum GemmArg { kGemmA = 0, kGemmB = 1, kGemmC = 2, kGemmD = 3 };

// Where an operand lives at run time: a registered tensor (its slot; offset_bytes is the view's
// offset) or a scratch block of the workspace (slot -1, its key; offset_bytes from the block).
using GemmOperandRef = core::OperandRef;

// One planned GEMM (desc) plus an outer loop over operand batches that the GEMM's own batch
// dimension does not cover. Outer iterations run in order, so an outer dim whose C stride is 0
// accumulates into C (with beta = 1).
struct GemmCall {
  kernels::GemmDesc desc;
  GemmOperandRef ref[4];
  int outer_ndim = 0;
  int64_t outer_shape[core::kMaxDims] = {};
  int64_t outer_stride[4][core::kMaxDims] = {};  // bytes
  // B is in the GEMM engine's pre-packed layout (a FRACTAL_NZ weight read in place); desc.b
  // describes the plain matrix it holds (kernels::gemm_plan_prepacked_b).
  bool b_packed = false;
};

// Binds operand `which` of `call` to the view of registered tensor `t` (slot): its dtype and
// byte offset. Strides are set by the caller.
void bind_tensor(GemmCall &call, int which, int slot, const aclTensor *t);
// Binds operand `which` to the fp32 scratch block `ws` of the op's workspace.
void bind_scratch(GemmCall &call, int which, core::WsKey ws);

// Batch dims merged over several operands: `shape` is the broadcast batch shape and strides[i] the
// element strides of operand i over it (operands not in `used` are ignored). Size-1 dims are dropped
// and neighbours whose strides nest for every used operand are merged (outermost first).
struct MergedBatch {
  int ndim = 0;
  int64_t dims[core::kMaxDims] = {};
  int64_t strides[4][core::kMaxDims] = {};
};
MergedBatch merge_batch_dims(const core::Shape &shape, const int64_t (*strides)[core::kMaxDims],
                             std::initializer_list<int> used);

// Batch dims: `shape` is the broadcast batch shape and strides[i] the element strides of operand i
// over it (0 = broadcast; operands not in `used` are ignored). Size-1 dims are dropped and dims
// whose strides nest for all operands merged; the innermost becomes the GEMM batch, the rest the
// call's outer loop.
void set_batch(GemmCall &call, const core::Shape &shape, const int64_t (*strides)[core::kMaxDims],
               std::initializer_list<int> used);

// Where a step finds an operand that is made at launch outside the workspace (a FRACTAL_NZ
// weight's dense copy kept across launches, ops/matmul/weight_nz.h): with() runs use(its address).
class OperandSource {
 public:
  virtual ~OperandSource() = default;
  virtual void with(const core::LaunchArgs &args, const std::function<void(const char *)> &use) const = 0;
};

// Plans every call and records one step that runs them in order (they share one GEMM workspace,
// booked after any scratch the caller booked before). Workspace scratch offsets in refs are
// absolute offsets in the op's workspace. b_source: every call's B is that source's operand (plus
// the B ref's offset_bytes) instead of the B ref's place.
void record_gemms(core::OpBuilder &b, std::vector<GemmCall> calls,
                  std::shared_ptr<const OperandSource> b_source = nullptr);

}  // namespace opsnn::ops
