// The recorded steps of the quantised matmuls (ops/matmul/qmm_phase1.h): what phase 1 plans and
// phase 2 runs for each quantisation scheme.
#pragma once

#include <cstdint>
#include <memory>

#include "core/executor.h"
#include "kernels/matmul/gemm.h"
#include "kernels/matmul/igemm.h"
#include "kernels/matmul/wq_gemm.h"
#include "kernels/quant/quant_token.h"
#include "ops/matmul/matmul_common.h"
#include "ops/matmul/qmm_phase1.h"

namespace opsnn::ops {

// A registered tensor's view (slot -1: the optional tensor was not given).
struct QmmOperand {
  int slot = -1;
  int64_t offset_bytes = 0;  // INT4: the view's offset in nibbles / 2 (it starts on a byte)
  const char *address(const core::LaunchArgs &args) const {
    return slot < 0 ? nullptr : static_cast<const char *>(args.addrs[slot]) + offset_bytes;
  }
};

inline constexpr int kQmmMaxBatchDims = 4;  // out has at most 6 dims

// The registered tensors of a step, by role (QmmRole).
struct QmmOperands {
  QmmOperand op[kQmmRoles];
  const char *address(const core::LaunchArgs &args, QmmRole r) const { return op[r].address(args); }
};

// int8 x int8 GEMM with the dequantising epilogue applied to each finished int32 block. Phase 2
// decodes scale / offset / bias once into fp32 / int32 vectors in the workspace.
class QmmInt8Step final : public core::Step, public QmmOperands {
 public:
  kernels::IgemmPlan plan;
  int64_t m0 = 0, n = 0;  // rows of one batch of out, columns
  // Outer loop (batch dims the GEMM's single batch stride cannot cover), outermost first.
  int outer_ndim = 0;
  int64_t outer_dims[kQmmMaxBatchDims] = {}, outer_a[kQmmMaxBatchDims] = {}, outer_b[kQmmMaxBatchDims] = {};
  int64_t inner = 1;  // flattened batches per igemm_run (1 when folded into m)
  // out: batch dims (row-major flattening = the order of the GEMM batches) and element strides.
  int out_bdims = 0;
  int64_t out_bshape[kQmmMaxBatchDims] = {}, out_bstride[kQmmMaxBatchDims] = {};
  int64_t out_row = 0, out_col = 1;
  aclDataType out_dtype = ACL_INT8;
  aclDataType scale_dtype = ACL_FLOAT, bias_dtype = ACL_FLOAT;
  int64_t scale_count = 1, scale_stride = 0, offset_count = 1, offset_stride = 0, pertoken_stride = 0;
  int64_t bias_batches = 0, bias_col = 0, bias_bstride = 0;  // bias_batches 0: no bias
  kernels::GemmActivation act = kernels::GemmActivation::kNone;  // FusedQuantMatmul's fusedOpType
  bool has_scale_value = false;  // the scale is scale_value (QuantMatmul), not a tensor
  float scale_value = 0.0f;
  core::WsKey ws_gemm, ws_scale, ws_offset, ws_bias;
  std::shared_ptr<const OperandSource> x2_source;  // a FRACTAL_NZ x2's kept dense copy (null: x2 itself)
  bool accumulate = false;  // out (FLOAT yRef) += the dequantised product
  // QuantMatmulDequant: x1 and the per-token scale are the workspace blocks QmmXQuantStep wrote.
  bool a_from_ws = false, pertoken_from_ws = false;
  core::WsKey ws_a, ws_pertoken;
  int64_t pertoken_bstride = 0;  // QuantMatmulReduceSumWeightNz: x1Scale (batch, m)
  bool out_to_ws = false;        // ... and the products add into the FLOAT workspace block ws_out
  core::WsKey ws_out;

  int run(const core::LaunchArgs &args) const override;

 private:
  int run_with(const core::LaunchArgs &args, const int8_t *x2) const;
};

// Weight-only quantised GEMM: the small-m stream, the fused dequantise-and-multiply loop, or the
// reference (dequantise the whole weight, then the GEMM engine); optional INT8 requantisation.
class QmmWeightStep final : public core::Step, public QmmOperands {
 public:
  kernels::WqDesc wq;
  aclDataType qscale_dtype = ACL_FLOAT;
  int64_t qscale_stride = 0, qoffset_stride = 0;
  aclDataType x_dtype = ACL_FLOAT16, y_dtype = ACL_FLOAT16, bias_dtype = ACL_FLOAT16;
  int64_t x_row = 0, x_col = 1, y_row = 0, bias_stride = 0;
  kernels::WqPath path = kernels::WqPath::kStream;
  kernels::WqSimd simd = kernels::WqSimd::kNone;  // chosen in phase 1 (wq_choose)
  kernels::WqFusedPlan fplan;                      // kFused
  kernels::GemmPlan plan;                          // the reference: x @ dequantised weight
  core::WsKey ws_a, ws_b;  // stream: x fp32 + sums / y fp32; fused: scratch; reference: weight / GEMM
  core::WsKey ws_c;        // reference with requantisation: fp32 results
  std::shared_ptr<const OperandSource> w_source;  // a FRACTAL_NZ weight's kept dense copy (null: weight itself)

  int run(const core::LaunchArgs &args) const override;

 private:
  int run_with(const core::LaunchArgs &args, const char *wp) const;
};

// aclnnTransQuantParamV2: fp32 scales (and offsets) packed into the int8 matmuls' 64-bit scale words.
class QmmEncodeParamStep final : public core::Step, public QmmOperands {
 public:
  int64_t count = 0, scale_stride = 0, offset_stride = 0, out_stride = 0;  // elements
  int round_mode = 0;  // V3: 1 rounds the scale to its top 19 bits first

  int run(const core::LaunchArgs &args) const override;
};

// aclnnTransMatmulWeight: a 2-D floating weight re-laid in place into the GEMM engine's pre-packed
// layout and registered (device allocations only; see run()).
class QmmPrepackStep final : public core::Step, public QmmOperands {
 public:
  kernels::GemmOperand src;  // the logical [K, N] view (element strides)
  int64_t k = 0, n = 0;
  core::WsKey copy_ws;  // the source copied aside (the packing writes over it)

  int run(const core::LaunchArgs &args) const override;
};

// aclnnBatchMatmulQuant's second step: the fp32 product (+ bias) re-quantised row by row into the
// INT8 out with the per-channel scale and offset of TransQuantParam's words (ops/matmul/qmm_phase1.h).
class QmmRequantStep final : public core::Step, public QmmOperands {
 public:
  int64_t m = 0, n = 0, out_row = 0, out_col = 1;
  aclDataType word_dtype = ACL_UINT64;
  int64_t word_count = 1, word_stride = 0;
  core::WsKey ws_acc, ws_params;

  int run(const core::LaunchArgs &args) const override;
};

// aclnnQuantMatmulDequant's first step: x (+ smooth) quantised row by row into the contiguous INT8
// [m, k] block ws_xq, and each row's scale into ws_sx[m] (ops/matmul/qmm_phase1.h, kDynamicDequant).
class QmmXQuantStep final : public core::Step, public QmmOperands {
 public:
  int64_t m = 0, k = 0, x_row = 0, x_col = 1, smooth_stride = 0;
  aclDataType x_dtype = ACL_FLOAT16, smooth_dtype = ACL_FLOAT16, xscale_dtype = ACL_FLOAT;
  int64_t xscale_stride = 0;  // 0: one scale for every row (pertensor)
  bool dynamic = true;        // no xScale: row_max(|x|) / 127
  kernels::QuantTokenKernels token{};
  bool rows_fast = false;     // x (and smooth) contiguous along k: the tier's prep kernel loads the rows
  int64_t tasks = 1;          // row blocks over the pool, fixed in phase 1
  core::WsKey ws_xq, ws_sx, ws_rows;  // ws_rows: tasks x (2k) floats (the row, the smooth)

  int run(const core::LaunchArgs &args) const override;
};

// QuantMatmulReduceSumWeightNz's FLOAT [m, n] batch sum: zeroed before the int8 step, rounded into out
// (BF16 / FLOAT16, any strides) after it.
class QmmSumStep final : public core::Step, public QmmOperands {
 public:
  int64_t m = 0, n = 0, out_row = 0, out_col = 1;
  aclDataType out_dtype = ACL_BF16;
  bool store = false;  // false: zero the block
  core::WsKey acc;

  int run(const core::LaunchArgs &args) const override;
};

// aclnnConvertWeightToINT4Pack: INT32 rows packed two values a byte, low nibble first.
class QmmInt4PackStep final : public core::Step, public QmmOperands {
 public:
  int64_t rows = 0, cols = 0;  // the INT32 weight [rows, cols], contiguous

  int run(const core::LaunchArgs &args) const override;
};

// The phase 1 of scheme kFloatRequant (ops/matmul/qmm_float_requant.cpp).
void qmm_float_requant(core::OpBuilder &b, const QmmCall &c);

}  // namespace opsnn::ops
