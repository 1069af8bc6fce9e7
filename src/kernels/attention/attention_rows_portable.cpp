// The attention row operations built for the portable tier (cmake/isa_flags.cmake gives the flags).
#include "kernels/attention/attention_rows_impl.h"

namespace opsnn::kernels {
const AttnRowFns &attn_rows_portable() { return attn_rows_impl::kFns; }
}  // namespace opsnn::kernels
