// The recorded steps of the block-scaled matmuls (ops/matmul/mxmm_phase1.h) around their GEMM: the
// operands decoded to fp32 before it, and (kActQuant) the MX quantisation of its fp32 rows after it.
#pragma once

#include <cstdint>

#include "core/executor.h"
#include "kernels/quant/mx_dequant_rows.h"
#include "kernels/quant/mx_quant.h"

namespace opsnn::ops {

// One operand decoded into the fp32 workspace block `out` (kernels::mx_dequant_rows).
struct MxmmDequant {
  kernels::MxDequantDesc desc;
  core::OperandRef codes, scales, l0;  // l0.slot -1 and no ws: no level-0 scale
  bool has_l0 = false;
  core::WsKey out;
};

class MxmmDequantStep final : public core::Step {
 public:
  MxmmDequant op[2];

  int run(const core::LaunchArgs &args) const override;
};

// The GEMM's fp32 rows [rows, n] (workspace block `acc`) quantised along n in blocks of 32 into y (codes,
// contiguous; FLOAT4 two a byte) and scale (contiguous [rows, ceil(ceil(n / 32) / 2), 2]).
class MxmmQuantStep final : public core::Step {
 public:
  kernels::MxRowKernels rows_k = kernels::mx_rows_portable();
  kernels::LowFloat fmt = kernels::LowFloat::kE4M3;
  kernels::LfRound round = kernels::LfRound::kRint;
  kernels::MxScaleRule rule;
  int64_t rows = 0, n = 0, tasks = 1;
  core::WsKey acc;
  core::OperandRef y, scale;

  int run(const core::LaunchArgs &args) const override;
};

}  // namespace opsnn::ops
