// Packing of GEMM operands into the fp32 panels the micro-kernels read.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"

namespace opsnn::kernels::gemm_detail {

// A strided 2-D view: element (w, p) lives at origin + w*sw + p*sp (in elements of `dtype`).
// For A, w runs along M and p along K; for B, w runs along N and p along K.
struct PackSrc {
  const void *origin;
  aclDataType dtype;
  int64_t sw, sp;
};

// Packs `width` x `kc` elements into ceil(width / W) panels of W x kc floats:
//   dst[q*W*kc + p*W + w'] = round(src(q*W + w', p)),   zero for q*W + w' >= width.
// Converts FLOAT16/BF16 to float and rounds to `rounding` (ACL_FLOAT: unchanged). `simd`: the AVX2 / F16C helpers
// may run (GemmPlan::pack_simd, decided in phase 1).
void pack_panels(const PackSrc &src, int64_t width, int64_t kc, int W, aclDataType rounding,
                 bool simd, float *dst);

// Like pack_panels, for columns [col0, col0 + width) and rows [pc, pc + kc) of a B in the
// pre-packed layout of gemm_prepack_b (`k` rows in total).
void pack_prepacked(const void *packed, aclDataType dtype, int64_t k, int64_t col0, int64_t width,
                    int64_t pc, int64_t kc, int W, aclDataType rounding, bool simd, float *dst);

// Packs a BF16 view into the k-pair panels of Ukernel::rows_bf16 (bits copied, no conversion):
// ceil(width / W) panels of W x kp 32-bit units, kp = ceil(kc / 2),
//   dst[q*W*kp + p2*W + w'] = bits(src(q*W + w', 2*p2)) | bits(src(q*W + w', 2*p2 + 1)) << 16,
// zero for q*W + w' >= width and for the padding position 2*p2 + 1 == kc of an odd kc.
void pack_pairs_bf16(const PackSrc &src, int64_t width, int64_t kc, int W, uint32_t *dst);
// The same for columns [col0, col0 + width) and rows [pc, pc + kc) of a BF16 B in the pre-packed
// layout of gemm_prepack_b (`k` rows in total).
void pack_pairs_bf16_prepacked(const void *packed, int64_t k, int64_t col0, int64_t width, int64_t pc, int64_t kc,
                               int W, uint32_t *dst);

#if defined(__x86_64__)
// One full panel from W fp32 lines contiguous along p (line w at s + w*sw): d[p*W + w] = s[w*sw + p]
// for p < kc, through 8x8 register transposes (A row-major, B stored [N,K]). AVX2 only; W >= 4
// (its overlapping stores stay inside the panel).
void pack_lines_f32_avx2(const float *s, int64_t sw, int64_t kc, int W, float *d);
#endif

}  // namespace opsnn::kernels::gemm_detail
