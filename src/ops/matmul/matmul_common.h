// Phase 1 shared by Mm, BatchMatMul and Matmul: dtype and cubeMathType rules, torch.matmul shape
// semantics (1-D operands, broadcast batch dims), and the recorded GEMM step, which reads
// transposed or strided operands in place.
#pragma once

#include "core/op_builder.h"

namespace opsnn::ops {

enum class MatmulKind {
  kMm,           // 2-D x 2-D
  kBatchMatMul,  // 3-D x 3-D, a batch of 1 on either side broadcasts
  kMatmul,       // torch.matmul: 1-D ... 8-D, batch dims broadcast
};

void matmul_phase1(core::OpBuilder &b, MatmulKind kind, const aclTensor *self, const aclTensor *mat2,
                   const aclTensor *out, int8_t cube_math_type);

}  // namespace opsnn::ops
