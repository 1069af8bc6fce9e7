// The phase 1 of the table-driven batch-norm ops (src/ops/norm/batch_norm.ops): BatchNorm
// (training with running-statistics update, or eval), its backward (also Fast), and the pieces
// distributed batch norm is built from (BatchNormReduce, BatchNormElemt, BatchNormReduceBackward,
// BatchNormElemtBackward, BatchNormGatherStatsWithCounts, SyncBatchNormGatherStats), and the
// quantised inference QuantizedBatchNorm, all on kernels/norm/channel_norm.
// The channel is dim 1 ([N, C, ...]), or the last dim when the input's format is NHWC / NDHWC.
#pragma once

#include <vector>

#include "core/dtype.h"
#include "core/op_builder.h"
#include "kernels/norm/channel_norm.h"

namespace opsnn::ops {

struct ChanNormRule {
  kernels::ChanNormMode mode;
  core::DtypeMask dtypes;  // every floating tensor (kQuantForward: x and y; its vectors are FLOAT)
};

// One tensor argument in prototype order: its role and whether the op reads, writes or updates it.
struct ChanNormArg {
  enum Role : int { kX = -1, kDy = -2, kY = -3 };  // or a kernels::ChanVec
  const aclTensor *t = nullptr;
  const char *name = "";
  int role = kX;
  enum Access : uint8_t { kIn, kOut, kInOut } access = kIn;
  bool optional = false;
};

struct ChanNormCall {
  std::vector<ChanNormArg> args;
  bool training = true;
  double momentum = 0.1, eps = 1e-5;
  const aclBoolArray *output_mask = nullptr;  // gradInput, gradWeight, gradBias
  bool input_g = true, weight_g = true, bias_g = true;  // BatchNormReduceBackward's flags
  // QuantizedBatchNorm's dequantisation / requantisation parameters.
  const aclScalar *input_scale = nullptr, *input_zero_point = nullptr, *output_scale = nullptr,
                  *output_zero_point = nullptr;
};

void chan_norm_phase1(core::OpBuilder &b, const ChanNormRule &rule, const ChanNormCall &c);

}  // namespace opsnn::ops
