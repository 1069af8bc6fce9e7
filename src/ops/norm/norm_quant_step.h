// The launch step of the fused norm + quantisation table (ops/norm/norm_quant_phase1.h says the
// formulas): each task walks its rows in L2-sized blocks, the dim-wise engine's kNormalize lines
// writing the block's y as fp32 rows, the quant row kernels (or the MX block kernels) quantising them while
// they are in cache.
#pragma once

#include <cstdint>

#include "core/executor.h"
#include "kernels/dimwise/dimwise.h"
#include "kernels/quant/mx_quant.h"
#include "kernels/quant/quant_token.h"
#include "ops/quant/quant_step.h"  // QuantOperand

namespace opsnn::ops {

struct NormQuantStep final : core::Step {
  kernels::DimwiseLoop loop;  // output 0 is the task's block (set at launch), the others are tensors
  core::OperandRef in[kernels::kDimwiseMaxIo], out[kernels::kDimwiseMaxIo];
  int64_t rows = 0, n = 0, block_rows = 1, tasks = 1;
  // Group norm: row r is (sample, group r % groups) of cg channels x hxw positions; parameters marked
  // per_channel hold one value per channel (C = groups * cg), spread over the row at launch.
  int64_t groups = 1, cg = 1, hxw = 1;
  bool dynamic = false, divide = false;
  // Dynamic FLOAT8 outputs (dstType 35 / 36): scale = max|in| / qmax (the format's largest value), y =
  // lf_encode(in / scale) half to even, saturating; INT8: qmax 127.
  bool fp8 = false;
  kernels::LowFloat fp8_fmt = kernels::LowFloat::kE4M3;
  float qmax = 127.0f;
  // Parameter rows converted to fp32 once per launch (beta only when added after the norm's outputs).
  enum Param { kBeta, kScale1, kScale2, kOffset1, kOffset2, kSmooth1, kSmooth2, kParams };
  QuantOperand param[kParams];
  bool per_channel[kParams] = {};
  // The quantised outputs (out_k) and their per-row scales (dynamic); active: written.
  bool active[2] = {false, false};
  QuantOperand y[2], scale_out[2];
  kernels::QuantTokenKernels token{};
  // MX (the DynamicMxQuant rows): blocks of 32 of each row to y's codes (y_row bytes a row: n, FLOAT4 n / 2)
  // and its block scales (scale_row codes a row), both contiguous.
  struct Mx {
    bool on = false;
    kernels::MxRowKernels rows = kernels::mx_rows_portable();
    kernels::LowFloat fmt = kernels::LowFloat::kE4M3;
    kernels::LfRound round = kernels::LfRound::kRint;
    kernels::MxScaleRule rule;
    core::OperandRef y, scale;
    int64_t y_row = 0, scale_row = 0;
  } mx;
  // FLOAT16 / BF16 x (and x2) rows contiguous along the last dim are converted block by block with the
  // token tier's vector conversion into fp32 staging rows the norm lines read in place (staged[k]: the
  // loop's input k; src its tensor, addressed by row).
  int nstaged = 0;
  QuantOperand staged_src[2];
  uint64_t stage_offset[2] = {0, 0};
  core::WsKey params_ws, tasks_ws;
  uint64_t task_bytes = 0, block_offset = 0, row_offset = 0, q_offset = 0, line_offset = 0;
  int64_t param_len = 0;  // floats per converted parameter (max(n, C))
  int run(const core::LaunchArgs &args) const override;

 private:
  void quantise_row(const core::LaunchArgs &a, int64_t r, float *v, const float *const *p, float *in,
                    int32_t *q, float *line) const;
};

}  // namespace opsnn::ops
