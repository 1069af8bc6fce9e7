#include "core/impl_list.h"

#include <cstdarg>
#include <cstdio>

namespace opsnn::core {

void ImplTrace::add(const char *name, const char *reason) {
  if (!rejected.empty()) rejected += "; ";
  rejected += name;
  rejected += ": ";
  for (const char *c = reason; *c; ++c) rejected += *c == ',' ? ' ' : *c;  // keep the lines parseable
}

bool Why::operator()(const char *fmt, ...) const {
  if (trace_ == nullptr) return false;
  char buf[256];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  trace_->add(name_, buf);
  return false;
}

const char *isa_rejection(Isa isa) {
  const CpuFeatures &f = cpu_features();
  const bool allowed = isa == Isa::kPortable ||
                       (isa == Isa::kNeon ? f.best == Isa::kNeon
                                          : f.best != Isa::kNeon && static_cast<int>(f.best) >= static_cast<int>(isa));
  if (allowed) return nullptr;
  const bool detected = isa == Isa::kNeon ? f.detected == Isa::kNeon
                                          : f.detected != Isa::kNeon &&
                                                static_cast<int>(f.detected) >= static_cast<int>(isa);
  if (detected) {
    static const char *const kCapped[] = {"OPSNN_MAX_ISA=portable", "OPSNN_MAX_ISA=neon", "OPSNN_MAX_ISA=avx2",
                                          "OPSNN_MAX_ISA=avx512", "OPSNN_MAX_ISA=avx512bf16"};
    return kCapped[static_cast<int>(f.best)];
  }
  static const char *const kMissing[] = {"CPU has no portable", "CPU has no neon", "CPU has no avx2",
                                         "CPU has no avx512", "CPU has no avx512bf16"};
  return kMissing[static_cast<int>(isa)];
}

const char *reference_rejection() { return use_reference_kernels() ? "OPSNN_KERNELS=reference" : nullptr; }

}  // namespace opsnn::core
