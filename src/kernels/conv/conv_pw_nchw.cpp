// The channels-first pointwise kernel's portable unit (conv_pw_nchw_avx2.cpp /
// conv_pw_nchw_avx512.cpp compile the same body wider).
#include "kernels/conv/conv_pw_nchw_impl.h"

namespace opsnn::kernels {

void conv_pw_nchw_portable(const DirectArgs &a, int threads) { pw_nchw_body(a, threads); }

}  // namespace opsnn::kernels
