// Output stores and input prefetch for row kernels that stream tensors larger than the caches
// (kernels/simd/vec.h's 64-byte vectors). A non-temporal store writes a 64-byte vector straight to
// memory: no read-for-ownership of the line and no eviction of the rows still being computed, so
// a row op moves 2 bytes per element instead of 3; callers choose it in phase 1 (it is slower when
// the output would still be in cache for the next op) and call store_fence() after the last one.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/simd/vec.h"
#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace opsnn::kernels::vec {
namespace {

// v to p (64-byte aligned); non-temporal where the unit has the instruction, else a plain store.
inline void store_nt(float *p, f32v v) {
#if defined(__AVX512F__)
  _mm512_stream_ps(p, __m512(v));
#elif defined(__AVX__)
  __m256 h[2];
  std::memcpy(h, &v, sizeof v);
  _mm256_stream_ps(p, h[0]);
  _mm256_stream_ps(p + 8, h[1]);
#else
  std::memcpy(p, &v, sizeof v);
#endif
}

// Orders the non-temporal stores before the later plain ones (the op's end, another task's read).
inline void store_fence() {
#if defined(__AVX__)
  _mm_sfence();
#endif
}

// Asks for the 64-byte line at p in L2 (the next row, fetched while this one is computed in L1).
inline void prefetch_l2(const void *p) { __builtin_prefetch(p, 0, 2); }

// Elements to write one at a time before y + head is 64-byte aligned (at most n); -1 when y is not
// even float-aligned (no non-temporal stores then).
inline int64_t aligned_head(const float *y, int64_t n) {
  const auto mis = static_cast<int64_t>(reinterpret_cast<uintptr_t>(y) % 64);
  if (mis % 4 != 0) return -1;
  const int64_t head = mis == 0 ? 0 : (64 - mis) / 4;
  return head < n ? head : n;
}

}  // namespace
}  // namespace opsnn::kernels::vec
