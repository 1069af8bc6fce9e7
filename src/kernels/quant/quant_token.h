// The per-token row kernels of DynamicQuant (ops/quant/quant_step.cpp), one build per ISA tier,
// chosen in phase 1 from kQuantTokenTiers (the portable build is the reference):
//   prep:  in[j] = x[j] (* smooth[j]) in fp32 from a contiguous FLOAT / FLOAT16 / BF16 row, and the
//          row's max |in|, min and max (NaN ignored) in ext[0..2]
//   int8:  y[j] = saturate(round_half_even(in[j] / scale + offset)) as INT8 (a NaN gives 0; scale 0
//          gives 0), y contiguous
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "core/impl_list.h"

namespace opsnn::kernels {

struct QuantTokenDesc {};

using QuantPrepFn = void (*)(const char *x, aclDataType dt, const char *smooth, int64_t n, float *in, float *ext);
using QuantInt8Fn = void (*)(const float *in, int64_t n, float scale, float offset, int8_t *y);

struct QuantTokenKernels {
  QuantPrepFn prep;
  QuantInt8Fn int8;
};

void quant_token_prep_portable(const char *x, aclDataType dt, const char *smooth, int64_t n, float *in, float *ext);
void quant_token_int8_portable(const float *in, int64_t n, float scale, float offset, int8_t *y);
#if defined(__x86_64__)
void quant_token_prep_avx512(const char *x, aclDataType dt, const char *smooth, int64_t n, float *in, float *ext);
void quant_token_int8_avx512(const float *in, int64_t n, float scale, float offset, int8_t *y);
#endif

// The tier for this process (OPSNN_MAX_ISA / OPSNN_KERNELS=reference honoured); its name.
const char *choose_quant_token_tier(QuantTokenKernels *k, core::ImplTrace *trace);

}  // namespace opsnn::kernels
