// Byte copies of the data-movement paths (same-dtype copies of the element-wise engine, the
// layout family's tiled copies): plain, or with streaming (non-temporal) stores when the
// destination is too large to stay in the cache anyway — each of its 64-byte lines is then written
// whole without first being read for ownership (a copy's memory traffic 3x -> 2x its size).
#pragma once

#include <cstddef>
#include <cstdint>

namespace opsnn::kernels {

// Phase 1: whether a copy writing `bytes` should stream (the destination exceeds
// stream_copy_min_bytes()).
bool copy_streams(uint64_t bytes);
// The smallest destination that streams: half the last-level cache, at most 16 MiB (a guest may
// report its whole socket's L3; one Zen 5 CCD has 32 MiB).
uint64_t stream_copy_min_bytes();

// Copies n bytes (no overlap). With `streaming`, the 64-byte lines of dst wholly inside the range
// are written with non-temporal stores, the rest with memcpy; call copy_fence() after the last
// streaming copy of a task, before its data may be read by another thread.
void copy_bytes(void *dst, const void *src, size_t n, bool streaming);
// Copies one 64-byte line to a 64-byte-aligned dst with a non-temporal store (streaming tiles).
void copy_line_streaming(void *dst, const void *src);
// Copies `lines` whole 64-byte lines to a 64-byte-aligned dst with non-temporal stores (the layout
// family's streamed rows).
void copy_lines_streaming(void *dst, const void *src, size_t lines);
void copy_fence();

}  // namespace opsnn::kernels
