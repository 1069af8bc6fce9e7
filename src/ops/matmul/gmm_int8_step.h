// The grouped matmul's int8 quantised form (aclnnGroupedMatmulV3 with scaleOptional): per group
// y_g = epilogue(x_g @ weight_g) on the int8 GEMM engine (kernels/matmul/igemm.h), x / weight INT8, the
// exact int32 sums through QuantMatmul's dequantising epilogue (kernels/matmul/qmm_epilogue.h):
// float(acc + bias_i32[n]) * scale[n] (+ offset[n] for INT8 y), rounded once to INT8 / FLOAT16 / BF16.
// Planned by ops::gmm_phase1 (ops/matmul/gmm_phase1.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "core/executor.h"
#include "kernels/matmul/igemm.h"

namespace opsnn::ops {

struct GmmInt8Group {
  int plan = -1;  // its first plan (the split form: of its ladder); -1: no GEMM (K = 0: every sum is 0)
  core::OperandRef x, w, y, bias, scale, offset;  // bias / offset slot < 0: none
  int64_t m = 0, n = 0;                           // rows (the tensor-list forms), columns
  int64_t x_row = 0, y_row = 0, y_col = 0;  // element strides of a row of x (INT8: bytes), a row / column of y
  int64_t bias_stride = 0, scale_stride = 0, offset_stride = 0;  // element strides of the [N] vectors
};

class GmmInt8Step final : public core::Step {
 public:
  std::vector<kernels::IgemmPlan> plans;
  std::vector<GmmInt8Group> groups;
  // x [M, K] split along M by the device group list: a group's rows are data, and the int8 engine plans
  // one row count, so phase 1 plans a ladder of them (1..16 each, then 32, 64, ... up to M) and a group
  // runs its rows as the fewest rungs (small groups take one exact small-M plan).
  bool split = false;
  std::vector<int64_t> ladder;
  core::OperandRef group_list;
  int64_t gl_stride = 1, total_m = 0;
  aclDataType y_dtype = ACL_INT8, scale_dtype = ACL_UINT64;
  int64_t max_n = 0;
  core::WsKey ws_gemm, ws_params, ws_ends;
  bool has_gemm_ws = false;

  int run(const core::LaunchArgs &a) const override;
};

}  // namespace opsnn::ops
