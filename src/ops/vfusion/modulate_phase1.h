// The phase 1 of the modulate table (src/ops/vfusion/modulate.ops): aclnnModulate and
// aclnnModulateBackward on kernels/vfusion/modulate. Checks every argument (161001 for a missing required
// one, 161002 naming the argument otherwise) and records one step.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"
#include "core/op_checks.h"

namespace opsnn::ops {

struct ModulateRule {
  core::DtypeMask dtypes;  // the one dtype of every tensor
  bool backward;           // ModulateBackward: grad_output, grad_input, grad_scale, grad_shift
};

using ModulateArg = core::NamedTensor;

struct ModulateCall {
  ModulateArg x, scale, shift, out, dy, dx, dscale, dshift;
};

void modulate_phase1(core::OpBuilder &b, const ModulateRule &rule, const ModulateCall &c);

}  // namespace opsnn::ops
