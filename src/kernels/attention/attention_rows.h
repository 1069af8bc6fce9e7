// The row operations of the flash-attention kernel (online softmax over one key block), compiled
// once per ISA tier (attention_rows_<tier>.cpp from attention_rows_impl.h, chosen in phase 1 from
// an ordered list: avx512bf16 (BF16 keys only), avx512, avx2, portable).
#pragma once

#include <cstdint>

namespace opsnn::kernels {

// How decode_stream's key / value rows are stored.
enum class AttnKv : int { kF32, kBf16, kF16 };

struct AttnRowFns {
  void (*scale)(float *x, int64_t n, float s);                       // x *= s
  void (*add)(float *x, const float *y, int64_t n);                  // x += y
  // Masks row[j] (-inf) outside [lo, hi) and where mask[j * mask_stride] != 0 (mask may be null);
  // returns the row's max (-inf when all masked).
  float (*mask_max)(float *row, int64_t n, int64_t lo, int64_t hi, const unsigned char *mask, int64_t mask_stride);
  // row[j] = exp(row[j] - m) for m >= every row[j] (the row max); returns the sum (fp32, fixed order).
  float (*exp_sum)(float *row, int64_t n, float m);
  float (*exp1)(float x);
  // Streaming decode (decode_stream_impl.h): s[g * lds + j] = scale * (q[g] . k[j]) for g < G, j < n
  // (q rows [G, D] contiguous and unscaled, so a BF16 query converts back to bf16 exactly; key row j
  // at k + j * ks elements); o[g] += sum_j p[g * ldp + j] v[j] (o rows [G, D], value row j at
  // v + j * vs elements). Keys / values of type kt / vt, widened as loaded.
  void (*qk)(const float *q, int64_t G, int64_t D, float scale, const void *k, AttnKv kt, int64_t ks, int64_t n,
             float *s, int64_t lds);
  void (*pv)(const float *p, int64_t ldp, int64_t G, int64_t n, const void *v, AttnKv vt, int64_t vs, int64_t D,
             float *o);
};

const AttnRowFns &attn_rows_portable();
#if defined(__x86_64__)
const AttnRowFns &attn_rows_avx2();
const AttnRowFns &attn_rows_avx512();
const AttnRowFns &attn_rows_avx512bf16();  // avx512 + decode_stream's BF16 q.k on vdpbf16ps
#endif

}  // namespace opsnn::kernels
