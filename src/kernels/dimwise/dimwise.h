// The dim-wise engine: ops that map each line of a tensor along one dim (or, for a few, along
// every dim flattened) to a line of results: softmax and its gradient, cumulative sums and
// products, sort, top-k, k-th value and median. A line is gathered into a contiguous compute-type
// buffer, transformed, and scattered to the outputs; lines run in parallel and each is computed
// by one task alone, so results never depend on the thread count.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "core/dtype.h"
#include "kernels/elementwise/elementwise.h"  // kMaxLoopDims

namespace opsnn::core {
struct ImplTrace;
}

namespace opsnn::kernels {

constexpr int kDimwiseMaxIo = 5;  // inputs, and outputs, of one line op

enum class DimwiseOp : uint8_t {
  kSoftmax, kLogSoftmax,                  // in: self
  kSoftmaxBackward, kLogSoftmaxBackward,  // in: gradOutput, output
  kCumsum, kCumprod,
  kCummax, kCummin,  // results: values, indices (the last index of the running extremum; NaN sticks)
  kSort,      // results: values, indices (params: descending)
  kTopk,      // the first k of the sort
  kKthvalue,  // one value and its index (k, 1-based)
  kMedian, kNanMedian,  // one value and its index
  kNormalize,  // layer / RMS / group / instance norm of the line; results: y, mean, rstd, the summed input, variance
  kSoftmaxCrossEntropy,  // in: features, labels; results: loss (one), backprop
  kRope,                 // in: x, cos, sin; y = x * cos + rotate(x) * sin (params.k: 0 half, 1 interleave)
  kRenorm,               // y = x * (norm > maxnorm ? maxnorm / (norm + 1e-7) : 1), norm the line's p-norm (torch.renorm)
  kMaskedSoftmax,        // y = softmax(scale * x + in[mask_in] + in[pos_bias_in]) (MaskedSoftmaxWithRelPosBias)
};
const char *dimwise_op_name(DimwiseOp op);

struct DimwiseParams {
  int64_t k = 1;
  bool descending = false;  // kSort; kTopk: largest
  // kNormalize: y = act((x - mean) * rstd * (gamma (+1 for Gemma)) + beta), rstd = 1 / sqrt(var + eps)
  double eps = 1e-5;
  bool rms = false;         // RMS norm: mean taken as 0, var = mean(x^2)
  bool add_input = false;   // x = alpha * in[0] + in[1] (+ in[bias_in]) first (AddRmsNorm, AddLayerNorm,
                            // DeepNorm); its value is result 3
  double alpha = 1;         // the first input's scale in the sum (DeepNorm)
  int bias_in = -1;         // input index of a per-element bias added to the sum (AddLayerNorm), -1: none
  double swish_scale = 1;   // the activation: y * sigmoid(swish_scale * y) (SiLU at 1; GroupNormSwish)
  bool gemma = false;       // scale by (1 + gamma)
  bool silu = false;        // y = silu(y) (GroupNormSilu)
  // Per-row modulation after gamma / beta: y = y * (1 + in[scale_in]) + in[shift_in] (AdaLayerNorm), -1: none
  int scale_in = -1, shift_in = -1;
  int gamma_in = -1, beta_in = -1;  // input index of gamma / beta (broadcast along the outer dims), -1: none
  double p = 2, maxnorm = 0;        // kRenorm: the norm's order (> 0, may be inf) and the bound
  double scale = 1;                 // kMaskedSoftmax: x's scale; mask / bias inputs (-1: none)
  int mask_in = -1, pos_bias_in = -1;
};

struct DimwiseLoop {
  DimwiseOp op = DimwiseOp::kSoftmax;
  DimwiseParams params;
  core::ComputeType compute = core::ComputeType::kDouble;  // kDouble, or kInt64 for integer cumsum / sort
  int nin = 1, nout = 1;
  aclDataType in_dtype[kDimwiseMaxIo] = {}, out_dtype[kDimwiseMaxIo] = {};
  int out_src[kDimwiseMaxIo] = {0, 1, 2, 3};  // output k is the line's result out_src[k]
  // Lines: one per element of the outer dims; byte strides (0 where an input is broadcast).
  int nouter = 0;
  int64_t outer_shape[kMaxLoopDims] = {};
  int64_t in_outer[kDimwiseMaxIo][kMaxLoopDims] = {}, out_outer[kDimwiseMaxIo][kMaxLoopDims] = {};
  int64_t lines = 1;
  // The line: its dims in row-major order, byte strides of each input and of each full-length
  // output along them.
  int nline = 0;
  int64_t line_shape[kMaxLoopDims] = {};
  int64_t in_line[kDimwiseMaxIo][kMaxLoopDims] = {};
  int64_t out_line[kDimwiseMaxIo][kMaxLoopDims] = {};
  int64_t len = 1;                         // input line length
  int64_t out_len[kDimwiseMaxIo] = {1, 1, 1, 1, 1};  // per output: len (along the line), k (topk: one line dim) or 1
  int tier = 0;              // the kernels' ISA tier (choose_dimwise_tier)
  bool stream_out = false;   // FLOAT row ops write result 0 by non-temporal stores (choose_dimwise_tier)
  bool softmax_rows = false;  // FLOAT softmax / log-softmax rows through the pipelined row kernel (choose_dimwise_tier)
  int64_t tasks = 1;         // lines are cut into this many ranges, each with its own scratch
  uint64_t scratch_bytes_per_task = 0;
  uint64_t workspace_bytes() const { return static_cast<uint64_t>(tasks) * scratch_bytes_per_task; }
};

// Chooses the ISA tier of the line kernels (best first, OPSNN_MAX_ISA / OPSNN_KERNELS honoured),
// the softmax row kernel and the store mode; returns the tier's name; rejections go to `trace` (may be null).
const char *choose_dimwise_tier(DimwiseLoop &loop, core::ImplTrace *trace);

// Output bytes above which FLOAT layer / RMS norms and (log-)softmax write by non-temporal stores:
// the last-level cache one core can use.
uint64_t dimwise_stream_out_bytes();

// Finishes the plan whose shape fields the caller filled: line length, scratch, task count.
void finish_dimwise_plan(DimwiseLoop &loop, int max_tasks);

// in[k] / out[k]: the first element of each operand; workspace: loop.workspace_bytes().
void run_dimwise(const DimwiseLoop &loop, const char *const *in, char *const *out, void *workspace);

// Lines [l0, l1) only, on the calling thread, with one task's scratch (loop.scratch_bytes_per_task):
// for ops that consume the lines block by block while they are in cache (the fused norm + quant ops).
void run_dimwise_lines(const DimwiseLoop &loop, const char *const *in, char *const *out, void *scratch, int64_t l0,
                       int64_t l1);

}  // namespace opsnn::kernels
