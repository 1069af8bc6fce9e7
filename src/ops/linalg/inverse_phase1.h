// The phase 1 of the linear-algebra table (src/ops/linalg/inverse.ops): aclnnInverse on kernels/linalg/inverse.
// Checks the arguments (161001 for a null one, 161002 naming the argument otherwise), books the workspace the
// inverses are computed into and records one step.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"
#include "core/op_checks.h"

namespace opsnn::ops {

struct InverseRule {
  core::DtypeMask dtypes;  // self's dtypes; out has self's
};

using InverseArg = core::NamedTensor;

struct InverseCall {
  InverseArg x, out;
};

void inverse_phase1(core::OpBuilder &b, const InverseRule &rule, const InverseCall &c);

}  // namespace opsnn::ops
