// aclnnLSTM / aclnnGRU: the argument checks shared with their gradients, and the forward step
// (rnn_phase1.h has the layouts). All timesteps' input projections of a (layer, direction) are one
// GEMM ([T*B, I_l] @ W_ih^T + b_ih), the recurrent h @ W_hh^T one GEMM per step (B rows: the
// engine's small-M paths; W_hh^T laid out once per launch where they would re-pack it, StepGemm),
// the gate math kernels/rnn/rnn_cell.h.
#include <algorithm>

#include "common/error.h"
#include "core/op_checks.h"
#include "kernels/elementwise/convert.h"
#include "kernels/matmul/gemm.h"
#include "kernels/rnn/rnn_cell.h"
#include "ops/rnn/rnn_gemm.h"
#include "ops/rnn/rnn_parts.h"

namespace opsnn::ops::rnn {

void check_seq_dims(const SeqGeom &g, const RnnArg &a, int64_t feat, bool batch_first) {
  if (g.packed)
    check_dims(a, {g.N, feat}, "(packed) [sum(batchSizes), features] =");
  else if (batch_first)
    check_dims(a, {g.B, g.T, feat}, "[B, T, features] (batchFirst) =");
  else
    check_dims(a, {g.T, g.B, feat}, "[T, B, features] =");
}

void check_saved_lists(const SeqGeom &g, std::initializer_list<const RnnList *> saved, bool may_be_empty) {
  for (const RnnList *l : saved) {
    core::check_not_null(l->l, l->name);
    const size_t n = l->l->tensors.size();
    if (n == 0 && may_be_empty) continue;
    if (static_cast<int64_t>(n) != g.ld())
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %zu tensors; it must have numLayers * directions = %lld%s", l->name,
                  n, static_cast<long long>(g.ld()), may_be_empty ? " (or none)" : "");
    for (size_t k = 0; k < n; ++k) {
      const std::string name = std::string(l->name) + "[" + std::to_string(k) + "]";
      const RnnArg a{l->l->tensors[k], name.c_str()};
      core::check_not_null(a.t, a.name);
      check_same_dtype(a, g.dt, "input");
      check_seq_dims(g, a, g.H, false);
    }
  }
}

namespace {

// T, B, I of a padded input [T, B, I] ([B, T, I] batch first).
void padded_input_dims(SeqGeom &g, const RnnCall &c) {
  const aclTensor &x = *c.input.t;
  if (x.ndim != 3)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be 3-D, [T, B, inputSize] ([B, T, inputSize] "
                "with batchFirst)", c.input.name, core::shape_string(x).c_str());
  g.T = c.batch_first ? x.dims[1] : x.dims[0];
  g.B = c.batch_first ? x.dims[0] : x.dims[1];
  g.I = x.dims[2];
}

}  // namespace

SeqGeom check_sequence(const RnnRule &rule, const RnnCall &c) {
  SeqGeom g;
  g.lstm = rule.kind == RnnKind::kLstm || rule.kind == RnnKind::kLstmBackward;
  g.G = g.lstm ? 4 : 3;
  core::check_dtype_in(c.input.t, c.input.name, rule.dtypes);
  g.dt = c.input.t->dtype;
  const aclTensor &x = *c.input.t;
  g.packed = c.batch_sizes.t != nullptr;
  if (g.packed) {  // PyTorch's PackedSequence: data [N, I], batch sizes per step (non-increasing), B from hx
    core::check_dtype_in(c.batch_sizes.t, c.batch_sizes.name, {ACL_INT64, ACL_INT32});
    if (c.batch_sizes.t->ndim != 1 || x.ndim != 2)
      throw_error(ACLNN_ERR_PARAM_INVALID, "packed sequences: %s must be 1-D [T] (has %s) and %s 2-D [sum(batchSizes), "
                  "inputSize] (has %s)", c.batch_sizes.name, core::shape_string(*c.batch_sizes.t).c_str(), c.input.name,
                  core::shape_string(x).c_str());
    g.T = c.batch_sizes.t->dims[0];
    g.N = x.dims[0];
    g.I = x.dims[1];
    const aclTensor *h0 = g.lstm ? (c.hx.l != nullptr && !c.hx.l->tensors.empty() ? c.hx.l->tensors[0] : nullptr)
                                 : c.hx_tensor.t;
    g.B = h0 != nullptr && h0->ndim == 3 ? h0->dims[1] : 0;  // hx's shape is checked below
  } else {
    padded_input_dims(g, c);
  }
  if (c.num_layers < 1 || c.num_layers > 1024)
    throw_error(ACLNN_ERR_PARAM_INVALID, "numLayers must be 1 to 1024, got %lld", static_cast<long long>(c.num_layers));
  g.L = c.num_layers;
  g.D = c.bidirectional ? 2 : 1;
  g.P = c.has_bias ? 4 : 2;
  if (!(c.dropout >= 0.0 && c.dropout <= 1.0))
    throw_error(ACLNN_ERR_PARAM_INVALID, "dropout must be in [0, 1], got %g", c.dropout);
  if (c.dropout > 0.0 && c.train && g.L > 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "dropout %g between layers in training is not supported (use dropout 0)",
                c.dropout);
  // params: per (layer, direction) w_ih [G*H, I_l], w_hh [G*H, H] (+ b_ih, b_hh [G*H]).
  core::check_not_null(c.params.l, c.params.name);
  const auto &ps = c.params.l->tensors;
  if (static_cast<int64_t>(ps.size()) != g.L * g.D * g.P)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %zu tensors; numLayers %lld, %s, hasBias %s need %lld", c.params.name,
                ps.size(), static_cast<long long>(g.L), c.bidirectional ? "bidirectional" : "one direction",
                c.has_bias ? "true" : "false", static_cast<long long>(g.L * g.D * g.P));
  for (size_t k = 0; k < ps.size(); ++k)
    if (ps[k] == nullptr) throw_error(ACLNN_ERR_PARAM_NULLPTR, "%s[%zu] is null", c.params.name, k);
  if (ps[1]->ndim != 2)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s[1] (w_hh of layer 0) has shape %s; it must be [%lld * hiddenSize, "
                "hiddenSize]", c.params.name, core::shape_string(*ps[1]).c_str(), static_cast<long long>(g.G));
  g.H = ps[1]->dims[1];
  for (int64_t l = 0; l < g.L; ++l)
    for (int64_t d = 0; d < g.D; ++d)
      for (int64_t p = 0; p < g.P; ++p) {
        const int64_t k = (l * g.D + d) * g.P + p;
        const std::string name = std::string(c.params.name) + "[" + std::to_string(k) + "]";
        const RnnArg a{ps[static_cast<size_t>(k)], name.c_str()};
        check_same_dtype(a, g.dt, c.input.name);
        static const char *what[] = {"w_ih: [gates * hiddenSize, layer input size] =",
                                     "w_hh: [gates * hiddenSize, hiddenSize] =", "b_ih: [gates * hiddenSize] =",
                                     "b_hh: [gates * hiddenSize] ="};
        if (p == 0) check_dims(a, {g.G * g.H, g.in_size(l)}, what[0]);
        if (p == 1) check_dims(a, {g.G * g.H, g.H}, what[1]);
        if (p >= 2) check_dims(a, {g.G * g.H}, what[p]);
      }
  // hx: the LSTM's {h0, c0}, the GRU's h0; each [L*D, B, H].
  if (g.lstm) {
    core::check_not_null(c.hx.l, c.hx.name);
    if (c.hx.l->tensors.size() != 2)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %zu tensors; it must be {h0, c0}", c.hx.name, c.hx.l->tensors.size());
    const std::string n0 = std::string(c.hx.name) + "[0] (h0)", n1 = std::string(c.hx.name) + "[1] (c0)";
    for (const RnnArg &a : {RnnArg{c.hx.l->tensors[0], n0.c_str()}, RnnArg{c.hx.l->tensors[1], n1.c_str()}}) {
      core::check_not_null(a.t, a.name);
      check_same_dtype(a, g.dt, c.input.name);
      check_dims(a, {g.ld(), g.B, g.H}, "[numLayers * directions, B, hiddenSize] =");
    }
  } else {
    check_same_dtype(c.hx_tensor, g.dt, c.input.name);
    check_dims(c.hx_tensor, {g.ld(), g.B, g.H}, "[numLayers * directions, B, hiddenSize] =");
  }
  return g;
}

namespace {

float *ws(const core::LaunchArgs &a, core::WsKey k) { return reinterpret_cast<float *>(a.get(k)); }

struct SeqForwardStep final : core::Step {
  SeqGeom g;
  bool batch_first = false;
  const kernels::RnnCellKernels *cell = nullptr;
  Io input, h0, c0, output, hy, cy, batch_sizes;
  std::vector<Io> params;                       // L*D*P
  std::vector<Io> saved[7];                     // LSTM i, g, f, o, h, c, tanhc; GRU r, z, n, hn, h
  std::vector<kernels::GemmPlan> proj;           // per (layer, direction)
  std::vector<StepGemm> rec;                      // per (layer, direction)
  core::WsKey k_x, k_h0, k_c0, k_y, k_gates, k_c, k_tanhc, k_bias, k_gh, k_gemm, k_sizes, k_w, k_wtmp;

  const Io *bias(int64_t ld, int which) const {  // 0 b_ih, 1 b_hh
    return g.P == 4 ? &params[static_cast<size_t>(ld * g.P + 2 + which)] : nullptr;
  }
  int run(const core::LaunchArgs &a) const override;
};

int SeqForwardStep::run(const core::LaunchArgs &a) const {
  const int64_t T = g.T, B = g.B, H = g.H, D = g.D, GH = g.G * H, DH = D * H;
  float *X = ws(a, k_x), *H0 = ws(a, k_h0), *C0 = g.lstm ? ws(a, k_c0) : nullptr, *Y = ws(a, k_y);
  float *Gt = ws(a, k_gates), *Cs = ws(a, k_c), *TC = g.lstm ? ws(a, k_tanhc) : nullptr, *bias_f = ws(a, k_bias);
  float *GH_s = g.lstm ? nullptr : ws(a, k_gh);
  char *scratch = a.get(k_gemm);
  int64_t *rows = reinterpret_cast<int64_t *>(a.get(k_sizes)), *off = rows + T;
  if (const int rc = read_batch_sizes(a, g, batch_sizes, rows, off)) return rc;
  const SeqRows seq{rows, off, T, B, g.packed, batch_first};
  const int64_t hs[3] = {B * H, H, 1};
  seq.load(a, input, X, g.I);
  h0.load(a, H0, hs);
  if (g.lstm) c0.load(a, C0, hs);
  const int64_t per_ld = T * B;  // rows of one (layer, direction)'s buffers
  for (int64_t l = 0; l < g.L; ++l) {
    const float *in = l == 0 ? X : Y + (l - 1) * T * B * DH;
    float *Yl = Y + l * T * B * DH;
    if (g.packed) std::fill(Yl, Yl + T * B * DH, 0.0f);  // padding rows: the next layer's projection reads them
    for (int64_t d = 0; d < D; ++d) {
      const int64_t ld = l * D + d;
      const size_t k = static_cast<size_t>(ld);
      float *Gl = Gt + ld * per_ld * GH, *Cl = Cs + ld * per_ld * H, *TCl = TC ? TC + ld * per_ld * H : nullptr;
      const Io &w_ih = params[static_cast<size_t>(ld * g.P)], &w_hh = params[static_cast<size_t>(ld * g.P + 1)];
      const Io *b_ih = bias(ld, 0), *b_hh = bias(ld, 1);
      kernels::gemm_run(proj[k], in, w_ih.ref.address(a), Gl, scratch, b_ih ? b_ih->ref.address(a) : nullptr);
      const void *whh = rec[k].b(a, w_hh, ws(a, k_w), ws(a, k_wtmp));
      const float *bh = nullptr;
      if (g.lstm && b_hh) {
        const int64_t one[1] = {1};
        b_hh->load(a, bias_f, one);
        bh = bias_f;
      }
      for (int64_t s = 0; s < T; ++s) {
        const int64_t t = d == 0 ? s : T - 1 - s, tp = d == 0 ? t - 1 : t + 1, n = rows[t];
        if (s > 0 && d == 1 && n > rows[tp]) {  // packed, reverse: sequences ending at t start from h0 / c0
          for (int64_t b = rows[tp]; b < n; ++b) {
            std::copy(H0 + (ld * B + b) * H, H0 + (ld * B + b + 1) * H, Yl + (tp * B + b) * DH + d * H);
            if (g.lstm) std::copy(C0 + (ld * B + b) * H, C0 + (ld * B + b + 1) * H, Cl + (tp * B + b) * H);
          }
        }
        const float *hp = s == 0 ? H0 + ld * B * H : Yl + tp * B * DH + d * H;
        const int64_t ld_hp = s == 0 ? H : DH;
        const kernels::GemmPlan &rp = rec[k].plans[s == 0 ? 0 : 1];
        float *Gs = Gl + t * B * GH;
        if (g.lstm) {
          kernels::gemm_run_rows(rp, n, hp, whh, Gs, scratch);
          kernels::LstmCellFwd f;
          f.rows = n, f.hidden = H, f.pre = Gs, f.ld_pre = GH, f.bias = bh;
          f.c_prev = s == 0 ? C0 + ld * B * H : Cl + tp * B * H, f.ld_c_prev = H;
          f.act = Gs, f.ld_act = GH, f.c = Cl + t * B * H, f.ld_c = H, f.tanhc = TCl + t * B * H, f.ld_tanhc = H;
          f.h = Yl + t * B * DH + d * H, f.ld_h = DH;
          cell->lstm_forward(f);
        } else {
          kernels::gemm_run_rows(rp, n, hp, whh, GH_s, scratch, b_hh ? b_hh->ref.address(a) : nullptr);
          kernels::GruCellFwd f;
          f.rows = n, f.hidden = H, f.gx = Gs, f.ld_gx = GH, f.gh = GH_s, f.ld_gh = GH, f.h_prev = hp,
          f.ld_h_prev = ld_hp, f.act = Gs, f.ld_act = GH, f.hn = Cl + t * B * H, f.ld_hn = H;
          f.h = Yl + t * B * DH + d * H, f.ld_h = DH;
          cell->gru_forward(f);
        }
      }
      // hy / cy: each sequence's state after the direction's last step (h0 / c0 when T = 0).
      const int64_t one[1] = {1};
      for (int64_t b = 0; b < B; ++b) {
        int64_t tl = 0;  // forward: the sequence's last step; reverse: step 0
        if (d == 0) tl = g.packed ? std::count_if(rows, rows + T, [&](int64_t r) { return r > b; }) - 1 : T - 1;
        const Io hb = hy.at(ld).at(b), cb = g.lstm ? cy.at(ld).at(b) : Io{};
        if (T == 0) {
          hb.store(a, H0 + (ld * B + b) * H, one);
          if (g.lstm) cb.store(a, C0 + (ld * B + b) * H, one);
        } else {
          hb.store(a, Yl + (tl * B + b) * DH + d * H, one);
          if (g.lstm) cb.store(a, Cl + (tl * B + b) * H, one);
        }
      }
      // The per-step lists: gate slices of the gate rows, h from the layer's output, c / tanhc / hn.
      const SeqRows lists{rows, off, T, B, g.packed, false};
      const int64_t gate_col[4] = {0, 2 * H, H, 3 * H};  // LSTM lists i, g(j), f, o; GRU r, z, n
      for (int q = 0; q < (g.lstm ? 4 : 3); ++q)
        if (!saved[q].empty()) lists.store(a, saved[q][k], Gl + (g.lstm ? gate_col[q] : q * H), GH);
      // hOut is list 4 of both; LSTM cOut / tanhCOut are 5 / 6, GRU hnOut 3.
      if (!saved[4].empty()) lists.store(a, saved[4][k], Yl + d * H, DH);
      if (!saved[g.lstm ? 5 : 3].empty()) lists.store(a, saved[g.lstm ? 5 : 3][k], Cl, H);
      if (g.lstm && !saved[6].empty()) lists.store(a, saved[6][k], TCl, H);
    }
  }
  seq.store(a, output, Y + (g.L - 1) * T * B * DH, DH);
  return 0;
}

void plan_forward(core::OpBuilder &b, SeqForwardStep &s);

}  // namespace

void sequence_forward(core::OpBuilder &b, const RnnRule &rule, const RnnCall &c) {
  const SeqGeom g = check_sequence(rule, c);
  const int64_t DH = g.D * g.H;
  check_seq_dims(g, c.output, DH, c.batch_first);
  check_dims(c.hy, {g.ld(), g.B, g.H}, "[numLayers * directions, B, hiddenSize] =");
  if (g.lstm) check_dims(c.cy, {g.ld(), g.B, g.H}, "[numLayers * directions, B, hiddenSize] =");
  for (const RnnArg *a : {&c.output, &c.hy, &c.cy}) check_same_dtype(*a, g.dt, c.input.name);
  const std::vector<const RnnList *> lists = g.lstm
      ? std::vector<const RnnList *>{&c.i, &c.g, &c.f, &c.o, &c.h, &c.c, &c.tanhc}
      : std::vector<const RnnList *>{&c.r, &c.z, &c.n, &c.hn, &c.h};
  for (const RnnList *l : lists) check_saved_lists(g, {l}, true);
  check_outputs_apart({&c.output, &c.hy, &c.cy}, {&c.input, &c.output, &c.hy, &c.cy});

  auto &s = b.add_step<SeqForwardStep>();
  s.g = g;
  s.batch_first = c.batch_first;
  // Registration in prototype order: input, params, hx, (batchSizes: null), outputs, the lists.
  s.input = Io::reg(b, c.input.t, false);
  s.params = reg_list(b, 1, c.params, false);
  if (g.lstm) {
    const std::vector<Io> hx = reg_list(b, 2, c.hx, false);
    s.h0 = hx[0], s.c0 = hx[1];
  } else {
    s.h0 = Io::reg(b, c.hx_tensor.t, false);
  }
  s.batch_sizes = Io::reg(b, c.batch_sizes.t, false);
  s.output = Io::reg(b, c.output.t, true);
  s.hy = Io::reg(b, c.hy.t, true);
  if (g.lstm) s.cy = Io::reg(b, c.cy.t, true);
  const size_t first_list = g.lstm ? 3 : 2;  // output positions of the lists
  for (size_t q = 0; q < lists.size(); ++q) s.saved[q] = reg_list(b, first_list + q, *lists[q], true);
  plan_forward(b, s);
}

namespace {

// The GEMMs, planned now (fp32 workspace rows times the caller's weights read in place), and the
// workspace, of a step whose tensors are registered.
void plan_forward(core::OpBuilder &b, SeqForwardStep &s) {
  const SeqGeom &g = s.g;
  s.cell = &kernels::rnn_cell_kernels(g.lstm ? "lstm_cell_rows" : "gru_cell_rows");
  const int64_t T = g.T, B = g.B, H = g.H, GH = g.G * H, LD = g.ld(), DH = g.D * H;
  size_t gemm_bytes = 0;
  int64_t w_floats = 0, wtmp_floats = 0;
  for (int64_t l = 0; l < g.L; ++l)
    for (int64_t d = 0; d < g.D; ++d) {
      const int64_t ld = l * g.D + d;
      const Io &w_ih = s.params[static_cast<size_t>(ld * g.P)], &w_hh = s.params[static_cast<size_t>(ld * g.P + 1)];
      const Io *b_ih = g.P == 4 ? &s.params[static_cast<size_t>(ld * g.P + 2)] : nullptr;
      const Io *b_hh = g.P == 4 ? &s.params[static_cast<size_t>(ld * g.P + 3)] : nullptr;
      const int64_t K = g.in_size(l);
      s.proj.push_back(plan_gemm(gemm_desc(T * B, GH, K, f32_rows(K), weight_t(w_ih), f32_rows(GH), b_ih, 0.0f)));
      const bool gru = !g.lstm;
      // LSTM: gates_t += h_prev @ W_hh^T (b_hh in the cell); GRU: gh = h_prev @ W_hh^T + b_hh.
      const float beta = g.lstm ? 1.0f : 0.0f;
      const int64_t a_ld[2] = {H, DH};  // h0 rows, then the layer output's
      s.rec.push_back(plan_step_gemm(B, GH, H, a_ld, w_hh, true, gru ? b_hh : nullptr, beta));
      const StepGemm &r = s.rec.back();
      const kernels::GemmPlan &pr = s.proj.back();
      for (const kernels::GemmPlan *p : {&pr, &r.plans[0], &r.plans[1]})
        gemm_bytes = std::max(gemm_bytes, p->workspace_bytes);
      w_floats = std::max(w_floats, r.copy_floats());
      wtmp_floats = std::max(wtmp_floats, r.tmp_floats());
    }
  s.k_x = book_f32(b, "rnn.input", T * B * g.I);
  s.k_h0 = book_f32(b, "rnn.h0", LD * B * H);
  s.k_c0 = book_f32(b, "rnn.c0", g.lstm ? LD * B * H : 0);
  s.k_y = book_f32(b, "rnn.layer_outputs", g.L * T * B * DH);
  s.k_gates = book_f32(b, "rnn.gates", LD * T * B * GH);
  s.k_c = book_f32(b, g.lstm ? "rnn.c" : "rnn.hn", LD * T * B * H);
  s.k_tanhc = book_f32(b, "rnn.tanhc", g.lstm ? LD * T * B * H : 0);
  s.k_bias = book_f32(b, "rnn.bias", GH);
  s.k_gh = book_f32(b, "rnn.hidden_gates", g.lstm ? 0 : B * GH);
  s.k_gemm = b.book("gemm.scratch", gemm_bytes > 0 ? gemm_bytes : 64);
  s.k_sizes = b.book("rnn.batch_sizes", static_cast<uint64_t>(2 * T + 1) * sizeof(int64_t));
  s.k_w = book_f32(b, "rnn.step_weight", w_floats);
  s.k_wtmp = book_f32(b, "rnn.step_weight_rows", wtmp_floats);
}

}  // namespace

// aclnnBidirectionLSTM(V2): one layer (its weights are single tensors per direction) of the same
// forward, the weights and biases given one by one, no per-step lists.
void bidirection_lstm_forward(core::OpBuilder &b, const RnnRule &rule, const RnnCall &c) {
  core::check_dtype_in(c.input.t, c.input.name, rule.dtypes);
  SeqGeom g;
  g.dt = c.input.t->dtype;
  padded_input_dims(g, c);
  if (c.num_layers != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "numLayers must be 1 (one set of weights per direction is given), got %lld",
                static_cast<long long>(c.num_layers));
  if (c.packed || c.batch_sizes.t != nullptr)
    throw_error(ACLNN_ERR_PARAM_INVALID, "packed sequences (packed, %s) are not supported", c.batch_sizes.name);
  g.D = c.bidirectional ? 2 : 1;
  g.P = c.has_bias ? 4 : 2;
  if (c.w_hh.t->ndim != 2)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be [4 * hiddenSize, hiddenSize]", c.w_hh.name,
                core::shape_string(*c.w_hh.t).c_str());
  g.H = c.w_hh.t->dims[1];
  const int64_t GH = 4 * g.H;
  const RnnArg *w[2][4] = {{&c.w_ih, &c.w_hh, &c.b_ih, &c.b_hh}, {&c.w_ih_r, &c.w_hh_r, &c.b_ih_r, &c.b_hh_r}};
  for (int64_t d = 0; d < g.D; ++d)
    for (int64_t p = 0; p < g.P; ++p) {
      const RnnArg &a = *w[d][p];
      core::check_not_null(a.t, a.name);  // the reverse weights with bidirection, the biases with isbias
      check_same_dtype(a, g.dt, c.input.name);
      if (p == 0) check_dims(a, {GH, g.I}, "[4 * hiddenSize, inputSize] =");
      if (p == 1) check_dims(a, {GH, g.H}, "[4 * hiddenSize, hiddenSize] =");
      if (p >= 2) check_dims(a, {GH}, "[4 * hiddenSize] =");
    }
  for (const RnnArg *a : {&c.init_h, &c.init_c, &c.output, &c.hy, &c.cy}) check_same_dtype(*a, g.dt, c.input.name);
  for (const RnnArg *a : {&c.init_h, &c.init_c, &c.hy, &c.cy})
    check_dims(*a, {g.D, g.B, g.H}, "[directions, B, hiddenSize] =");
  check_seq_dims(g, c.output, g.D * g.H, c.batch_first);
  check_outputs_apart({&c.output, &c.hy, &c.cy}, {&c.input, &c.init_h, &c.init_c, &c.output, &c.hy, &c.cy});

  auto &s = b.add_step<SeqForwardStep>();
  s.g = g;
  s.batch_first = c.batch_first;
  s.input = Io::reg(b, c.input.t, false);
  s.h0 = Io::reg(b, c.init_h.t, false);
  s.c0 = Io::reg(b, c.init_c.t, false);
  Io regd[2][4];
  for (int d = 0; d < 2; ++d)
    for (int p = 0; p < 4; ++p) regd[d][p] = Io::reg(b, w[d][p]->t, false);  // prototype order, nulls included
  for (int64_t d = 0; d < g.D; ++d)
    for (int64_t p = 0; p < g.P; ++p) s.params.push_back(regd[d][p]);
  Io::reg(b, c.batch_sizes.t, false);
  s.output = Io::reg(b, c.output.t, true);
  s.hy = Io::reg(b, c.hy.t, true);
  s.cy = Io::reg(b, c.cy.t, true);
  plan_forward(b, s);
}

}  // namespace opsnn::ops::rnn
