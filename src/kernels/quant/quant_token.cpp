#include "kernels/quant/quant_token.h"

namespace opsnn::kernels {
namespace {

// Best first; the portable build is the reference.
const core::Impl<QuantTokenDesc> kQuantTokenTiers[] = {
#if defined(__x86_64__)
    {"avx512", static_cast<int>(core::Isa::kAvx512), nullptr},
#endif
    {"portable", static_cast<int>(core::Isa::kPortable), nullptr},
};
const QuantTokenKernels kQuantTokenKernels[] = {
#if defined(__x86_64__)
    {&quant_token_prep_avx512, &quant_token_int8_avx512},
#endif
    {&quant_token_prep_portable, &quant_token_int8_portable},
};

}  // namespace

const char *choose_quant_token_tier(QuantTokenKernels *k, core::ImplTrace *trace) {
  const int i = core::choose(kQuantTokenTiers, QuantTokenDesc{}, trace);
  *k = kQuantTokenKernels[i];
  return kQuantTokenTiers[i].name;
}

}  // namespace opsnn::kernels
