// The channel-norm engine: batch normalisation and its pieces, per channel over every other dim
// (batch and spatial). Over raw pointers and element strides; knows nothing of aclTensor. Each
// channel is computed by one task in double (two passes for the variance), so results never
// depend on the thread count. M is the element count per channel.
//
//   statistics (kStats):      mean = sum x / M, var = sum (x - mean)^2 / M, invstd = 1 / sqrt(var + eps)
//                             (training); or the given mean / invstd; or running mean / var (eval)
//   normalise (y):            y = (x - mean) invstd w + b
//   running update:           rm = (1 - m) rm + m mean, rv = (1 - m) rv + m var M / (M - 1)
//   sums (kSums):             sum x, sum x^2 (BatchNormReduce)
//   gradient sums:            sumDy = sum dy, sumDyXmu = sum dy (x - mean)
//   gradInput (training):     dx = (dy - sumDy / M' - (x - mean) invstd^2 sumDyXmu / M') invstd w
//                             (M' = M, or the sum of the given counts for BatchNormElemtBackward)
//   gradInput (eval):         dx = dy invstd w
//   gradWeight = sumDyXmu invstd, gradBias = sumDy
//   gather (kGather):         per-group mean / invstd / count merged into one mean / invstd
//   sync gather (kSyncGather): per-group sum / squareSum / count: n = sum count, mean = sum s / n,
//                             var = sum q / n - mean^2, invstd = 1 / sqrt(var + eps), running update
//                             as above with M = n (aclnnSyncBatchNormGatherStats)
//   quantised (kQuantForward): y = sat(rne(((x - izp) is - rm) / sqrt(rv + eps) w + b) / os + ozp))
//                             with the running statistics (aclnnQuantizedBatchNorm)
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "kernels/elementwise/elementwise.h"  // kMaxLoopDims

namespace opsnn::core {
struct ImplTrace;
}

namespace opsnn::kernels {

// A per-element operand: element strides along the position dims and the channel dim.
struct ChanTensor {
  aclDataType dtype = ACL_FLOAT;
  int64_t pos[kMaxLoopDims] = {};
  int64_t chan = 0;
};

// A per-channel operand ([C], or [G, C] for the gathers' inputs: `row` between groups).
struct ChanVector {
  aclDataType dtype = ACL_FLOAT;
  int64_t stride = 0;
  int64_t row = 0;
};

enum ChanVec : int {
  kWeight, kBias, kMeanIn, kInvstdIn, kRunMean, kRunVar, kSumDyIn, kSumDyXmuIn, kCounts,  // inputs
  kSumIn, kSqSumIn,  // the sync gather's per-group sums ([G, C])
  kMeanOut, kInvstdOut, kSumOut, kSqSumOut, kSumDyOut, kSumDyXmuOut, kGradWeight, kGradBias,  // outputs
  kChanVecCount
};

enum class ChanNormMode : uint8_t {
  kForward,       // y from statistics (training, given, or running)
  kSums,          // sum, squareSum
  kBackward,      // gradient sums, gradInput / gradWeight / gradBias as requested
  kElemtBackward, // gradInput from the given sums and counts
  kGather,        // merge per-group statistics (no per-element operand)
  kSyncGather,    // statistics from per-group sums and counts (no per-element operand)
  kQuantForward,  // integer x to integer y through the running statistics
};

struct ChanNormPlan {
  ChanNormMode mode = ChanNormMode::kForward;
  int64_t channels = 0;
  int npos = 0;
  int64_t pos_shape[kMaxLoopDims] = {};
  int64_t m = 0;  // elements per channel
  ChanTensor x, dy, y;  // y: the output (forward) or gradInput (backward)
  bool has_dy = false, has_y = false;
  ChanVector vec[kChanVecCount];
  bool has[kChanVecCount] = {};
  // Where the statistics come from: computed from x (training), the given mean / invstd, or the
  // running mean / var with eps (eval).
  enum class Stats : uint8_t { kFromData, kGiven, kRunning } stats = Stats::kFromData;
  double eps = 1e-5, momentum = 0.1;
  bool update_running = false;
  bool training_grad = true;  // kBackward: the training formula (else eval: dy invstd w)
  int64_t groups = 0;         // kGather, kSyncGather
  // kQuantForward: x' = (x - in_zp) in_scale; y = saturate(round-half-even(y' / out_scale + out_zp)).
  double in_scale = 1, in_zp = 0, out_scale = 1, out_zp = 0, qmin = 0, qmax = 0;
  int tasks = 1;
  int tier = 0;               // the dense FLOAT affine line's ISA tier (choose_chan_norm_tier)
  int64_t line = 1;           // the innermost position dim's length (a line buffer per operand)
  uint64_t workspace_bytes() const { return static_cast<uint64_t>(tasks) * static_cast<uint64_t>(line) * 3 * 8 + 64; }
};

struct ChanNormArgs {
  const char *x = nullptr, *dy = nullptr;
  char *y = nullptr;
  char *vec[kChanVecCount] = {};  // inputs are read through these too
  void *workspace = nullptr;
};

void chan_norm_run(const ChanNormPlan &plan, const ChanNormArgs &args);

// The forward's dense FLOAT lines y = float(double(x) * scale + shift) (eval and training), per ISA
// tier (channel_norm_<tier>.cpp): the portable unit does 2 doubles per instruction.
using ChanAffineFn = void (*)(const float *x, float *y, int64_t n, double scale, double shift);
void chan_affine_portable(const float *x, float *y, int64_t n, double scale, double shift);
void chan_affine_avx2(const float *x, float *y, int64_t n, double scale, double shift);
void chan_affine_avx512(const float *x, float *y, int64_t n, double scale, double shift);
// Sets plan.tier from the ordered tier list (rejections into `trace`, may be null); returns its name.
const char *choose_chan_norm_tier(ChanNormPlan &plan, core::ImplTrace *trace);

}  // namespace opsnn::kernels
