#include "core/impl_list.h"
#include "kernels/reduction/reduce.h"

namespace opsnn::kernels {

// The per-ISA builds of the runner (reduce_run_<tier>.cpp).
void reduce_run_portable(const ReduceLoop &loop, const char *in, char *const *out, void *partials,
                        const char *in2);
#if defined(__x86_64__)
void reduce_run_avx2(const ReduceLoop &loop, const char *in, char *const *out, void *partials,
                        const char *in2);
void reduce_run_avx512(const ReduceLoop &loop, const char *in, char *const *out, void *partials,
                        const char *in2);
#endif

namespace {

// The tiers, best first; the portable build is the reference.
const core::Impl<ReduceLoop> kReduceTiers[] = {
#if defined(__x86_64__)
    {"avx512", static_cast<int>(core::Isa::kAvx512), nullptr},
    {"avx2", static_cast<int>(core::Isa::kAvx2), nullptr},
#endif
    {"portable", static_cast<int>(core::Isa::kPortable), nullptr},
};
void (*const kReduceRuns[])(const ReduceLoop &, const char *, char *const *, void *, const char *) = {
#if defined(__x86_64__)
    &reduce_run_avx512,
    &reduce_run_avx2,
#endif
    &reduce_run_portable,
};

}  // namespace

const char *choose_reduce_tier(ReduceLoop &loop, core::ImplTrace *trace) {
  loop.tier = core::choose(kReduceTiers, loop, trace);
  return kReduceTiers[loop.tier].name;
}

void run_reduction(const ReduceLoop &loop, const char *in, char *const *out, void *partials, const char *in2) {
  kReduceRuns[loop.tier](loop, in, out, partials, in2);
}

}  // namespace opsnn::kernels
