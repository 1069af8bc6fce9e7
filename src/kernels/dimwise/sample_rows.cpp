#include "kernels/dimwise/sample_rows.h"

#include <algorithm>

#include "kernels/dimwise/sample_rows_impl.h"

namespace opsnn::kernels {
namespace {

// The tiers, best first; the portable build is the reference.
const core::Impl<int> kSampleTiers[] = {
#if defined(__x86_64__)
    {"avx512", static_cast<int>(core::Isa::kAvx512), nullptr},
    {"avx2", static_cast<int>(core::Isa::kAvx2), nullptr},
#endif
    {"portable", static_cast<int>(core::Isa::kPortable), nullptr},
};
SampleRowFn const kSampleRows[] = {
#if defined(__x86_64__)
    &sample_row_keep_avx512,
    &sample_row_keep_avx2,
#endif
    &sample_row_keep_portable,
};

}  // namespace

uint64_t sample_row_scratch_bytes(int64_t n) {
  const uint64_t m = static_cast<uint64_t>(std::max<int64_t>(n, 1));
  // pairs, values and positions, FLOAT values and positions (56 bytes an element: the bins stay aligned), bins
  return m * (2 * sizeof(dimwise_impl::KeyPos) + 2 * sizeof(double) + 2 * sizeof(float)) +
         sample_impl::kMassBins * sizeof(double);
}


SampleRowFn choose_sample_row_kernel(core::ImplTrace *trace, const char **name) {
  const int i = core::choose(kSampleTiers, 0, trace);
  *name = kSampleTiers[i].name;
  return kSampleRows[i];
}

}  // namespace opsnn::kernels
