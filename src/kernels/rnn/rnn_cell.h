// The gate math of the recurrent family (ops/rnn/rnn_phase1): one LSTM or GRU cell over `rows`
// batch rows, forward and backward, on fp32 rows in the workspace (the phase 1 converts the
// caller's dtypes on the way in and out). Gate order as PyTorch: LSTM i, f, g, o; GRU r, z, n. Each
// row is computed by one task from its own inputs in a fixed order (vmath's branch-free sigmoid /
// tanh, auto-vectorised along the row), so results do not depend on the thread count.
//
// Every pointer is the first row; `ld_*` are row strides in floats (a row's elements are unit
// stride). Optional pointers may be null (documented per field).
#pragma once

#include <cstdint>

namespace opsnn::kernels {

struct LstmCellFwd {
  int64_t rows = 0, hidden = 0;
  const float *pre = nullptr;   // [rows, 4H] pre-activations
  int64_t ld_pre = 0;
  const float *pre2 = nullptr;  // optional second addend [rows, 4H] (the fused cell's hidden gates)
  int64_t ld_pre2 = 0;
  const float *bias = nullptr;  // optional [4H] (the sum of both biases)
  const float *c_prev = nullptr;
  int64_t ld_c_prev = 0;
  float *act = nullptr;         // [rows, 4H]: sigmoid(i), sigmoid(f), tanh(g), sigmoid(o); may be `pre`
  int64_t ld_act = 0;
  float *c = nullptr, *tanhc = nullptr, *h = nullptr;  // [rows, H]; tanhc optional
  int64_t ld_c = 0, ld_tanhc = 0, ld_h = 0;
};


struct LstmCellBwd {
  int64_t rows = 0, hidden = 0;
  const float *act = nullptr;  // [rows, 4H] activated gates (the forward's `act`)
  int64_t ld_act = 0;
  const float *c_prev = nullptr, *c = nullptr;  // [rows, H]
  int64_t ld_c_prev = 0, ld_c = 0;
  const float *tanhc = nullptr;  // optional: tanh(c) as saved; null recomputes it from c
  int64_t ld_tanhc = 0;
  const float *dh = nullptr, *dc = nullptr;  // optional (null = zero) gradients of h and c
  int64_t ld_dh = 0, ld_dc = 0;
  float *dgates = nullptr;  // [rows, 4H] gradient of the pre-activations
  int64_t ld_dgates = 0;
  float *dc_prev = nullptr;  // [rows, H]
  int64_t ld_dc_prev = 0;
};

struct GruCellFwd {
  int64_t rows = 0, hidden = 0;
  const float *gx = nullptr;  // [rows, 3H] x @ W_ih^T + b_ih
  int64_t ld_gx = 0;
  const float *gh = nullptr;  // [rows, 3H] h_prev @ W_hh^T + b_hh
  int64_t ld_gh = 0;
  const float *h_prev = nullptr;
  int64_t ld_h_prev = 0;
  float *act = nullptr;  // [rows, 3H]: r, z, n
  int64_t ld_act = 0;
  float *hn = nullptr;  // [rows, H]: the n gate's hidden part (h_prev @ W_hn^T + b_hn)
  int64_t ld_hn = 0;
  float *h = nullptr;
  int64_t ld_h = 0;
};

struct GruCellBwd {
  int64_t rows = 0, hidden = 0;
  const float *act = nullptr, *hn = nullptr, *h_prev = nullptr;
  int64_t ld_act = 0, ld_hn = 0, ld_h_prev = 0;
  const float *dh = nullptr;  // [rows, H] gradient of h
  int64_t ld_dh = 0;
  float *dgx = nullptr;  // [rows, 3H] gradient of gx
  int64_t ld_dgx = 0;
  float *dgh = nullptr;  // [rows, 3H] gradient of gh
  int64_t ld_dgh = 0;
  float *dh_prev = nullptr;  // [rows, H] the direct part z * dh (the GEMM adds dgh @ W_hh)
  int64_t ld_dh_prev = 0;
};

// The four, compiled per ISA tier (rnn_cell_impl.h).
struct RnnCellKernels {
  void (*lstm_forward)(const LstmCellFwd &);  // c = f * c_prev + i * g, h = o * tanh(c)
  void (*lstm_backward)(const LstmCellBwd &);
  // r = sig(gx_r + gh_r), z = sig(gx_z + gh_z), n = tanh(gx_n + r * gh_n), h = (1 - z) n + z h_prev
  void (*gru_forward)(const GruCellFwd &);
  void (*gru_backward)(const GruCellBwd &);
};
// The best tier for this CPU (and OPSNN_MAX_ISA / OPSNN_KERNELS); in a phase 1, recorded for verbose
// mode as "rnn:<tier>/<what>".
const RnnCellKernels &rnn_cell_kernels(const char *what);

}  // namespace opsnn::kernels
