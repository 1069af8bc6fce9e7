// The attention row operations built for the avx512 tier (cmake/isa_flags.cmake gives the flags).
#if defined(__x86_64__)
#include "kernels/attention/attention_rows_impl.h"

namespace opsnn::kernels {
const AttnRowFns &attn_rows_avx512() { return attn_rows_impl::kFns; }
}  // namespace opsnn::kernels
#endif
