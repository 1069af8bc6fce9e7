// The launch step of the quantisation table (ops/quant/quant_phase1.h says the formulas): every
// operand as rows along x's last dim, planned in phase 1; run() walks the rows on the row kernels
// of kernels/quant/quant_rows.h with the buffers phase 1 booked.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/executor.h"
#include "core/tensor.h"
#include "kernels/matmul/gemm.h"
#include "kernels/quant/low_float.h"
#include "kernels/quant/quant_rows.h"
#include "kernels/quant/quant_token.h"
#include "ops/quant/quant_phase1.h"

namespace opsnn::ops {

// A registered operand: where it is, its dtype, and its dims / element strides.
struct QuantOperand {
  bool present = false;
  core::OperandRef ref;
  aclDataType dt = ACL_DT_UNDEFINED;
  int nd = 0;
  int64_t dims[core::kMaxDims] = {};
  int64_t strides[core::kMaxDims] = {};
  int64_t step = 0;  // element step between consecutive parameter values (0: one value)
  // Element offset of row r (the dims before the last, row-major).
  int64_t row_offset(int64_t r) const;
  char *base(const core::LaunchArgs &a) const { return ref.address(a); }
};

// How a parameter (scale, offset, zero point) is indexed: one value, along the last dim (j), or by
// the row's coordinate along another axis.
enum class QuantAlong : uint8_t { kOne, kLast, kRowAxis };

enum class DynMode : uint8_t { kPerToken, kPerTensor, kPerChannel };

struct QuantStep final : core::Step {
  QuantKind kind = QuantKind::kAscendQuant;
  int64_t rows = 0, n = 0;  // x as rows x n (n: the logical last dim)
  QuantOperand x, scale, offset, smooth, group, act_scale, bias, y, scale_out, offset_out, mask, p1, p2;
  bool x_packed = false, y_packed = false;  // INT4 / INT32-of-INT4 nibbles (contiguous)
  kernels::QuantRound round = kernels::QuantRound::kHalfEven;
  int32_t lo = -128, hi = 127;
  // kDynamic / kBlockQuant's FLOAT8 outputs (dstType 35 / 36): scale = max|in| / qmax (the format's largest
  // value), y codes lf_encode(in / scale) half to even, saturating; integer outputs: qmax = hi.
  bool y_fp8 = false;
  kernels::LowFloat y_fmt = kernels::LowFloat::kE4M3;
  float qmax = 127.0f;
  bool sqrt_mode = false, symmetric = true, enabled = true;
  QuantAlong along = QuantAlong::kLast;
  int64_t axis_inner = 1, axis_size = 1;  // kRowAxis: coordinate = (r / axis_inner) % axis_size
  DynMode dyn = DynMode::kPerToken;
  int64_t groups = 0;  // smooth rows / scale rows selected by group
  int64_t quant_min = 0, quant_max = 0;
  bool gelu_tanh = false, gelu_dynamic = false;  // kGeluQuant
  bool activate_left = false, swiglu_static = false, group_counts = false;  // kSwiGluQuant (counts: V2's type 1)
  bool swiglu_clamped = false;                       // DequantSwigluQuantV2's swigluMode 1
  bool situ = false;                                 // DequantSituQuant: the situ gate, static divides
  float situ_beta = 4.0f, situ_linear_beta = 0.0f;
  float clamp_limit = 0.0f, glu_alpha = 1.0f, glu_bias = 0.0f;
  int64_t blk_rows = 1, blk_cols = 1, blk_m = 1;  // kBlockQuant: block sizes, x's rows per batch (M)
  float scale_cap = 0.0f;                         // kBlockQuant: 1 / minScale (inf: no cap)
  int64_t flat_m = 0;                             // kFlatQuant: M (rows of a slice); clip_ratio: clipRatio
  int64_t group_list_type = 0, flat_pair_step = 0;  // FlatQuantV3: groupListType, type 2's column stride
  // FlatQuant on the GEMM engine: chunks of flat_chunk slices, T = x[k] @ P2 then R = P1 @ T (each batched over
  // the chunk, fp32 scratch: flat_scratch holds T then R), planned for a full chunk ([0]) and the last one ([1]).
  struct FlatGemms {
    kernels::GemmPlan x_p2[2], p1_t[2];
  };
  std::shared_ptr<const FlatGemms> flat;
  int64_t flat_chunk = 1;
  core::WsKey flat_scratch, flat_gemm_ws;
  float clip_ratio = 1.0f;
  // Per-token DynamicQuant on contiguous rows: the tier's kernels (token_fast), `tasks` row blocks
  // fixed in phase 1, each with its own buffers.
  bool token_fast = false;
  kernels::QuantTokenKernels token{};
  int64_t tasks = 1;
  core::WsKey ws;  // tasks x 7 * max(n, 1) floats of row buffers
  int run(const core::LaunchArgs &args) const override;

 private:
  int64_t param_index(int64_t r, int64_t j) const;
  int64_t group_of(const core::LaunchArgs &a, int64_t r) const;
  void run_affine(const core::LaunchArgs &a, float *buf) const;
  void run_anti(const core::LaunchArgs &a, float *buf) const;
  void run_dynamic(const core::LaunchArgs &a, float *buf) const;
  void token_row(const core::LaunchArgs &a, int64_t r, float *buf) const;
  // Row r of a FLOAT8 y: the codes of v[j] / scale[j / per_scale] (a scale of 0: code 0).
  void store_fp8_row(const core::LaunchArgs &a, int64_t r, const float *v, const float *scale, int64_t per_scale) const;
  const char *smooth_row(const core::LaunchArgs &a, int64_t r) const;
  void run_fake(const core::LaunchArgs &a, float *buf) const;
  void run_dequant_bias(const core::LaunchArgs &a, float *buf) const;
  void run_gelu(const core::LaunchArgs &a, float *buf) const;
  void run_swiglu(const core::LaunchArgs &a, float *buf) const;
  int group_ends(const core::LaunchArgs &a, int64_t limit, bool must_reach, std::vector<int64_t> *ends) const;
  int run_block(const core::LaunchArgs &a, float *buf) const;
  void block_row_max(const core::LaunchArgs &a, int64_t r, float *xr, float *bmax) const;
  int run_flat(const core::LaunchArgs &a, float *buf) const;
  void group_values(const core::LaunchArgs &a, const QuantOperand &p, int64_t e, float *dst) const;
  void load_x(const core::LaunchArgs &a, int64_t r, float *dst) const;
  void store_y(const core::LaunchArgs &a, int64_t r, const int32_t *q) const;
};

}  // namespace opsnn::ops
