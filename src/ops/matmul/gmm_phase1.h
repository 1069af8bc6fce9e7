// The phase 1 of the table-driven grouped matmul (src/ops/matmul/grouped_matmul.ops): aclnnGroupedMatmulV3's
// float forms on the GEMM engine (kernels/matmul/gemm.h), one plan per group chosen here; the int8 form on
// the int8 engine (gmm_int8_step.h). Checks every
// argument (161001 for a missing one, 161002 naming the argument otherwise), works out the groups (tensor
// lists, or x split along M by the device group list, read and checked at launch) and records one step.
#pragma once

#include <cstdint>
#include <vector>

#include "core/dtype.h"
#include "core/op_builder.h"

namespace opsnn::ops {

struct GmmRule {
  core::DtypeMask dtypes;                // x / weight / y dtypes of the float forms
  core::DtypeMask int8_y, int8_scale;    // the int8 form's y and scale dtypes (int8_y 0: the form is refused)
};

struct GmmUnsupported {
  const aclTensorList *arg;
  const char *name;
};

struct GmmCall {
  const aclTensorList *x = nullptr, *weight = nullptr, *bias = nullptr, *y = nullptr;
  const char *x_name = "x", *weight_name = "weight", *bias_name = "biasOptional", *y_name = "y";
  // Weight-quantised (antiquant) form: INT8 weights, y_g = x_g @ ((weight_g + offset_g) * scale_g) + bias_g,
  // scale / offset per output channel ([N] per group, or one [G, N]) in x's dtype.
  const aclTensorList *aq_scale = nullptr, *aq_offset = nullptr;
  // The int8 quantised form (ops/matmul/gmm_int8_step.h): INT8 x and weight, scale per output channel
  // (UINT64 / INT64 in aclnnTransQuantParamV2's encoding, FLOAT or BF16), offset FLOAT (INT8 y only),
  // bias INT32, y INT8 / FLOAT16 / BF16; [N] per group or one [G, N].
  const aclTensorList *scale = nullptr, *offset = nullptr;
  const char *scale_name = "scaleOptional", *offset_name = "offsetOptional";
  const char *aq_scale_name = "antiquantScaleOptional", *aq_offset_name = "antiquantOffsetOptional";
  const aclTensor *group_list = nullptr;
  const char *group_list_name = "groupListOptional";
  int64_t split_item = 0, group_type = -1;
  std::vector<GmmUnsupported> unsupported;  // tensor lists of the prototype with no role, in prototype order
};

void gmm_phase1(core::OpBuilder &b, const GmmRule &rule, GmmCall &c);

}  // namespace opsnn::ops
