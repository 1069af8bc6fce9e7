#include "ops/rnn/rnn_phase1.h"

#include <algorithm>
#include <string>
#include <utility>

#include "common/error.h"
#include "core/op_checks.h"
#include "core/outputs_apart.h"
#include "kernels/elementwise/convert.h"
#include "kernels/rnn/rnn_cell.h"
#include "ops/rnn/rnn_gemm.h"
#include "ops/rnn/rnn_parts.h"

namespace opsnn::ops {
namespace rnn {

Io Io::reg(core::OpBuilder &b, const aclTensor *t, bool out) {
  Io io;
  const int slot = out ? b.output(t) : b.input(t);  // a null one keeps its index too
  if (t == nullptr) return io;
  io.set(b.tensor(slot), slot);
  return io;
}

void Io::set(const aclTensor &v, int slot) {
  ref = core::OperandRef::of_slot(slot, v);
  dtype = v.dtype;
  view.ndim = v.ndim;
  for (int d = 0; d < v.ndim; ++d) view.dims[d] = v.dims[d], view.strides[d] = v.strides[d];
  present = true;
}

void Io::load(const core::LaunchArgs &a, float *dst, const int64_t *fs) const {
  kernels::rnn_load_f32(dtype, ref.address(a), view, dst, fs);
}

void Io::store(const core::LaunchArgs &a, const float *src, const int64_t *fs) const {
  kernels::rnn_store_f32(src, fs, dtype, ref.address(a), view);
}

Io Io::at(int64_t i) const {
  Io s = *this;
  s.ref.offset_bytes += i * view.strides[0] * static_cast<int64_t>(core::dtype_size(dtype));
  s.view.ndim = view.ndim - 1;
  for (int d = 1; d < view.ndim; ++d) s.view.dims[d - 1] = view.dims[d], s.view.strides[d - 1] = view.strides[d];
  return s;
}

Io Io::rows(int64_t start, int64_t n) const {
  Io s = *this;
  s.ref.offset_bytes += start * view.strides[0] * static_cast<int64_t>(core::dtype_size(dtype));
  s.view.dims[0] = n;
  return s;
}

Io Io::swapped01() const {
  Io s = *this;
  std::swap(s.view.dims[0], s.view.dims[1]);
  std::swap(s.view.strides[0], s.view.strides[1]);
  return s;
}

std::vector<Io> reg_list(core::OpBuilder &b, size_t ir_index, const RnnList &l, bool out) {
  std::vector<Io> v;
  if (l.l == nullptr || l.l->tensors.empty()) return v;
  const std::vector<int> slots = out ? b.output_list(ir_index, l.l) : b.input_list(ir_index, l.l);
  for (int s : slots) {
    Io io;
    io.set(b.tensor(s), s);
    v.push_back(io);
  }
  return v;
}

void SeqRows::load(const core::LaunchArgs &a, const Io &io, float *dst, int64_t ld) const {
  if (!packed) {
    const int64_t fs[3] = {B * ld, ld, 1};
    (batch_first ? io.swapped01() : io).load(a, dst, fs);
    return;
  }
  const int64_t fs[2] = {ld, 1}, F = io.view.dims[io.view.ndim - 1];
  for (int64_t t = 0; t < T; ++t) {
    io.rows(off[t], rows[t]).load(a, dst + t * B * ld, fs);
    for (int64_t b = rows[t]; b < B; ++b) std::fill(dst + (t * B + b) * ld, dst + (t * B + b) * ld + F, 0.0f);
  }
}

void SeqRows::store(const core::LaunchArgs &a, const Io &io, const float *src, int64_t ld) const {
  if (!packed) {
    const int64_t fs[3] = {B * ld, ld, 1};
    (batch_first ? io.swapped01() : io).store(a, src, fs);
    return;
  }
  const int64_t fs[2] = {ld, 1};
  for (int64_t t = 0; t < T; ++t) io.rows(off[t], rows[t]).store(a, src + t * B * ld, fs);
}

int read_batch_sizes(const core::LaunchArgs &a, const SeqGeom &g, const Io &batch_sizes, int64_t *rows, int64_t *off) {
  const int64_t T = g.T, B = g.B;
  if (!g.packed) {
    for (int64_t t = 0; t < T; ++t) rows[t] = B, off[t] = t * B;
    return 0;
  }
  int64_t sum = 0;
  for (int64_t t = 0; t < T; ++t) {
    rows[t] = static_cast<int64_t>(
        kernels::load_one(batch_sizes.dtype, batch_sizes.ref.address(a), t * batch_sizes.view.strides[0]));
    off[t] = sum;
    sum += rows[t];
    if (rows[t] < 1 || rows[t] > (t == 0 ? B : rows[t - 1]) || (t == 0 && rows[t] != B))
      return fail(ACLNN_ERR_PARAM_INVALID, "batchSizes[%lld] = %lld: the batch sizes must be non-increasing, the first "
                  "hx's batch %lld", static_cast<long long>(t), static_cast<long long>(rows[t]), static_cast<long long>(B));
  }
  if (sum != g.N)
    return fail(ACLNN_ERR_PARAM_INVALID, "batchSizes sum to %lld; the packed input has %lld rows",
                static_cast<long long>(sum), static_cast<long long>(g.N));
  return 0;
}

core::WsKey book_f32(core::OpBuilder &b, const char *name, int64_t floats) {
  return b.book(name, static_cast<uint64_t>(floats > 0 ? floats : 1) * sizeof(float));
}

kernels::GemmPlan plan_gemm(const kernels::GemmDesc &d, bool record) {
  kernels::GemmPlan p;
  kernels::GemmOptions o;
  o.record = record;
  if (!kernels::gemm_plan(d, &p, o))
    throw_error(ACLNN_ERR_INNER_TILING_ERROR, "GEMM planning failed: %s", last_error_message());
  return p;
}

StepGemm plan_step_gemm(int64_t m, int64_t n, int64_t k, const int64_t a_ld[2], const Io &w, bool transposed,
                        const Io *d, float beta) {
  auto plan = [&](int i, kernels::GemmOperand b, bool record) {
    return plan_gemm(gemm_desc(m, n, k, f32_rows(a_ld[i]), b, f32_rows(n), d, beta), record);
  };
  const kernels::GemmOperand in_place = transposed ? weight_t(w) : weight(w);
  const kernels::GemmPlan probe = plan(0, in_place, false);
  const bool reads_in_place = probe.kernel < 0 || probe.stream || probe.gemv_nt || probe.b_direct;
  StepGemm s;
  s.transposed = transposed;
  if (!reads_in_place) {
    int64_t ld = n;
    if (ld * 4 % 2048 == 0) ld += 16;  // rows 2 KiB apart share cache sets (the engine packs those)
    const kernels::GemmPlan copy = plan(0, f32_rows(ld), false);
    if (copy.b_direct || copy.stream) s.ld_copy = ld;
  }
  core::record_choice(s.ld_copy ? "rnn:step_weight_copied" : "rnn:step_weight_in_place", nullptr);
  const kernels::GemmOperand b = s.ld_copy ? f32_rows(s.ld_copy) : in_place;
  for (int i = 0; i < 2; ++i) s.plans[i] = plan(i, b, true);
  return s;
}

int64_t StepGemm::copy_floats() const { return ld_copy * plans[0].desc.k; }

int64_t StepGemm::tmp_floats() const { return ld_copy && transposed ? kernels::kRnnTransposeRows * plans[0].desc.k : 0; }

const void *StepGemm::b(const core::LaunchArgs &a, const Io &w, float *copy, float *tmp) const {
  if (ld_copy == 0) return w.ref.address(a);
  if (transposed) {
    kernels::rnn_load_f32_transposed(w.dtype, w.ref.address(a), w.view, copy, ld_copy, tmp);
  } else {
    const int64_t fs[2] = {ld_copy, 1};
    w.load(a, copy, fs);
  }
  return copy;
}

void check_dims(const RnnArg &a, std::initializer_list<int64_t> dims, const char *what) {
  if (a.t == nullptr) return;
  core::Shape want;
  want.ndim = static_cast<int>(dims.size());
  int k = 0;
  for (int64_t d : dims) want.dims[k++] = d;
  if (!(core::Shape::of(*a.t) == want))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be %s %s", a.name, core::shape_string(*a.t).c_str(),
                what, want.str().c_str());
}

void check_same_dtype(const RnnArg &a, aclDataType dt, const char *like) {
  if (a.t != nullptr && a.t->dtype != dt)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", a.name,
                core::dtype_name(a.t->dtype), like, core::dtype_name(dt));
}

void check_outputs_apart(std::initializer_list<const RnnArg *> outs, std::initializer_list<const RnnArg *> all) {
  core::check_outputs_apart<RnnArg>(outs, all);
}

}  // namespace rnn

void rnn_phase1(core::OpBuilder &b, const RnnRule &rule, const RnnCall &c) {
  switch (rule.kind) {
    case RnnKind::kFusedLstmCell: return rnn::fused_cell_forward(b, rule, c);
    case RnnKind::kFusedLstmCellBackward: return rnn::fused_cell_backward(b, rule, c);
    case RnnKind::kLstm:
    case RnnKind::kGru: return rnn::sequence_forward(b, rule, c);
    case RnnKind::kLstmBackward:
    case RnnKind::kGruBackward: return rnn::sequence_backward(b, rule, c);
    case RnnKind::kBidirectionLstm: return rnn::bidirection_lstm_forward(b, rule, c);
  }
}

}  // namespace opsnn::ops
