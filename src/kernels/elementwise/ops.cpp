#include "kernels/elementwise/ops.h"

#include <string>

#include "core/cpu_features.h"
#include "core/impl_list.h"
#include "core/verbose.h"
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

namespace {

struct EwKey {
  EwOp op;
  core::ComputeType ct;
};

// The tiers, best first (the same functors compiled per ISA); the portable build is the reference.
const core::Impl<EwKey> kEwTiers[] = {
#if defined(__x86_64__)
    {"avx512", static_cast<int>(core::Isa::kAvx512), nullptr},
    {"avx2", static_cast<int>(core::Isa::kAvx2), nullptr},
#endif
    {"portable", static_cast<int>(core::Isa::kPortable), nullptr},
};
ContigKernel (*const kEwKernels[])(EwOp, core::ComputeType) = {
#if defined(__x86_64__)
    &ew_kernel_avx512,
    &ew_kernel_avx2,
#endif
    &ew_kernel_portable,
};

const char *compute_name(core::ComputeType ct) {
  return ct == core::ComputeType::kFloat ? "float" : ct == core::ComputeType::kDouble ? "double" : "int64";
}

}  // namespace

bool ew_op_defined(EwOp op, core::ComputeType ct) { return ew_kernel_portable(op, ct) != nullptr; }

ContigKernel ew_kernel(EwOp op, core::ComputeType ct) {
  const EwKey key{op, ct};
  core::Phase1Trace *pt = core::current_phase1_trace();
  if (pt == nullptr) return kEwKernels[core::choose(kEwTiers, key, nullptr)](op, ct);
  core::ImplTrace trace;
  const int i = core::choose(kEwTiers, key, &trace);
  core::record_choice(std::string("elementwise:") + kEwTiers[i].name + "/" + ew_op_name(op) + "/" + compute_name(ct),
                      &trace);
  return kEwKernels[i](op, ct);
}

}  // namespace opsnn::kernels
