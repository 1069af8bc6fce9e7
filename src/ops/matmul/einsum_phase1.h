// The phase 1 of the einsum table (src/ops/matmul/einsum.ops): aclnnEinsum with torch.einsum's semantics.
// The equation is parsed here (ops/matmul/einsum_equation.h); the operands are then contracted left to right,
// each step one batched GEMM on the GEMM engine: the labels both sides share and a later operand or the
// output needs are the batch, the shared ones nobody needs later the K of the GEMM, the rest M (left) and
// N (right). An operand whose labels of each group do not nest in memory (or carry a diagonal, or a label
// nobody else uses, summed first by the reduction engine) is laid out in fp32 workspace scratch first (one
// element-wise copy or one reduction); otherwise the GEMM reads it in place, in its own dtype. One operand
// alone is one reduction (or copy) into the output. Intermediate results are fp32; the output is rounded once.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"
#include "core/op_checks.h"

namespace opsnn::ops {

struct EinsumRule {
  core::DtypeMask dtypes;  // the one dtype of every operand and of the output
};

struct EinsumTensors {
  const aclTensorList *t = nullptr;
  const char *name = "";
};

struct EinsumCall {
  EinsumTensors tensors;
  const char *equation = nullptr;
  core::NamedTensor output;
};

void einsum_phase1(core::OpBuilder &b, const EinsumRule &rule, const EinsumCall &c);

}  // namespace opsnn::ops
