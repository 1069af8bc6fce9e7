// The per-block row kernels of the MX family (kernels/quant/mx_quant.cpp), one build per ISA tier, chosen in
// phase 1 from kMxRowTiers (the portable build is the reference):
//   amax:   max |v[i]| of a run, NaN when one is NaN
//   encode: codes[i] = lf_encode(v[i] * mul, f, kRint) for a power-of-two mul (lf_encode_rint_row's contract)
#pragma once

#include <cstdint>

#include "core/impl_list.h"
#include "kernels/quant/low_float.h"

namespace opsnn::kernels {

struct MxRowDesc {};

using MxAmaxFn = float (*)(const float *v, int64_t n);
using MxEncodeRintFn = void (*)(const float *v, int64_t n, float mul, LowFloat f, uint8_t *codes);

struct MxRowKernels {
  MxAmaxFn amax;
  MxEncodeRintFn encode_rint;
};

float mx_amax_portable(const float *v, int64_t n);
#if defined(__x86_64__)
float mx_amax_avx512(const float *v, int64_t n);
void lf_encode_rint_row_avx512(const float *v, int64_t n, float mul, LowFloat f, uint8_t *codes);
#endif

// The portable build (the plans' default).
MxRowKernels mx_rows_portable();
// The tier for this process (OPSNN_MAX_ISA / OPSNN_KERNELS=reference honoured); its name.
const char *choose_mx_row_tier(MxRowKernels *k, core::ImplTrace *trace);

}  // namespace opsnn::kernels
