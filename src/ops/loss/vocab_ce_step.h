// Records one pass of the vocabulary-parallel cross-entropy rows (kernels/loss/vocab_ce) over operands that are
// tensor slots or workspace blocks: the step of vocab_ce_phase1 (CrossEntropySumExpAndIndexLogit,
// FusedCrossEntropyLossWithMaxSum) and of the fused linear cross-entropy (ops/matmul/flce_phase1), which runs it
// over the GEMM's logits in workspace scratch.
#pragma once

#include "core/op_builder.h"
#include "kernels/loss/vocab_ce.h"

namespace opsnn::ops {

struct VocabCeOperands {
  core::OperandRef ref[kernels::kVcRoleCount];
};

// Operand `role` of plan / refs: a registered tensor slot with `lead` leading (row) dims, its last dim the column.
void set_vocab_operand(core::OpBuilder &b, kernels::VocabCePlan &plan, VocabCeOperands &refs, int role, int slot,
                       int lead);

// Chooses the row loops' ISA tier (logged in verbose mode), splits the rows into tasks, books the row buffers and
// adds the step. plan.has / plan.op and refs describe every operand the mode reads or writes.
void record_vocab_ce(core::OpBuilder &b, const kernels::VocabCePlan &plan, const VocabCeOperands &refs);

}  // namespace opsnn::ops
