// aclnnLstmBackward / aclnnGRUBackward: backpropagation through time from the forward's saved
// per-step lists (rnn_phase1.h). Per (layer, direction), last layer first, the steps run in reverse
// order of the forward's: the cell gradient (kernels/rnn/rnn_cell.h) into the gate-gradient rows
// dG_t, then dh_{t-1} = dG_t @ W_hh (one GEMM per step, over the step's rows when packed). After the
// steps, three GEMMs over all timesteps: the layer input's gradient dG @ W_ih (both directions
// accumulate), dW_ih = dG^T @ in, dW_hh = dG^T @ h_prev (h_prev: each step's previous state, h0 where a
// sequence starts); the bias gradients are dG's column sums in double, rows in order. Padding rows of
// packed sequences keep zero gradients, so they add nothing.
#include <algorithm>

#include "common/error.h"
#include "core/op_checks.h"
#include "kernels/rnn/rnn_cell.h"
#include "ops/rnn/rnn_gemm.h"
#include "ops/rnn/rnn_parts.h"

namespace opsnn::ops::rnn {
namespace {

float *ws(const core::LaunchArgs &a, core::WsKey k) { return reinterpret_cast<float *>(a.get(k)); }

struct DirPlans {
  StepGemm rec;
  kernels::GemmPlan d_in, dw_ih, dw_hh;
};

struct SeqBackwardStep final : core::Step {
  SeqGeom g;
  bool batch_first = false, want_dx = true, want_dh = true, want_dc = true, want_dw = true;
  const kernels::RnnCellKernels *cell = nullptr;
  Io input, h0, c0, dy, dh, dc, dx, dh_prev, dc_prev, batch_sizes;
  std::vector<Io> params, dparams, saved[7];  // saved: LSTM i, g, f, o, h, c, tanhc; GRU r, z, n, hn, h
  std::vector<DirPlans> plans;                // per (layer, direction)
  core::WsKey k_x, k_in, k_dy, k_din, k_h0, k_c0, k_act, k_c, k_tc, k_hs, k_hprev, k_cprev, k_dg, k_dgh, k_dh, k_dc,
      k_dht, k_dw, k_db, k_gemm, k_sizes, k_w;
  int run(const core::LaunchArgs &a) const override;
};

// prev[t] = the state before step t of a direction: seq[t -+ 1] where the sequence ran at that step,
// else (its first step) init. rows[t]: the sequences running at step t.
void previous_states(const float *seq, const float *init, const int64_t *rows, int64_t T, int64_t B, int64_t H,
                     bool reverse, float *prev) {
  for (int64_t t = 0; t < T; ++t) {
    const int64_t tp = reverse ? t + 1 : t - 1;
    const int64_t ran = tp < 0 || tp >= T ? 0 : rows[tp];
    for (int64_t b = 0; b < B; ++b) {
      const float *src = b < ran ? seq + (tp * B + b) * H : init + b * H;
      std::copy(src, src + H, prev + (t * B + b) * H);
    }
  }
}

// Column sums of rows [n, cols] (row stride cols) in double, rows in order.
void column_sums(const float *m, int64_t n, int64_t cols, float *out) {
  for (int64_t j = 0; j < cols; ++j) {
    double s = 0.0;
    for (int64_t r = 0; r < n; ++r) s += m[r * cols + j];
    out[j] = static_cast<float>(s);
  }
}

int SeqBackwardStep::run(const core::LaunchArgs &a) const {
  const int64_t T = g.T, B = g.B, H = g.H, D = g.D, GH = g.G * H, DH = D * H, one[1] = {1}, s2[2] = {H, 1};
  const int64_t sH[3] = {B * H, H, 1};
  float *X = ws(a, k_x), *In = ws(a, k_in), *dY = ws(a, k_dy), *dIn = ws(a, k_din), *H0 = ws(a, k_h0);
  float *C0 = g.lstm ? ws(a, k_c0) : nullptr, *Act = ws(a, k_act), *Cc = ws(a, k_c), *TC = g.lstm ? ws(a, k_tc) : nullptr;
  float *Hs = ws(a, k_hs), *Hp = ws(a, k_hprev), *Cp = g.lstm ? ws(a, k_cprev) : nullptr, *DG = ws(a, k_dg);
  float *DGH = g.lstm ? nullptr : ws(a, k_dgh);
  float *dh_c = ws(a, k_dh), *dc_c = g.lstm ? ws(a, k_dc) : nullptr, *DHT = ws(a, k_dht), *DW = ws(a, k_dw), *DB = ws(a, k_db);
  char *scratch = a.get(k_gemm);
  int64_t *rows = reinterpret_cast<int64_t *>(a.get(k_sizes)), *off = rows + T;
  if (const int rc = read_batch_sizes(a, g, batch_sizes, rows, off)) return rc;
  const SeqRows seq{rows, off, T, B, g.packed, batch_first}, lists{rows, off, T, B, g.packed, false};
  if (want_dw) seq.load(a, input, X, g.I);
  seq.load(a, dy, dY, DH);
  h0.load(a, H0, sH);
  if (g.lstm) c0.load(a, C0, sH);
  const int64_t col[4] = {0, 2 * H, H, 3 * H};  // LSTM lists i, g, f, o; GRU r, z, n at q * H
  for (int64_t l = g.L - 1; l >= 0; --l) {
    const int64_t K = g.in_size(l);
    const float *in = X;
    if (l > 0 && want_dw) {  // the layer's input: the h lists of the layer below, both directions
      for (int64_t d = 0; d < D; ++d) lists.load(a, saved[4][static_cast<size_t>((l - 1) * D + d)], In + d * H, DH);
      in = In;
    }
    const bool need_din = l > 0 || want_dx;
    for (int64_t d = 0; d < D; ++d) {
      const int64_t ld = l * D + d;
      const size_t k = static_cast<size_t>(ld);
      const DirPlans &p = plans[k];
      for (int q = 0; q < (g.lstm ? 4 : 3); ++q) lists.load(a, saved[q][k], Act + (g.lstm ? col[q] : q * H), GH);
      lists.load(a, saved[g.lstm ? 5 : 3][k], Cc, H);  // LSTM c, GRU hn
      if (g.lstm) lists.load(a, saved[6][k], TC, H);
      lists.load(a, saved[4][k], Hs, H);
      previous_states(Hs, H0 + ld * B * H, rows, T, B, H, d == 1, Hp);
      if (g.lstm) previous_states(Cc, C0 + ld * B * H, rows, T, B, H, d == 1, Cp);
      std::fill(DG, DG + T * B * GH, 0.0f);  // padding rows stay zero
      if (DGH) std::fill(DGH, DGH + T * B * GH, 0.0f);
      dh.at(ld).load(a, dh_c, s2);
      if (g.lstm) dc.at(ld).load(a, dc_c, s2);
      const Io &w_ih = params[static_cast<size_t>(ld * g.P)], &w_hh = params[static_cast<size_t>(ld * g.P + 1)];
      const void *whh = p.rec.b(a, w_hh, ws(a, k_w), nullptr);
      for (int64_t s = 0; s < T; ++s) {
        const int64_t t = d == 0 ? T - 1 - s : s, n = rows[t];
        for (int64_t b = 0; b < n; ++b)
          for (int64_t j = 0; j < H; ++j) DHT[b * H + j] = dY[(t * B + b) * DH + d * H + j] + dh_c[b * H + j];
        if (g.lstm) {
          kernels::LstmCellBwd c;
          c.rows = n, c.hidden = H, c.act = Act + t * B * GH, c.ld_act = GH;
          c.c_prev = Cp + t * B * H, c.ld_c_prev = H, c.c = Cc + t * B * H, c.ld_c = H;
          c.tanhc = TC + t * B * H, c.ld_tanhc = H, c.dh = DHT, c.ld_dh = H, c.dc = dc_c, c.ld_dc = H;
          c.dgates = DG + t * B * GH, c.ld_dgates = GH, c.dc_prev = dc_c, c.ld_dc_prev = H;
          cell->lstm_backward(c);
          kernels::gemm_run_rows(p.rec.plans[0], n, DG + t * B * GH, whh, dh_c, scratch);
        } else {
          kernels::GruCellBwd c;
          c.rows = n, c.hidden = H, c.act = Act + t * B * GH, c.ld_act = GH, c.hn = Cc + t * B * H, c.ld_hn = H;
          c.h_prev = Hp + t * B * H, c.ld_h_prev = H, c.dh = DHT, c.ld_dh = H;
          c.dgx = DG + t * B * GH, c.ld_dgx = GH, c.dgh = DGH + t * B * GH, c.ld_dgh = GH, c.dh_prev = dh_c;
          c.ld_dh_prev = H;
          cell->gru_backward(c);
          kernels::gemm_run_rows(p.rec.plans[0], n, DGH + t * B * GH, whh, dh_c, scratch);  // beta 1: + z dh
        }
      }
      if (want_dh) dh_prev.at(ld).store(a, dh_c, s2);
      if (g.lstm && want_dc) dc_prev.at(ld).store(a, dc_c, s2);
      if (need_din) kernels::gemm_run(p.d_in, DG, w_ih.ref.address(a), dIn, scratch);
      if (want_dw) {
        const float *dgh = g.lstm ? DG : DGH;
        const int64_t sw[2] = {K, 1};
        kernels::gemm_run(p.dw_ih, DG, in, DW, scratch);
        dparams[static_cast<size_t>(ld * g.P)].store(a, DW, sw);
        kernels::gemm_run(p.dw_hh, dgh, Hp, DW, scratch);
        dparams[static_cast<size_t>(ld * g.P + 1)].store(a, DW, s2);
        if (g.P == 4) {
          column_sums(DG, T * B, GH, DB);
          dparams[static_cast<size_t>(ld * g.P + 2)].store(a, DB, one);
          if (!g.lstm) column_sums(DGH, T * B, GH, DB);
          dparams[static_cast<size_t>(ld * g.P + 3)].store(a, DB, one);
        }
      }
    }
    if (l > 0) std::copy(dIn, dIn + T * B * DH, dY);  // the layer below's output gradient
  }
  if (want_dx) seq.store(a, dx, dIn, g.I);
  return 0;
}

// outputMask: null = every gradient; else (dx, dhPrev, dcPrev, dparams) for the LSTM.
bool mask_at(const RnnCall &c, size_t i) { return c.output_mask == nullptr || c.output_mask->values[i]; }

}  // namespace

void sequence_backward(core::OpBuilder &b, const RnnRule &rule, const RnnCall &c) {
  const SeqGeom g = check_sequence(rule, c);
  const int64_t T = g.T, B = g.B, H = g.H, D = g.D, GH = g.G * H, DH = D * H, LD = g.ld();
  if (c.output_mask != nullptr && c.output_mask->values.size() != 4)
    throw_error(ACLNN_ERR_PARAM_INVALID, "outputMask has %zu values; it must have 4 (dxOut, dhPrevOut, dcPrevOut, "
                "dparamsOut)", c.output_mask->values.size());
  const bool want_dx = mask_at(c, 0), want_dh = mask_at(c, 1), want_dc = g.lstm && mask_at(c, 2), want_dw = mask_at(c, 3);
  check_same_dtype(c.dy, g.dt, c.input.name);
  check_seq_dims(g, c.dy, DH, c.batch_first);
  for (const RnnArg *s : {&c.dh, &c.dc}) {
    if (s == &c.dc && !g.lstm) continue;
    core::check_not_null(s->t, s->name);
    check_same_dtype(*s, g.dt, c.input.name);
    check_dims(*s, {LD, B, H}, "[numLayers * directions, B, hiddenSize] =");
  }
  const std::vector<const RnnList *> lists = g.lstm
      ? std::vector<const RnnList *>{&c.i, &c.g, &c.f, &c.o, &c.h, &c.c, &c.tanhc}
      : std::vector<const RnnList *>{&c.r, &c.z, &c.n, &c.hn, &c.h};
  for (const RnnList *l : lists) check_saved_lists(g, {l}, false);
  // The wanted outputs.
  if (want_dx) {
    core::check_not_null(c.dx.t, c.dx.name);
    check_same_dtype(c.dx, g.dt, c.input.name);
    check_seq_dims(g, c.dx, g.I, c.batch_first);
  }
  for (const RnnArg *s : {&c.dh_prev, &c.dc_prev}) {
    if (s == &c.dc_prev ? !want_dc : !want_dh) continue;
    core::check_not_null(s->t, s->name);
    check_same_dtype(*s, g.dt, c.input.name);
    check_dims(*s, {LD, B, H}, "[numLayers * directions, B, hiddenSize] =");
  }
  if (want_dw) {
    core::check_not_null(c.dparams.l, c.dparams.name);
    const auto &ps = c.params.l->tensors, &dps = c.dparams.l->tensors;
    if (dps.size() != ps.size())
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %zu tensors; it must have params' %zu", c.dparams.name, dps.size(),
                  ps.size());
    for (size_t k = 0; k < ps.size(); ++k) {
      const std::string name = std::string(c.dparams.name) + "[" + std::to_string(k) + "]";
      const RnnArg a{dps[k], name.c_str()};
      core::check_not_null(a.t, a.name);
      check_same_dtype(a, g.dt, c.input.name);
      if (!(core::Shape::of(*dps[k]) == core::Shape::of(*ps[k])))
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must have params[%zu]'s shape %s", a.name,
                    core::shape_string(*dps[k]).c_str(), k, core::shape_string(*ps[k]).c_str());
    }
  }
  check_outputs_apart({want_dx ? &c.dx : &c.input, want_dh ? &c.dh_prev : &c.input, want_dc ? &c.dc_prev : &c.input},
                      {&c.input, &c.dy, &c.dh, &c.dc, &c.dx, &c.dh_prev, &c.dc_prev});

  auto &s = b.add_step<SeqBackwardStep>();
  s.cell = &kernels::rnn_cell_kernels(g.lstm ? "lstm_cell_backward_rows" : "gru_cell_backward_rows");
  s.g = g, s.batch_first = c.batch_first;
  s.want_dx = want_dx, s.want_dh = want_dh, s.want_dc = want_dc, s.want_dw = want_dw;
  // Registration in prototype order.
  s.input = Io::reg(b, c.input.t, false);
  if (g.lstm) {
    const std::vector<Io> hx = reg_list(b, 1, c.hx, false);
    s.h0 = hx[0], s.c0 = hx[1];
    s.params = reg_list(b, 2, c.params, false);
  } else {
    s.params = reg_list(b, 1, c.params, false);
    s.h0 = Io::reg(b, c.hx_tensor.t, false);
  }
  s.dy = Io::reg(b, c.dy.t, false);
  s.dh = Io::reg(b, c.dh.t, false);
  if (g.lstm) s.dc = Io::reg(b, c.dc.t, false);
  const size_t first_list = g.lstm ? 6 : 5;
  for (size_t q = 0; q < lists.size(); ++q) s.saved[q] = reg_list(b, first_list + q, *lists[q], false);
  s.batch_sizes = Io::reg(b, c.batch_sizes.t, false);
  // Outputs registered as given (the indices do not depend on outputMask); written when wanted.
  const Io dx = Io::reg(b, c.dx.t, true), dh_prev = Io::reg(b, c.dh_prev.t, true);
  const Io dc_prev = g.lstm ? Io::reg(b, c.dc_prev.t, true) : Io{};
  const std::vector<Io> dparams = reg_list(b, g.lstm ? 3 : 2, c.dparams, true);
  if (want_dx) s.dx = dx;
  if (want_dh) s.dh_prev = dh_prev;
  if (want_dc) s.dc_prev = dc_prev;
  if (want_dw) s.dparams = dparams;

  size_t gemm_bytes = 0;
  int64_t w_floats = 0;
  const int64_t KM = std::max(g.I, DH);
  for (int64_t l = 0; l < g.L; ++l)
    for (int64_t d = 0; d < D; ++d) {
      const int64_t ld = l * D + d, K = g.in_size(l);
      const Io &w_ih = s.params[static_cast<size_t>(ld * g.P)], &w_hh = s.params[static_cast<size_t>(ld * g.P + 1)];
      DirPlans p;
      const int64_t a_ld[2] = {GH, GH};
      p.rec = plan_step_gemm(B, H, GH, a_ld, w_hh, false, nullptr, g.lstm ? 0.0f : 1.0f);
      w_floats = std::max(w_floats, p.rec.copy_floats());
      p.d_in = plan_gemm(gemm_desc(T * B, K, GH, f32_rows(GH), weight(w_ih), f32_rows(K), nullptr, d == 0 ? 0.0f : 1.0f));
      p.dw_ih = plan_gemm(gemm_desc(GH, K, T * B, f32_cols(GH), f32_rows(l == 0 ? g.I : DH), f32_rows(K), nullptr, 0.0f));
      p.dw_hh = plan_gemm(gemm_desc(GH, H, T * B, f32_cols(GH), f32_rows(H), f32_rows(H), nullptr, 0.0f));
      for (const auto *q : {&p.rec.plans[0], &p.d_in, &p.dw_ih, &p.dw_hh}) gemm_bytes = std::max(gemm_bytes, q->workspace_bytes);
      s.plans.push_back(std::move(p));
    }
  s.k_x = book_f32(b, "rnn.input", T * B * g.I);
  s.k_in = book_f32(b, "rnn.layer_input", T * B * DH);
  s.k_dy = book_f32(b, "rnn.d_output", T * B * DH);
  s.k_din = book_f32(b, "rnn.d_input", T * B * KM);
  s.k_h0 = book_f32(b, "rnn.h0", LD * B * H);
  s.k_c0 = book_f32(b, "rnn.c0", g.lstm ? LD * B * H : 0);
  s.k_act = book_f32(b, "rnn.gates", T * B * GH);
  s.k_c = book_f32(b, g.lstm ? "rnn.c" : "rnn.hn", T * B * H);
  s.k_tc = book_f32(b, "rnn.tanhc", g.lstm ? T * B * H : 0);
  s.k_hs = book_f32(b, "rnn.h", T * B * H);
  s.k_hprev = book_f32(b, "rnn.h_prev", T * B * H);
  s.k_cprev = book_f32(b, "rnn.c_prev", g.lstm ? T * B * H : 0);
  s.k_dg = book_f32(b, "rnn.d_gates", T * B * GH);
  s.k_dgh = book_f32(b, "rnn.d_hidden_gates", g.lstm ? 0 : T * B * GH);
  s.k_dh = book_f32(b, "rnn.dh", B * H);
  s.k_dc = book_f32(b, "rnn.dc", B * H);
  s.k_dht = book_f32(b, "rnn.dh_step", B * H);
  s.k_dw = book_f32(b, "rnn.d_weight", GH * std::max(KM, H));
  s.k_db = book_f32(b, "rnn.d_bias", GH);
  s.k_gemm = b.book("gemm.scratch", gemm_bytes > 0 ? gemm_bytes : 64);
  s.k_sizes = b.book("rnn.batch_sizes", static_cast<uint64_t>(2 * T + 1) * sizeof(int64_t));
  s.k_w = book_f32(b, "rnn.step_weight", w_floats);
}

}  // namespace opsnn::ops::rnn
