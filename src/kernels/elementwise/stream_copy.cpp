#include "kernels/elementwise/stream_copy.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/cpu_features.h"

namespace opsnn::kernels {

uint64_t stream_copy_min_bytes() {
  static const uint64_t min_bytes =
      std::min<uint64_t>(core::cpu_features().l3_bytes / 2, uint64_t{16} << 20);
  return min_bytes;
}

bool copy_streams(uint64_t bytes) {
#if defined(__SSE2__)
  return bytes >= stream_copy_min_bytes();
#else
  (void)bytes;
  return false;
#endif
}

void copy_line_streaming(void *dst, const void *src) {
#if defined(__SSE2__)
  auto *d = static_cast<__m128i *>(dst);
  const auto *s = static_cast<const __m128i *>(src);
  const __m128i a = _mm_loadu_si128(s), b = _mm_loadu_si128(s + 1), c = _mm_loadu_si128(s + 2),
                e = _mm_loadu_si128(s + 3);
  _mm_stream_si128(d, a);
  _mm_stream_si128(d + 1, b);
  _mm_stream_si128(d + 2, c);
  _mm_stream_si128(d + 3, e);
#else
  std::memcpy(dst, src, 64);
#endif
}

void copy_lines_streaming(void *dst, const void *src, size_t lines) {
  auto *d = static_cast<char *>(dst);
  const auto *s = static_cast<const char *>(src);
  for (size_t k = 0; k < lines; ++k) copy_line_streaming(d + 64 * k, s + 64 * k);
}

void copy_bytes(void *dst, const void *src, size_t n, bool streaming) {
  auto *d = static_cast<char *>(dst);
  const auto *s = static_cast<const char *>(src);
  // Phase 1 refuses a written view that partially overlaps a read one when it can tell; views
  // with gaps (rows 9 apart holding 3 elements) are "too hard" there, as in PyTorch, and may still
  // share bytes within a row: memmove keeps that copy defined (found by tests/fuzz).
  const uintptr_t db = reinterpret_cast<uintptr_t>(d), sb = reinterpret_cast<uintptr_t>(s);
  if (db < sb + n && sb < db + n) {
    std::memmove(d, s, n);
    return;
  }
  if (!streaming || n < 256) {
    std::memcpy(d, s, n);
    return;
  }
  // Head up to dst's next 64-byte boundary, whole lines streamed, the tail.
  const size_t head = (64 - (reinterpret_cast<uintptr_t>(d) & 63)) & 63;
  std::memcpy(d, s, head);
  size_t i = head;
  for (; i + 64 <= n; i += 64) copy_line_streaming(d + i, s + i);
  std::memcpy(d + i, s + i, n - i);
}

void copy_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace opsnn::kernels
