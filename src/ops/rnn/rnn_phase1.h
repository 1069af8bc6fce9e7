// The phase 1 of the recurrent table (src/ops/rnn/rnn.ops). Checks every argument (161001 for a
// missing required one, 161002 naming the argument otherwise) and records the executor's steps:
// inputs converted to fp32 rows in the workspace, the projections on the GEMM engine, the gate
// math on kernels/rnn/rnn_cell.h, results rounded once into the caller's dtype.
//
// Layouts and conventions (PyTorch's, where the vendor's documentation is silent):
// - aclnnThnnFusedLstmCell: inputGates / hiddenGates [B, 4H] (i, f, g, o), cx [B, H], biases [4H];
//   hyOut / cyOut [B, H]; storageOut [B, 4H] = the activated gates sigmoid(i), sigmoid(f), tanh(g),
//   sigmoid(o) (torch._thnn_fused_lstm_cell's workspace). Backward: gradHyOptional / gradCOptional
//   [B, H] (null = zeros), cx, cy [B, H], storage [B, 4H]; gradGatesOut [B, 4H] (the gradient of the
//   pre-activations), gradCxOut [B, H], gradBiasOut [4H] = the batch sum of gradGatesOut, written when
//   hasBias (may be null otherwise).
// - aclnnLSTM / aclnnGRU: input [T, B, I] ([B, T, I] with batchFirst); output [T, B, D*H] (or
//   batch first), D = 2 when bidirectional. params in torch.nn.LSTM's `_flat_weights` order: per
//   layer, per direction (forward, reverse): w_ih [G*H, I_l], w_hh [G*H, H], then b_ih, b_hh [G*H]
//   when hasBias (G = 4 LSTM, 3 GRU; I_l = I for layer 0, D*H above). LSTM hx = {h0, c0}, each
//   [L*D, B, H]; GRU hx = h0 [L*D, B, H]; hy / cy [L*D, B, H].
//   The per-step lists hold one tensor per (layer, direction), index l*D + d, each [T, B, H] in time
//   order (a reverse direction's step t is its state at input position t): LSTM iOut, jOut (the g
//   gate), fOut, oOut (activated), hOut, cOut, tanhCOut; GRU rOut, zOut, nOut (activated), hnOut
//   (the n gate's hidden part h_{t-1} @ W_hn^T + b_hn), hOut. They are written when given (train) and
//   are what the backward ops read.
// - aclnnBidirectionLSTM / V2: one layer of the LSTM above with its weights given one by one
//   (wIh [4H, I], wHh [4H, H], biases [4H] with isbias; the reverse ones with bidirection), initH /
//   initC and outputHOut / outputCOut [D, B, H], yOut as the LSTM's output; numLayers must be 1.
// - batchSizes (aclnnLSTM / aclnnGRU): PyTorch's PackedSequence. input [N, I] holds step t's rows
//   (batchSizes[t] of them, the longest sequences first) one step after the other, N = sum(batchSizes);
//   output and the per-step lists are [N, ...] alike; batchSizes (INT64 / INT32, checked at launch:
//   non-increasing, the first = hx's B, summing to N) is read at launch; hy / cy hold each sequence's
//   state after its own last step, the backward's dhPrev / dcPrev the gradients of each sequence's
//   initial state. batchFirst does not apply.
// - dropout > 0 in training with several layers is refused (161002 naming it): its random mask
//   cannot match any other implementation's.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"

namespace opsnn::ops {

enum class RnnKind {
  kFusedLstmCell,
  kFusedLstmCellBackward,
  kLstm,
  kLstmBackward,
  kGru,
  kGruBackward,
  kBidirectionLstm,
};

struct RnnRule {
  RnnKind kind;
  core::DtypeMask dtypes;  // the one dtype of every tensor
};

using RnnArg = core::NamedTensor;

struct RnnList {
  const aclTensorList *l = nullptr;
  const char *name = "";
};

struct RnnCall {
  // The fused cell and its gradient.
  RnnArg input_gates, hidden_gates, cx, input_bias, hidden_bias, hy, cy, storage;
  RnnArg grad_hy, grad_c, grad_gates, grad_cx, grad_bias;
  // Sequences.
  RnnArg input, batch_sizes, output, dy, dh, dc, dx, dh_prev, dc_prev;
  RnnList params, dparams, i, g, f, o, h, c, tanhc, r, z, n, hn;
  RnnList hx;          // the LSTM's {h0, c0}
  RnnArg hx_tensor;    // the GRU's h0 (its parameter is also named hx; see gen_ops_rnn.py)
  // BidirectionLSTM(V2): the state and the weights one by one (the reverse ones with bidirection).
  RnnArg init_h, init_c, w_ih, w_hh, b_ih, b_hh, w_ih_r, w_hh_r, b_ih_r, b_hh_r;
  bool packed = false;
  bool has_bias = false, train = false, bidirectional = false, batch_first = false;
  int64_t num_layers = 1;
  double dropout = 0.0;
  const aclBoolArray *output_mask = nullptr;
};

void rnn_phase1(core::OpBuilder &b, const RnnRule &rule, const RnnCall &c);

}  // namespace opsnn::ops
