// CPU features detected once per process. OPSNN_MAX_ISA=portable|avx2|avx512|avx512bf16 caps
// what is reported (tests and benchmarks use it to reach every kernel tier on one machine).
#pragma once

#include <cstddef>

namespace opsnn::core {

enum class Isa : int { kPortable = 0, kNeon = 1, kAvx2 = 2, kAvx512 = 3, kAvx512Bf16 = 4 };

struct CpuFeatures {
  bool avx2 = false, fma = false, f16c = false;
  bool avx512f = false, avx512bw = false, avx512vl = false, avx512dq = false;
  bool avx512_bf16 = false, avx512_vnni = false;
  bool neon = false;
  bool dotprod = false;  // AArch64 SDOT/UDOT (ARMv8.2 DotProd, HWCAP_ASIMDDP)
  size_t l1d_bytes = 32 * 1024, l2_bytes = 512 * 1024, l3_bytes = 8 * 1024 * 1024;
  Isa best = Isa::kPortable;      // the highest tier usable after the OPSNN_MAX_ISA cap
  Isa detected = Isa::kPortable;  // the highest tier this CPU runs (before the cap)
};

const CpuFeatures &cpu_features();
const char *isa_name(Isa isa);

// OPSNN_KERNELS=reference switches every op to its reference kernel.
bool use_reference_kernels();

// Tests: re-reads the two variables as if the environment held `max_isa` / `kernels` (nullptr:
// unset), so one process can reach every tier's choice. Not thread-safe: call only while no
// phase 1 or kernel runs.
void reset_kernel_env_for_testing(const char *max_isa, const char *kernels);

}  // namespace opsnn::core
