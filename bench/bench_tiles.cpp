// The GEMM micro-kernels alone: each tile on packed panels that stay in L1 (k steps per call, 3000
// calls, best of 7), to tell the tile's speed from the engine's (packing, blocking, epilogue).
// Tiers the CPU lacks are skipped. Not a Google Benchmark program (one line per tile).
//
//   ./bench_tiles [k]            (default k = 256)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/cpu_features.h"
#include "kernels/matmul/gemm.h"
#include "kernels/matmul/igemm.h"
#include "kernels/matmul/igemm_tiles.h"
#include "kernels/matmul/ukernels.h"

using namespace opsnn::kernels;

namespace {

template <class F>
double best_call(F f) {
  double best = 1e9;
  for (int r = 0; r < 7; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 3000; ++i) f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 3000);
  }
  return best;
}

int kernel_index(const char *name) {
  for (int i = 0; i < gemm_kernel_count(); ++i)
    if (!std::strcmp(gemm_kernel_name(i), name)) return gemm_kernel_supported(i) ? i : -1;
  return -1;
}

}  // namespace

int main(int argc, char **argv) {
  const int64_t k = argc > 1 ? std::max(8, std::atoi(argv[1])) / 8 * 8 : 256;
  std::printf("isa %s, k = %lld, one full tile per call\n", opsnn::core::isa_name(opsnn::core::cpu_features().best),
              static_cast<long long>(k));
  std::vector<float> a(static_cast<size_t>(k) * gemm_detail::kMaxMr + 64, 0.5f),
      b(static_cast<size_t>(k) * gemm_detail::kMaxNr + 64, 0.25f), c(16 * 64);
  std::vector<uint32_t> aw(static_cast<size_t>(k) * 16 + 64, 0x3f003f00u), bw(static_cast<size_t>(k) * 32 + 64, 0x3e803e80u);
  std::vector<int32_t> ci(16 * 64);
  for (const char *name : {"avx2_6x16", "avx512_12x32", "neon_6x16"}) {
    const int idx = kernel_index(name);
    if (idx < 0) continue;
    const auto &u = gemm_detail::ukernel_by_index(idx);
    const double t = best_call([&] { u.rows[u.mr](k, a.data(), b.data(), u.nr, c.data(), 64, 1.0f, 0.0f); });
    std::printf("FP32 %-18s %7.1f GFLOP/s\n", name, 2.0 * u.mr * u.nr * k / t * 1e-9);
  }
#if defined(__x86_64__)
  if (kernel_index("avx512bf16_12x32") >= 0) {
    const double t = best_call([&] { gemm_detail::kAvx512Bf16Tiles[12](k / 2, aw.data(), bw.data(), c.data(), 64, 1.0f, 0.0f); });
    std::printf("BF16 avx512bf16_12x32   %7.1f GFLOP/s\n", 2.0 * 12 * 32 * k / t * 1e-9);
  }
  if (igemm_kernel_available(IgemmKernel::kAvx2)) {
    const auto &t2 = igemm_detail::kIgemmAvx2Tiles;
    const double t = best_call([&] { t2.tile[t2.mr_max](k / 2, aw.data(), bw.data(), ci.data(), 64, false); });
    std::printf("INT8 avx2_6x16          %7.1f GOP/s\n", 2.0 * t2.mr_max * t2.nr * k / t * 1e-9);
  }
  if (igemm_kernel_available(IgemmKernel::kAvx512Vnni)) {
    const auto &tv = igemm_detail::kIgemmAvx512VnniTiles;
    const double t = best_call([&] { tv.tile[tv.mr_max](k / 4, aw.data(), bw.data(), ci.data(), 64, false); });
    std::printf("INT8 avx512vnni_12x32   %7.1f GOP/s\n", 2.0 * tv.mr_max * tv.nr * k / t * 1e-9);
  }
#endif
  return 0;
}
