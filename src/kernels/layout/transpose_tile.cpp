#include "kernels/layout/transpose_tile.h"

namespace opsnn::kernels {
namespace {

struct Ctx {
  size_t es;
};
// A tier is rejected when it has no block form for the element size.
bool has_form(TransposeBlocksFn (*get)(size_t), const Ctx &c, const core::Why &why) {
  return get(c.es) != nullptr || why("no %zu-byte form", c.es);
}
const core::Impl<Ctx> kTiers[] = {
#if defined(__x86_64__)
    {"avx512", static_cast<int>(core::Isa::kAvx512),
     [](const Ctx &c, const core::Why &why) { return has_form(&transpose_blocks_avx512, c, why); }},
    {"avx2", static_cast<int>(core::Isa::kAvx2),
     [](const Ctx &c, const core::Why &why) { return has_form(&transpose_blocks_avx2, c, why); }},
#endif
    {"portable", static_cast<int>(core::Isa::kPortable),
     [](const Ctx &c, const core::Why &why) { return has_form(&transpose_blocks_portable, c, why); }},
    {"scalar", core::kNoIsa, nullptr},
};
TransposeBlocksFn (*const kGet[])(size_t) = {
#if defined(__x86_64__)
    &transpose_blocks_avx512,
    &transpose_blocks_avx2,
#endif
    &transpose_blocks_portable,
    nullptr,
};
// The block edge of every form: 32 x 32 2-byte (as 32 x 16 halves), 16 x 16 1-byte and 4-byte, 8 x 8 8-byte.
int block_of(size_t es) { return es == 2 ? 32 : es == 8 ? 8 : 16; }

}  // namespace

TransposeKernel choose_transpose_kernel(size_t es, core::ImplTrace *trace) {
  const int i = core::choose(kTiers, Ctx{es}, trace);
  TransposeKernel k;
  k.name = kTiers[i].name;
  if (kGet[i] == nullptr) return k;
  k.blocks = kGet[i](es);
  k.block = block_of(es);
  return k;
}

}  // namespace opsnn::kernels
