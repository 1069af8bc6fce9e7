// The portable build (baseline flags; the reference tier) of the recurrent gate math (rnn_cell_impl.h).
#define OPSNN_RNN_CELL_NAMESPACE portable
#include "kernels/rnn/rnn_cell_impl.h"

namespace opsnn::kernels {
const RnnCellKernels &rnn_cell_kernels_portable() { return portable::kCellKernels; }
}  // namespace opsnn::kernels
