// CPU feature detection: cpuid/xgetbv on x86-64 (including the OS's support of the AVX and
// AVX-512 register state), cache sizes from cpuid (leaf 4 on Intel, 0x8000001D on AMD) or
// sysconf, NEON and DotProd (auxv) on aarch64. Detected once per process; OPSNN_MAX_ISA caps the reported tier.
#include "core/cpu_features.h"

#include "core/plan_cache.h"

#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>
#define OPSNN_X86 1
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

namespace opsnn::core {
namespace {

#if OPSNN_X86
struct Regs {
  uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
};

Regs cpuid(uint32_t leaf, uint32_t subleaf = 0) {
  Regs r;
  __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
  return r;
}

uint64_t xgetbv0() {
  uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

// Deterministic cache parameters: leaf 4 (Intel) and 0x8000001D (AMD) share one layout.
void read_cache_leaf(uint32_t leaf, CpuFeatures *f) {
  for (uint32_t i = 0; i < 16; ++i) {
    Regs r = cpuid(leaf, i);
    uint32_t type = r.eax & 0x1f;
    if (type == 0) break;
    uint32_t level = (r.eax >> 5) & 0x7;
    size_t ways = ((r.ebx >> 22) & 0x3ff) + 1;
    size_t parts = ((r.ebx >> 12) & 0x3ff) + 1;
    size_t line = (r.ebx & 0xfff) + 1;
    size_t sets = static_cast<size_t>(r.ecx) + 1;
    size_t bytes = ways * parts * line * sets;
    if (bytes == 0) continue;
    if (level == 1 && type == 1) f->l1d_bytes = bytes;      // data cache
    else if (level == 2 && type != 2) f->l2_bytes = bytes;  // unified (or data)
    else if (level == 3 && type != 2) f->l3_bytes = bytes;
  }
}

void detect_x86(CpuFeatures *f) {
  Regs r0 = cpuid(0);
  const uint32_t max_leaf = r0.eax;
  char vendor[13] = {};
  std::memcpy(vendor + 0, &r0.ebx, 4);
  std::memcpy(vendor + 4, &r0.edx, 4);
  std::memcpy(vendor + 8, &r0.ecx, 4);
  const bool amd = std::strcmp(vendor, "AuthenticAMD") == 0 || std::strcmp(vendor, "HygonGenuine") == 0;

  if (max_leaf < 1) return;
  Regs r1 = cpuid(1);
  const bool osxsave = (r1.ecx >> 27) & 1;
  const bool avx = (r1.ecx >> 28) & 1;
  f->fma = (r1.ecx >> 12) & 1;
  f->f16c = (r1.ecx >> 29) & 1;

  uint64_t xcr0 = osxsave ? xgetbv0() : 0;
  const bool os_ymm = (xcr0 & 0x6) == 0x6;            // SSE + AVX state
  const bool os_zmm = (xcr0 & 0xe6) == 0xe6;          // + opmask, ZMM_Hi256, Hi16_ZMM

  if (max_leaf >= 7) {
    Regs r7 = cpuid(7, 0);
    const bool avx2 = (r7.ebx >> 5) & 1;
    f->avx2 = avx && avx2 && os_ymm;
    f->avx512f = ((r7.ebx >> 16) & 1) && os_zmm;
    f->avx512dq = ((r7.ebx >> 17) & 1) && os_zmm;
    f->avx512bw = ((r7.ebx >> 30) & 1) && os_zmm;
    f->avx512vl = ((r7.ebx >> 31) & 1) && os_zmm;
    f->avx512_vnni = ((r7.ecx >> 11) & 1) && os_zmm;
    if (r7.eax >= 1) {
      Regs r71 = cpuid(7, 1);
      f->avx512_bf16 = ((r71.eax >> 5) & 1) && os_zmm;
    }
  }
  if (!os_ymm) f->fma = f->f16c = false;
#if defined(OPSNN_EMULATE_AVX512)
  // Test build: the AVX-512 units are AVX2 code from SIMDe (kernels/simd/avx512_intrinsics.h).
  if (f->avx2 && f->fma && f->f16c)
    f->avx512f = f->avx512bw = f->avx512vl = f->avx512dq = f->avx512_bf16 = f->avx512_vnni = true;
#endif

  bool caches = false;
  if (amd) {
    Regs ext = cpuid(0x80000000);
    if (ext.eax >= 0x8000001D) {
      Regs e1 = cpuid(0x80000001);
      if ((e1.ecx >> 22) & 1) {  // TopologyExtensions: leaf 0x8000001D valid
        read_cache_leaf(0x8000001D, f);
        caches = true;
      }
    }
  } else if (max_leaf >= 4) {
    read_cache_leaf(4, f);
    caches = true;
  }
  (void)caches;
}
#endif

void detect_sysconf_caches(CpuFeatures *f) {
#if defined(_SC_LEVEL1_DCACHE_SIZE)
  long v = sysconf(_SC_LEVEL1_DCACHE_SIZE);
  if (v > 0) f->l1d_bytes = static_cast<size_t>(v);
  v = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (v > 0) f->l2_bytes = static_cast<size_t>(v);
  v = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (v > 0) f->l3_bytes = static_cast<size_t>(v);
#else
  (void)f;
#endif
}

Isa parse_cap(const char *s, Isa fallback) {
  if (s == nullptr || *s == '\0') return fallback;
  std::string v(s);
  for (auto &ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (v == "portable" || v == "scalar" || v == "none") return Isa::kPortable;
  if (v == "neon") return Isa::kNeon;
  if (v == "avx2") return Isa::kAvx2;
  if (v == "avx512") return Isa::kAvx512;
  if (v == "avx512bf16") return Isa::kAvx512Bf16;
  return fallback;
}

CpuFeatures detect(const char *max_isa) {
  CpuFeatures f;
  detect_sysconf_caches(&f);
#if OPSNN_X86
  detect_x86(&f);
  Isa best = Isa::kPortable;
  if (f.avx2 && f.fma && f.f16c) best = Isa::kAvx2;
  if (best == Isa::kAvx2 && f.avx512f && f.avx512bw && f.avx512vl && f.avx512dq) best = Isa::kAvx512;
  if (best == Isa::kAvx512 && f.avx512_bf16) best = Isa::kAvx512Bf16;
#elif defined(__aarch64__)
  f.neon = true;
#if defined(__linux__)
  f.dotprod = (getauxval(AT_HWCAP) & (1UL << 20)) != 0;  // HWCAP_ASIMDDP
#endif
  Isa best = Isa::kNeon;
#else
  Isa best = Isa::kPortable;
#endif
  // Sanity: caches must be ordered and plausible, otherwise keep conservative defaults.
  if (f.l1d_bytes < 8 * 1024 || f.l1d_bytes > 4 * 1024 * 1024) f.l1d_bytes = 32 * 1024;
  if (f.l2_bytes < f.l1d_bytes) f.l2_bytes = 512 * 1024;
  if (f.l3_bytes < f.l2_bytes) f.l3_bytes = f.l2_bytes;

  f.detected = best;
  const Isa cap = parse_cap(max_isa, best);
  // NEON and the x86 tiers are not ordered against each other: capping x86 at "neon" (or Arm at
  // any x86 tier below it) leaves the portable kernels.
  if (static_cast<int>(cap) < static_cast<int>(best)) best = cap == Isa::kNeon ? Isa::kPortable : cap;
  f.best = best;
  return f;
}

CpuFeatures &features() {
  static CpuFeatures f = detect(std::getenv("OPSNN_MAX_ISA"));
  return f;
}

bool reference_from(const char *s) { return s != nullptr && std::strcmp(s, "reference") == 0; }
bool &reference_flag() {
  static bool reference = reference_from(std::getenv("OPSNN_KERNELS"));
  return reference;
}

}  // namespace

const CpuFeatures &cpu_features() { return features(); }

const char *isa_name(Isa isa) {
  switch (isa) {
    case Isa::kPortable: return "portable";
    case Isa::kNeon: return "neon";
    case Isa::kAvx2: return "avx2";
    case Isa::kAvx512: return "avx512";
    case Isa::kAvx512Bf16: return "avx512bf16";
  }
  return "unknown";
}

bool use_reference_kernels() { return reference_flag(); }

void reset_kernel_env_for_testing(const char *max_isa, const char *kernels) {
  features() = detect(max_isa);
  reference_flag() = reference_from(kernels);
  bump_plan_epoch();  // plans chose kernels under the old environment
}

}  // namespace opsnn::core
