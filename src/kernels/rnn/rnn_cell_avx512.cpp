// The AVX-512 build of the recurrent gate math (rnn_cell_impl.h).
#define OPSNN_RNN_CELL_NAMESPACE avx512
#include "kernels/rnn/rnn_cell_impl.h"

namespace opsnn::kernels {
const RnnCellKernels &rnn_cell_kernels_avx512() { return avx512::kCellKernels; }
}  // namespace opsnn::kernels
