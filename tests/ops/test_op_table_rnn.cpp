// The test harness of the recurrent table (src/ops/rnn/rnn.ops), cases registered from the table by
// tools/gen_ops.py --tests (rnn_table_cases.inc), each suite over the cases of its kind. Against float64
// references built on the cell formulas of tests/common/float64_refs.h (lstm_cell_ref / gru_cell_ref
// and their gradients, themselves checked here against central differences):
//   - the fused LSTM cell and its gradient: random [B, 4H] (B = 0 included), every dtype, biases or
//     not, contiguous and padded + offset views (nothing written outside them), the gradient op
//     against central differences of the forward op;
//   - LSTM / GRU stacks (seq_ref: 1-3 layers, bidirectional, batchFirst, bias or not, T = 0 included;
//     packed sequences against every sequence run alone) in every dtype, transposed weights and padded
//     views, every output and per-step list; their gradients against backpropagation through time
//     (seq_grad_ref) with outputMask variants and against central differences of the forward ops;
//   - BidirectionLSTM (V2): one layer with the weights one by one;
//   - errors: each argument named (null 161001; counts, shapes, dtypes, flags 161002; batch sizes
//     checked at launch).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "float64_refs.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct RnnArgs {
  aclTensor *input_gates = nullptr, *hidden_gates = nullptr, *cx = nullptr, *input_bias = nullptr,
            *hidden_bias = nullptr, *hy = nullptr, *cy = nullptr, *storage = nullptr;
  aclTensor *grad_hy = nullptr, *grad_c = nullptr, *grad_gates = nullptr, *grad_cx = nullptr, *grad_bias = nullptr;
  aclTensor *input = nullptr, *batch_sizes = nullptr, *output = nullptr, *dy = nullptr, *dh = nullptr, *dc = nullptr,
            *dx = nullptr, *dh_prev = nullptr, *dc_prev = nullptr, *hx_tensor = nullptr;
  aclTensor *init_h = nullptr, *init_c = nullptr, *w_ih = nullptr, *w_hh = nullptr, *b_ih = nullptr, *b_hh = nullptr,
            *w_ih_r = nullptr, *w_hh_r = nullptr, *b_ih_r = nullptr, *b_hh_r = nullptr;
  bool packed = false;
  aclTensorList *params = nullptr, *dparams = nullptr, *hx = nullptr, *i = nullptr, *g = nullptr, *f = nullptr,
                *o = nullptr, *h = nullptr, *c = nullptr, *tanhc = nullptr, *r = nullptr, *z = nullptr, *n = nullptr,
                *hn = nullptr;
  bool has_bias = false, train = false, bidirectional = false, batch_first = false;
  int64_t num_layers = 1;
  double dropout = 0.0;
  aclBoolArray *output_mask = nullptr;
};

struct RnnTableCase {
  std::string name, api, kind;
  std::vector<aclDataType> dtypes;
  int (*phase1)(const RnnArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  harness::Launch launch = nullptr;
};
void PrintTo(const RnnTableCase &c, std::ostream *os) { *os << c.name; }

#include "rnn_table_cases.inc"

std::vector<RnnTableCase> cases_of(const char *kind) {
  std::vector<RnnTableCase> v;
  for (const RnnTableCase &c : harness::sampled(rnn_table_cases()))
    if (c.kind == kind) v.push_back(c);
  return v;
}

using Dev = std::unique_ptr<DeviceTensor>;

int64_t pick(std::mt19937_64 &g, int64_t lo, int64_t hi) {
  return lo + static_cast<int64_t>(g() % static_cast<uint64_t>(hi - lo + 1));
}

// Contiguous, or every dim padded by one with an offset.
Dev make(const std::vector<int64_t> &shape, aclDataType dt, bool strided) {
  return strided ? padded_view(shape, dt) : std::make_unique<DeviceTensor>(shape, dt);
}

::testing::AssertionResult phase1_fails(const RnnTableCase &c, const RnnArgs &a, int code,
                                        std::initializer_list<const char *> needles) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  return fails_with(c.phase1(a, &ws, &ex), code, needles);
}

std::vector<double> row(const std::vector<double> &v, int64_t r, int64_t n) {
  return std::vector<double>(v.begin() + r * n, v.begin() + (r + 1) * n);
}
void put(std::vector<double> &v, int64_t r, const std::vector<double> &x) {
  std::copy(x.begin(), x.end(), v.begin() + r * static_cast<int64_t>(x.size()));
}
std::vector<double> rounded(aclDataType dt, std::vector<double> v) {
  for (double &x : v) x = round_to(dt, x);
  return v;
}

int run(const RnnTableCase &c, const RnnArgs &a) {
  return run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
}

// ---------------------------------------------------------------------------------------------
// The fused cell

// The cell's pre-activations from the op's inputs (the gates and the optional biases).
std::vector<double> cell_pre(const std::vector<double> &ig, const std::vector<double> &hg, const std::vector<double> &ib,
                             const std::vector<double> &hb, int64_t b, int64_t H) {
  std::vector<double> p(static_cast<size_t>(4 * H));
  for (int64_t j = 0; j < 4 * H; ++j) {
    const size_t k = static_cast<size_t>(b * 4 * H + j);
    p[static_cast<size_t>(j)] = ig[k] + hg[k] + (ib.empty() ? 0 : ib[static_cast<size_t>(j)]) +
                                 (hb.empty() ? 0 : hb[static_cast<size_t>(j)]);
  }
  return p;
}

// A tensor argument of the fused cells' error tests, with a wrong-dtype and a wrong-shape stand-in.
struct Field {
  aclTensor *RnnArgs::*m;
  const char *name;
  bool optional;
  aclTensor *bad_dtype, *bad_shape;
};

// Each argument null (161001, or accepted when optional), of a wrong dtype and of a wrong shape
// (161002), the message naming it.
void expect_argument_errors(const RnnTableCase &c, const RnnArgs &good, std::initializer_list<Field> fields) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  for (const Field &f : fields) {
    RnnArgs a = good;
    a.*f.m = nullptr;
    if (f.optional)
      EXPECT_EQ(c.phase1(a, &ws, &ex), 0) << aclGetRecentErrMsg();
    else
      EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {c.api.c_str(), f.name})) << f.name;
    a = good;
    a.*f.m = f.bad_dtype;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {c.api.c_str(), f.name, "dtype"})) << f.name;
    a = good;
    a.*f.m = f.bad_shape;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {c.api.c_str(), f.name, "shape"})) << f.name;
  }
}

class OpTableRnnFusedCell : public ::testing::TestWithParam<RnnTableCase> {};

TEST_P(OpTableRnnFusedCell, RandomShapesDtypesViews) {
  reseed_for_current_test();
  const RnnTableCase &c = GetParam();
  auto &g = rng();
  int v = 0;
  for (aclDataType dt : c.dtypes)
    for (int k = 0; k < 6; ++k, ++v) {
      const int64_t B = v % 7 == 6 ? 0 : pick(g, 1, 5), H = k == 5 ? 37 : pick(g, 1, 9);
      const bool bias = v % 3 != 2, strided = v % 2 == 1;
      SCOPED_TRACE(::testing::Message() << "dtype " << dt << " B " << B << " H " << H << (bias ? " bias" : "")
                                        << (strided ? " strided" : ""));
      Dev ig = make({B, 4 * H}, dt, strided), hg = make({B, 4 * H}, dt, !strided), cx = make({B, H}, dt, strided),
          ib = make({4 * H}, dt, strided), hb = make({4 * H}, dt, false), hy = make({B, H}, dt, strided),
          cy = make({B, H}, dt, !strided), st = make({B, 4 * H}, dt, strided);
      for (DeviceTensor *t : {ig.get(), hg.get(), ib.get(), hb.get()}) t->fill_random(-2, 2);
      cx->fill_random(-3, 3);
      for (DeviceTensor *t : {hy.get(), cy.get(), st.get()}) t->poison();
      RnnArgs a;
      a.input_gates = *ig, a.hidden_gates = *hg, a.cx = *cx;
      if (bias) a.input_bias = *ib, a.hidden_bias = *hb;
      a.hy = *hy, a.cy = *cy, a.storage = *st;
      ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
      const std::vector<double> igv = ig->values(), hgv = hg->values(), cxv = cx->values();
      const std::vector<double> ibv = bias ? ib->values() : std::vector<double>{}, hbv = bias ? hb->values() : ibv;
      std::vector<double> eh(static_cast<size_t>(B * H)), ec(eh.size()), es(static_cast<size_t>(B * 4 * H));
      for (int64_t b = 0; b < B; ++b) {
        const auto r = refs::lstm_cell_ref(cell_pre(igv, hgv, ibv, hbv, b, H), row(cxv, b, H));
        put(eh, b, r.h), put(ec, b, r.c), put(es, b, r.act);
      }
      EXPECT_TRUE(meets_precision(dt, hy->values(), rounded(dt, eh))) << "hyOut";
      EXPECT_TRUE(meets_precision(dt, cy->values(), rounded(dt, ec))) << "cyOut";
      EXPECT_TRUE(meets_precision(dt, st->values(), rounded(dt, es))) << "storageOut";
      for (DeviceTensor *t : {hy.get(), cy.get(), st.get()}) EXPECT_TRUE(t->untouched_outside_view());
    }
}

// NaN, infinities and saturating gates: sigmoid / tanh reach 0 / +-1 and NaN propagates, as in double.
TEST_P(OpTableRnnFusedCell, SpecialValues) {
  const RnnTableCase &c = GetParam();
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> specials{nan, inf, -inf, 100, -100, 0, -0.0, 1e-30};
  const int64_t B = 2, H = static_cast<int64_t>(specials.size());
  for (aclDataType dt : c.dtypes) {
    SCOPED_TRACE(::testing::Message() << "dtype " << dt);
    DeviceTensor ig({B, 4 * H}, dt), hg({B, 4 * H}, dt), cx({B, H}, dt), hy({B, H}, dt), cy({B, H}, dt),
        st({B, 4 * H}, dt);
    std::vector<double> igv(static_cast<size_t>(B * 4 * H)), cxv(static_cast<size_t>(B * H));
    for (size_t i = 0; i < igv.size(); ++i) igv[i] = specials[(i * 5 + i / 7) % specials.size()];
    for (size_t i = 0; i < cxv.size(); ++i) cxv[i] = specials[(i * 3 + 1) % specials.size()];
    ig.set_values(igv), cx.set_values(cxv);
    hg.set_values(std::vector<double>(igv.size(), 0.5));
    RnnArgs a;
    a.input_gates = ig, a.hidden_gates = hg, a.cx = cx, a.hy = hy, a.cy = cy, a.storage = st;
    ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
    const std::vector<double> igr = ig.values(), hgr = hg.values(), cxr = cx.values();
    std::vector<double> eh(static_cast<size_t>(B * H)), ec(eh.size()), es(igv.size());
    for (int64_t b = 0; b < B; ++b) {
      const auto r = refs::lstm_cell_ref(cell_pre(igr, hgr, {}, {}, b, H), row(cxr, b, H));
      put(eh, b, r.h), put(ec, b, r.c), put(es, b, r.act);
    }
    EXPECT_TRUE(meets_precision(dt, hy.values(), rounded(dt, eh))) << "hyOut";
    EXPECT_TRUE(meets_precision(dt, cy.values(), rounded(dt, ec))) << "cyOut";
    EXPECT_TRUE(meets_precision(dt, st.values(), rounded(dt, es))) << "storageOut";
  }
}

TEST_P(OpTableRnnFusedCell, ErrorsNameTheArgument) {
  const RnnTableCase &c = GetParam();
  DeviceTensor ig({2, 12}, ACL_FLOAT), hg({2, 12}, ACL_FLOAT), cx({2, 3}, ACL_FLOAT), ib({12}, ACL_FLOAT),
      hb({12}, ACL_FLOAT), hy({2, 3}, ACL_FLOAT), cy({2, 3}, ACL_FLOAT), st({2, 12}, ACL_FLOAT);
  for (DeviceTensor *t : {&ig, &hg, &cx, &ib, &hb}) t->fill_random(-1, 1);
  RnnArgs good;
  good.input_gates = ig, good.hidden_gates = hg, good.cx = cx, good.input_bias = ib, good.hidden_bias = hb;
  good.hy = hy, good.cy = cy, good.storage = st;
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  DeviceTensor d12({2, 12}, ACL_DOUBLE), h12({2, 12}, ACL_FLOAT16), h3({2, 3}, ACL_BF16), h1({12}, ACL_FLOAT16),
      w13({2, 13}, ACL_FLOAT), w4({2, 4}, ACL_FLOAT), w11({11}, ACL_FLOAT), b3({3, 3}, ACL_FLOAT);
  expect_argument_errors(c, good,
                         {{&RnnArgs::input_gates, "inputGates", false, d12, w13},
                          {&RnnArgs::hidden_gates, "hiddenGates", false, h12, w13},
                          {&RnnArgs::cx, "cx", false, h3, w4},
                          {&RnnArgs::input_bias, "inputBiasOptional", true, h1, w11},
                          {&RnnArgs::hidden_bias, "hiddenBiasOptional", true, h1, w11},
                          {&RnnArgs::hy, "hyOut", false, h3, b3},
                          {&RnnArgs::cy, "cyOut", false, h3, w4},
                          {&RnnArgs::storage, "storageOut", false, h12, w13}});
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  RnnArgs a = good;
  a.hy = cx;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {c.api.c_str(), "hyOut"}));
}

// The fused cell's forward case (the backward suites run it to make their inputs).
const RnnTableCase &fused_forward() {
  static const RnnTableCase f = [] {
    for (const RnnTableCase &c : rnn_table_cases())
      if (c.kind == "fused_lstm_cell") return c;
    return RnnTableCase{};
  }();
  return f;
}

struct CellRun {
  Dev ig, hg, cx, ib, hb, hy, cy, st;
};
// Runs the forward op on random gates in FLOAT into fresh tensors of dtype dt.
CellRun forward_cell(aclDataType dt, int64_t B, int64_t H, bool bias) {
  CellRun r;
  r.ig = make({B, 4 * H}, dt, false), r.hg = make({B, 4 * H}, dt, false), r.cx = make({B, H}, dt, false);
  r.ib = make({4 * H}, dt, false), r.hb = make({4 * H}, dt, false);
  r.hy = make({B, H}, dt, false), r.cy = make({B, H}, dt, false), r.st = make({B, 4 * H}, dt, false);
  for (DeviceTensor *t : {r.ig.get(), r.hg.get(), r.ib.get(), r.hb.get()}) t->fill_random(-2, 2);
  r.cx->fill_random(-3, 3);
  RnnArgs a;
  a.input_gates = *r.ig, a.hidden_gates = *r.hg, a.cx = *r.cx;
  if (bias) a.input_bias = *r.ib, a.hidden_bias = *r.hb;
  a.hy = *r.hy, a.cy = *r.cy, a.storage = *r.st;
  EXPECT_EQ(run(fused_forward(), a), 0) << aclGetRecentErrMsg();
  return r;
}

class OpTableRnnFusedCellBackward : public ::testing::TestWithParam<RnnTableCase> {};

TEST_P(OpTableRnnFusedCellBackward, RandomShapesDtypesViews) {
  reseed_for_current_test();
  const RnnTableCase &c = GetParam();
  auto &g = rng();
  int v = 0;
  for (aclDataType dt : c.dtypes)
    for (int k = 0; k < 6; ++k, ++v) {
      const int64_t B = v % 7 == 6 ? 0 : pick(g, 1, 5), H = k == 5 ? 37 : pick(g, 1, 9);
      const bool bias = v % 3 != 2, strided = v % 2 == 1, with_dh = v % 5 != 3, with_dc = v % 5 != 4;
      SCOPED_TRACE(::testing::Message() << "dtype " << dt << " B " << B << " H " << H << (bias ? " hasBias" : "")
                                        << (strided ? " strided" : "") << (with_dh ? " dh" : "") << (with_dc ? " dc" : ""));
      CellRun f = forward_cell(dt, B, H, true);
      // The backward's inputs as views of their own (strided copies of the forward's results).
      Dev cx = make({B, H}, dt, strided), cy = make({B, H}, dt, !strided), st = make({B, 4 * H}, dt, strided),
          dh = make({B, H}, dt, strided), dc = make({B, H}, dt, false), dg = make({B, 4 * H}, dt, strided),
          dcx = make({B, H}, dt, !strided), db = make({4 * H}, dt, strided);
      cx->set_values(f.cx->values()), cy->set_values(f.cy->values()), st->set_values(f.st->values());
      dh->fill_random(-1, 1), dc->fill_random(-1, 1);
      for (DeviceTensor *t : {dg.get(), dcx.get(), db.get()}) t->poison();
      RnnArgs a;
      a.grad_hy = with_dh ? dh->get() : nullptr, a.grad_c = with_dc ? dc->get() : nullptr;
      a.cx = *cx, a.cy = *cy, a.storage = *st, a.has_bias = bias;
      a.grad_gates = *dg, a.grad_cx = *dcx, a.grad_bias = *db;
      ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
      const std::vector<double> stv = st->values(), cxv = cx->values(), cyv = cy->values();
      const std::vector<double> dhv = dh->values(), dcv = dc->values();
      std::vector<double> eg(static_cast<size_t>(B * 4 * H)), ecx(static_cast<size_t>(B * H)),
          eb(static_cast<size_t>(4 * H), 0.0);
      for (int64_t b = 0; b < B; ++b) {
        const auto r = refs::lstm_cell_grad_ref(row(stv, b, 4 * H), row(cxv, b, H), row(cyv, b, H),
                                                with_dh ? row(dhv, b, H) : std::vector<double>{},
                                                with_dc ? row(dcv, b, H) : std::vector<double>{});
        put(eg, b, r.dpre), put(ecx, b, r.dc_prev);
        for (int64_t j = 0; j < 4 * H; ++j) eb[static_cast<size_t>(j)] += r.dpre[static_cast<size_t>(j)];
      }
      EXPECT_TRUE(meets_precision(dt, dg->values(), rounded(dt, eg))) << "gradGatesOut";
      EXPECT_TRUE(meets_precision(dt, dcx->values(), rounded(dt, ecx))) << "gradCxOut";
      if (bias) {
        EXPECT_TRUE(meets_precision(dt, db->values(), rounded(dt, eb))) << "gradBiasOut";
      } else {
        for (double x : db->values()) EXPECT_TRUE(std::isnan(x)) << "gradBiasOut written without hasBias";
      }
      for (DeviceTensor *t : {dg.get(), dcx.get(), db.get()}) EXPECT_TRUE(t->untouched_outside_view());
    }
}

// L = sum(dhy * hy + dcy * cy) of the forward op; its gradient with respect to the gates (input or
// hidden: the same) and cx against the backward op, in FLOAT.
TEST_P(OpTableRnnFusedCellBackward, MatchesCentralDifferencesOfTheForwardOp) {
  reseed_for_current_test();
  const RnnTableCase &c = GetParam();
  const int64_t B = 2, H = 3;
  CellRun f = forward_cell(ACL_FLOAT, B, H, true);
  DeviceTensor dh({B, H}, ACL_FLOAT), dc({B, H}, ACL_FLOAT), dg({B, 4 * H}, ACL_FLOAT), dcx({B, H}, ACL_FLOAT),
      db({4 * H}, ACL_FLOAT);
  dh.fill_random(-1, 1), dc.fill_random(-1, 1);
  RnnArgs a;
  a.grad_hy = dh, a.grad_c = dc, a.cx = *f.cx, a.cy = *f.cy, a.storage = *f.st, a.has_bias = true;
  a.grad_gates = dg, a.grad_cx = dcx, a.grad_bias = db;
  ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
  const std::vector<double> dhv = dh.values(), dcv = dc.values();
  RnnArgs fa;
  fa.input_gates = *f.ig, fa.hidden_gates = *f.hg, fa.cx = *f.cx, fa.input_bias = *f.ib, fa.hidden_bias = *f.hb;
  fa.hy = *f.hy, fa.cy = *f.cy, fa.storage = *f.st;
  auto loss = [&] {
    EXPECT_EQ(run(fused_forward(), fa), 0);
    const std::vector<double> hv = f.hy->values(), cv = f.cy->values();
    double l = 0;
    for (size_t i = 0; i < hv.size(); ++i) l += dhv[i] * hv[i] + dcv[i] * cv[i];
    return l;
  };
  auto check = [&](DeviceTensor &in, const std::vector<double> &grad, const char *what) {
    std::vector<double> u = in.values();
    const double e = 1e-2;
    for (size_t i = 0; i < u.size(); ++i) {
      const double u0 = u[i];
      u[i] = u0 + e, in.set_values(u);
      const double lp = loss();
      u[i] = u0 - e, in.set_values(u);
      const double lm = loss();
      u[i] = u0, in.set_values(u);
      EXPECT_NEAR(grad[i], (lp - lm) / (2 * e), 2e-3 * (1 + std::fabs(grad[i]))) << what << "[" << i << "]";
    }
  };
  check(*f.ig, dg.values(), "gradGatesOut");
  check(*f.cx, dcx.values(), "gradCxOut");
  check(*f.ib, db.values(), "gradBiasOut");
}

TEST_P(OpTableRnnFusedCellBackward, ErrorsNameTheArgument) {
  const RnnTableCase &c = GetParam();
  DeviceTensor dh({2, 3}, ACL_FLOAT), dc({2, 3}, ACL_FLOAT), cx({2, 3}, ACL_FLOAT), cy({2, 3}, ACL_FLOAT),
      st({2, 12}, ACL_FLOAT), dg({2, 12}, ACL_FLOAT), dcx({2, 3}, ACL_FLOAT), db({12}, ACL_FLOAT);
  for (DeviceTensor *t : {&dh, &dc, &cx, &cy, &st}) t->fill_random(-1, 1);
  RnnArgs good;
  good.grad_hy = dh, good.grad_c = dc, good.cx = cx, good.cy = cy, good.storage = st, good.has_bias = true;
  good.grad_gates = dg, good.grad_cx = dcx, good.grad_bias = db;
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  DeviceTensor h3({2, 3}, ACL_FLOAT16), d12({2, 12}, ACL_DOUBLE), h12({2, 12}, ACL_BF16), h1({12}, ACL_FLOAT16),
      w4({2, 4}, ACL_FLOAT), w13({2, 13}, ACL_FLOAT), w11({11}, ACL_FLOAT);
  expect_argument_errors(c, good,
                         {{&RnnArgs::grad_hy, "gradHyOptional", true, h3, w4},
                          {&RnnArgs::grad_c, "gradCOptional", true, h3, w4},
                          {&RnnArgs::cx, "cx", false, h3, w4},
                          {&RnnArgs::cy, "cy", false, h3, w4},
                          {&RnnArgs::storage, "storage", false, d12, w13},
                          {&RnnArgs::grad_gates, "gradGatesOut", false, h12, w13},
                          {&RnnArgs::grad_cx, "gradCxOut", false, h3, w4},
                          {&RnnArgs::grad_bias, "gradBiasOut", false, h1, w11}});
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  RnnArgs a = good;
  a.has_bias = false, a.grad_bias = nullptr;  // no bias gradient wanted: may be null
  EXPECT_EQ(c.phase1(a, &ws, &ex), 0) << aclGetRecentErrMsg();
}

// ---------------------------------------------------------------------------------------------
// Sequences (aclnnLSTM / aclnnGRU)

// Values near zero come from sums of products that cancel: relative errors are taken against
// max(|golden|, 1e-2) (precision.md's absolute-bound variant; the terms are of magnitude ~1).
::testing::AssertionResult close_enough(aclDataType dt, const std::vector<double> &act, const std::vector<double> &gold) {
  if (act.size() != gold.size()) return ::testing::AssertionFailure() << "size " << act.size() << " vs " << gold.size();
  const double T = precision_threshold(dt);
  double sum = 0, worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < act.size(); ++i) {
    const double rel = std::fabs(act[i] - gold[i]) / std::max(std::fabs(gold[i]), 1e-2);
    if (!(rel <= worst)) worst = rel, at = i;  // NaN sticks
    sum += rel;
  }
  if (act.empty() || (sum / static_cast<double>(act.size()) < T && worst < 10 * T)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "MERE " << sum / static_cast<double>(act.size()) << " MARE " << worst << " at "
                                       << at << ": " << act[at] << " vs " << gold[at];
}

struct Seq {
  bool lstm = true;
  int64_t T = 1, B = 1, I = 1, H = 1, L = 1, D = 1;
  bool bias = true, batch_first = false;
  std::vector<int64_t> lens;  // packed sequences: each sequence's length (non-increasing, lens[0] = T)
  bool packed() const { return !lens.empty(); }
  int64_t N() const {
    int64_t n = 0;
    for (int64_t l : lens) n += l;
    return n;
  }
  int64_t batch_size(int64_t t) const {  // sequences still running at step t
    return static_cast<int64_t>(std::count_if(lens.begin(), lens.end(), [&](int64_t l) { return l > t; }));
  }
  int64_t G() const { return lstm ? 4 : 3; }
  int64_t LD() const { return L * D; }
  int64_t in(int64_t l) const { return l == 0 ? I : D * H; }
  int64_t P() const { return bias ? 4 : 2; }
};

std::ostream &operator<<(std::ostream &os, const Seq &q) {
  if (q.packed()) os << "packed " << ::testing::PrintToString(q.lens) << " ";
  return os << (q.lstm ? "LSTM" : "GRU") << " T " << q.T << " B " << q.B << " I " << q.I << " H " << q.H << " L "
            << q.L << (q.D == 2 ? " bidirectional" : "") << (q.bias ? " bias" : "") << (q.batch_first ? " batchFirst" : "");
}

// A tensor list over copies of the tensors' descriptors (the list owns the copies).
struct List {
  aclTensorList *l = nullptr;
  explicit List(const std::vector<const aclTensor *> &v) {
    std::vector<aclTensor *> ts;
    for (const aclTensor *t : v)
      ts.push_back(aclCreateTensor(t->dims, static_cast<uint64_t>(t->ndim), t->dtype, t->strides, t->offset, t->format,
                                   t->storage_dims, static_cast<uint64_t>(t->storage_ndim), t->data));
    l = aclCreateTensorList(ts.data(), ts.size());
  }
  explicit List(const std::vector<Dev> &v) : List(descs(v)) {}
  static std::vector<const aclTensor *> descs(const std::vector<Dev> &v) {
    std::vector<const aclTensor *> o;
    for (const Dev &d : v) o.push_back(d->get());
    return o;
  }
  ~List() { aclDestroyTensorList(l); }
  List(const List &) = delete;
  List &operator=(const List &) = delete;
};

// [T, B, F] time-major from a sequence tensor's values ([B, T, F] when batch first), and back.
std::vector<double> time_major(const std::vector<double> &v, const Seq &q, int64_t F, bool to) {
  if (!q.batch_first) return v;
  std::vector<double> o(v.size());
  for (int64_t t = 0; t < q.T; ++t)
    for (int64_t b = 0; b < q.B; ++b)
      for (int64_t f = 0; f < F; ++f) {
        const size_t tm = static_cast<size_t>((t * q.B + b) * F + f), bf = static_cast<size_t>((b * q.T + t) * F + f);
        if (to)
          o[tm] = v[bf];
        else
          o[bf] = v[tm];
      }
  return o;
}

// The float64 forward of a whole stack, and its saved per-step values (the lists' order).
struct SeqResult {
  std::vector<double> out, hy, cy;           // out [T, B, D*H] time-major; hy / cy [LD, B, H]
  std::vector<std::vector<double>> saved[7];  // [list][l*D+d] -> [T, B, H]
  std::vector<std::vector<double>> layer_in;  // per layer its input [T, B, in(l)]
};

// y[b] = W x[b] + bias for a [N, K] weight (row-major values).
std::vector<double> affine(const std::vector<double> &W, const std::vector<double> *bias, const double *x, int64_t N,
                           int64_t K) {
  std::vector<double> y(static_cast<size_t>(N));
  for (int64_t n = 0; n < N; ++n) {
    double s = bias ? (*bias)[static_cast<size_t>(n)] : 0.0;
    for (int64_t k = 0; k < K; ++k) s += W[static_cast<size_t>(n * K + k)] * x[k];
    y[static_cast<size_t>(n)] = s;
  }
  return y;
}

SeqResult seq_ref(const Seq &q, const std::vector<double> &x, const std::vector<std::vector<double>> &p,
                  const std::vector<double> &h0, const std::vector<double> &c0) {
  const int64_t T = q.T, B = q.B, H = q.H, D = q.D, GH = q.G() * H;
  SeqResult r;
  r.hy.assign(static_cast<size_t>(q.LD() * B * H), 0), r.cy = r.hy;
  for (auto &s : r.saved) s.assign(static_cast<size_t>(q.LD()), std::vector<double>(static_cast<size_t>(T * B * H)));
  std::vector<double> in = x;
  for (int64_t l = 0; l < q.L; ++l) {
    r.layer_in.push_back(in);
    const int64_t K = q.in(l);
    std::vector<double> out(static_cast<size_t>(T * B * D * H));
    for (int64_t d = 0; d < D; ++d) {
      const int64_t ld = l * D + d;
      const auto &wih = p[static_cast<size_t>(ld * q.P())], &whh = p[static_cast<size_t>(ld * q.P() + 1)];
      const std::vector<double> *bih = q.bias ? &p[static_cast<size_t>(ld * q.P() + 2)] : nullptr;
      const std::vector<double> *bhh = q.bias ? &p[static_cast<size_t>(ld * q.P() + 3)] : nullptr;
      for (int64_t b = 0; b < B; ++b) {
        std::vector<double> h(h0.begin() + (ld * B + b) * H, h0.begin() + (ld * B + b + 1) * H), c;
        if (q.lstm) c.assign(c0.begin() + (ld * B + b) * H, c0.begin() + (ld * B + b + 1) * H);
        for (int64_t s = 0; s < T; ++s) {
          const int64_t t = d == 0 ? s : T - 1 - s;
          const auto gx = affine(wih, bih, &in[static_cast<size_t>((t * B + b) * K)], GH, K);
          const auto gh = affine(whh, bhh, h.data(), GH, H);
          std::vector<std::vector<double>> vals;
          if (q.lstm) {
            std::vector<double> pre(static_cast<size_t>(GH));
            for (int64_t j = 0; j < GH; ++j) pre[static_cast<size_t>(j)] = gx[static_cast<size_t>(j)] + gh[static_cast<size_t>(j)];
            const auto cr = refs::lstm_cell_ref(pre, c);
            h = cr.h, c = cr.c;
            auto gate = [&](int k) { return std::vector<double>(cr.act.begin() + k * H, cr.act.begin() + (k + 1) * H); };
            vals = {gate(0), gate(2), gate(1), gate(3), cr.h, cr.c, cr.tanhc};
          } else {
            const auto gr = refs::gru_cell_ref(gx, gh, h);
            h = gr.h;
            auto gate = [&](int k) { return std::vector<double>(gr.act.begin() + k * H, gr.act.begin() + (k + 1) * H); };
            vals = {gate(0), gate(1), gate(2), gr.hn, gr.h};
          }
          for (size_t k = 0; k < vals.size(); ++k)
            std::copy(vals[k].begin(), vals[k].end(), r.saved[k][static_cast<size_t>(ld)].begin() + (t * B + b) * H);
          std::copy(h.begin(), h.end(), out.begin() + (t * B + b) * D * H + d * H);
        }
        std::copy(h.begin(), h.end(), r.hy.begin() + (ld * B + b) * H);
        if (q.lstm) std::copy(c.begin(), c.end(), r.cy.begin() + (ld * B + b) * H);
      }
    }
    in = out;
  }
  r.out = in;
  return r;
}

// Every tensor of one forward call, random, views contiguous or not.
struct SeqCall {
  Seq q;
  aclDataType dt = ACL_FLOAT;
  Dev x, h0, c0, out, hy, cy, batch_sizes;
  std::vector<Dev> params;
  std::vector<std::vector<Dev>> lists;  // per list: L*D [T, B, H]
  std::unique_ptr<List> params_l, hx_l;
  std::vector<std::unique_ptr<List>> lists_l;
  RnnArgs a;
};

std::vector<int64_t> seq_shape(const Seq &q, int64_t F) {
  if (q.packed()) return {q.N(), F};
  return q.batch_first ? std::vector<int64_t>{q.B, q.T, F} : std::vector<int64_t>{q.T, q.B, F};
}

// The forward call's tensors (k varies the views: transposed weights, padded sequences).
std::unique_ptr<SeqCall> make_seq(const Seq &q, aclDataType dt, int k) {
  auto s = std::make_unique<SeqCall>();
  s->q = q, s->dt = dt;
  const bool strided = k % 2 == 1;
  s->x = make(seq_shape(q, q.I), dt, strided);
  s->x->fill_random(-1, 1);
  const double w = 1.0 / std::sqrt(static_cast<double>(q.H));  // torch.nn's init range
  for (int64_t l = 0; l < q.L; ++l)
    for (int64_t d = 0; d < q.D; ++d)
      for (int64_t p = 0; p < q.P(); ++p) {
        const std::vector<int64_t> sh = p == 0   ? std::vector<int64_t>{q.G() * q.H, q.in(l)}
                                        : p == 1 ? std::vector<int64_t>{q.G() * q.H, q.H}
                                                 : std::vector<int64_t>{q.G() * q.H};
        s->params.push_back(p < 2 && strided ? transposed_view(sh, dt) : make(sh, dt, strided && p >= 2));
        s->params.back()->fill_random(-w, w);
      }
  const std::vector<int64_t> hs{q.LD(), q.B, q.H};
  s->h0 = make(hs, dt, !strided), s->c0 = make(hs, dt, strided);
  s->h0->fill_random(-1, 1), s->c0->fill_random(-1, 1);
  s->out = make(seq_shape(q, q.D * q.H), dt, strided);
  s->hy = make(hs, dt, strided), s->cy = make(hs, dt, !strided);
  for (DeviceTensor *t : {s->out.get(), s->hy.get(), s->cy.get()}) t->poison();
  for (int n = 0; n < (q.lstm ? 7 : 5); ++n) {
    s->lists.emplace_back();
    for (int64_t i = 0; i < q.LD(); ++i) {
      s->lists.back().push_back(make(q.packed() ? std::vector<int64_t>{q.N(), q.H} : std::vector<int64_t>{q.T, q.B, q.H},
                                     dt, (n + i + k) % 2 == 1));
      s->lists.back().back()->poison();
    }
  }
  s->params_l = std::make_unique<List>(s->params);
  for (auto &v : s->lists) s->lists_l.push_back(std::make_unique<List>(v));
  RnnArgs &a = s->a;
  a.input = *s->x, a.params = s->params_l->l;
  if (q.lstm) {
    s->hx_l = std::make_unique<List>(std::vector<const aclTensor *>{*s->h0, *s->c0});
    a.hx = s->hx_l->l, a.cy = *s->cy;
    a.i = s->lists_l[0]->l, a.g = s->lists_l[1]->l, a.f = s->lists_l[2]->l, a.o = s->lists_l[3]->l;
    a.h = s->lists_l[4]->l, a.c = s->lists_l[5]->l, a.tanhc = s->lists_l[6]->l;
  } else {
    a.hx_tensor = *s->h0;
    a.r = s->lists_l[0]->l, a.z = s->lists_l[1]->l, a.n = s->lists_l[2]->l, a.hn = s->lists_l[3]->l;
    a.h = s->lists_l[4]->l;
  }
  a.output = *s->out, a.hy = *s->hy;
  if (q.packed()) {
    s->batch_sizes = std::make_unique<DeviceTensor>(std::vector<int64_t>{q.T}, k % 2 == 0 ? ACL_INT64 : ACL_INT32);
    std::vector<double> bs;
    for (int64_t t = 0; t < q.T; ++t) bs.push_back(static_cast<double>(q.batch_size(t)));
    s->batch_sizes->set_values(bs);
    a.batch_sizes = *s->batch_sizes;
  }
  a.has_bias = q.bias, a.num_layers = q.L, a.train = true, a.bidirectional = q.D == 2, a.batch_first = q.batch_first;
  return s;
}

SeqResult expected_of(const SeqCall &s) {
  std::vector<std::vector<double>> p;
  for (const Dev &d : s.params) p.push_back(d->values());
  return seq_ref(s.q, time_major(s.x->values(), s.q, s.q.I, true), p, s.h0->values(),
                 s.q.lstm ? s.c0->values() : std::vector<double>{});
}

Seq random_seq(std::mt19937_64 &g, bool lstm, int v) {
  Seq q;
  q.lstm = lstm;
  q.T = v % 9 == 8 ? 0 : pick(g, 1, 6), q.B = v % 13 == 12 ? 0 : pick(g, 1, 4), q.I = pick(g, 1, 7);
  q.H = v % 5 == 4 ? 17 : pick(g, 1, 6);
  q.L = pick(g, 1, 3), q.D = v % 2 == 0 ? 1 : 2, q.bias = v % 3 != 1, q.batch_first = v % 4 >= 2;
  return q;
}

// Every output of a forward call against its reference (`out`: the output in the tensor's layout).
void check_forward(const SeqCall &s, const SeqResult &e, const std::vector<double> &out) {
  const aclDataType dt = s.dt;
  EXPECT_TRUE(close_enough(dt, s.out->values(), rounded(dt, out))) << "output";
  EXPECT_TRUE(close_enough(dt, s.hy->values(), rounded(dt, e.hy))) << "hy";
  if (s.q.lstm) {
    EXPECT_TRUE(close_enough(dt, s.cy->values(), rounded(dt, e.cy))) << "cy";
  }
  for (size_t n = 0; n < s.lists.size(); ++n)
    for (size_t i = 0; i < s.lists[n].size(); ++i) {
      EXPECT_TRUE(close_enough(dt, s.lists[n][i]->values(), rounded(dt, e.saved[n][i]))) << "list " << n << "[" << i << "]";
      EXPECT_TRUE(s.lists[n][i]->untouched_outside_view());
    }
  for (DeviceTensor *t : {s.out.get(), s.hy.get(), s.cy.get()}) EXPECT_TRUE(t->untouched_outside_view());
}

// Random packed lengths (non-increasing, the first T) on a random stack.
Seq random_packed(std::mt19937_64 &g, bool lstm, int v) {
  Seq q = random_seq(g, lstm, v);
  q.T = pick(g, 1, 5), q.B = pick(g, 1, 4), q.batch_first = false;
  q.lens.assign(static_cast<size_t>(q.B), q.T);
  for (size_t b = 1; b < q.lens.size(); ++b) q.lens[b] = pick(g, 1, q.lens[b - 1]);
  return q;
}

// The first packed row of each step (and N at the end).
std::vector<int64_t> packed_offsets(const Seq &q) {
  std::vector<int64_t> off(static_cast<size_t>(q.T) + 1, 0);
  for (int64_t t = 0; t < q.T; ++t) off[static_cast<size_t>(t) + 1] = off[static_cast<size_t>(t)] + q.batch_size(t);
  return off;
}

SeqResult packed_expected(const SeqCall &s);

// One forward call against its reference (packed when q has lengths).
void forward_case_matches(const RnnTableCase &c, const Seq &q, aclDataType dt, int k) {
  SCOPED_TRACE(::testing::Message() << q << " dtype " << dt << " variant " << k);
  auto s = make_seq(q, dt, k);
  ASSERT_EQ(run(c, s->a), 0) << aclGetRecentErrMsg();
  const SeqResult e = q.packed() ? packed_expected(*s) : expected_of(*s);
  check_forward(*s, e, q.packed() ? e.out : time_major(e.out, q, q.D * q.H, false));
}

// Stacks with 5 to 16 batch rows (beyond the GEMM engine's M <= 4 paths). H = 128 puts the LSTM's
// W_hh^T rows 2 KiB apart (the copy's stride is padded), H = 512 W_hh's own rows (the backward's
// step GEMM reads a padded copy too).
std::vector<Seq> wide_batches(bool lstm) {
  std::vector<Seq> v;
  for (int i = 0; i < 4; ++i) {
    Seq q;
    q.lstm = lstm, q.T = i == 3 ? 2 : 3, q.I = 5, q.L = i == 3 ? 1 : 2;
    q.B = i == 0 ? 16 : i == 1 ? 6 : i == 2 ? 7 : 5;
    q.H = i == 0 ? 128 : i == 3 ? 512 : 37;
    q.D = i == 1 || i == 2 ? 2 : 1, q.bias = i != 1, q.batch_first = i == 1;
    if (i == 2) q.lens = {3, 3, 3, 2, 2, 1, 1};
    v.push_back(q);
  }
  return v;
}

class OpTableRnnSequence : public ::testing::TestWithParam<RnnTableCase> {};

TEST_P(OpTableRnnSequence, RandomStacksDtypesViews) {
  reseed_for_current_test();
  const RnnTableCase &c = GetParam();
  const bool lstm = c.kind == "lstm";
  auto &g = rng();
  int v = 0;
  for (aclDataType dt : c.dtypes)
    for (int k = 0; k < 12; ++k, ++v) {
      const bool packed = k >= 8;  // the last ones: packed sequences
      forward_case_matches(c, packed ? random_packed(g, lstm, v) : random_seq(g, lstm, v), dt, k);
    }
}

// Batches of 5 to 16 rows: the recurrent GEMM reads W_hh^T from a copy laid out once per launch
// (StepGemm; row stride padded off 2 KiB for the LSTM's 4 * 128 gates), packed sequences included.
TEST_P(OpTableRnnSequence, WideBatchesReadTheStepWeightCopy) {
  reseed_for_current_test();
  const RnnTableCase &c = GetParam();
  int k = 0;
  for (aclDataType dt : c.dtypes)
    for (const Seq &q : wide_batches(c.kind == "lstm")) forward_case_matches(c, q, dt, k++);
}

TEST_P(OpTableRnnSequence, ErrorsNameTheArgument) {
  const RnnTableCase &c = GetParam();
  const bool lstm = c.kind == "lstm";
  Seq q;
  q.lstm = lstm, q.T = 3, q.B = 2, q.I = 4, q.H = 3, q.L = 2, q.D = 2;
  auto s = make_seq(q, ACL_FLOAT, 0);
  ASSERT_EQ(run(c, s->a), 0) << aclGetRecentErrMsg();
  const char *api = c.api.c_str();
  RnnArgs a = s->a;
  a.input = nullptr;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_NULLPTR, {api, "input"}));
  a = s->a, a.params = nullptr;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_NULLPTR, {api, "params"}));
  a = s->a, a.output = nullptr;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_NULLPTR, {api, "output"}));
  a = s->a, a.hy = nullptr;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_NULLPTR, {api, "hy"}));
  a = s->a, a.h = nullptr;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_NULLPTR, {api, "hOut is null"}));
  if (lstm) {
    a = s->a, a.hx = nullptr;
    EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_NULLPTR, {api, "hx"}));
  } else {
    a = s->a, a.hx_tensor = nullptr;
    EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_NULLPTR, {api, "hx"}));
  }
  // Wrong params count: one layer fewer.
  Seq q1 = q;
  q1.L = 1;
  auto s1 = make_seq(q1, ACL_FLOAT, 0);
  a = s->a, a.params = s1->params_l->l;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "params", "tensors"}));
  // A wrong weight shape (input size 5 for layer 0), a wrong dtype, a wrong hx shape.
  Seq q5 = q;
  q5.I = 5;
  auto s5 = make_seq(q5, ACL_FLOAT, 0);
  a = s->a, a.params = s5->params_l->l;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "params[0]", "shape"}));
  auto sh = make_seq(q, ACL_FLOAT16, 0);
  a = s->a, a.params = sh->params_l->l;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "params[0]", "dtype"}));
  a = s->a, a.input = *sh->x;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "params[0]", "dtype"}));
  Seq qb = q;
  qb.B = 3;
  auto sb = make_seq(qb, ACL_FLOAT, 0);
  if (lstm) {
    a = s->a, a.hx = sb->hx_l->l;
    EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "hx[0]", "shape"}));
  } else {
    a = s->a, a.hx_tensor = *sb->h0;
    EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "hx", "shape"}));
  }
  a = s->a, a.output = *sb->out;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "output", "shape"}));
  a = s->a, a.hy = *sb->hy;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "hy", "shape"}));
  a = s->a, a.h = sb->lists_l[4]->l;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "hOut[0]", "shape"}));
  a = s->a, a.num_layers = 0;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "numLayers"}));
  a = s->a, a.dropout = 0.5;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "dropout"}));
  a = s->a, a.batch_sizes = *s->h0;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "batchSizes"}));
  a = s->a, a.has_bias = false;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "params", "hasBias"}));
}

// Packed sequences: the reference runs every sequence alone (B = 1, its own length) and packs.
SeqResult packed_expected(const SeqCall &s) {
  const Seq &q = s.q;
  const int64_t H = q.H, DH = q.D * H, B = q.B;
  std::vector<std::vector<double>> p;
  for (const Dev &d : s.params) p.push_back(d->values());
  const std::vector<double> x = s.x->values(), h0 = s.h0->values(), c0 = q.lstm ? s.c0->values() : h0;
  const std::vector<int64_t> off = packed_offsets(q);
  SeqResult r;
  r.out.assign(static_cast<size_t>(q.N() * DH), 0), r.hy.assign(static_cast<size_t>(q.LD() * B * H), 0), r.cy = r.hy;
  for (auto &sv : r.saved) sv.assign(static_cast<size_t>(q.LD()), std::vector<double>(static_cast<size_t>(q.N() * H)));
  for (int64_t b = 0; b < B; ++b) {
    Seq one = q;
    one.lens.clear(), one.B = 1, one.T = q.lens[static_cast<size_t>(b)], one.batch_first = false;
    std::vector<double> xb, h0b, c0b;
    for (int64_t t = 0; t < one.T; ++t) {
      const auto row = x.begin() + (off[static_cast<size_t>(t)] + b) * q.I;
      xb.insert(xb.end(), row, row + q.I);
    }
    for (int64_t ld = 0; ld < q.LD(); ++ld) {
      h0b.insert(h0b.end(), h0.begin() + (ld * B + b) * H, h0.begin() + (ld * B + b + 1) * H);
      c0b.insert(c0b.end(), c0.begin() + (ld * B + b) * H, c0.begin() + (ld * B + b + 1) * H);
    }
    const SeqResult e = seq_ref(one, xb, p, h0b, c0b);
    for (int64_t t = 0; t < one.T; ++t) {
      const int64_t row = off[static_cast<size_t>(t)] + b;
      std::copy(e.out.begin() + t * DH, e.out.begin() + (t + 1) * DH, r.out.begin() + row * DH);
      for (size_t n = 0; n < 7; ++n)
        for (int64_t ld = 0; ld < q.LD(); ++ld) {
          const auto &src = e.saved[n][static_cast<size_t>(ld)];
          std::copy(src.begin() + t * H, src.begin() + (t + 1) * H, r.saved[n][static_cast<size_t>(ld)].begin() + row * H);
        }
    }
    for (int64_t ld = 0; ld < q.LD(); ++ld) {
      std::copy(e.hy.begin() + ld * H, e.hy.begin() + (ld + 1) * H, r.hy.begin() + (ld * B + b) * H);
      std::copy(e.cy.begin() + ld * H, e.cy.begin() + (ld + 1) * H, r.cy.begin() + (ld * B + b) * H);
    }
  }
  return r;
}

TEST_P(OpTableRnnSequence, PackedBatchSizesAreChecked) {
  const RnnTableCase &c = GetParam();
  const bool lstm = c.kind == "lstm";
  // Batch sizes that are not a packing: checked at launch (161002), the first against hx's batch.
  Seq q;
  q.lstm = lstm, q.T = 3, q.B = 2, q.I = 2, q.H = 2, q.lens = {3, 2};
  for (const std::vector<double> &bad : {std::vector<double>{1, 2, 2}, std::vector<double>{2, 2, 2},
                                         std::vector<double>{2, 0, 3}, std::vector<double>{3, 1, 1}}) {
    auto s = make_seq(q, ACL_FLOAT, 0);
    s->batch_sizes->set_values(bad);
    EXPECT_EQ(run(c, s->a), ACLNN_ERR_PARAM_INVALID) << ::testing::PrintToString(bad);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("batchSizes"), std::string::npos) << aclGetRecentErrMsg();
  }
  // Phase-1 errors: batchSizes' rank and dtype, a 3-d input with batchSizes.
  auto s = make_seq(q, ACL_FLOAT, 0);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  DeviceTensor bs2({3, 1}, ACL_INT64), bsf({3}, ACL_FLOAT), x3({3, 2, 2}, ACL_FLOAT);
  RnnArgs a = s->a;
  a.batch_sizes = bs2;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {c.api.c_str(), "batchSizes"}));
  a = s->a, a.batch_sizes = bsf;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {c.api.c_str(), "batchSizes", "dtype"}));
  a = s->a, a.input = x3;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {c.api.c_str(), "input", "2-D"}));
}

// ---------------------------------------------------------------------------------------------
// Sequence gradients (aclnnLstmBackward / aclnnGRUBackward)

struct SeqGrad {
  std::vector<double> dx, dh_prev, dc_prev;  // dx time-major
  std::vector<std::vector<double>> dparams;
};

// Backpropagation through time in double over the saved per-step values the backward op is given
// (`saved`: the lists' values in list order), the cell gradients of float64_refs.h.
SeqGrad seq_grad_ref(const Seq &q, const std::vector<double> &x, const std::vector<std::vector<double>> &p,
                     const std::vector<double> &h0, const std::vector<double> &c0,
                     const std::vector<std::vector<std::vector<double>>> &saved, std::vector<double> dY,
                     const std::vector<double> &dh, const std::vector<double> &dc) {
  const int64_t T = q.T, B = q.B, H = q.H, D = q.D, GH = q.G() * H, DH = D * H;
  SeqGrad r;
  r.dh_prev.assign(dh.size(), 0), r.dc_prev.assign(dc.size(), 0);
  for (const auto &w : p) r.dparams.emplace_back(w.size(), 0.0);
  const auto &hl = saved[4];
  auto at = [&](const std::vector<double> &v, int64_t t, int64_t b) {
    return std::vector<double>(v.begin() + (t * B + b) * H, v.begin() + (t * B + b + 1) * H);
  };
  std::vector<double> dIn;
  for (int64_t l = q.L - 1; l >= 0; --l) {
    const int64_t K = q.in(l);
    std::vector<double> in(static_cast<size_t>(T * B * K));
    if (l == 0) {
      in = x;
    } else {
      for (int64_t t = 0; t < T; ++t)
        for (int64_t b = 0; b < B; ++b)
          for (int64_t d = 0; d < D; ++d)
            for (int64_t j = 0; j < H; ++j)
              in[static_cast<size_t>((t * B + b) * DH + d * H + j)] =
                  hl[static_cast<size_t>((l - 1) * D + d)][static_cast<size_t>((t * B + b) * H + j)];
    }
    dIn.assign(static_cast<size_t>(T * B * K), 0.0);
    for (int64_t d = 0; d < D; ++d) {
      const int64_t ld = l * D + d;
      const size_t k = static_cast<size_t>(ld);
      const auto &wih = p[static_cast<size_t>(ld * q.P())], &whh = p[static_cast<size_t>(ld * q.P() + 1)];
      auto &dwih = r.dparams[static_cast<size_t>(ld * q.P())], &dwhh = r.dparams[static_cast<size_t>(ld * q.P() + 1)];
      for (int64_t b = 0; b < B; ++b) {
        std::vector<double> dhc(dh.begin() + (ld * B + b) * H, dh.begin() + (ld * B + b + 1) * H), dcc;
        if (q.lstm) dcc.assign(dc.begin() + (ld * B + b) * H, dc.begin() + (ld * B + b + 1) * H);
        for (int64_t s = 0; s < T; ++s) {
          const int64_t t = d == 0 ? T - 1 - s : s, tp = d == 0 ? t - 1 : t + 1;
          const bool first = d == 0 ? t == 0 : t == T - 1;
          std::vector<double> dht(static_cast<size_t>(H));
          for (int64_t j = 0; j < H; ++j)
            dht[static_cast<size_t>(j)] = dY[static_cast<size_t>((t * B + b) * DH + d * H + j)] + dhc[static_cast<size_t>(j)];
          const std::vector<double> hp = first ? std::vector<double>(h0.begin() + (ld * B + b) * H,
                                                                     h0.begin() + (ld * B + b + 1) * H)
                                               : at(hl[k], tp, b);
          std::vector<double> dgx, dgh;
          if (q.lstm) {
            std::vector<double> act;
            for (int gi : {0, 2, 1, 3}) {  // lists i, g, f, o -> act i, f, g, o
              const auto v = at(saved[static_cast<size_t>(gi)][k], t, b);
              act.insert(act.end(), v.begin(), v.end());
            }
            const std::vector<double> cp = first ? std::vector<double>(c0.begin() + (ld * B + b) * H,
                                                                       c0.begin() + (ld * B + b + 1) * H)
                                                 : at(saved[5][k], tp, b);
            const auto gr = refs::lstm_cell_grad_ref(act, cp, at(saved[5][k], t, b), dht, dcc, at(saved[6][k], t, b));
            dgx = dgh = gr.dpre, dcc = gr.dc_prev;
            dhc.assign(static_cast<size_t>(H), 0.0);
          } else {
            std::vector<double> act;
            for (int gi : {0, 1, 2}) {
              const auto v = at(saved[static_cast<size_t>(gi)][k], t, b);
              act.insert(act.end(), v.begin(), v.end());
            }
            const auto gr = refs::gru_cell_grad_ref(act, at(saved[3][k], t, b), hp, dht);
            dgx = gr.dgx, dgh = gr.dgh, dhc = gr.dh_prev;
          }
          for (int64_t gi = 0; gi < GH; ++gi) {
            const double gxv = dgx[static_cast<size_t>(gi)], ghv = dgh[static_cast<size_t>(gi)];
            for (int64_t j = 0; j < H; ++j) {
              dhc[static_cast<size_t>(j)] += ghv * whh[static_cast<size_t>(gi * H + j)];
              dwhh[static_cast<size_t>(gi * H + j)] += ghv * hp[static_cast<size_t>(j)];
            }
            for (int64_t j = 0; j < K; ++j) {
              dIn[static_cast<size_t>((t * B + b) * K + j)] += gxv * wih[static_cast<size_t>(gi * K + j)];
              dwih[static_cast<size_t>(gi * K + j)] += gxv * in[static_cast<size_t>((t * B + b) * K + j)];
            }
            if (q.bias) {
              r.dparams[static_cast<size_t>(ld * q.P() + 2)][static_cast<size_t>(gi)] += gxv;
              r.dparams[static_cast<size_t>(ld * q.P() + 3)][static_cast<size_t>(gi)] += ghv;
            }
          }
        }
        std::copy(dhc.begin(), dhc.end(), r.dh_prev.begin() + (ld * B + b) * H);
        if (q.lstm) std::copy(dcc.begin(), dcc.end(), r.dc_prev.begin() + (ld * B + b) * H);
      }
    }
    dY = dIn;
  }
  r.dx = dIn;
  return r;
}

// The backward call over a forward call's saved lists: random dy, dh, dc, fresh gradient outputs.
struct SeqBackCall {
  Dev dy, dh, dc, dx, dh_prev, dc_prev;
  std::vector<Dev> dparams;
  std::unique_ptr<List> dparams_l;
  std::unique_ptr<aclBoolArray, aclnnStatus (*)(const aclBoolArray *)> mask{nullptr, aclDestroyBoolArray};
  RnnArgs a;
};

std::unique_ptr<SeqBackCall> make_back(const SeqCall &f, int k) {
  const Seq &q = f.q;
  const aclDataType dt = f.dt;
  auto s = std::make_unique<SeqBackCall>();
  const bool strided = k % 2 == 0;
  const std::vector<int64_t> hs{q.LD(), q.B, q.H};
  s->dy = make(seq_shape(q, q.D * q.H), dt, strided), s->dh = make(hs, dt, !strided), s->dc = make(hs, dt, strided);
  for (DeviceTensor *t : {s->dy.get(), s->dh.get(), s->dc.get()}) t->fill_random(-1, 1);
  s->dx = make(seq_shape(q, q.I), dt, strided), s->dh_prev = make(hs, dt, strided), s->dc_prev = make(hs, dt, !strided);
  for (const Dev &p : f.params) s->dparams.push_back(make(p->shape(), dt, strided));
  for (DeviceTensor *t : {s->dx.get(), s->dh_prev.get(), s->dc_prev.get()}) t->poison();
  for (const Dev &p : s->dparams) p->poison();
  s->dparams_l = std::make_unique<List>(s->dparams);
  RnnArgs a = f.a;  // input, params, hx / hx_tensor, the lists, the flags
  a.output = a.hy = a.cy = nullptr;
  a.dy = *s->dy, a.dh = *s->dh;
  if (q.lstm) a.dc = *s->dc, a.dc_prev = *s->dc_prev;
  a.dx = *s->dx, a.dh_prev = *s->dh_prev, a.dparams = s->dparams_l->l;
  s->a = a;
  return s;
}

const RnnTableCase &forward_case(const char *kind) {
  static std::vector<RnnTableCase> all = rnn_table_cases();
  for (const RnnTableCase &c : all)
    if (c.kind == kind) return c;
  static const RnnTableCase none;
  return none;
}

// Every gradient of a backward call against its reference (`dx`: in the tensor's layout); the one an
// outputMask turned off (`off`, -1: none) must be left unwritten.
void check_backward(const SeqBackCall &s, const Seq &q, aclDataType dt, const SeqGrad &e, const std::vector<double> &dx,
                    int off) {
  auto check = [&](const DeviceTensor &t, const std::vector<double> &want, bool wanted, const std::string &what) {
    if (wanted)
      EXPECT_TRUE(close_enough(dt, t.values(), rounded(dt, want))) << what;
    else
      for (double x : t.values()) EXPECT_TRUE(std::isnan(x)) << what << " written with its mask off";
    EXPECT_TRUE(t.untouched_outside_view()) << what;
  };
  check(*s.dx, dx, off != 0, "dxOut");
  check(*s.dh_prev, e.dh_prev, off != 1, "dhPrevOut");
  if (q.lstm) check(*s.dc_prev, e.dc_prev, off != 2, "dcPrevOut");
  for (size_t i = 0; i < s.dparams.size(); ++i)
    check(*s.dparams[i], e.dparams[i], off != 3, "dparamsOut[" + std::to_string(i) + "]");
}

SeqGrad packed_grad_expected(const SeqCall &f, const SeqBackCall &s);

class OpTableRnnSequenceBackward : public ::testing::TestWithParam<RnnTableCase> {};

// One backward call (after its forward) against the reference; `off`: the outputMask entry turned
// off (LSTM), or -1.
void backward_case_matches(const RnnTableCase &c, const Seq &q, aclDataType dt, int k, int off) {
  const bool lstm = q.lstm;
  const RnnTableCase &fwd = forward_case(lstm ? "lstm" : "gru");
  SCOPED_TRACE(::testing::Message() << q << " dtype " << dt << " variant " << k);
  auto f = make_seq(q, dt, k);
  ASSERT_EQ(run(fwd, f->a), 0) << aclGetRecentErrMsg();
  auto s = make_back(*f, k);
  if (off >= 0) {
    bool m[4] = {true, true, true, true};
    m[off] = false;
    s->mask.reset(aclCreateBoolArray(m, 4));
    s->a.output_mask = s->mask.get();
  }
  ASSERT_EQ(run(c, s->a), 0) << aclGetRecentErrMsg();
  if (q.packed()) {
    const SeqGrad e = packed_grad_expected(*f, *s);
    check_backward(*s, q, dt, e, e.dx, off);
    return;
  }
  std::vector<std::vector<double>> p;
  for (const Dev &d : f->params) p.push_back(d->values());
  std::vector<std::vector<std::vector<double>>> saved;
  for (const auto &l : f->lists) {
    saved.emplace_back();
    for (const Dev &d : l) saved.back().push_back(d->values());
  }
  const SeqGrad e = seq_grad_ref(q, time_major(f->x->values(), q, q.I, true), p, f->h0->values(),
                                 lstm ? f->c0->values() : std::vector<double>{}, saved,
                                 time_major(s->dy->values(), q, q.D * q.H, true), s->dh->values(),
                                 lstm ? s->dc->values() : std::vector<double>{});
  check_backward(*s, q, dt, e, time_major(e.dx, q, q.I, false), off);
}

TEST_P(OpTableRnnSequenceBackward, RandomStacksDtypesViews) {
  reseed_for_current_test();
  const RnnTableCase &c = GetParam();
  const bool lstm = c.kind == "lstm_backward";
  auto &g = rng();
  int v = 0;
  for (aclDataType dt : c.dtypes)
    for (int k = 0; k < 12; ++k, ++v) {
      const bool packed = k >= 8;  // the last ones: packed sequences
      // outputMask (LSTM): every gradient, or one of them off (its output not written).
      backward_case_matches(c, packed ? random_packed(g, lstm, v) : random_seq(g, lstm, v), dt, k,
                            lstm && k % 4 == 3 ? v % 4 : -1);
    }
}

// Batches of 5 to 16 rows (the step GEMM dG_t @ W_hh beyond the engine's M <= 4 paths).
TEST_P(OpTableRnnSequenceBackward, WideBatches) {
  reseed_for_current_test();
  const RnnTableCase &c = GetParam();
  int k = 0;
  for (aclDataType dt : c.dtypes)
    for (const Seq &q : wide_batches(c.kind == "lstm_backward")) backward_case_matches(c, q, dt, k++, -1);
}

// L = sum(dy * output) + sum(dh * hy) (+ sum(dc * cy)) of the forward op: its gradient with respect
// to the input, every parameter and h0 / c0 against the backward op, in FLOAT.
TEST_P(OpTableRnnSequenceBackward, MatchesCentralDifferencesOfTheForwardOp) {
  reseed_for_current_test();
  const RnnTableCase &c = GetParam();
  const bool lstm = c.kind == "lstm_backward";
  const RnnTableCase &fwd = forward_case(lstm ? "lstm" : "gru");
  for (int variant = 0; variant < 3; ++variant) {
    Seq q;
    q.lstm = lstm, q.T = 3, q.B = 2, q.I = 2, q.H = 2, q.L = 2, q.D = variant == 1 ? 1 : 2, q.bias = variant != 1;
    q.batch_first = variant == 1;
    if (variant == 2) q.lens = {3, 2};
    SCOPED_TRACE(::testing::Message() << q);
    auto f = make_seq(q, ACL_FLOAT, 0);
    ASSERT_EQ(run(fwd, f->a), 0) << aclGetRecentErrMsg();
    auto s = make_back(*f, 1);
    ASSERT_EQ(run(c, s->a), 0) << aclGetRecentErrMsg();
    const std::vector<double> dyv = s->dy->values(), dhv = s->dh->values(), dcv = s->dc->values();
    auto loss = [&] {
      EXPECT_EQ(run(fwd, f->a), 0);
      const std::vector<double> o = f->out->values(), hy = f->hy->values(), cy = f->cy->values();
      double l = 0;
      for (size_t i = 0; i < o.size(); ++i) l += dyv[i] * o[i];
      for (size_t i = 0; i < hy.size(); ++i) l += dhv[i] * hy[i] + (lstm ? dcv[i] * cy[i] : 0.0);
      return l;
    };
    auto check = [&](DeviceTensor &in, const std::vector<double> &grad, const std::string &what) {
      std::vector<double> u = in.values();
      const double e = 1e-2;
      for (size_t i = 0; i < u.size(); ++i) {
        const double u0 = u[i];
        u[i] = u0 + e, in.set_values(u);
        const double lp = loss();
        u[i] = u0 - e, in.set_values(u);
        const double lm = loss();
        u[i] = u0, in.set_values(u);
        EXPECT_NEAR(grad[i], (lp - lm) / (2 * e), 3e-3 * (1 + std::fabs(grad[i]))) << what << "[" << i << "]";
      }
    };
    check(*f->x, s->dx->values(), "dxOut");
    check(*f->h0, s->dh_prev->values(), "dhPrevOut");
    if (lstm) check(*f->c0, s->dc_prev->values(), "dcPrevOut");
    for (size_t i = 0; i < f->params.size(); ++i)
      check(*f->params[i], s->dparams[i]->values(), "dparamsOut[" + std::to_string(i) + "]");
  }
}

// Packed sequences: the reference runs every sequence alone (B = 1) over its slices of the saved lists.
SeqGrad packed_grad_expected(const SeqCall &f, const SeqBackCall &s) {
  const Seq &q = f.q;
  const int64_t H = q.H, DH = q.D * H, B = q.B, LD = q.LD();
  std::vector<std::vector<double>> p;
  for (const Dev &d : f.params) p.push_back(d->values());
  std::vector<std::vector<std::vector<double>>> saved;
  for (const auto &l : f.lists) {
    saved.emplace_back();
    for (const Dev &d : l) saved.back().push_back(d->values());
  }
  const std::vector<double> x = f.x->values(), h0 = f.h0->values(), c0 = q.lstm ? f.c0->values() : h0;
  const std::vector<double> dy = s.dy->values(), dh = s.dh->values(), dc = q.lstm ? s.dc->values() : dh;
  const std::vector<int64_t> off = packed_offsets(q);
  SeqGrad r;
  r.dx.assign(static_cast<size_t>(q.N() * q.I), 0), r.dh_prev.assign(static_cast<size_t>(LD * B * H), 0);
  r.dc_prev = r.dh_prev;
  for (const auto &w : p) r.dparams.emplace_back(w.size(), 0.0);
  auto rows_of = [&](const std::vector<double> &v, int64_t b, int64_t len, int64_t F) {
    std::vector<double> o;
    for (int64_t t = 0; t < len; ++t) {
      const auto row = v.begin() + (off[static_cast<size_t>(t)] + b) * F;
      o.insert(o.end(), row, row + F);
    }
    return o;
  };
  auto states = [&](const std::vector<double> &v, int64_t b) {
    std::vector<double> o;
    for (int64_t ld = 0; ld < LD; ++ld) o.insert(o.end(), v.begin() + (ld * B + b) * H, v.begin() + (ld * B + b + 1) * H);
    return o;
  };
  for (int64_t b = 0; b < B; ++b) {
    Seq one = q;
    one.lens.clear(), one.B = 1, one.T = q.lens[static_cast<size_t>(b)];
    std::vector<std::vector<std::vector<double>>> sb;
    for (const auto &l : saved) {
      sb.emplace_back();
      for (const auto &v : l) sb.back().push_back(rows_of(v, b, one.T, H));
    }
    const SeqGrad e = seq_grad_ref(one, rows_of(x, b, one.T, q.I), p, states(h0, b), states(c0, b), sb,
                                   rows_of(dy, b, one.T, DH), states(dh, b), q.lstm ? states(dc, b) : std::vector<double>{});
    for (int64_t t = 0; t < one.T; ++t)
      std::copy(e.dx.begin() + t * q.I, e.dx.begin() + (t + 1) * q.I, r.dx.begin() + (off[static_cast<size_t>(t)] + b) * q.I);
    for (int64_t ld = 0; ld < LD; ++ld) {
      std::copy(e.dh_prev.begin() + ld * H, e.dh_prev.begin() + (ld + 1) * H, r.dh_prev.begin() + (ld * B + b) * H);
      if (q.lstm) std::copy(e.dc_prev.begin() + ld * H, e.dc_prev.begin() + (ld + 1) * H, r.dc_prev.begin() + (ld * B + b) * H);
    }
    for (size_t i = 0; i < p.size(); ++i)
      for (size_t j = 0; j < p[i].size(); ++j) r.dparams[i][j] += e.dparams[i][j];
  }
  return r;
}

TEST_P(OpTableRnnSequenceBackward, ErrorsNameTheArgument) {
  const RnnTableCase &c = GetParam();
  const bool lstm = c.kind == "lstm_backward";
  Seq q;
  q.lstm = lstm, q.T = 3, q.B = 2, q.I = 4, q.H = 3, q.L = 2, q.D = 2;
  auto f = make_seq(q, ACL_FLOAT, 0);
  ASSERT_EQ(run(forward_case(lstm ? "lstm" : "gru"), f->a), 0) << aclGetRecentErrMsg();
  auto s = make_back(*f, 0);
  ASSERT_EQ(run(c, s->a), 0) << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  const char *api = c.api.c_str();
  RnnArgs a = s->a;
  a.dy = nullptr;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_NULLPTR, {api, "dy"}));
  a = s->a, a.dh = nullptr;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_NULLPTR, {api, "dh"}));
  a = s->a, a.h = nullptr;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_NULLPTR, {api, "h is null"}));
  a = s->a, a.dx = nullptr;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_NULLPTR, {api, "dxOut"}));
  a = s->a, a.dparams = nullptr;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_NULLPTR, {api, "dparamsOut"}));
  // Saved lists of the wrong length or shape; gradients of the wrong shape or dtype.
  Seq q1 = q;
  q1.L = 1;
  auto f1 = make_seq(q1, ACL_FLOAT, 0);
  a = s->a, a.h = f1->lists_l[4]->l;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "h has 2 tensors"}));
  a = s->a, a.params = f1->params_l->l;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "params", "tensors"}));
  Seq qb = q;
  qb.B = 3;
  auto fb = make_seq(qb, ACL_FLOAT, 0);
  auto sb = make_back(*fb, 0);
  a = s->a, a.dy = *sb->dy;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "dy", "shape"}));
  a = s->a, a.dh = *sb->dh;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "dh", "shape"}));
  a = s->a, a.dx = *sb->dx;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "dxOut", "shape"}));
  a = s->a, a.dh_prev = *sb->dh_prev;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "dhPrevOut", "shape"}));
  a = s->a, a.dparams = f1->params_l->l;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "dparamsOut", "tensors"}));
  Seq q5 = q;
  q5.I = 5;
  auto f5 = make_seq(q5, ACL_FLOAT, 0);
  auto s5 = make_back(*f5, 0);
  a = s->a, a.dparams = s5->dparams_l->l;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "dparamsOut[0]", "shape"}));
  DeviceTensor dyh(s->dy->shape(), ACL_FLOAT16);
  a = s->a, a.dy = dyh;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "dy", "dtype"}));
  if (lstm) {
    a = s->a, a.dc = nullptr;
    EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_NULLPTR, {api, "dc"}));
    bool three[3] = {true, true, true};
    std::unique_ptr<aclBoolArray, aclnnStatus (*)(const aclBoolArray *)> m(aclCreateBoolArray(three, 3),
                                                                             aclDestroyBoolArray);
    a = s->a, a.output_mask = m.get();
    EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "outputMask"}));
    bool no_dx[4] = {false, true, true, true};  // a gradient turned off may be null
    std::unique_ptr<aclBoolArray, aclnnStatus (*)(const aclBoolArray *)> m2(aclCreateBoolArray(no_dx, 4),
                                                                              aclDestroyBoolArray);
    a = s->a, a.output_mask = m2.get(), a.dx = nullptr;
    EXPECT_EQ(c.phase1(a, &ws, &ex), 0) << aclGetRecentErrMsg();
  }
}

// ---------------------------------------------------------------------------------------------
// BidirectionLSTM (V2): one layer, the weights one by one

// The call of a one-layer SeqCall's tensors through the weight-by-weight prototype.
RnnArgs bidirection_args(const SeqCall &s) {
  const Seq &q = s.q;
  RnnArgs a;
  a.input = *s.x, a.init_h = *s.h0, a.init_c = *s.c0;
  aclTensor **w[2][4] = {{&a.w_ih, &a.w_hh, &a.b_ih, &a.b_hh}, {&a.w_ih_r, &a.w_hh_r, &a.b_ih_r, &a.b_hh_r}};
  for (int64_t d = 0; d < q.D; ++d)
    for (int64_t p = 0; p < q.P(); ++p) *w[d][p] = *s.params[static_cast<size_t>(d * q.P() + p)];
  a.num_layers = 1, a.has_bias = q.bias, a.batch_first = q.batch_first, a.bidirectional = q.D == 2;
  a.output = *s.out, a.hy = *s.hy, a.cy = *s.cy;
  return a;
}

class OpTableRnnBidirectionLstm : public ::testing::TestWithParam<RnnTableCase> {};

TEST_P(OpTableRnnBidirectionLstm, RandomShapesDtypesViews) {
  reseed_for_current_test();
  const RnnTableCase &c = GetParam();
  auto &g = rng();
  int v = 0;
  for (aclDataType dt : c.dtypes)
    for (int k = 0; k < 8; ++k, ++v) {
      Seq q = random_seq(g, true, v);
      q.L = 1;
      SCOPED_TRACE(::testing::Message() << q << " dtype " << dt << " variant " << k);
      auto s = make_seq(q, dt, k);
      ASSERT_EQ(run(c, bidirection_args(*s)), 0) << aclGetRecentErrMsg();
      const SeqResult e = expected_of(*s);
      EXPECT_TRUE(close_enough(dt, s->out->values(), rounded(dt, time_major(e.out, q, q.D * q.H, false)))) << "yOut";
      EXPECT_TRUE(close_enough(dt, s->hy->values(), rounded(dt, e.hy))) << "outputHOut";
      EXPECT_TRUE(close_enough(dt, s->cy->values(), rounded(dt, e.cy))) << "outputCOut";
      for (DeviceTensor *t : {s->out.get(), s->hy.get(), s->cy.get()}) EXPECT_TRUE(t->untouched_outside_view());
    }
}

TEST_P(OpTableRnnBidirectionLstm, ErrorsNameTheArgument) {
  const RnnTableCase &c = GetParam();
  Seq q;
  q.T = 3, q.B = 2, q.I = 4, q.H = 3, q.D = 2;
  auto s = make_seq(q, ACL_FLOAT16, 0);
  const RnnArgs good = bidirection_args(*s);
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  const char *api = c.api.c_str();
  RnnArgs a = good;
  a.input = nullptr;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_NULLPTR, {api, "x is null"}));
  a = good, a.init_c = nullptr;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_NULLPTR, {api, "initC"}));
  a = good, a.w_hh_r = nullptr;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_NULLPTR, {api, "wHhReverseOptional"}));
  a = good, a.b_ih = nullptr;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_NULLPTR, {api, "bIhOptional"}));
  a = good, a.num_layers = 2;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "numLayers"}));
  a = good, a.w_ih = a.w_hh;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "wIh", "shape"}));
  DeviceTensor h_float(s->h0->shape(), ACL_FLOAT);
  a = good, a.init_h = h_float;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "initH", "dtype"}));
  a = good, a.hy = a.init_h;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "outputHOut"}));
  a = good, a.output = *s->hy;
  EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "yOut", "shape"}));
  a = good, a.has_bias = false;  // the biases are then not read
  EXPECT_EQ(c.phase1(a, &ws, &ex), 0) << aclGetRecentErrMsg();
  if (c.api == "aclnnBidirectionLSTMV2") {
    a = good, a.packed = true;
    EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "packed"}));
    a = good, a.batch_sizes = *s->h0;
    EXPECT_TRUE(phase1_fails(c, a, ACLNN_ERR_PARAM_INVALID, {api, "batchSizeOptional"}));
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableRnnFusedCell, ::testing::ValuesIn(cases_of("fused_lstm_cell")),
                         harness::case_name<RnnTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableRnnFusedCellBackward, ::testing::ValuesIn(cases_of("fused_lstm_cell_backward")),
                         harness::case_name<RnnTableCase>);
std::vector<RnnTableCase> forward_sequences() {
  std::vector<RnnTableCase> v = cases_of("lstm"), g = cases_of("gru");
  v.insert(v.end(), g.begin(), g.end());
  return v;
}
INSTANTIATE_TEST_SUITE_P(Tables, OpTableRnnSequence, ::testing::ValuesIn(forward_sequences()),
                         harness::case_name<RnnTableCase>);
std::vector<RnnTableCase> backward_sequences() {
  std::vector<RnnTableCase> v = cases_of("lstm_backward"), g = cases_of("gru_backward");
  v.insert(v.end(), g.begin(), g.end());
  return v;
}
INSTANTIATE_TEST_SUITE_P(Tables, OpTableRnnSequenceBackward, ::testing::ValuesIn(backward_sequences()),
                         harness::case_name<RnnTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableRnnBidirectionLstm, ::testing::ValuesIn(cases_of("bidirection_lstm")),
                         harness::case_name<RnnTableCase>);

}  // namespace
}  // namespace opsnn::test

// The cell references' gradients against central differences of the cell references (h = 1e-5).
TEST(RnnReference, CellGradientsMatchCentralDifferences) {
  using namespace opsnn::test::refs;
  std::mt19937_64 g(11);
  std::uniform_real_distribution<double> u(-2, 2);
  const size_t H = 3;
  auto rnd = [&](size_t n) {
    std::vector<double> v(n);
    for (double &x : v) x = u(g);
    return v;
  };
  const double e = 1e-5;
  {  // LSTM: L = dh . h + dc . c over pre and c_prev
    const auto pre = rnd(4 * H), cp = rnd(H), dh = rnd(H), dc = rnd(H);
    const auto f = lstm_cell_ref(pre, cp);
    const auto gr = lstm_cell_grad_ref(f.act, cp, f.c, dh, dc);
    auto L = [&](const std::vector<double> &p, const std::vector<double> &c) {
      const auto r = lstm_cell_ref(p, c);
      double l = 0;
      for (size_t j = 0; j < H; ++j) l += dh[j] * r.h[j] + dc[j] * r.c[j];
      return l;
    };
    for (size_t k = 0; k < 4 * H; ++k) {
      auto pp = pre, pm = pre;
      pp[k] += e, pm[k] -= e;
      EXPECT_NEAR(gr.dpre[k], (L(pp, cp) - L(pm, cp)) / (2 * e), 1e-7) << "lstm dpre " << k;
    }
    for (size_t k = 0; k < H; ++k) {
      auto cpp = cp, cpm = cp;
      cpp[k] += e, cpm[k] -= e;
      EXPECT_NEAR(gr.dc_prev[k], (L(pre, cpp) - L(pre, cpm)) / (2 * e), 1e-7) << "lstm dc_prev " << k;
    }
  }
  {  // GRU: L = dh . h over gx, gh and h_prev (direct part + dgh's share through gh's own derivative)
    const auto gx = rnd(3 * H), gh = rnd(3 * H), hp = rnd(H), dh = rnd(H);
    const auto f = gru_cell_ref(gx, gh, hp);
    const auto gr = gru_cell_grad_ref(f.act, f.hn, hp, dh);
    auto L = [&](const std::vector<double> &x, const std::vector<double> &hh, const std::vector<double> &h0) {
      const auto r = gru_cell_ref(x, hh, h0);
      double l = 0;
      for (size_t j = 0; j < H; ++j) l += dh[j] * r.h[j];
      return l;
    };
    for (size_t k = 0; k < 3 * H; ++k) {
      auto xp = gx, xm = gx, hp2 = gh, hm2 = gh;
      xp[k] += e, xm[k] -= e, hp2[k] += e, hm2[k] -= e;
      EXPECT_NEAR(gr.dgx[k], (L(xp, gh, hp) - L(xm, gh, hp)) / (2 * e), 1e-7) << "gru dgx " << k;
      EXPECT_NEAR(gr.dgh[k], (L(gx, hp2, hp) - L(gx, hm2, hp)) / (2 * e), 1e-7) << "gru dgh " << k;
    }
    for (size_t k = 0; k < H; ++k) {  // gh held fixed: the direct part only
      auto pp = hp, pm = hp;
      pp[k] += e, pm[k] -= e;
      EXPECT_NEAR(gr.dh_prev[k], (L(gx, gh, pp) - L(gx, gh, pm)) / (2 * e), 1e-7) << "gru dh_prev " << k;
    }
  }
}
