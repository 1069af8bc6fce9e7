// The recorded steps of the block-scaled matmuls (ops/matmul/mxmm_phase1.h) around their GEMM: the
// operands decoded to fp32 before it, and (kActQuant) the MX quantisation of its fp32 rows after it.
#pragma once

#include <cstdint>

#include "core/executor.h"
#include "kernels/quant/mx_dequant_rows.h"
#include "kernels/quant/mx_quant.h"
#include "ops/matmul/matmul_common.h"

namespace opsnn::ops {

// One operand decoded into the fp32 workspace block `out` (kernels::mx_dequant_rows).
struct MxmmDequant {
  kernels::MxDequantDesc desc;
  core::OperandRef codes, scales, l0;  // l0.slot -1 and no ws: no level-0 scale
  bool has_l0 = false;
  core::WsKey out;
};

// try_bf16: both operands are decoded to BF16 when every value is a BF16 normal (or 0) and every product of
// two non-zero values at least 2^-100 (kernels::mx_dequant_min_magnitude), else to fp32; the choice (1: BF16)
// goes to the workspace word `path`.
class MxmmDequantStep final : public core::Step {
 public:
  MxmmDequant op[2];
  bool try_bf16 = false;
  core::WsKey path;

  int run(const core::LaunchArgs &args) const override;
};

// The decoded x2 for one of two GEMM plans (fp32 or BF16 operands): handed to the plan's step only when the
// decoding step chose that dtype at this launch, so exactly one of the two steps multiplies.
class MxmmDecodedB final : public OperandSource {
 public:
  MxmmDecodedB(core::WsKey path, core::WsKey b, bool bf16) : path_(path), b_(b), bf16_(bf16) {}
  void with(const core::LaunchArgs &args, const std::function<void(const char *)> &use) const override;

 private:
  core::WsKey path_, b_;
  bool bf16_;
};

// DualLevel's level-0 sum: the GEMM's per-group products acc [groups, m, n] (fp32 workspace) to
// out[i, j] = sum_g l0a[i, g] * l0b[g, j] * acc[g, i, j] (+ bias[j]) in fp32, rounded once into y (FLOAT16 /
// BF16, any strides). Each row is summed into acc's group-0 row in place, then stored.
class MxmmGroupSumStep final : public core::Step {
 public:
  int64_t m = 0, n = 0, groups = 1, tasks = 1;
  int64_t a_row = 0, a_grp = 0, b_grp = 0, b_col = 0, bias_col = 0, y_row = 0, y_col = 1;  // element strides
  bool has_bias = false;
  aclDataType y_dtype = ACL_BF16;
  core::WsKey acc;
  core::OperandRef l0a, l0b, bias, y;

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
