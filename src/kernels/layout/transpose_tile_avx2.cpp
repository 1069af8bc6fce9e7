// AVX2 block transposes (transpose_ymm.h): 4-byte elements in 16 x 16 blocks of two stacked 8 x 8
// transposes, 2-byte ones in 32 x 32 blocks of 16 x 16 transposes; each output row receives whole
// 64-byte lines (streamed when asked), and the next tile's source lines are prefetched.
#include "kernels/layout/transpose_tile.h"
#include "kernels/layout/transpose_ymm.h"

namespace opsnn::kernels {

TransposeBlocksFn transpose_blocks_avx2(size_t es) {
  if (es == 4) return &ymm::blocks<uint32_t, 8, &ymm::transpose8x8_u32>;
  if (es == 2) return &ymm::blocks<uint16_t, 16, &ymm::transpose16x16>;
  return nullptr;
}

}  // namespace opsnn::kernels
