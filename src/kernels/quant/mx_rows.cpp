#include "kernels/quant/mx_rows.h"

#include <cmath>

namespace opsnn::kernels {
namespace {

// Best first; the portable build is the reference.
const core::Impl<MxRowDesc> kMxRowTiers[] = {
#if defined(__x86_64__)
    {"avx512", static_cast<int>(core::Isa::kAvx512), nullptr},
#endif
    {"portable", static_cast<int>(core::Isa::kPortable), nullptr},
};
const MxRowKernels kMxRowKernels[] = {
#if defined(__x86_64__)
    {&mx_amax_avx512, &lf_encode_rint_row_avx512},
#endif
    {&mx_amax_portable, &lf_encode_rint_row},
};

}  // namespace

float mx_amax_portable(const float *v, int64_t n) {
  float amax = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    const float a = std::fabs(v[i]);
    amax = (a > amax || a != a) ? a : amax;
    if (amax != amax) break;
  }
  return amax;
}

MxRowKernels mx_rows_portable() { return {&mx_amax_portable, &lf_encode_rint_row}; }

const char *choose_mx_row_tier(MxRowKernels *k, core::ImplTrace *trace) {
  const int i = core::choose(kMxRowTiers, MxRowDesc{}, trace);
  *k = kMxRowKernels[i];
  return kMxRowTiers[i].name;
}

}  // namespace opsnn::kernels
