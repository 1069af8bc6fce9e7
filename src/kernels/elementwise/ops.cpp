#include "kernels/elementwise/ops.h"

#include "core/cpu_features.h"
#include "kernels/elementwise/functors/all.h"

namespace opsnn::kernels {

ContigKernel ew_kernel_portable(EwOp op, core::ComputeType ct);
#if defined(__x86_64__)
ContigKernel ew_kernel_avx2(EwOp op, core::ComputeType ct);
ContigKernel ew_kernel_avx512(EwOp op, core::ComputeType ct);
#endif

const char *ew_op_name(EwOp op) {
  static const char *const kNames[] = {
#define OPSNN_EW(name, functor) #name,
#include "kernels/elementwise/op_list.inc"
#undef OPSNN_EW
  };
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(EwOp::kCount));
  return kNames[static_cast<int>(op)];
}

int ew_op_arity(EwOp op) {
  static const int kArity[] = {
#define OPSNN_EW(name, functor) functor::arity,
#include "kernels/elementwise/op_list.inc"
#undef OPSNN_EW
  };
  return kArity[static_cast<int>(op)];
}

ContigKernel ew_kernel(EwOp op, core::ComputeType ct) {
#if defined(__x86_64__)
  if (!core::use_reference_kernels()) {
    const core::Isa isa = core::cpu_features().best;
    if (isa >= core::Isa::kAvx512) return ew_kernel_avx512(op, ct);
    if (isa >= core::Isa::kAvx2) return ew_kernel_avx2(op, ct);
  }
#endif
  return ew_kernel_portable(op, ct);
}

}  // namespace opsnn::kernels
