// AVX512_BF16 micro-kernel for BF16 x BF16 GEMMs, 12x32 over k-pair panels (UkernelBf16Fn): per pair
// step two B vectors (32 columns x 2 bf16) and one 32-bit broadcast of A per row feed 24 vdpbf16ps
// into 24 zmm fp32 accumulators. vdpbf16ps peaks at twice the fp32 FMA rate on Zen 4, and the packed
// operands take half the bytes of fp32 panels.
//
// Numerics: a product of two bf16 is exact in fp32 (8-bit significands) unless it leaves fp32's
// range; each vdpbf16ps adds two products to the accumulator, so the summation is pairwise and results
// differ from the fp32 path within rounding. The hardware treats bf16 denormal inputs as zero and
// flushes denormal results (DAZ / FTZ regardless of MXCSR). The K order per element is fixed, so
// results are the same for any thread count.
//
// The table entry avx512bf16_12x32 is the AVX-512 one (every fp32 / FLOAT16 / mixed GEMM runs as
// there) plus these tiles; gemm_plan picks them only when A and B are both BF16.
#include "kernels/simd/avx512_intrinsics.h"

#include <cstring>

#include "kernels/matmul/avx512_tile.h"
#include "kernels/matmul/ukernels.h"

namespace opsnn::kernels::gemm_detail {
namespace {

constexpr int kMr = 12;
constexpr int kNr = 32;

// The bits of a vector as 32 bf16 (__m512bh is a distinct vector type natively and in SIMDe).
inline __m512bh as_bh(__m512i v) {
  __m512bh r;
  std::memcpy(&r, &v, sizeof r);
  return r;
}

template <int ROWS>
void ukernel_bf16(int64_t kp, const uint32_t *a, const uint32_t *b, float *c, int64_t ldc, float alpha, float beta) {
  __m512 acc0[ROWS], acc1[ROWS];
#pragma GCC unroll 16
  for (int i = 0; i < ROWS; ++i) acc0[i] = acc1[i] = _mm512_setzero_ps();
  avx512_tile_prefetch_c<ROWS>(c, ldc);

#pragma GCC unroll 4
  for (int64_t p = 0; p < kp; ++p) {
    const __m512bh b0 = as_bh(_mm512_loadu_si512(b));
    const __m512bh b1 = as_bh(_mm512_loadu_si512(b + 16));
#pragma GCC unroll 16
    for (int i = 0; i < ROWS; ++i) {
      const __m512bh ai = as_bh(_mm512_set1_epi32(static_cast<int>(a[i])));
      acc0[i] = _mm512_dpbf16_ps(acc0[i], ai, b0);
      acc1[i] = _mm512_dpbf16_ps(acc1[i], ai, b1);
    }
    a += kMr;
    b += kNr;
  }

  avx512_tile_store<ROWS>(acc0, acc1, c, ldc, alpha, beta);
}

}  // namespace

// Constant-initialised (no code of this unit runs before CPU detection); gemm_plan.cpp assembles
// the table entry from it.
constinit const UkernelBf16Fn kAvx512Bf16Tiles[kMaxMr + 1] = {
    nullptr,           &ukernel_bf16<1>,  &ukernel_bf16<2>,  &ukernel_bf16<3>, &ukernel_bf16<4>,
    &ukernel_bf16<5>,  &ukernel_bf16<6>,  &ukernel_bf16<7>,  &ukernel_bf16<8>, &ukernel_bf16<9>,
    &ukernel_bf16<10>, &ukernel_bf16<11>, &ukernel_bf16<12>};
static_assert(kMr == 12);

}  // namespace opsnn::kernels::gemm_detail
