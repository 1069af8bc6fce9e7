#include "kernels/elementwise/ops.h"

#include "core/cpu_features.h"

namespace opsnn::kernels {

ContigKernel ew_kernel_portable(EwOp op, core::ComputeType ct);
#if defined(__x86_64__)
ContigKernel ew_kernel_avx2(EwOp op, core::ComputeType ct);
#endif

const char *ew_op_name(EwOp op) {
  static const char *const kNames[] = {"identity", "fill", "add", "sub", "mul", "div", "relu"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<int>(EwOp::kCount));
  return kNames[static_cast<int>(op)];
}

int ew_op_arity(EwOp op) {
  switch (op) {
    case EwOp::kFill: return 0;
    case EwOp::kIdentity:
    case EwOp::kRelu: return 1;
    default: return 2;
  }
}

ContigKernel ew_kernel(EwOp op, core::ComputeType ct) {
#if defined(__x86_64__)
  const auto &cpu = core::cpu_features();
  if (!core::use_reference_kernels() && cpu.best >= core::Isa::kAvx2) return ew_kernel_avx2(op, ct);
#endif
  return ew_kernel_portable(op, ct);
}

}  // namespace opsnn::kernels
