// Between the pieces of the recurrent phase 1 (rnn_phase1.cpp: dispatch and shared checks;
// rnn_cell_ops.cpp: the fused LSTM cell and its gradient; rnn_sequence.cpp: LSTM / GRU forward;
// rnn_sequence_backward.cpp: their gradients).
#pragma once

#include <initializer_list>
#include <vector>

#include "core/executor.h"
#include "kernels/rnn/rnn_copy.h"
#include "ops/rnn/rnn_phase1.h"

namespace opsnn::ops::rnn {

// A registered tensor (or none) and how to move it between its dtype and fp32 rows.
struct Io {
  core::OperandRef ref;
  kernels::RnnView view;
  aclDataType dtype = ACL_FLOAT;
  bool present = false;
  // Registers `t` in prototype order; a null one takes its (input or output) index too, so the
  // flat indices of aclSet*TensorAddr do not depend on which optional arguments were given.
  static Io reg(core::OpBuilder &b, const aclTensor *t, bool out);
  void set(const aclTensor &v, int slot);
  void load(const core::LaunchArgs &a, float *dst, const int64_t *fs) const;
  void store(const core::LaunchArgs &a, const float *src, const int64_t *fs) const;
  // The [dims 1..] sub-view at index `i` of dim 0.
  Io at(int64_t i) const;
  // Rows [start, start + n) of dim 0.
  Io rows(int64_t start, int64_t n) const;
  // Dims 0 and 1 swapped (a batch-first [B, T, ...] tensor read as [T, B, ...]).
  Io swapped01() const;
};

// Registers a list's elements (prototype position `ir_index`); none for a null or empty list.
std::vector<Io> reg_list(core::OpBuilder &b, size_t ir_index, const RnnList &l, bool out);

// The geometry of an LSTM / GRU call, checked (rnn_sequence.cpp).
struct SeqGeom {
  bool lstm = true;
  int64_t T = 0, B = 0, I = 0, H = 0, L = 1, D = 1, G = 4, P = 4;  // G gates; P params per (layer, direction)
  bool packed = false;  // batchSizes given: sequence tensors are [N, features], N = sum(batchSizes)
  int64_t N = 0;
  aclDataType dt = ACL_FLOAT;
  int64_t ld() const { return L * D; }
  int64_t in_size(int64_t l) const { return l == 0 ? I : D * H; }
};
// Checks input, params, hx, batchSizes, the flags; `saved` are the per-step lists (forward outputs or
// backward inputs), each empty (forward only) or L*D tensors [T, B, H].
SeqGeom check_sequence(const RnnRule &rule, const RnnCall &c);
void check_saved_lists(const SeqGeom &g, std::initializer_list<const RnnList *> saved, bool may_be_empty);
// The rows of a sequence tensor and an fp32 [T, B, ...] block of row stride `ld` floats: padded
// ([T, B, F], or [B, T, F] batch first), or packed ([N, F], step t's rows[t] rows at off[t]; the block's
// padding rows are zeroed on load).
struct SeqRows {
  const int64_t *rows = nullptr, *off = nullptr;
  int64_t T = 0, B = 0;
  bool packed = false, batch_first = false;
  void load(const core::LaunchArgs &a, const Io &io, float *dst, int64_t ld) const;
  void store(const core::LaunchArgs &a, const Io &io, const float *src, int64_t ld) const;
};
// rows[t] / off[t] of every step: B and t * B, or batchSizes read and checked (non-increasing, the
// first = B, summing to N; else 161002).
int read_batch_sizes(const core::LaunchArgs &a, const SeqGeom &g, const Io &batch_sizes, int64_t *rows, int64_t *off);

// 161002 unless `a` has the sequence shape [T, B, feat] ([B, T, feat] batch first; [N, feat] packed).
void check_seq_dims(const SeqGeom &g, const RnnArg &a, int64_t feat, bool batch_first);

// A workspace block of `floats` fp32 values (at least one), booked by key.
core::WsKey book_f32(core::OpBuilder &b, const char *name, int64_t floats);

// 161002 unless `a` (when given) has exactly `dims` ("what" says which, e.g. "[B, H] =").
void check_dims(const RnnArg &a, std::initializer_list<int64_t> dims, const char *what);
void check_same_dtype(const RnnArg &a, aclDataType dt, const char *like);
// Each written tensor without internal overlap and apart from every other argument.
void check_outputs_apart(std::initializer_list<const RnnArg *> outs, std::initializer_list<const RnnArg *> all);

void fused_cell_forward(core::OpBuilder &b, const RnnRule &rule, const RnnCall &c);
void fused_cell_backward(core::OpBuilder &b, const RnnRule &rule, const RnnCall &c);
void sequence_forward(core::OpBuilder &b, const RnnRule &rule, const RnnCall &c);
void sequence_backward(core::OpBuilder &b, const RnnRule &rule, const RnnCall &c);
void bidirection_lstm_forward(core::OpBuilder &b, const RnnRule &rule, const RnnCall &c);

}  // namespace opsnn::ops::rnn
