// The tier of the recurrent gate math, chosen like the element-wise kernels' (core::choose: honours
// OPSNN_MAX_ISA and OPSNN_KERNELS=reference, whose tier is the portable build).
#include "kernels/rnn/rnn_cell.h"

#include <string>

#include "core/cpu_features.h"
#include "core/impl_list.h"
#include "core/verbose.h"

namespace opsnn::kernels {

const RnnCellKernels &rnn_cell_kernels_portable();
#if defined(__x86_64__)
const RnnCellKernels &rnn_cell_kernels_avx2();
const RnnCellKernels &rnn_cell_kernels_avx512();
#endif

namespace {

struct CellKey {};

const core::Impl<CellKey> kCellTiers[] = {
#if defined(__x86_64__)
    {"avx512", static_cast<int>(core::Isa::kAvx512), nullptr},
    {"avx2", static_cast<int>(core::Isa::kAvx2), nullptr},
#endif
    {"portable", static_cast<int>(core::Isa::kPortable), nullptr},
};
const RnnCellKernels &(*const kCellKernels[])() = {
#if defined(__x86_64__)
    &rnn_cell_kernels_avx512,
    &rnn_cell_kernels_avx2,
#endif
    &rnn_cell_kernels_portable,
};

}  // namespace

const RnnCellKernels &rnn_cell_kernels(const char *what) {
  if (core::current_phase1_trace() == nullptr) return kCellKernels[core::choose(kCellTiers, CellKey{}, nullptr)]();
  core::ImplTrace trace;
  const int i = core::choose(kCellTiers, CellKey{}, &trace);
  core::record_choice(std::string("rnn:") + kCellTiers[i].name + "/" + what, &trace);
  return kCellKernels[i]();
}

}  // namespace opsnn::kernels
