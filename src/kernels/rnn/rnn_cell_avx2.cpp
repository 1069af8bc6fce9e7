// The AVX2/FMA build of the recurrent gate math (rnn_cell_impl.h).
#define OPSNN_RNN_CELL_NAMESPACE avx2
#include "kernels/rnn/rnn_cell_impl.h"

namespace opsnn::kernels {
const RnnCellKernels &rnn_cell_kernels_avx2() { return avx2::kCellKernels; }
}  // namespace opsnn::kernels
