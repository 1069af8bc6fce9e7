// The attention row operations built for the avx512bf16 tier: the avx512 ones, with decode_stream's
// BF16 q.k on vdpbf16ps (decode_stream_impl.h; cmake/isa_flags.cmake gives the flags).
#if defined(__x86_64__)
#define OPSNN_ATTN_ROWS_BF16DP 1
#include "kernels/attention/attention_rows_impl.h"

namespace opsnn::kernels {
const AttnRowFns &attn_rows_avx512bf16() { return attn_rows_impl::kFns; }
}  // namespace opsnn::kernels
#endif
