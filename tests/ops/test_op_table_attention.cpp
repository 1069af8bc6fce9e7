// The test harness of the table-driven attention family (src/ops/attention/attention.ops): every
// op runs the same suites, registered from the table by tools/gen_ops.py --tests
// (attention_table_cases.inc in the build tree), against the naive float64 attention of
// tests/common/float64_refs.h (attention_ref):
//   - every dtype and layout (BSH, BSND, BNSD) on random shapes, multi-head and grouped-query;
//   - decode (Sq = 1) over long KV caches, prefill with several key blocks;
//   - explicit masks (BOOL / INT8 / UINT8, every accepted shape), sparse modes 0-4 with pre / next
//     windows, fully masked rows, actual query / KV lengths, pse, softmaxLse, strided views;
//   - errors with their code and the argument named.
// Precision: the output is a convex combination of value rows, so an element near 0 carries the
// error of its larger terms; the relative error is taken against max(|golden|, max|value|)
// (precision.md's MERE < T, MARE < 10 T on that scale).
#include <algorithm>
#include <cmath>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/cpu_features.h"
#include "core/tensor.h"
#include "core/verbose.h"
#include "kernels/attention/flash_attention.h"
#include "float64_refs.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct AttnArgs {
  aclTensor *query = nullptr, *key = nullptr, *value = nullptr, *pse = nullptr, *mask = nullptr, *out = nullptr,
            *lse = nullptr;
  aclTensorList *key_list = nullptr, *value_list = nullptr;
  aclIntArray *act_q = nullptr, *act_kv = nullptr;
  int64_t num_heads = 1, pre_tokens = 2147483647, next_tokens = 2147483647, num_kv_heads = 0, sparse_mode = 0,
          inner_precise = 0;
  double scale = 1.0;
  char *layout = nullptr;
  bool lse_flag = false;
  aclTensor *block_table = nullptr;  // paged KV
  int64_t block_size = 0;
  aclTensor *aq_scale = nullptr, *aq_offset = nullptr;  // INT8 key / value
  int64_t aq_mode = 0;
  aclTensor *kaq_scale = nullptr, *kaq_offset = nullptr, *vaq_scale = nullptr, *vaq_offset = nullptr;  // separate form
  int64_t kaq_mode = 0, vaq_mode = 0;
  std::string bogus;  // the unsupported argument passed non-null (error tests)
  aclTensor *bogus_tensor = nullptr;
  aclIntArray *bogus_array = nullptr;
  aclTensorList *bogus_list = nullptr;
  // TriangularSolve.
  aclTensor *self = nullptr, *a = nullptr, *x_out = nullptr, *m_out = nullptr;
  bool upper = true, transpose = false, unit = false;
  // ScaledMaskedSoftmax (+Backward).
  aclTensor *x = nullptr, *y = nullptr, *grad = nullptr;
  bool triu = false;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct AttnTableCase {
  std::string name, api;
  std::vector<aclDataType> dtypes;
  bool trisolve = false, masked_softmax = false, backward = false, key_list = false, has_lse = false, decode = false, paged = false;
  bool antiquant = false;  // INT8 key / value with antiquantScale / antiquantOffset
  bool kv_antiquant = false;  // ... or with keyAntiquantScale / valueAntiquantScale (+ offsets)
  std::vector<std::string> unsupported;
  int (*phase1)(const AttnArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
};
void PrintTo(const AttnTableCase &c, std::ostream *os) { *os << c.name; }

#include "attention_table_cases.inc"

enum class Kind { kFlash, kTriSolve, kMaskedSoftmax };
std::vector<AttnTableCase> cases_of(Kind k) {
  std::vector<AttnTableCase> v;
  for (const AttnTableCase &c : harness::sampled(attn_table_cases())) {
    const Kind ck = c.trisolve ? Kind::kTriSolve : c.masked_softmax ? Kind::kMaskedSoftmax : Kind::kFlash;
    if (ck == k) v.push_back(c);
  }
  return v;
}

// precision.md's MERE / MARE with the relative error taken on the scale max(|golden|, max|golden|)
// where an element can be a small difference of larger terms.
::testing::AssertionResult close_on_scale(aclDataType dt, const std::vector<double> &got,
                                          const std::vector<double> &want) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "sizes differ";
  double mx = 0;
  for (double w : want) mx = std::max(mx, std::fabs(w));
  const double T = precision_threshold(dt);
  double sum = 0, worst = 0;
  size_t wi = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i]) != std::isnan(want[i])) return ::testing::AssertionFailure() << "NaN at " << i;
    const double rel = std::fabs(got[i] - want[i]) / std::max({std::fabs(want[i]), mx, 1e-300});
    sum += rel;
    if (rel > worst) {
      worst = rel;
      wi = i;
    }
  }
  if (!got.empty() && (sum / static_cast<double>(got.size()) >= T || worst >= 10 * T))
    return ::testing::AssertionFailure() << "mean rel " << sum / static_cast<double>(got.size()) << " max rel " << worst
                                         << " at " << wi << ": " << got[wi] << " vs " << want[wi];
  return ::testing::AssertionSuccess();
}

enum class MaskShape { kNone, kSS, kB1SS, k1SS, kBNSS, kBS };

struct Problem {
  std::string layout = "BNSD";  // also "BNSD_BSND": BNSD inputs, BSND output
  aclDataType dt = ACL_FLOAT;
  int64_t B = 1, N = 2, Nkv = 2, Sq = 5, Skv = 7, D = 16;
  double scale = 0.25;
  int sparse = 0;
  int64_t pre = 2147483647, next = 2147483647;
  MaskShape mask = MaskShape::kNone;
  aclDataType mask_dt = ACL_BOOL;
  double mask_rate = 0.3;
  bool pse = false, lse = false, strided = false;
  std::vector<int64_t> q_len, kv_len;
};

std::ostream &operator<<(std::ostream &os, const Problem &p) {
  return os << p.layout << " dt " << p.dt << " B" << p.B << " N" << p.N << "/" << p.Nkv << " Sq" << p.Sq << " Skv"
            << p.Skv << " D" << p.D << " sparse " << p.sparse << " pre " << p.pre << " next " << p.next << " mask "
            << static_cast<int>(p.mask) << " pse " << p.pse << " lse " << p.lse << " strided " << p.strided
            << " q_len " << ::testing::PrintToString(p.q_len) << " kv_len " << ::testing::PrintToString(p.kv_len);
}

std::vector<int64_t> layout_shape(const std::string &l, int64_t B, int64_t N, int64_t S, int64_t D) {
  if (l == "BSH") return {B, S, N * D};
  if (l == "BSND" || l == "_BSND") return {B, S, N, D};
  if (l == "_NBSD") return {N, B, S, D};
  return {B, N, S, D};
}
// Row-major index of element (b, n, s, d) in the layout's shape.
int64_t layout_index(const std::string &l, int64_t N, int64_t S, int64_t D, int64_t b, int64_t n, int64_t s,
                     int64_t d, int64_t B = 1) {
  if (l == "BSH" || l == "BSND" || l == "_BSND") return ((b * S + s) * N + n) * D + d;
  if (l == "_NBSD") return ((n * B + b) * S + s) * D + d;
  return ((b * N + n) * S + s) * D + d;
}

// The inputs' and the output's layout of an inputLayout string ("_BSND": BSND, the output of BNSD_BSND).
// "_NBSD": NBSD, the output of BSH_NBSD / BSND_NBSD / BNSD_NBSD.
std::string in_layout(const std::string &l) {
  const size_t u = l.find('_');
  return u == std::string::npos ? l : l.substr(0, u);
}
std::string out_layout(const std::string &l) {
  const size_t u = l.find('_');
  return u == std::string::npos ? l : l.substr(u);
}

std::unique_ptr<DeviceTensor> make(const std::vector<int64_t> &shape, aclDataType dt, bool strided) {
  if (!strided) return std::make_unique<DeviceTensor>(shape, dt);
  std::vector<int64_t> padded = shape;
  padded.back() += 3;  // rows of the last dim padded: every stride but the last grows
  std::vector<int64_t> st = contiguous_strides(padded);
  return std::make_unique<DeviceTensor>(shape, dt, st, 5, 5 + numel_of(padded) + 1);
}

aclTensorList *list_of(aclTensor *t) {
  aclTensor *copy = aclCreateTensor(t->dims, static_cast<uint64_t>(t->ndim), t->dtype, t->strides, t->offset,
                                    t->format, t->storage_dims, static_cast<uint64_t>(t->storage_ndim), t->data);
  return aclCreateTensorList(&copy, 1);
}

// What one call holds (tensors, lists, arrays) and its float64 expectation.
struct Call {
  std::unique_ptr<DeviceTensor> q, k, v, out, mask, pse, lse;
  AttnArgs a;
  std::string layout;
  ~Call() {
    if (a.key_list) aclDestroyTensorList(a.key_list);
    if (a.value_list) aclDestroyTensorList(a.value_list);
    if (a.act_q) aclDestroyIntArray(a.act_q);
    if (a.act_kv) aclDestroyIntArray(a.act_kv);
  }
};

std::unique_ptr<Call> build(const AttnTableCase &c, const Problem &p) {
  auto call = std::make_unique<Call>();
  Call &x = *call;
  x.layout = p.layout;
  x.q = make(layout_shape(in_layout(p.layout), p.B, p.N, p.Sq, p.D), p.dt, p.strided);
  x.k = make(layout_shape(in_layout(p.layout), p.B, p.Nkv, p.Skv, p.D), p.dt, p.strided);
  x.v = make(layout_shape(in_layout(p.layout), p.B, p.Nkv, p.Skv, p.D), p.dt, p.strided);
  x.out = make(layout_shape(out_layout(p.layout), p.B, p.N, p.Sq, p.D), p.dt, p.strided);
  x.q->fill_random(-2, 2);
  x.k->fill_random(-2, 2);
  x.v->fill_random(-1, 1);
  x.out->poison();
  AttnArgs &a = x.a;
  a.query = *x.q;
  a.out = *x.out;
  if (c.key_list) {
    a.key_list = list_of(*x.k);
    a.value_list = list_of(*x.v);
  } else {
    a.key = *x.k;
    a.value = *x.v;
  }
  std::vector<int64_t> ms;
  switch (p.mask) {
    case MaskShape::kNone: break;
    case MaskShape::kSS: ms = {p.Sq, p.Skv}; break;
    case MaskShape::kB1SS: ms = {p.B, 1, p.Sq, p.Skv}; break;
    case MaskShape::k1SS: ms = {1, p.Sq, p.Skv}; break;
    case MaskShape::kBNSS: ms = {p.B, p.N, p.Sq, p.Skv}; break;
    case MaskShape::kBS: ms = {p.B, p.Skv}; break;
  }
  if (!ms.empty()) {
    x.mask = std::make_unique<DeviceTensor>(ms, p.mask_dt);
    std::vector<double> mv(static_cast<size_t>(numel_of(ms)));
    std::bernoulli_distribution coin(p.mask_rate);
    for (double &e : mv) e = coin(rng()) ? 1 : 0;
    x.mask->set_values(mv);
    a.mask = *x.mask;
  }
  if (p.pse) {
    x.pse = std::make_unique<DeviceTensor>(std::vector<int64_t>{p.B, p.N, p.Sq, p.Skv}, p.dt);
    x.pse->fill_random(-1, 1);
    a.pse = *x.pse;
  }
  if (p.lse) {
    x.lse = std::make_unique<DeviceTensor>(std::vector<int64_t>{p.B, p.N, p.Sq, 1}, ACL_FLOAT);
    x.lse->poison();
    a.lse = *x.lse;
    a.lse_flag = true;
  }
  if (!p.q_len.empty()) a.act_q = aclCreateIntArray(p.q_len.data(), p.q_len.size());
  if (!p.kv_len.empty()) a.act_kv = aclCreateIntArray(p.kv_len.data(), p.kv_len.size());
  a.num_heads = p.N;
  a.num_kv_heads = p.Nkv == p.N ? 0 : p.Nkv;
  a.scale = p.scale;
  a.pre_tokens = p.pre;
  a.next_tokens = p.next;
  a.sparse_mode = p.sparse;
  a.layout = const_cast<char *>(x.layout.c_str());
  return call;
}

void check(const AttnTableCase &c, const Problem &p) {
  SCOPED_TRACE(::testing::Message() << c.name << ": " << p);
  auto call = build(c, p);
  Call &x = *call;
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(x.a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  const auto qv = x.q->values(), kv = x.k->values(), vv = x.v->values();
  const std::vector<double> mv = x.mask ? x.mask->values() : std::vector<double>{};
  const std::vector<double> pv = x.pse ? x.pse->values() : std::vector<double>{};
  refs::AttnRefProblem rp;
  rp.B = p.B;
  rp.N = p.N;
  rp.Nkv = p.Nkv;
  rp.Sq = p.Sq;
  rp.Skv = p.Skv;
  rp.D = p.D;
  rp.scale = p.scale;
  rp.sparse = p.sparse;
  rp.pre = p.pre;
  rp.next = p.next;
  rp.band = !(c.decode && p.Sq == 1);
  for (size_t b = 0; b < static_cast<size_t>(p.B); ++b) {
    if (!p.q_len.empty()) rp.q_len.push_back(p.q_len[p.q_len.size() == 1 ? 0 : b]);
    if (!p.kv_len.empty()) rp.kv_len.push_back(p.kv_len[p.kv_len.size() == 1 ? 0 : b]);
  }
  const std::string L = in_layout(p.layout), LO = out_layout(p.layout);
  auto q = [&](int64_t b, int64_t n, int64_t s, int64_t d) {
    return qv[static_cast<size_t>(layout_index(L, p.N, p.Sq, p.D, b, n, s, d))];
  };
  auto k = [&](int64_t b, int64_t n, int64_t s, int64_t d) {
    return kv[static_cast<size_t>(layout_index(L, p.Nkv, p.Skv, p.D, b, n, s, d))];
  };
  auto v = [&](int64_t b, int64_t n, int64_t s, int64_t d) {
    return vv[static_cast<size_t>(layout_index(L, p.Nkv, p.Skv, p.D, b, n, s, d))];
  };
  auto masked = [&](int64_t b, int64_t n, int64_t i, int64_t j) {
    switch (p.mask) {
      case MaskShape::kNone: return false;
      case MaskShape::kSS: return mv[static_cast<size_t>(i * p.Skv + j)] != 0;
      case MaskShape::kB1SS: return mv[static_cast<size_t>((b * p.Sq + i) * p.Skv + j)] != 0;
      case MaskShape::k1SS: return mv[static_cast<size_t>(i * p.Skv + j)] != 0;
      case MaskShape::kBNSS: return mv[static_cast<size_t>(((b * p.N + n) * p.Sq + i) * p.Skv + j)] != 0;
      case MaskShape::kBS: return mv[static_cast<size_t>(b * p.Skv + j)] != 0;
    }
    return false;
  };
  auto pse = [&](int64_t b, int64_t n, int64_t i, int64_t j) {
    return pv.empty() ? 0.0 : pv[static_cast<size_t>(((b * p.N + n) * p.Sq + i) * p.Skv + j)];
  };
  std::vector<double> want, want_lse;
  refs::attention_ref(rp, q, k, v, masked, pse, &want, &want_lse);
  // Compare in the output layout's order.
  const auto got = x.out->values();
  double vmax = 0;
  for (double e : vv) vmax = std::max(vmax, std::fabs(e));
  const double T = precision_threshold(p.dt);
  double sum_rel = 0, max_rel = 0;
  int64_t worst = -1, count = 0;
  for (int64_t b = 0; b < p.B; ++b)
    for (int64_t n = 0; n < p.N; ++n)
      for (int64_t i = 0; i < p.Sq; ++i)
        for (int64_t d = 0; d < p.D; ++d) {
          const double g = round_to(p.dt, want[static_cast<size_t>(((b * p.N + n) * p.Sq + i) * p.D + d)]);
          const double a = got[static_cast<size_t>(layout_index(LO, p.N, p.Sq, p.D, b, n, i, d, p.B))];
          ASSERT_FALSE(std::isnan(a)) << "NaN at b " << b << " n " << n << " i " << i << " d " << d;
          const double rel = std::fabs(a - g) / std::max({std::fabs(g), vmax, 1e-7});
          sum_rel += rel;
          ++count;
          if (rel > max_rel) {
            max_rel = rel;
            worst = ((b * p.N + n) * p.Sq + i) * p.D + d;
          }
        }
  if (count > 0) {
    EXPECT_LT(sum_rel / static_cast<double>(count), T) << "mean relative error";
    EXPECT_LT(max_rel, 10 * T) << "max relative error at flat [b, n, s, d] index " << worst;
  }
  EXPECT_TRUE(x.out->untouched_outside_view());
  if (x.lse) {
    const auto gl = x.lse->values();
    for (size_t i = 0; i < want_lse.size(); ++i) {
      if (std::isinf(want_lse[i])) {
        EXPECT_EQ(gl[i], want_lse[i]) << "lse " << i;
      } else {
        EXPECT_NEAR(gl[i], want_lse[i], 1e-4 * std::max(1.0, std::fabs(want_lse[i])) + 1e-3 * (p.dt != ACL_FLOAT))
            << "lse " << i;
      }
    }
    EXPECT_TRUE(x.lse->untouched_outside_view());
  }
}

// Packed variable lengths (inputLayout TND, or NTD_TND): query [T, N, D] (NTD: [N, T, D]), key / value
// [Tkv, Nkv, D], output [T, N, D], lse [T, N, 1]; actualSeqLengths(Kv) the cumulative row ends. The
// reference is the padded problem [B, N, max len, D] with the batches' actual lengths.
void check_packed(const AttnTableCase &c, const Problem &p, bool ntd) {
  SCOPED_TRACE(::testing::Message() << c.name << (ntd ? " NTD_TND: " : " TND: ") << p);
  std::vector<int64_t> qs, ks, q_end, kv_end;
  int64_t T = 0, Tk = 0;
  for (size_t b = 0; b < p.q_len.size(); ++b) {
    qs.push_back(T);
    ks.push_back(Tk);
    q_end.push_back(T += p.q_len[b]);
    kv_end.push_back(Tk += p.kv_len[b]);
  }
  auto make3 = [&](int64_t t, int64_t n, bool nt) {
    return make(nt ? std::vector<int64_t>{n, t, p.D} : std::vector<int64_t>{t, n, p.D}, p.dt, p.strided);
  };
  auto q = make3(T, p.N, ntd), k = make3(Tk, p.Nkv, ntd), v = make3(Tk, p.Nkv, ntd), out = make3(T, p.N, false);
  q->fill_random(-2, 2);
  k->fill_random(-2, 2);
  v->fill_random(-1, 1);
  out->poison();
  AttnArgs a;
  a.query = *q;
  a.out = *out;
  if (c.key_list) {
    a.key_list = list_of(*k);
    a.value_list = list_of(*v);
  } else {
    a.key = *k;
    a.value = *v;
  }
  std::unique_ptr<DeviceTensor> mask, lse;
  std::vector<double> mv;
  if (p.mask == MaskShape::kSS || p.mask == MaskShape::kB1SS) {
    const std::vector<int64_t> ms = p.mask == MaskShape::kSS ? std::vector<int64_t>{p.Sq, p.Skv}
                                                             : std::vector<int64_t>{p.B, 1, p.Sq, p.Skv};
    mask = std::make_unique<DeviceTensor>(ms, p.mask_dt);
    mv.resize(static_cast<size_t>(numel_of(ms)));
    std::bernoulli_distribution coin(p.mask_rate);
    for (double &e : mv) e = coin(rng()) ? 1 : 0;
    mask->set_values(mv);
    a.mask = *mask;
  }
  if (p.lse) {
    lse = std::make_unique<DeviceTensor>(std::vector<int64_t>{T, p.N, 1}, ACL_FLOAT);
    lse->poison();
    a.lse = *lse;
    a.lse_flag = true;
  }
  a.act_q = aclCreateIntArray(q_end.data(), q_end.size());
  a.act_kv = aclCreateIntArray(kv_end.data(), kv_end.size());
  a.num_heads = p.N;
  a.num_kv_heads = p.Nkv == p.N ? 0 : p.Nkv;
  a.scale = p.scale;
  a.pre_tokens = p.pre;
  a.next_tokens = p.next;
  a.sparse_mode = p.sparse;
  std::string layout = ntd ? "NTD_TND" : "TND";
  a.layout = const_cast<char *>(layout.c_str());
  const int rc = run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
  if (a.key_list) aclDestroyTensorList(a.key_list);
  if (a.value_list) aclDestroyTensorList(a.value_list);
  aclDestroyIntArray(a.act_q);
  aclDestroyIntArray(a.act_kv);
  ASSERT_EQ(rc, 0) << aclGetRecentErrMsg();
  const auto qv = q->values(), kv = k->values(), vv = v->values();
  auto at = [&](const std::vector<double> &x, bool nt, int64_t rows, int64_t heads, int64_t r, int64_t n, int64_t d) {
    return x[static_cast<size_t>(nt ? (n * rows + r) * p.D + d : (r * heads + n) * p.D + d)];
  };
  refs::AttnRefProblem rp;
  rp.B = p.B;
  rp.N = p.N;
  rp.Nkv = p.Nkv;
  rp.Sq = p.Sq;
  rp.Skv = p.Skv;
  rp.D = p.D;
  rp.scale = p.scale;
  rp.sparse = p.sparse;
  rp.pre = p.pre;
  rp.next = p.next;
  rp.band = !(c.decode && p.Sq == 1);
  rp.q_len = p.q_len;
  rp.kv_len = p.kv_len;
  auto qf = [&](int64_t b, int64_t n, int64_t s, int64_t d) {
    return s < p.q_len[static_cast<size_t>(b)] ? at(qv, ntd, T, p.N, qs[static_cast<size_t>(b)] + s, n, d) : 0.0;
  };
  auto kf = [&](int64_t b, int64_t n, int64_t s, int64_t d) {
    return s < p.kv_len[static_cast<size_t>(b)] ? at(kv, ntd, Tk, p.Nkv, ks[static_cast<size_t>(b)] + s, n, d) : 0.0;
  };
  auto vf = [&](int64_t b, int64_t n, int64_t s, int64_t d) {
    return s < p.kv_len[static_cast<size_t>(b)] ? at(vv, ntd, Tk, p.Nkv, ks[static_cast<size_t>(b)] + s, n, d) : 0.0;
  };
  auto masked = [&](int64_t b, int64_t, int64_t i, int64_t j) {
    if (mv.empty()) return false;
    return mv[static_cast<size_t>(((p.mask == MaskShape::kB1SS ? b : 0) * p.Sq + i) * p.Skv + j)] != 0;
  };
  auto pse = [](int64_t, int64_t, int64_t, int64_t) { return 0.0; };
  std::vector<double> want, want_lse;
  refs::attention_ref(rp, qf, kf, vf, masked, pse, &want, &want_lse);
  // Packed rows in [T, N, D] order.
  std::vector<double> w, wl;
  for (int64_t b = 0; b < p.B; ++b)
    for (int64_t i = 0; i < p.q_len[static_cast<size_t>(b)]; ++i)
      for (int64_t n = 0; n < p.N; ++n) {
        for (int64_t d = 0; d < p.D; ++d)
          w.push_back(round_to(p.dt, want[static_cast<size_t>(((b * p.N + n) * p.Sq + i) * p.D + d)]));
        wl.push_back(want_lse[static_cast<size_t>((b * p.N + n) * p.Sq + i)]);
      }
  EXPECT_TRUE(close_on_scale(p.dt, out->values(), w));
  EXPECT_TRUE(out->untouched_outside_view());
  if (lse) {
    const auto gl = lse->values();
    ASSERT_EQ(gl.size(), wl.size());
    for (size_t i = 0; i < wl.size(); ++i) {
      if (std::isinf(wl[i])) EXPECT_EQ(gl[i], wl[i]) << "lse " << i;
      else EXPECT_NEAR(gl[i], wl[i], 1e-4 * std::max(1.0, std::fabs(wl[i])) + 1e-3 * (p.dt != ACL_FLOAT)) << "lse " << i;
    }
  }
}

class OpTableAttention : public ::testing::TestWithParam<AttnTableCase> {};

TEST_P(OpTableAttention, LayoutsDtypesAndHeads) {
  reseed_for_current_test();
  const AttnTableCase &c = GetParam();
  auto &r = rng();
  for (aclDataType dt : c.dtypes)
    for (const char *layout : {"BSH", "BSND", "BNSD", "BNSD_BSND", "BSH_NBSD", "BSND_NBSD", "BNSD_NBSD"})
      for (int t = 0; t < 2; ++t) {
        Problem p;
        p.layout = layout;
        p.dt = dt;
        p.B = 1 + static_cast<int64_t>(r() % 2);
        p.Nkv = 1 + static_cast<int64_t>(r() % 2);
        p.N = p.Nkv * (t == 0 ? 1 : 1 + static_cast<int64_t>(r() % 4));  // t = 1: grouped-query
        p.Sq = 1 + static_cast<int64_t>(r() % 9);
        p.Skv = 1 + static_cast<int64_t>(r() % 20);
        p.D = int64_t{8} << (r() % 3);
        p.scale = 1.0 / std::sqrt(static_cast<double>(p.D));
        p.strided = t == 1;
        check(c, p);
      }
}

TEST_P(OpTableAttention, PackedVarlenLayouts) {
  reseed_for_current_test();
  const AttnTableCase &c = GetParam();
  auto &r = rng();
  int v = 0;
  for (aclDataType dt : c.dtypes)
    for (int t = 0; t < 4; ++t, ++v) {
      Problem p;
      p.dt = dt;
      p.B = 1 + static_cast<int64_t>(r() % 3);
      p.Nkv = 1 + static_cast<int64_t>(r() % 2);
      p.N = p.Nkv * (1 + static_cast<int64_t>(r() % 3));
      p.D = int64_t{8} << (r() % 3);
      p.scale = 1.0 / std::sqrt(static_cast<double>(p.D));
      p.q_len.clear();
      p.kv_len.clear();
      for (int64_t b = 0; b < p.B; ++b) {
        p.q_len.push_back(static_cast<int64_t>(r() % 9) + (b == 0));  // empty batches too (not all)
        p.kv_len.push_back(static_cast<int64_t>(r() % 20) + 1);
      }
      p.Sq = *std::max_element(p.q_len.begin(), p.q_len.end());
      p.Skv = *std::max_element(p.kv_len.begin(), p.kv_len.end());
      p.strided = v % 2 == 1;
      p.lse = v % 3 == 0 && c.has_lse;
      p.sparse = v % 4 == 2 ? 3 : 0;  // right-down causal per batch
      p.mask = v % 4 == 1 ? MaskShape::kSS : v % 4 == 3 ? MaskShape::kB1SS : MaskShape::kNone;
      check_packed(c, p, v % 2 == 0);
    }
  Problem p;  // long sequences across query and key blocks, GQA
  p.B = 3;
  p.N = 4;
  p.Nkv = 2;
  p.D = 32;
  p.q_len = {150, 1, 70};
  p.kv_len = {300, 700, 70};
  p.Sq = 150;
  p.Skv = 700;
  p.lse = c.has_lse;
  check_packed(c, p, false);
  if (c.decode) {  // decode: one query row per batch
    p.q_len = {1, 1, 1};
    p.Sq = 1;
    check_packed(c, p, true);
  }
}

TEST_P(OpTableAttention, PackedVarlenErrors) {
  const AttnTableCase &c = GetParam();
  const char *api = c.api.c_str();
  DeviceTensor q({6, 2, 8}, ACL_FLOAT), k({9, 2, 8}, ACL_FLOAT), v({9, 2, 8}, ACL_FLOAT), out({6, 2, 8}, ACL_FLOAT),
      bad_out({2, 3, 2, 8}, ACL_FLOAT);
  q.fill_random(-1, 1);
  k.fill_random(-1, 1);
  v.fill_random(-1, 1);
  auto run = [&](std::vector<int64_t> qe, std::vector<int64_t> ke, const char *layout, aclTensor *o) {
    AttnArgs a;
    a.query = q;
    a.out = o;
    if (c.key_list) {
      a.key_list = list_of(k);
      a.value_list = list_of(v);
    } else {
      a.key = k;
      a.value = v;
    }
    a.act_q = qe.empty() ? nullptr : aclCreateIntArray(qe.data(), qe.size());
    a.act_kv = ke.empty() ? nullptr : aclCreateIntArray(ke.data(), ke.size());
    a.num_heads = 2;
    a.layout = const_cast<char *>(layout);
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    const int rc = c.phase1(a, &ws, &ex);
    if (rc == 0) aclDestroyAclOpExecutor(ex);
    if (a.key_list) aclDestroyTensorList(a.key_list);
    if (a.value_list) aclDestroyTensorList(a.value_list);
    if (a.act_q) aclDestroyIntArray(a.act_q);
    if (a.act_kv) aclDestroyIntArray(a.act_kv);
    return rc;
  };
  EXPECT_EQ(run({2, 6}, {4, 9}, "TND", out), 0) << aclGetRecentErrMsg();
  EXPECT_TRUE(fails_with(run({}, {4, 9}, "TND", out), ACLNN_ERR_PARAM_NULLPTR, {api, "actualSeqLengths"}));
  EXPECT_TRUE(fails_with(run({2, 6}, {}, "TND", out), ACLNN_ERR_PARAM_NULLPTR, {api, "actualSeqLengthsKv"}));
  EXPECT_TRUE(fails_with(run({4, 2}, {4, 9}, "TND", out), ACLNN_ERR_PARAM_INVALID, {api, "actualSeqLengths", "[1] = 2"}));
  EXPECT_TRUE(fails_with(run({2, 5}, {4, 9}, "TND", out), ACLNN_ERR_PARAM_INVALID, {api, "actualSeqLengths", "T"}));
  EXPECT_TRUE(fails_with(run({2, 6}, {4, 10}, "TND", out), ACLNN_ERR_PARAM_INVALID, {api, "actualSeqLengthsKv"}));
  EXPECT_TRUE(fails_with(run({2, 6}, {9}, "TND", out), ACLNN_ERR_PARAM_INVALID, {api, "actualSeqLengthsKv", "batches"}));
  EXPECT_TRUE(fails_with(run({2, 6}, {4, 9}, "TND", bad_out), ACLNN_ERR_PARAM_INVALID, {api, "attentionOut"}));
  EXPECT_TRUE(fails_with(run({2, 6}, {4, 9}, "TNDX", out), ACLNN_ERR_PARAM_INVALID, {api, "inputLayout"}));
  EXPECT_TRUE(fails_with(run({2, 6}, {4, 9}, "BSH_NBSD", out), ACLNN_ERR_PARAM_INVALID, {api}));
}

// INT8 key / value (antiquant): k = (k8 + offset) * scale per channel ([2, Nkv * D], [2, Nkv, D],
// [2, Nkv, 1, D]) or per token ([2, B, Skv]), against the reference on the dequantised values. With
// `separate`, the key's and the value's own scale / offset (keyAntiquantScale ...): the shapes without the
// leading 2 (forms 1 and 3 with a leading 1), the value in form (scale_form + 2) % 4, so the two halves
// mix per-channel and per-token modes.
void check_int8(const AttnTableCase &c, const Problem &p, int scale_form, bool offset, bool separate = false) {
  SCOPED_TRACE(::testing::Message() << c.name << " int8 KV scale form " << scale_form << " offset " << offset
                                    << (separate ? " separate" : "") << ": " << p);
  const std::string L = in_layout(p.layout);
  auto q = make(layout_shape(L, p.B, p.N, p.Sq, p.D), p.dt, p.strided);
  auto k = make(layout_shape(L, p.B, p.Nkv, p.Skv, p.D), ACL_INT8, p.strided);
  auto v = make(layout_shape(L, p.B, p.Nkv, p.Skv, p.D), ACL_INT8, p.strided);
  auto out = make(layout_shape(out_layout(p.layout), p.B, p.N, p.Sq, p.D), p.dt, p.strided);
  q->fill_random(-2, 2);
  k->fill_random(-127, 127);
  v->fill_random(-127, 127);
  out->poison();
  const int forms[2] = {scale_form, separate ? (scale_form + 2) % 4 : scale_form};
  auto shape_of = [&](int f) {
    std::vector<int64_t> ss = f == 3   ? std::vector<int64_t>{p.B, p.Skv}
                              : f == 0 ? std::vector<int64_t>{p.Nkv * p.D}
                              : f == 1 ? std::vector<int64_t>{p.Nkv, p.D}
                                       : std::vector<int64_t>{p.Nkv, 1, p.D};
    if (!separate || f % 2 == 1) ss.insert(ss.begin(), separate ? 1 : 2);
    return ss;
  };
  const aclDataType sdt = scale_form == 2 ? ACL_FLOAT : p.dt;
  std::vector<std::unique_ptr<DeviceTensor>> sc, of;  // one (combined) or two (key, value)
  for (int h = 0; h < (separate ? 2 : 1); ++h) {
    sc.push_back(std::make_unique<DeviceTensor>(shape_of(forms[h]), sdt));
    of.push_back(std::make_unique<DeviceTensor>(shape_of(forms[h]), sdt));
    sc.back()->fill_random(0.002, 0.03);
    of.back()->fill_random(-3, 3);
  }
  AttnArgs a;
  a.query = *q;
  a.out = *out;
  a.key_list = list_of(*k);
  a.value_list = list_of(*v);
  a.key = *k;
  a.value = *v;
  if (separate) {
    a.kaq_scale = *sc[0];
    a.vaq_scale = *sc[1];
    a.kaq_offset = offset ? of[0]->get() : nullptr;
    a.vaq_offset = offset ? of[1]->get() : nullptr;
    a.kaq_mode = forms[0] == 3 ? 1 : 0;
    a.vaq_mode = forms[1] == 3 ? 1 : 0;
  } else {
    a.aq_scale = *sc[0];
    a.aq_offset = offset ? of[0]->get() : nullptr;
    a.aq_mode = forms[0] == 3 ? 1 : 0;
  }
  a.num_heads = p.N;
  a.num_kv_heads = p.Nkv == p.N ? 0 : p.Nkv;
  a.scale = p.scale;
  a.sparse_mode = p.sparse;
  std::string layout = p.layout;
  a.layout = const_cast<char *>(layout.c_str());
  const int rc = run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
  aclDestroyTensorList(a.key_list);
  aclDestroyTensorList(a.value_list);
  ASSERT_EQ(rc, 0) << aclGetRecentErrMsg();
  const auto qv = q->values(), kv = k->values(), vv = v->values();
  std::vector<double> sv[2], ov[2];
  for (int h = 0; h < (separate ? 2 : 1); ++h) sv[h] = sc[static_cast<size_t>(h)]->values(), ov[h] = of[static_cast<size_t>(h)]->values();
  auto deq = [&](const std::vector<double> &x, int64_t half, int64_t b, int64_t n, int64_t s, int64_t d) {
    const double raw = x[static_cast<size_t>(layout_index(L, p.Nkv, p.Skv, p.D, b, n, s, d))];
    const int64_t t = separate ? 0 : half;  // the combined form: the half is the leading index
    const size_t vi = separate ? static_cast<size_t>(half) : 0;
    const size_t i = static_cast<size_t>(forms[half] == 3 ? (t * p.B + b) * p.Skv + s : (t * p.Nkv + n) * p.D + d);
    return (raw + (offset ? ov[vi][i] : 0.0)) * sv[vi][i];
  };
  refs::AttnRefProblem rp;
  rp.B = p.B;
  rp.N = p.N;
  rp.Nkv = p.Nkv;
  rp.Sq = p.Sq;
  rp.Skv = p.Skv;
  rp.D = p.D;
  rp.scale = p.scale;
  rp.sparse = p.sparse;
  rp.band = !(c.decode && p.Sq == 1);
  std::vector<double> want, want_lse;
  refs::attention_ref(
      rp,
      [&](int64_t b, int64_t n, int64_t s, int64_t d) {
        return qv[static_cast<size_t>(layout_index(L, p.N, p.Sq, p.D, b, n, s, d))];
      },
      [&](int64_t b, int64_t n, int64_t s, int64_t d) { return deq(kv, 0, b, n, s, d); },
      [&](int64_t b, int64_t n, int64_t s, int64_t d) { return deq(vv, 1, b, n, s, d); },
      [](int64_t, int64_t, int64_t, int64_t) { return false; }, [](int64_t, int64_t, int64_t, int64_t) { return 0.0; },
      &want, &want_lse);
  const std::string LO = out_layout(p.layout);
  const auto got = out->values();
  std::vector<double> g, w;
  for (int64_t b = 0; b < p.B; ++b)
    for (int64_t n = 0; n < p.N; ++n)
      for (int64_t i = 0; i < p.Sq; ++i)
        for (int64_t d = 0; d < p.D; ++d) {
          w.push_back(round_to(p.dt, want[static_cast<size_t>(((b * p.N + n) * p.Sq + i) * p.D + d)]));
          g.push_back(got[static_cast<size_t>(layout_index(LO, p.N, p.Sq, p.D, b, n, i, d, p.B))]);
        }
  EXPECT_TRUE(close_on_scale(p.dt, g, w));
  EXPECT_TRUE(out->untouched_outside_view());
}

class OpTableAttentionInt8 : public ::testing::TestWithParam<AttnTableCase> {};

TEST_P(OpTableAttentionInt8, Int8KvAntiquant) {
  reseed_for_current_test();
  const AttnTableCase &c = GetParam();
  int v = 0;
  for (aclDataType dt : c.dtypes)
    for (const char *layout : {"BSH", "BSND", "BNSD"})
      for (int f = 0; f < 4; ++f, ++v) {
        Problem p;
        p.layout = layout;
        p.dt = dt;
        p.B = 2;
        p.N = 4;
        p.Nkv = 2;
        p.Sq = v % 3 == 0 ? 1 : 5;
        p.Skv = 37;
        p.D = 16;
        p.scale = 0.25;
        p.strided = v % 2 == 1;
        p.sparse = v % 5 == 4 ? 3 : 0;
        check_int8(c, p, f, v % 3 != 1, c.kv_antiquant && v % 2 == 0);
      }
  Problem p;  // decode over several key blocks
  p.layout = "BSND";
  p.dt = c.dtypes.front();
  p.B = 1;
  p.N = 8;
  p.Nkv = 2;
  p.Sq = 1;
  p.Skv = 1100;
  p.D = 64;
  p.scale = 0.125;
  check_int8(c, p, 1, true);
  check_int8(c, p, 3, false);
  if (c.kv_antiquant) check_int8(c, p, 1, true, true);
}

TEST_P(OpTableAttentionInt8, Int8KvErrors) {
  const AttnTableCase &c = GetParam();
  const char *api = c.api.c_str();
  DeviceTensor q({1, 2, 3, 8}, ACL_FLOAT16), k({1, 2, 5, 8}, ACL_INT8), v({1, 2, 5, 8}, ACL_INT8),
      vh({1, 2, 5, 8}, ACL_FLOAT16), kh({1, 2, 5, 8}, ACL_FLOAT16), out({1, 2, 3, 8}, ACL_FLOAT16),
      sc({2, 2, 8}, ACL_FLOAT16), sc_bad({2, 3, 8}, ACL_FLOAT16), sc_i({2, 2, 8}, ACL_INT32), of_f({2, 2, 8}, ACL_FLOAT),
      tok({2, 1, 5}, ACL_FLOAT16);
  q.fill_random(-1, 1);
  k.fill_random(-5, 5);
  v.fill_random(-5, 5);
  sc.fill_random(0.01, 0.02);
  tok.fill_random(0.01, 0.02);
  std::string layout = "BNSD";
  // Phase 1 of `a` (its antiquant fields set) with key kk and value vv.
  auto phase1_with = [&](AttnArgs a, aclTensor *kk, aclTensor *vv) {
    a.query = q;
    a.out = out;
    a.key_list = list_of(kk);
    a.value_list = list_of(vv);
    a.key = kk;
    a.value = vv;
    a.num_heads = 2;
    a.layout = const_cast<char *>(layout.c_str());
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    const int rc = c.phase1(a, &ws, &ex);
    if (rc == 0) aclDestroyAclOpExecutor(ex);
    aclDestroyTensorList(a.key_list);
    aclDestroyTensorList(a.value_list);
    return rc;
  };
  auto run = [&](aclTensor *kk, aclTensor *vv, aclTensor *s, aclTensor *o, int64_t mode) {
    AttnArgs a;
    a.aq_scale = s;
    a.aq_offset = o;
    a.aq_mode = mode;
    return phase1_with(a, kk, vv);
  };
  EXPECT_EQ(run(k, v, sc, nullptr, 0), 0) << aclGetRecentErrMsg();
  EXPECT_EQ(run(k, v, tok, nullptr, 1), 0) << aclGetRecentErrMsg();
  EXPECT_TRUE(fails_with(run(k, v, nullptr, nullptr, 0), ACLNN_ERR_PARAM_INVALID, {api, "dtype INT8"}));
  EXPECT_TRUE(fails_with(run(k, vh, sc, nullptr, 0), ACLNN_ERR_PARAM_INVALID, {api, "INT8 value"}));
  EXPECT_TRUE(fails_with(run(kh, vh, sc, nullptr, 0), ACLNN_ERR_PARAM_INVALID, {api, "antiquantScale"}));
  EXPECT_TRUE(fails_with(run(k, v, sc_bad, nullptr, 0), ACLNN_ERR_PARAM_INVALID, {api, "antiquantScale", "shape"}));
  EXPECT_TRUE(fails_with(run(k, v, sc, nullptr, 1), ACLNN_ERR_PARAM_INVALID, {api, "antiquantScale", "[2, B, Skv]"}));
  EXPECT_TRUE(fails_with(run(k, v, sc, nullptr, 2), ACLNN_ERR_PARAM_INVALID, {api, "antiquantMode"}));
  EXPECT_TRUE(fails_with(run(k, v, sc_i, nullptr, 0), ACLNN_ERR_PARAM_INVALID, {api, "antiquantScale", "dtype"}));
  EXPECT_TRUE(fails_with(run(k, v, sc, of_f, 0), ACLNN_ERR_PARAM_INVALID, {api, "antiquantOffset"}));
  EXPECT_TRUE(fails_with(run(k, v, nullptr, of_f, 0), ACLNN_ERR_PARAM_NULLPTR, {api, "antiquantOffset"}));
  if (!c.kv_antiquant) return;
  // The separate form: keyAntiquantScale / valueAntiquantScale (+ offsets), each with its mode.
  DeviceTensor ksc({2, 8}, ACL_FLOAT16), vtok({1, 1, 5}, ACL_FLOAT16), kbad({3, 8}, ACL_FLOAT16), kof({2, 8}, ACL_FLOAT);
  ksc.fill_random(0.01, 0.02);
  vtok.fill_random(0.01, 0.02);
  auto run2 = [&](aclTensor *kk, aclTensor *ks, aclTensor *ko, int64_t km, aclTensor *vs, int64_t vm, aclTensor *comb) {
    AttnArgs a;
    a.kaq_scale = ks;
    a.kaq_offset = ko;
    a.kaq_mode = km;
    a.vaq_scale = vs;
    a.vaq_mode = vm;
    a.aq_scale = comb;
    return phase1_with(a, kk, v);
  };
  EXPECT_EQ(run2(k, ksc, nullptr, 0, vtok, 1, nullptr), 0) << aclGetRecentErrMsg();
  EXPECT_TRUE(fails_with(run2(k, ksc, nullptr, 0, nullptr, 0, nullptr), ACLNN_ERR_PARAM_NULLPTR,
                         {api, "keyAntiquantScale", "valueAntiquantScale"}));
  EXPECT_TRUE(fails_with(run2(k, nullptr, ksc, 0, vtok, 1, nullptr), ACLNN_ERR_PARAM_NULLPTR, {api, "valueAntiquantScale"}));
  EXPECT_TRUE(fails_with(run2(k, ksc, nullptr, 0, vtok, 1, sc), ACLNN_ERR_PARAM_INVALID, {api, "antiquantScale", "both"}));
  EXPECT_TRUE(fails_with(run2(k, kbad, nullptr, 0, vtok, 1, nullptr), ACLNN_ERR_PARAM_INVALID,
                         {api, "keyAntiquantScale", "shape"}));
  EXPECT_TRUE(fails_with(run2(k, ksc, nullptr, 0, vtok, 0, nullptr), ACLNN_ERR_PARAM_INVALID,
                         {api, "valueAntiquantScale", "valueAntiquantMode"}));
  EXPECT_TRUE(fails_with(run2(k, ksc, nullptr, 3, vtok, 1, nullptr), ACLNN_ERR_PARAM_INVALID, {api, "keyAntiquantMode"}));
  EXPECT_TRUE(fails_with(run2(k, ksc, kof, 0, vtok, 1, nullptr), ACLNN_ERR_PARAM_INVALID, {api, "keyAntiquantOffset"}));
  EXPECT_TRUE(fails_with(run2(kh, ksc, nullptr, 0, vtok, 1, nullptr), ACLNN_ERR_PARAM_INVALID, {api, "keyAntiquantScale"}));
}

TEST_P(OpTableAttention, DecodeOverLongKvCache) {
  reseed_for_current_test();
  const AttnTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes) {
    Problem p;  // GQA decode: 8 query heads on 2 KV heads, KV across several key blocks
    p.dt = dt;
    p.layout = dt == ACL_FLOAT16 ? "BSND" : "BNSD";
    p.B = 2;
    p.N = 8;
    p.Nkv = 2;
    p.Sq = 1;
    p.Skv = 1100;
    p.D = 64;
    p.scale = 0.125;
    p.kv_len = {1100, 777};
    check(c, p);
  }
  Problem p;  // multi-head (no groups), batch 1
  p.N = p.Nkv = 4;
  p.Sq = 1;
  p.Skv = 600;
  p.D = 32;
  check(c, p);
}

// Streaming decode (decode_stream) with the KV length split across tasks and merged by log-sum-exp:
// one KV head per batch, so every batch's keys are split; odd lengths (1, 7, 4097), groups of 4, 3
// (no head pairs) and 2 query heads, one head (MHA), head dims that are not a multiple of 16, a
// [B, Skv] mask, pse, lse, and a band whose window leaves whole splits without a visible key.
TEST_P(OpTableAttention, SplitKvDecodeStream) {
  reseed_for_current_test();
  const AttnTableCase &c = GetParam();
  auto decode = [](int64_t N, int64_t Nkv, int64_t Skv, int64_t D) {
    Problem p;
    p.N = N;
    p.Nkv = Nkv;
    p.Sq = 1;
    p.Skv = Skv;
    p.D = D;
    return p;
  };
  for (aclDataType dt : c.dtypes) {
    Problem p = decode(4, 1, 4097, 128);
    p.dt = dt;
    p.B = 3;
    p.scale = 0.09;
    p.kv_len = {1, 7, 4097};
    p.mask = MaskShape::kBS;
    p.lse = c.has_lse;
    check(c, p);
  }
  check(c, decode(6, 2, 2100, 40));  // groups of 3
  Problem g2 = decode(4, 2, 2100, 40);
  g2.layout = "BSND";
  g2.strided = true;
  check(c, g2);
  Problem mha = decode(1, 1, 1537, 24);
  mha.pse = true;
  mha.lse = c.has_lse;
  check(c, mha);
  Problem band = decode(4, 1, 3000, 64);
  band.sparse = 4;
  band.pre = 300;
  band.next = 0;
  band.lse = c.has_lse;
  check(c, band);
}

// Phase 1 picks the streaming decode path for FLOAT / FLOAT16 / BF16 decode, grouped or not.
TEST_P(OpTableAttention, DecodeChoosesTheStreamingPath) {
  const AttnTableCase &c = GetParam();
  for (int64_t nkv : {1, 4}) {
    Problem p;
    p.N = 4;
    p.Nkv = nkv;
    p.Sq = 1;
    p.Skv = 50;
    p.dt = c.dtypes.back();
    auto call = build(c, p);
    std::vector<std::string> lines;
    core::set_verbose_for_testing(true, &lines);
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    const int rc = c.phase1(call->a, &ws, &ex);
    core::set_verbose_for_testing(false, nullptr);
    ASSERT_EQ(rc, 0) << aclGetRecentErrMsg();
    aclDestroyAclOpExecutor(ex);
    bool found = false;
    for (const std::string &l : lines) found = found || l.find("attention:decode_stream/") != std::string::npos;
    EXPECT_TRUE(found) << "Nkv " << nkv << ": " << ::testing::PrintToString(lines);
  }
}

TEST_P(OpTableAttention, PrefillAcrossKeyBlocks) {
  reseed_for_current_test();
  const AttnTableCase &c = GetParam();
  Problem p;
  p.layout = "BSND";
  p.N = 4;
  p.Nkv = 2;
  p.Sq = 150;  // three query blocks
  p.Skv = 600;  // three key blocks, the last partial
  p.D = 32;
  p.scale = 0.17;
  check(c, p);
  p.sparse = 3;  // causal, right-down
  p.dt = c.dtypes.front();
  check(c, p);
  Problem wide;  // 64 query heads on one KV head: one head per task (a group would exceed 512 rows)
  wide.N = 64;
  wide.Nkv = 1;
  wide.Sq = 20;
  wide.Skv = 40;
  wide.D = 8;
  wide.sparse = 2;
  check(c, wide);
  wide.Sq = 1;  // decode: the 64 heads are the rows of one task
  wide.sparse = 0;
  check(c, wide);
}

TEST_P(OpTableAttention, MasksAndSparseModes) {
  reseed_for_current_test();
  const AttnTableCase &c = GetParam();
  Problem base;
  base.B = 2;
  base.N = 4;
  base.Nkv = 2;
  base.Sq = 13;
  base.Skv = 19;
  base.D = 16;
  for (MaskShape m : {MaskShape::kSS, MaskShape::kB1SS, MaskShape::k1SS, MaskShape::kBNSS})
    for (aclDataType mdt : {ACL_BOOL, ACL_INT8, ACL_UINT8}) {
      Problem p = base;
      p.mask = m;
      p.mask_dt = mdt;
      check(c, p);
    }
  {
    Problem p = base;  // every key masked for some rows: 0 (lse +inf)
    p.mask = MaskShape::kSS;
    p.mask_rate = 0.9;
    p.lse = c.has_lse;
    check(c, p);
  }
  for (int sparse : {0, 1, 2, 3, 4})
    for (auto [pre, next] : {std::pair<int64_t, int64_t>{2147483647, 2147483647}, {3, 0}, {5, 2}, {0, 4}, {-2, 4}}) {
      Problem p = base;
      p.sparse = sparse;
      p.pre = pre;
      p.next = next;
      p.mask = sparse <= 1 ? MaskShape::kB1SS : MaskShape::kNone;
      p.Sq = sparse == 3 ? 7 : 13;  // right-down: Sq < Skv
      check(c, p);
    }
  {
    Problem p = base;  // decode with a [B, Skv] mask
    p.Sq = 1;
    p.mask = MaskShape::kBS;
    check(c, p);
  }
}

TEST_P(OpTableAttention, ActualLengthsPseAndLse) {
  reseed_for_current_test();
  const AttnTableCase &c = GetParam();
  Problem p;
  p.B = 3;
  p.N = 2;
  p.Nkv = 1;
  p.Sq = 9;
  p.Skv = 11;
  p.D = 16;
  p.q_len = {9, 4, 0};
  p.kv_len = {11, 6, 3};
  check(c, p);
  p.sparse = 3;
  check(c, p);
  p.sparse = 0;
  p.q_len = {5};
  p.kv_len = {};
  check(c, p);
  Problem s;
  s.B = 2;
  s.N = 2;
  s.Sq = 6;
  s.Skv = 10;
  for (aclDataType dt : c.dtypes) {
    s.dt = dt;
    s.pse = true;
    s.lse = c.has_lse;
    s.mask = MaskShape::kSS;
    check(c, s);
  }
  if (c.has_lse) {
    Problem d;  // decode with lse
    d.Sq = 1;
    d.N = 4;
    d.Nkv = 1;
    d.Skv = 700;
    d.lse = true;
    check(c, d);
  }
}

TEST_P(OpTableAttention, EmptyShapes) {
  const AttnTableCase &c = GetParam();
  Problem p;
  p.Skv = 0;  // nothing to attend to: 0
  p.lse = c.has_lse;
  check(c, p);
  p.Skv = 4;
  p.Sq = 0;
  p.lse = false;
  check(c, p);
}

TEST_P(OpTableAttention, KernelTiersAndReference) {
  // Every row-operation tier (OPSNN_MAX_ISA; the default is avx512bf16 where the CPU has it, whose
  // BF16 decode q.k differs from avx512's) and OPSNN_KERNELS=reference (portable rows, reference
  // GEMMs) against the float64 reference, and a repeat launch bit for bit.
  reseed_for_current_test();
  const AttnTableCase &c = GetParam();
  Problem p;
  p.N = 4;
  p.Nkv = 2;
  p.Sq = 70;
  p.Skv = 300;
  p.D = 32;
  p.sparse = 2;
  p.mask = MaskShape::kNone;
  for (auto [isa, kernels] : {std::pair<const char *, const char *>{"avx512", nullptr}, {"avx2", nullptr},
                              {"portable", nullptr}, {nullptr, "reference"}}) {
    SCOPED_TRACE(::testing::Message() << "OPSNN_MAX_ISA=" << (isa ? isa : "-") << " OPSNN_KERNELS="
                                      << (kernels ? kernels : "-"));
    core::reset_kernel_env_for_testing(isa, kernels);
    check(c, p);
    Problem d = p;  // decode rows
    d.Sq = 1;
    check(c, d);
  }
  core::reset_kernel_env_for_testing(std::getenv("OPSNN_MAX_ISA"), std::getenv("OPSNN_KERNELS"));
  auto call = build(c, p);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(call->a, w, e); }, c.launch), 0);
  const auto first = call->out->values();
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(call->a, w, e); }, c.launch), 0);
  EXPECT_EQ(first, call->out->values());
}

// Results do not depend on the number of workers (each row is one task's, in a fixed key order; the
// decode splits and their merge order are fixed by the shapes): the kernel run directly with 1 and 2
// workers, bit for bit, for prefill and for split-KV decode.
TEST(AttentionKernel, WorkerCountInvariant) {
  reseed_for_current_test();
  for (const int64_t Sq : {50, 1}) {
    const int64_t B = 2, N = 4, Nkv = 2, Skv = Sq == 1 ? 1333 : 333, D = 24;
    std::vector<float> q(static_cast<size_t>(B * N * Sq * D)), k(static_cast<size_t>(B * Nkv * Skv * D)), v(k.size());
    std::uniform_real_distribution<float> U(-1, 1);
    for (auto *vec : {&q, &k, &v})
      for (float &e : *vec) e = U(rng());
    kernels::AttnDesc d;
    d.batch = B;
    d.heads = N;
    d.kv_heads = Nkv;
    d.sq = Sq;
    d.skv = Skv;
    d.dim = D;
    d.q = {ACL_FLOAT, N * Sq * D, Sq * D, D, 1};
    d.k = d.v = {ACL_FLOAT, Nkv * Skv * D, Skv * D, D, 1};
    d.out = d.q;
    d.scale = 0.3f;
    d.sparse = kernels::AttnSparse::kRightDown;
    d.q_len = {Sq, Sq == 1 ? 1 : 31};
    d.kv_len = {Skv, 200};
    kernels::AttnPlan plan;
    ASSERT_TRUE(kernels::flash_attention_plan(d, &plan));
    EXPECT_EQ(plan.merges.empty(), Sq != 1) << "decode over 1333 keys is split";
    std::vector<std::vector<float>> outs;
    for (int workers : {1, 2}) {
      kernels::AttnPlan pw = plan;
      pw.workers = workers;
      std::vector<char> ws(pw.partial_bytes + pw.worker_bytes * static_cast<size_t>(workers) + 64);
      void *wsp = reinterpret_cast<void *>((reinterpret_cast<uintptr_t>(ws.data()) + 63) / 64 * 64);
      std::vector<float> out(q.size(), -1.0f);
      ASSERT_EQ(kernels::flash_attention_run(pw, q.data(), k.data(), v.data(), nullptr, nullptr, out.data(), nullptr,
                                             nullptr, wsp),
                0);
      outs.push_back(out);
    }
    EXPECT_EQ(outs[0], outs[1]) << "Sq " << Sq;
  }
}

// Paged KV (blockTable / blockSize): the logical K / V of each batch scattered over the pages of
// a cache ([blocks, blockSize, Nkv * D] with BSH, [blocks, Nkv, blockSize, D] with BNSD) in a random
// order; cache rows no sequence uses hold NaN (never read).
void check_paged(const AttnTableCase &c, const std::string &layout, aclDataType dt, int64_t sq, int64_t bs,
                 std::vector<int64_t> kv_len, int sparse) {
  SCOPED_TRACE(::testing::Message() << c.name << " paged " << layout << " dt " << dt << " Sq " << sq << " block "
                                    << bs << " kv " << ::testing::PrintToString(kv_len) << " sparse " << sparse);
  const int64_t B = static_cast<int64_t>(kv_len.size()), N = 8, Nkv = 2, D = 32;
  int64_t max_kv = 0;
  for (int64_t l : kv_len) max_kv = std::max(max_kv, l);
  const int64_t max_blocks = (max_kv + bs - 1) / bs + 1, num_blocks = B * max_blocks + 3, skv = max_blocks * bs;
  // Page i of batch b -> a distinct random cache block.
  std::vector<int64_t> perm(static_cast<size_t>(num_blocks));
  for (int64_t i = 0; i < num_blocks; ++i) perm[static_cast<size_t>(i)] = i;
  std::shuffle(perm.begin(), perm.end(), rng());
  std::vector<double> table(static_cast<size_t>(B * max_blocks));
  for (int64_t i = 0; i < B * max_blocks; ++i) table[static_cast<size_t>(i)] = static_cast<double>(perm[static_cast<size_t>(i)]);
  const bool bsh = layout == "BSH";
  const std::vector<int64_t> cshape = bsh ? std::vector<int64_t>{num_blocks, bs, Nkv * D}
                                          : std::vector<int64_t>{num_blocks, Nkv, bs, D};
  DeviceTensor kc(cshape, dt), vc(cshape, dt), tab({B, max_blocks}, ACL_INT32);
  tab.set_values(table);
  std::uniform_real_distribution<double> U(-1, 1);
  // Logical values [B, Nkv, skv, D] and their cache positions.
  std::vector<double> kl(static_cast<size_t>(B * Nkv * skv * D)), vl(kl.size());
  std::vector<double> kcv(static_cast<size_t>(numel_of(cshape)), NAN), vcv(kcv.size(), NAN);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Nkv; ++h)
      for (int64_t j = 0; j < kv_len[static_cast<size_t>(b)]; ++j)
        for (int64_t e = 0; e < D; ++e) {
          const size_t li = static_cast<size_t>(((b * Nkv + h) * skv + j) * D + e);
          kl[li] = round_to(dt, 2 * U(rng()));
          vl[li] = round_to(dt, U(rng()));
          const int64_t blk = perm[static_cast<size_t>(b * max_blocks + j / bs)], r = j % bs;
          const size_t ci = static_cast<size_t>(bsh ? (blk * bs + r) * Nkv * D + h * D + e : ((blk * Nkv + h) * bs + r) * D + e);
          kcv[ci] = kl[li];
          vcv[ci] = vl[li];
        }
  kc.set_values(kcv);
  vc.set_values(vcv);
  DeviceTensor q(layout_shape(layout, B, N, sq, D), dt), out(layout_shape(layout, B, N, sq, D), dt);
  q.fill_random(-2, 2);
  out.poison();
  AttnArgs a;
  a.query = q;
  a.out = out;
  a.key_list = list_of(kc);
  a.value_list = list_of(vc);
  a.block_table = tab;
  a.block_size = bs;
  a.act_kv = aclCreateIntArray(kv_len.data(), kv_len.size());
  a.num_heads = N;
  a.num_kv_heads = Nkv;
  a.scale = 0.2;
  a.sparse_mode = sparse;
  std::string ls = layout;
  a.layout = ls.data();
  const int rc = run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
  aclDestroyTensorList(a.key_list);
  aclDestroyTensorList(a.value_list);
  aclDestroyIntArray(a.act_kv);
  ASSERT_EQ(rc, 0) << aclGetRecentErrMsg();
  refs::AttnRefProblem rp;
  rp.B = B;
  rp.N = N;
  rp.Nkv = Nkv;
  rp.Sq = sq;
  rp.Skv = skv;
  rp.D = D;
  rp.scale = 0.2;
  rp.sparse = sparse;
  rp.band = !(c.decode && sq == 1);
  rp.kv_len = kv_len;
  const auto qv = q.values();
  std::vector<double> want, want_lse;
  refs::attention_ref(
      rp, [&](int64_t b, int64_t n, int64_t s, int64_t e) { return qv[static_cast<size_t>(layout_index(layout, N, sq, D, b, n, s, e))]; },
      [&](int64_t b, int64_t n, int64_t j, int64_t e) { return kl[static_cast<size_t>(((b * Nkv + n) * skv + j) * D + e)]; },
      [&](int64_t b, int64_t n, int64_t j, int64_t e) { return vl[static_cast<size_t>(((b * Nkv + n) * skv + j) * D + e)]; },
      [](int64_t, int64_t, int64_t, int64_t) { return false; }, [](int64_t, int64_t, int64_t, int64_t) { return 0.0; },
      &want, &want_lse);
  const auto got = out.values();
  const double T = precision_threshold(dt);
  double sum = 0, worst = 0;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t n = 0; n < N; ++n)
      for (int64_t i = 0; i < sq; ++i)
        for (int64_t e = 0; e < D; ++e) {
          const double g = round_to(dt, want[static_cast<size_t>(((b * N + n) * sq + i) * D + e)]);
          const double x = got[static_cast<size_t>(layout_index(layout, N, sq, D, b, n, i, e))];
          ASSERT_FALSE(std::isnan(x)) << b << " " << n << " " << i << " " << e;
          const double rel = std::fabs(x - g) / std::max(std::fabs(g), 1.0);
          sum += rel;
          worst = std::max(worst, rel);
        }
  EXPECT_LT(sum / static_cast<double>(got.size()), T);
  EXPECT_LT(worst, 10 * T);
}

// Registered only for the ops with a block table (see the instantiation below).
class OpTableAttentionPaged : public OpTableAttention {};
TEST_P(OpTableAttentionPaged, PagedKvCache) {
  reseed_for_current_test();
  const AttnTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes) {
    check_paged(c, "BSH", dt, 1, 16, {37, 70}, 0);  // decode, small pages, several per key block
    check_paged(c, "BNSD", dt, 1, 128, {300, 129}, 0);
    check_paged(c, "BSH", dt, 1, 64, {1300, 7}, 0);  // split-KV decode: splits of whole pages
  }
  check_paged(c, "BNSD", ACL_FLOAT, 5, 32, {90, 40}, 3);  // prefill over a paged cache, causal
  // A table entry outside the cache: the launch fails with 161002.
  {
    DeviceTensor q({1, 2, 1, 16}, ACL_FLOAT), out({1, 2, 1, 16}, ACL_FLOAT), kc({2, 2, 16, 16}, ACL_FLOAT),
        vc({2, 2, 16, 16}, ACL_FLOAT), tab({1, 2}, ACL_INT32);
    q.fill_random(-1, 1);
    kc.fill_random(-1, 1);
    vc.fill_random(-1, 1);
    tab.set_values({1, 7});
    const int64_t len[] = {20};
    AttnArgs a;
    a.query = q;
    a.out = out;
    a.key_list = list_of(kc);
    a.value_list = list_of(vc);
    a.block_table = tab;
    a.block_size = 16;
    a.act_kv = aclCreateIntArray(len, 1);
    a.num_heads = 2;
    char bnsd[] = "BNSD";
    a.layout = bnsd;
    EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch),
              ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("blockTable"), std::string::npos) << aclGetRecentErrMsg();
    a.block_size = 0;
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"blockSize"}));
    a.block_size = 16;
    aclDestroyIntArray(a.act_kv);
    a.act_kv = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"actualSeqLengthsKv"}));
    aclDestroyTensorList(a.key_list);
    aclDestroyTensorList(a.value_list);
  }
}

TEST_P(OpTableAttention, ErrorsNameTheArgument) {
  const AttnTableCase &c = GetParam();
  Problem p;
  p.N = 4;
  p.Nkv = 2;
  p.lse = c.has_lse;
  auto call = build(c, p);
  const AttnArgs good = call->a;
  const char *api = c.api.c_str();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(good, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  AttnArgs a = good;
  a.query = nullptr;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "query"}));
  a = good;
  if (c.key_list)
    a.key_list = nullptr;
  else
    a.key = nullptr;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "key"}));
  a = good;
  a.out = nullptr;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "attentionOut"}));
  a = good;
  a.layout = nullptr;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "inputLayout"}));
  char bad_layout[] = "SBH";
  a = good;
  a.layout = bad_layout;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "inputLayout", "SBH"}));
  a = good;
  a.num_kv_heads = 3;  // does not divide 4
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "numKeyValueHeads"}));
  a = good;
  a.num_heads = 0;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "numHeads"}));
  a = good;
  a.num_heads = 2;  // the query holds 4 heads
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "query", "heads"}));
  a = good;
  a.sparse_mode = 5;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "sparseMode"}));
  a = good;
  a.scale = NAN;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "scaleValue"}));
  DeviceTensor wrong_d({p.B, p.Nkv, p.Skv, p.D + 1}, p.dt);
  a = good;
  if (c.key_list)
    a.key_list = list_of(wrong_d);
  else
    a.key = wrong_d;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "key"}));
  if (c.key_list) aclDestroyTensorList(a.key_list);
  DeviceTensor half({p.B, p.Nkv, p.Skv, p.D}, ACL_FLOAT16);
  a = good;
  if (c.key_list)
    a.value_list = list_of(half);
  else
    a.value = half;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "value", "dtype"}));
  if (c.key_list) aclDestroyTensorList(a.value_list);
  DeviceTensor ints({p.B, p.N, p.Sq, p.D}, ACL_INT32);
  a = good;
  a.query = ints;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "query", "dtype"}));
  DeviceTensor bad_out({p.B, p.N, p.Sq + 1, p.D}, p.dt);
  a = good;
  a.out = bad_out;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "attentionOut"}));
  DeviceTensor bad_mask({p.Sq, p.Skv + 1}, ACL_BOOL);
  a = good;
  a.mask = bad_mask;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "attenMask"}));
  DeviceTensor float_mask({p.Sq, p.Skv}, ACL_FLOAT);
  a = good;
  a.mask = float_mask;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "attenMask"}));
  const int64_t too_long[] = {p.Skv + 1};
  a = good;
  a.act_kv = aclCreateIntArray(too_long, 1);
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "actualSeqLengthsKv"}));
  aclDestroyIntArray(a.act_kv);
  const int64_t three[] = {1, 1, 1};
  a = good;
  a.act_q = aclCreateIntArray(three, 3);
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "actualSeqLengths"}));
  aclDestroyIntArray(a.act_q);
  if (c.has_lse) {
    a = good;
    a.lse = nullptr;
    a.lse_flag = true;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "softmaxLse"}));
    DeviceTensor bad_lse({p.B, p.N, p.Sq}, ACL_FLOAT);
    a = good;
    a.lse = bad_lse;
    a.lse_flag = true;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "softmaxLse"}));
  }
  // Every unsupported input, passed non-null: 161002 naming it.
  DeviceTensor dummy({2}, ACL_FLOAT);
  const int64_t one[] = {1};
  aclIntArray *arr = aclCreateIntArray(one, 1);
  for (const std::string &u : c.unsupported) {
    a = good;
    a.bogus = u;
    a.bogus_tensor = dummy;
    a.bogus_array = arr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, u.c_str(), "not supported"}));
  }
  aclDestroyIntArray(arr);
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableAttention, ::testing::ValuesIn(cases_of(Kind::kFlash)),
                         harness::case_name<AttnTableCase>);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTableAttention);
std::vector<AttnTableCase> paged_cases() {
  std::vector<AttnTableCase> v;
  for (const AttnTableCase &c : cases_of(Kind::kFlash))
    if (c.paged) v.push_back(c);
  return v;
}
INSTANTIATE_TEST_SUITE_P(Tables, OpTableAttentionPaged, ::testing::ValuesIn(paged_cases()),
                         harness::case_name<AttnTableCase>);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTableAttentionPaged);
std::vector<AttnTableCase> antiquant_cases() {
  std::vector<AttnTableCase> v;
  for (const AttnTableCase &c : cases_of(Kind::kFlash))
    if (c.antiquant) v.push_back(c);
  return v;
}
INSTANTIATE_TEST_SUITE_P(Tables, OpTableAttentionInt8, ::testing::ValuesIn(antiquant_cases()),
                         harness::case_name<AttnTableCase>);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTableAttentionInt8);

// ---- TriangularSolve (kind trisolve)

// A of shape `ashape` (last two dims m x m): the used triangle well conditioned (off-diagonal
// small, |diagonal| in [1, 2] with random signs), the other triangle 1e30 (never read; copied to M).
void fill_triangular(DeviceTensor &t, int64_t m, bool upper) {
  const int64_t n = t.numel();
  std::vector<double> v(static_cast<size_t>(n));
  std::uniform_real_distribution<double> off(-1.0, 1.0), diag(1.0, 2.0);
  for (int64_t e = 0; e < n; ++e) {
    const int64_t i = (e / m) % m, j = e % m;
    if (i == j)
      v[static_cast<size_t>(e)] = diag(rng()) * (rng()() % 2 ? 1 : -1);
    else if ((j > i) == upper)
      v[static_cast<size_t>(e)] = off(rng()) / static_cast<double>(m);
    else
      v[static_cast<size_t>(e)] = 1e30;
  }
  t.set_values(v);
}

struct SolveProblem {
  aclDataType dt = ACL_FLOAT;
  std::vector<int64_t> ashape, bshape;
  bool upper = true, transpose = false, unit = false, b_transposed = false;
};

void check_solve(const AttnTableCase &c, const SolveProblem &p) {
  SCOPED_TRACE(::testing::Message() << c.name << " dt " << p.dt << " A " << ::testing::PrintToString(p.ashape) << " B "
                                    << ::testing::PrintToString(p.bshape) << " upper " << p.upper << " transpose "
                                    << p.transpose << " unit " << p.unit << " B transposed " << p.b_transposed);
  const int64_t m = p.ashape.back(), k = p.bshape.back();
  const size_t na = p.ashape.size() - 2, nbd = p.bshape.size() - 2, nb = std::max(na, nbd);
  std::vector<int64_t> batch(nb);
  for (size_t i = 0; i < nb; ++i) {
    const int64_t da = i + na >= nb ? p.ashape[i + na - nb] : 1, db = i + nbd >= nb ? p.bshape[i + nbd - nb] : 1;
    batch[i] = da == 1 ? db : da;
  }
  DeviceTensor A(p.ashape, p.dt);
  fill_triangular(A, m, p.upper);
  std::unique_ptr<DeviceTensor> B;
  if (p.b_transposed) {  // a [.., k, m] storage read as [.., m, k]
    std::vector<int64_t> stored = p.bshape;
    std::swap(stored[stored.size() - 1], stored[stored.size() - 2]);
    std::vector<int64_t> st = contiguous_strides(stored);
    std::swap(st[st.size() - 1], st[st.size() - 2]);
    B = std::make_unique<DeviceTensor>(p.bshape, p.dt, st, 3, 3 + numel_of(p.bshape) + 1);
  } else {
    B = std::make_unique<DeviceTensor>(p.bshape, p.dt);
  }
  B->fill_random(-2, 2);
  std::vector<int64_t> xshape = batch, mshape = batch;
  xshape.push_back(m);
  xshape.push_back(k);
  mshape.push_back(m);
  mshape.push_back(m);
  DeviceTensor X(xshape, p.dt), M(mshape, p.dt);
  X.poison();
  M.poison();
  AttnArgs a;
  a.self = *B;
  a.a = A;
  a.x_out = X;
  a.m_out = M;
  a.upper = p.upper;
  a.transpose = p.transpose;
  a.unit = p.unit;
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  const auto av = A.values(), bv = B->values(), xv = X.values(), mv = M.values();
  const int64_t batches = m == 0 ? 0 : numel_of(batch);
  std::vector<double> want_x, got_x, want_m;
  for (int64_t bi = 0; bi < batches; ++bi) {
    std::vector<int64_t> idx = unravel(bi, batch);
    std::vector<int64_t> ai = idx, bidx = idx;
    ai.push_back(0);
    ai.push_back(0);
    bidx.push_back(0);
    bidx.push_back(0);
    std::vector<int64_t> full_a = batch, full_b = batch;
    full_a.push_back(m);
    full_a.push_back(m);
    full_b.push_back(m);
    full_b.push_back(k);
    const int64_t a0 = broadcast_source(ai, full_a, p.ashape), b0 = broadcast_source(bidx, full_b, p.bshape);
    auto at = [&](int64_t i, int64_t j) { return av[static_cast<size_t>(a0 + i * m + j)]; };
    auto bt = [&](int64_t i, int64_t j) { return bv[static_cast<size_t>(b0 + i * k + j)]; };
    const auto x = refs::trisolve_ref(m, k, at, bt, p.upper, p.transpose, p.unit);
    for (double e : x) want_x.push_back(round_to(p.dt, e));
    for (int64_t i = 0; i < m * m; ++i) want_m.push_back(av[static_cast<size_t>(a0 + i)]);
  }
  double xmax = 0;
  for (double e : want_x) xmax = std::max(xmax, std::fabs(e));
  const double T = precision_threshold(p.dt);
  double sum = 0, worst = 0;
  for (size_t i = 0; i < want_x.size(); ++i) {
    ASSERT_FALSE(std::isnan(xv[i])) << i;
    const double rel = std::fabs(xv[i] - want_x[i]) / std::max({std::fabs(want_x[i]), xmax, 1e-300});
    sum += rel;
    worst = std::max(worst, rel);
  }
  if (!want_x.empty()) {
    EXPECT_LT(sum / static_cast<double>(want_x.size()), T);
    EXPECT_LT(worst, 10 * T);
  }
  EXPECT_EQ(mv, want_m);
  EXPECT_TRUE(X.untouched_outside_view());
  EXPECT_TRUE(M.untouched_outside_view());
}

class OpTableTriSolve : public ::testing::TestWithParam<AttnTableCase> {};

TEST_P(OpTableTriSolve, EveryFlagDtypeAndBatch) {
  reseed_for_current_test();
  const AttnTableCase &c = GetParam();
  auto &r = rng();
  for (aclDataType dt : c.dtypes)
    for (int flags = 0; flags < 8; ++flags) {
      SolveProblem p;
      p.dt = dt;
      p.upper = flags & 1;
      p.transpose = flags & 2;
      p.unit = flags & 4;
      const int64_t m = 1 + static_cast<int64_t>(r() % 24), k = 1 + static_cast<int64_t>(r() % 80);
      p.ashape = {m, m};
      p.bshape = {m, k};
      check_solve(c, p);
      p.ashape = {2, 1, m, m};  // broadcast batches
      p.bshape = {3, m, k};
      p.b_transposed = flags & 1;
      check_solve(c, p);
    }
  for (int flags = 0; flags < 8; ++flags) {  // FLOAT m >= 128: the blocked path (GEMM updates), two column blocks
    SolveProblem big;
    big.upper = flags & 1;
    big.transpose = flags & 2;
    big.unit = flags & 4;
    big.ashape = {150, 150};
    big.bshape = {150, 300};
    big.b_transposed = flags == 5;
    check_solve(c, big);
  }
  SolveProblem big;  // DOUBLE, batched, longer substitution on the direct path
  big.dt = ACL_DOUBLE;
  big.ashape = {2, 140, 140};
  big.bshape = {140, 70};
  big.upper = false;
  check_solve(c, big);
}

TEST_P(OpTableTriSolve, EmptyShapes) {
  const AttnTableCase &c = GetParam();
  SolveProblem p;
  p.ashape = {0, 0};
  p.bshape = {0, 3};
  check_solve(c, p);
  p.ashape = {3, 3};
  p.bshape = {3, 0};
  check_solve(c, p);
  p.ashape = {0, 3, 3};
  p.bshape = {3, 2};
  check_solve(c, p);
}

TEST_P(OpTableTriSolve, ErrorsNameTheArgument) {
  const AttnTableCase &c = GetParam();
  const char *api = c.api.c_str();
  DeviceTensor A({4, 4}, ACL_FLOAT), B({4, 3}, ACL_FLOAT), X({4, 3}, ACL_FLOAT), M({4, 4}, ACL_FLOAT);
  fill_triangular(A, 4, true);
  B.fill_random(-1, 1);
  AttnArgs good;
  good.self = B;
  good.a = A;
  good.x_out = X;
  good.m_out = M;
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(good, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  for (aclTensor *AttnArgs::*f : {&AttnArgs::self, &AttnArgs::a, &AttnArgs::x_out, &AttnArgs::m_out}) {
    AttnArgs a = good;
    a.*f = nullptr;
    EXPECT_EQ(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  }
  AttnArgs a = good;
  a.self = nullptr;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "self"}));
  a = good;
  a.m_out = nullptr;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "mOut"}));
  DeviceTensor rect({4, 5}, ACL_FLOAT), rows({5, 3}, ACL_FLOAT), badx({4, 4}, ACL_FLOAT), bm({2, 4, 4}, ACL_FLOAT),
      bb({3, 4, 3}, ACL_FLOAT), half({4, 3}, ACL_FLOAT16), dbl({4, 4}, ACL_DOUBLE), ints({4, 3}, ACL_INT32);
  a = good;
  a.a = rect;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "A", "square"}));
  a = good;
  a.self = rows;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "self", "rows"}));
  a = good;
  a.x_out = badx;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "xOut"}));
  a = good;
  a.a = bm;
  a.self = bb;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "broadcast"}));
  a = good;
  a.self = half;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "self", "dtype"}));
  a = good;
  a.self = ints;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "self", "dtype"}));
  a = good;
  a.a = dbl;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "A", "dtype"}));
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableTriSolve, ::testing::ValuesIn(cases_of(Kind::kTriSolve)),
                         harness::case_name<AttnTableCase>);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTableTriSolve);

// ---- ScaledMaskedSoftmax (+Backward) (kind masked_softmax)

enum class SmMask { kNone, k11, kB1, kBN, kTriu };

void check_masked_softmax(const AttnTableCase &c, aclDataType dt, std::vector<int64_t> shape, SmMask mk, double scale,
                          bool strided, double rate = 0.3) {
  SCOPED_TRACE(::testing::Message() << c.name << " dt " << dt << " shape " << ::testing::PrintToString(shape)
                                    << " mask " << static_cast<int>(mk) << " scale " << scale << " strided " << strided);
  const int64_t B = shape[0], N = shape[1], S1 = shape[2], S2 = shape[3];
  auto make4 = [&](bool st) {
    if (!st) return std::make_unique<DeviceTensor>(shape, dt);
    // [B, N, S1, S2] read from a [B, N, S2, S1] storage (last two dims transposed).
    std::vector<int64_t> cs = contiguous_strides({B, N, S2, S1});
    return std::make_unique<DeviceTensor>(shape, dt, std::vector<int64_t>{cs[0], cs[1], 1, S1}, 2,
                                          2 + numel_of(shape) + 1);
  };
  auto in = make4(strided), out = make4(false), yin = make4(strided);
  in->fill_random(-4, 4);
  out->poison();
  std::vector<int64_t> ms;
  if (mk == SmMask::k11) ms = {1, 1, S1, S2};
  if (mk == SmMask::kB1) ms = {B, 1, S1, S2};
  if (mk == SmMask::kBN) ms = shape;
  std::unique_ptr<DeviceTensor> mask;
  std::vector<double> mv;
  if (!ms.empty()) {
    mask = std::make_unique<DeviceTensor>(ms, ACL_BOOL);
    mv.resize(static_cast<size_t>(numel_of(ms)));
    std::bernoulli_distribution coin(rate);
    for (double &e : mv) e = coin(rng()) ? 1 : 0;
    mask->set_values(mv);
  }
  auto masked = [&](int64_t b, int64_t n, int64_t i, int64_t j) {
    if (mk == SmMask::kTriu) return j > i;
    if (ms.empty()) return false;
    const int64_t bb = ms[0] == 1 ? 0 : b, nn = ms[1] == 1 ? 0 : n;
    return mv[static_cast<size_t>(((bb * ms[1] + nn) * S1 + i) * S2 + j)] != 0;
  };
  const auto xv = in->values();
  std::vector<double> yv(xv.size()), want(xv.size());
  for (int64_t r = 0; r < B * N * S1; ++r) {  // y = softmax(masked_fill(scale x, mask, -10000)), in double
    const int64_t i = r % S1, n = (r / S1) % N, b = r / S1 / N;
    double mx = -INFINITY, sum = 0;
    std::vector<double> z(static_cast<size_t>(S2));
    for (int64_t j = 0; j < S2; ++j) {
      z[static_cast<size_t>(j)] = masked(b, n, i, j) ? -10000.0 : scale * xv[static_cast<size_t>(r * S2 + j)];
      mx = std::max(mx, z[static_cast<size_t>(j)]);
    }
    for (double e : z) sum += std::exp(e - mx);
    for (int64_t j = 0; j < S2; ++j) yv[static_cast<size_t>(r * S2 + j)] = std::exp(z[static_cast<size_t>(j)] - mx) / sum;
  }
  AttnArgs a;
  a.mask = mask ? mask->get() : nullptr;
  a.scale = scale;
  a.triu = mk == SmMask::kTriu;
  if (!c.backward) {
    a.x = *in;
    a.y = *out;
    for (size_t i = 0; i < yv.size(); ++i) want[i] = round_to(dt, yv[i]);
  } else {
    std::vector<double> yr(yv.size());
    for (size_t i = 0; i < yv.size(); ++i) yr[i] = round_to(dt, yv[i]);
    yin->set_values(yr);
    for (int64_t r = 0; r < B * N * S1; ++r) {  // dx = masked ? 0 : scale y (dy - sum(dy y))
      const int64_t i = r % S1, n = (r / S1) % N, b = r / S1 / N;
      long double dot = 0;
      for (int64_t j = 0; j < S2; ++j) dot += static_cast<long double>(xv[static_cast<size_t>(r * S2 + j)]) * yr[static_cast<size_t>(r * S2 + j)];
      for (int64_t j = 0; j < S2; ++j) {
        const size_t e = static_cast<size_t>(r * S2 + j);
        want[e] = masked(b, n, i, j) ? 0.0 : round_to(dt, static_cast<double>(scale * yr[e] * (xv[e] - dot)));
      }
    }
    a.grad = *in;
    a.y = *yin;
    a.out = *out;
  }
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  EXPECT_TRUE(c.backward ? close_on_scale(dt, out->values(), want) : meets_precision(dt, out->values(), want));
  EXPECT_TRUE(out->untouched_outside_view());
}

class OpTableMaskedSoftmax : public ::testing::TestWithParam<AttnTableCase> {};

TEST_P(OpTableMaskedSoftmax, DtypesMasksAndViews) {
  reseed_for_current_test();
  const AttnTableCase &c = GetParam();
  auto &r = rng();
  for (aclDataType dt : c.dtypes)
    for (SmMask mk : {SmMask::kNone, SmMask::k11, SmMask::kB1, SmMask::kBN, SmMask::kTriu}) {
      std::vector<int64_t> shape = {1 + static_cast<int64_t>(r() % 2), 1 + static_cast<int64_t>(r() % 3),
                                    1 + static_cast<int64_t>(r() % 9), 1 + static_cast<int64_t>(r() % 40)};
      check_masked_softmax(c, dt, shape, mk, 0.7, mk == SmMask::kB1);
    }
  check_masked_softmax(c, ACL_FLOAT, {2, 2, 3, 2000}, SmMask::k11, 1.5, false);  // long rows
  check_masked_softmax(c, ACL_FLOAT, {1, 2, 4, 9}, SmMask::kBN, 1.0, false, 1.0);  // every key masked
}

TEST_P(OpTableMaskedSoftmax, EmptyAndErrors) {
  const AttnTableCase &c = GetParam();
  check_masked_softmax(c, ACL_FLOAT, {2, 0, 3, 4}, SmMask::kNone, 1.0, false);
  const char *api = c.api.c_str();
  DeviceTensor x({1, 2, 3, 4}, ACL_FLOAT), y({1, 2, 3, 4}, ACL_FLOAT), o({1, 2, 3, 4}, ACL_FLOAT),
      bad({1, 2, 3, 5}, ACL_FLOAT), three({2, 3, 4}, ACL_FLOAT), m({1, 1, 3, 4}, ACL_BOOL), mbad({1, 3, 3, 4}, ACL_BOOL),
      mint({1, 1, 3, 4}, ACL_INT8), ints({1, 2, 3, 4}, ACL_INT32);
  x.fill_random(-1, 1);
  y.fill_random(0, 1);
  AttnArgs good;
  good.mask = m;
  good.scale = 1.0;
  if (c.backward) {
    good.grad = x;
    good.y = y;
    good.out = o;
  } else {
    good.x = x;
    good.y = o;
  }
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(good, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  aclTensor *AttnArgs::*in = c.backward ? &AttnArgs::grad : &AttnArgs::x;
  aclTensor *AttnArgs::*out = c.backward ? &AttnArgs::out : &AttnArgs::y;
  const char *in_name = c.backward ? "gradOutput" : "x", *out_name = c.backward ? "out" : "y";
  AttnArgs a = good;
  a.*in = nullptr;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, in_name}));
  a = good;
  a.*out = nullptr;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, out_name}));
  a = good;
  a.*out = bad;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, out_name}));
  a = good;
  a.*in = three;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, in_name, "4-D"}));
  a = good;
  a.*in = ints;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, in_name, "dtype"}));
  a = good;
  a.mask = mbad;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "mask"}));
  a = good;
  a.mask = mint;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "mask"}));
  if (c.backward) {
    a = good;
    a.y = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "y"}));
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableMaskedSoftmax, ::testing::ValuesIn(cases_of(Kind::kMaskedSoftmax)),
                         harness::case_name<AttnTableCase>);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTableMaskedSoftmax);

}  // namespace
}  // namespace opsnn::test
