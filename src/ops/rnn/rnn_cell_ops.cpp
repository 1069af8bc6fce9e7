// aclnnThnnFusedLstmCell and its gradient: one LSTM cell over [B, 4H] gates (rnn_phase1.h).
#include <vector>

#include "common/error.h"
#include "core/op_checks.h"
#include "kernels/rnn/rnn_cell.h"
#include "ops/rnn/rnn_parts.h"

namespace opsnn::ops::rnn {
namespace {

// Workspace blocks of fp32 rows, booked by key.
float *ws(const core::LaunchArgs &a, core::WsKey k) { return reinterpret_cast<float *>(a.get(k)); }

struct FusedCellStep final : core::Step {
  int64_t rows = 0, hidden = 0;
  const kernels::RnnCellKernels *cell = nullptr;
  Io ig, hg, cx, ib, hb, hy, cy, storage;
  core::WsKey k_ig, k_hg, k_bias, k_cx, k_c, k_h;
  int run(const core::LaunchArgs &a) const override {
    const int64_t g4[2] = {4 * hidden, 1}, g1[2] = {hidden, 1}, one[1] = {1};
    float *pig = ws(a, k_ig), *phg = ws(a, k_hg), *pcx = ws(a, k_cx), *pc = ws(a, k_c), *ph = ws(a, k_h);
    ig.load(a, pig, g4);
    hg.load(a, phg, g4);
    cx.load(a, pcx, g1);
    float *bias = nullptr;
    if (ib.present || hb.present) {  // ib + hb in fp32, as the gates' sum: ig + hg + ib + hb
      bias = ws(a, k_bias);
      const Io *bs[2] = {&ib, &hb};
      bool first = true;
      for (const Io *io : bs) {
        if (!io->present) continue;
        if (first) {
          io->load(a, bias, one);
          first = false;
        } else {
          float *t = bias + 4 * hidden;  // second half of the block
          io->load(a, t, one);
          for (int64_t j = 0; j < 4 * hidden; ++j) bias[j] += t[j];
        }
      }
    }
    kernels::LstmCellFwd f;
    f.rows = rows, f.hidden = hidden;
    f.pre = pig, f.ld_pre = 4 * hidden, f.pre2 = phg, f.ld_pre2 = 4 * hidden, f.bias = bias;
    f.c_prev = pcx, f.ld_c_prev = hidden;
    f.act = pig, f.ld_act = 4 * hidden;
    f.c = pc, f.ld_c = hidden, f.h = ph, f.ld_h = hidden;
    cell->lstm_forward(f);
    hy.store(a, ph, g1);
    cy.store(a, pc, g1);
    storage.store(a, pig, g4);
    return 0;
  }
};

struct FusedCellBackwardStep final : core::Step {
  int64_t rows = 0, hidden = 0;
  const kernels::RnnCellKernels *cell = nullptr;
  Io dh, dc, cx, cy, storage, dgates, dcx, dbias;
  core::WsKey k_act, k_cx, k_cy, k_dh, k_dc, k_dg, k_dcx, k_db;
  int run(const core::LaunchArgs &a) const override {
    const int64_t H = hidden, g4[2] = {4 * H, 1}, g1[2] = {H, 1}, one[1] = {1};
    float *act = ws(a, k_act), *pcx = ws(a, k_cx), *pcy = ws(a, k_cy), *pdg = ws(a, k_dg), *pdcx = ws(a, k_dcx);
    float *pdh = dh.present ? ws(a, k_dh) : nullptr, *pdc = dc.present ? ws(a, k_dc) : nullptr;
    storage.load(a, act, g4);
    cx.load(a, pcx, g1);
    cy.load(a, pcy, g1);
    if (pdh) dh.load(a, pdh, g1);
    if (pdc) dc.load(a, pdc, g1);
    kernels::LstmCellBwd k;
    k.rows = rows, k.hidden = H;
    k.act = act, k.ld_act = 4 * H, k.c_prev = pcx, k.ld_c_prev = H, k.c = pcy, k.ld_c = H;
    k.dh = pdh, k.ld_dh = H, k.dc = pdc, k.ld_dc = H;
    k.dgates = pdg, k.ld_dgates = 4 * H, k.dc_prev = pdcx, k.ld_dc_prev = H;
    cell->lstm_backward(k);
    dgates.store(a, pdg, g4);
    dcx.store(a, pdcx, g1);
    if (dbias.present) {  // the batch sum, rows in order, in double
      float *db = ws(a, k_db);
      for (int64_t j = 0; j < 4 * H; ++j) {
        double s = 0.0;
        for (int64_t r = 0; r < rows; ++r) s += pdg[r * 4 * H + j];
        db[j] = static_cast<float>(s);
      }
      dbias.store(a, db, one);
    }
    return 0;
  }
};

}  // namespace

void fused_cell_forward(core::OpBuilder &b, const RnnRule &rule, const RnnCall &c) {
  core::check_dtype_in(c.input_gates.t, c.input_gates.name, rule.dtypes);
  const aclDataType dt = c.input_gates.t->dtype;
  for (const RnnArg *a : {&c.hidden_gates, &c.cx, &c.input_bias, &c.hidden_bias, &c.hy, &c.cy, &c.storage})
    check_same_dtype(*a, dt, c.input_gates.name);
  const aclTensor &ig = *c.input_gates.t;
  if (ig.ndim != 2 || ig.dims[1] % 4 != 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be [B, 4 * hiddenSize]", c.input_gates.name,
                core::shape_string(ig).c_str());
  const int64_t B = ig.dims[0], H = ig.dims[1] / 4;
  check_dims(c.hidden_gates, {B, 4 * H}, "inputGates' shape");
  check_dims(c.cx, {B, H}, "[B, hiddenSize] =");
  check_dims(c.input_bias, {4 * H}, "[4 * hiddenSize] =");
  check_dims(c.hidden_bias, {4 * H}, "[4 * hiddenSize] =");
  check_dims(c.hy, {B, H}, "[B, hiddenSize] =");
  check_dims(c.cy, {B, H}, "[B, hiddenSize] =");
  check_dims(c.storage, {B, 4 * H}, "[B, 4 * hiddenSize] =");
  check_outputs_apart({&c.hy, &c.cy, &c.storage},
                      {&c.input_gates, &c.hidden_gates, &c.cx, &c.input_bias, &c.hidden_bias, &c.hy, &c.cy, &c.storage});
  auto &s = b.add_step<FusedCellStep>();
  s.cell = &kernels::rnn_cell_kernels("lstm_cell_rows");
  s.rows = B, s.hidden = H;
  s.ig = Io::reg(b, c.input_gates.t, false);
  s.hg = Io::reg(b, c.hidden_gates.t, false);
  s.cx = Io::reg(b, c.cx.t, false);
  s.ib = Io::reg(b, c.input_bias.t, false);
  s.hb = Io::reg(b, c.hidden_bias.t, false);
  s.hy = Io::reg(b, c.hy.t, true);
  s.cy = Io::reg(b, c.cy.t, true);
  s.storage = Io::reg(b, c.storage.t, true);
  s.k_ig = book_f32(b, "rnn.gates", B * 4 * H);
  s.k_hg = book_f32(b, "rnn.hidden_gates", B * 4 * H);
  s.k_bias = book_f32(b, "rnn.bias", 8 * H);
  s.k_cx = book_f32(b, "rnn.c_prev", B * H);
  s.k_c = book_f32(b, "rnn.c", B * H);
  s.k_h = book_f32(b, "rnn.h", B * H);
}

void fused_cell_backward(core::OpBuilder &b, const RnnRule &rule, const RnnCall &c) {
  core::check_dtype_in(c.storage.t, c.storage.name, rule.dtypes);
  const aclDataType dt = c.storage.t->dtype;
  for (const RnnArg *a : {&c.grad_hy, &c.grad_c, &c.cx, &c.cy, &c.grad_gates, &c.grad_cx, &c.grad_bias})
    check_same_dtype(*a, dt, c.storage.name);
  const aclTensor &st = *c.storage.t;
  if (st.ndim != 2 || st.dims[1] % 4 != 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be [B, 4 * hiddenSize]", c.storage.name,
                core::shape_string(st).c_str());
  const int64_t B = st.dims[0], H = st.dims[1] / 4;
  for (const RnnArg *a : {&c.grad_hy, &c.grad_c, &c.cx, &c.cy, &c.grad_cx}) check_dims(*a, {B, H}, "[B, hiddenSize] =");
  check_dims(c.grad_gates, {B, 4 * H}, "[B, 4 * hiddenSize] =");
  if (c.has_bias) {
    core::check_not_null(c.grad_bias.t, c.grad_bias.name);
    check_dims(c.grad_bias, {4 * H}, "[4 * hiddenSize] =");
  }
  const RnnArg *db = c.has_bias ? &c.grad_bias : nullptr;
  check_outputs_apart({&c.grad_gates, &c.grad_cx, db ? db : &c.grad_gates},
                      {&c.grad_hy, &c.grad_c, &c.cx, &c.cy, &c.storage, &c.grad_gates, &c.grad_cx, &c.grad_bias});
  auto &s = b.add_step<FusedCellBackwardStep>();
  s.cell = &kernels::rnn_cell_kernels("lstm_cell_backward_rows");
  s.rows = B, s.hidden = H;
  s.dh = Io::reg(b, c.grad_hy.t, false);
  s.dc = Io::reg(b, c.grad_c.t, false);
  s.cx = Io::reg(b, c.cx.t, false);
  s.cy = Io::reg(b, c.cy.t, false);
  s.storage = Io::reg(b, c.storage.t, false);
  s.dgates = Io::reg(b, c.grad_gates.t, true);
  s.dcx = Io::reg(b, c.grad_cx.t, true);
  Io dbias = Io::reg(b, c.grad_bias.t, true);  // registered when given (prototype order)
  if (c.has_bias) s.dbias = dbias;
  s.k_act = book_f32(b, "rnn.gates", B * 4 * H);
  s.k_cx = book_f32(b, "rnn.c_prev", B * H);
  s.k_cy = book_f32(b, "rnn.c", B * H);
  s.k_dh = book_f32(b, "rnn.dh", B * H);
  s.k_dc = book_f32(b, "rnn.dc", B * H);
  s.k_dg = book_f32(b, "rnn.dgates", B * 4 * H);
  s.k_dcx = book_f32(b, "rnn.dc_prev", B * H);
  s.k_db = book_f32(b, "rnn.dbias", 4 * H);
}

}  // namespace opsnn::ops::rnn
