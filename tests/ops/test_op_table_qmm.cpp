// The test harness of the table-driven quantised matmuls (src/ops/matmul/quant_matmul.ops), cases
// registered from the table by tools/gen_ops.py --tests (qmm_table_cases.inc); every row runs the
// suite of its scheme, its arguments found by role (the generated QmmArgs).
//
// int8_dequant rows (QuantMatmulV3 / V4) against refs::qmm_dequant_ref: exact int64 products of the
// int8 operands (read through the tensors' own views, batch broadcast resolved index by index), the
// dequantisation in float64 with the scale the op must decode (a FLOAT, a BF16, or the low 32 bits
// of a UINT64 / INT64 word with junk in the offset field), then the output's rounding:
//  * FLOAT16 / BF16 out: within half an ulp of the output dtype plus the op's fp32 evaluation error,
//    bounded by 1e-6 * the magnitude of the terms (tighter than precision.md's MERE / MARE);
//  * INT8 out: exact (refs::int8_saturate), except where the float64 value lies within that bound
//    of a .5 boundary (then +-1).
// weight_antiquant rows (WeightQuantBatchMatmulV2) against refs::wq_antiquant_ref: INT8 / INT4 /
// INT32-packed weights, [k, n] and transposed views, per-tensor / per-channel / per-group scales with
// and without offsets, biases, FLOAT16 / BF16 x, every path (small m streams, larger m fuses,
// OPSNN_KERNELS=reference dequantises then multiplies); precision.md's absolute-bound variant
// rel = |actual - golden| / (sum |terms| + 1e-7), MERE < T, MARE < 10 T; the requantised INT8 output
// exactly except within the fp32 error of a rounding boundary.
// Shapes: batch broadcast, transposes, padded / offset / expanded views, odd and long k, small and
// large m (every int8 GEMM path: dot, stream, tiles). Every output is poisoned and checked for
// writes outside its view. Errors: null arguments (161001) and each documented constraint (161002),
// code and message naming the argument. Also: repeatable executors re-pointed at other buffers, the
// same bits with one and all threads, V3 = V4 without the per-token scale.
// encode_param rows (TransQuantParamV2): the words bit for bit against refs::quant_param_word over
// the shape forms, strided views and NaN / half / out-of-range offsets, the errors, and the round
// trip through QuantMatmulV4 (the words give the bits of the FLOAT scale they carry).
// prepack_weight rows (TransMatmulWeight): Mm on the re-laid weight gives the plain weight's bits
// (small-M and blocked paths, both weight layouts, every floating dtype; INT8 untouched); host
// memory stays plain; repeatable executors re-pointed between plain and packed; runtime copies /
// memsets and op outputs over a packed weight make it plain again in stream order; the storage-size
// hardening checks. weight_size rows (CalculateMatmulWeightSize(V2), one-shot): the documented
// formula against an independent count, nulls, bad shapes / dtypes, sizes that would wrap.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_fill_scalar.h"
#include "aclnnop/aclnn_mm.h"
#include "core/cpu_features.h"
#include "core/thread_pool.h"
#include "float64_refs.h"
#include "fractal_tensors.h"
#include "kernels/matmul/gemm.h"
#include "op_table_harness.h"
#include "ops/matmul/qmm_phase1.h"
#include "runtime/runtime.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

using ops::QmmScheme;

struct QmmArgs {  // the arguments by role (aggregate order: QmmRole order, then the attributes, then
                 // the reserved roles)
  aclTensor *a = nullptr, *b = nullptr, *scale = nullptr, *offset = nullptr, *pertoken = nullptr;
  aclTensor *qscale = nullptr, *qoffset = nullptr, *bias = nullptr, *out = nullptr;
  bool trans_a = false, trans_b = false;
  int group = 0;
  aclIntArray *shape = nullptr;  // weight_size rows
  aclDataType dtype = ACL_FLOAT16;
  // QuantMatmulWeightNz's reserved tensors (last, so the aggregate initialisations above stay valid)
  aclTensor *yscale = nullptr, *x1offset = nullptr, *yoffset = nullptr;
  int64_t round_mode = 0;  // TransQuantParamV3
  int64_t inner_precise = 0;  // WeightQuantBatchMatmulV3
  float scale_value = 0.0f;  // QuantMatmul's float deqScale (its rows run in test_op_table_mmx.cpp)
  aclTensor *x3 = nullptr;  // FusedQuantMatmul (its activations run in test_op_table_mmx.cpp)
  const char *fused = "";
};

struct QmmTableCase {
  std::string name, api;
  QmmScheme scheme = QmmScheme::kInt8Dequant;
  bool weight_nz = false;  // x2 may be FRACTAL_NZ (QuantMatmulWeightNz)
  bool has_round_mode = false;  // TransQuantParamV3
  bool scale_value = false;     // the scale is a float (QuantMatmul): tested in test_op_table_mmx.cpp
  bool has_trans = true;        // the row takes transposeX1 / X2 (FusedQuantMatmul does not)
  std::vector<aclDataType> dtypes;
  std::vector<std::pair<int, const char *>> roles;  // the tensor parameters in prototype order
  int (*phase1)(const QmmArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  harness::Launch launch = nullptr;
  // weight_size rows: the one-shot function, and the dtype it sizes for when it takes none.
  int (*oneshot)(const QmmArgs &, uint64_t *) = nullptr;
  // encode_array rows (TransQuantParam): the one-shot function itself.
  int (*encode_array)(const float *, uint64_t, const float *, uint64_t, uint64_t **, uint64_t *) = nullptr;
  aclDataType weight_dtype = ACL_DT_UNDEFINED;

  bool has(int role) const {
    return std::any_of(roles.begin(), roles.end(), [&](const auto &r) { return r.first == role; });
  }
  const char *arg(int role) const {
    for (const auto &r : roles)
      if (r.first == role) return r.second;
    return "?";
  }
  // aclSetInputTensorAddr's index of an input role: its position among the inputs.
  int input_index(int role) const {
    int i = 0;
    for (const auto &r : roles) {
      if (r.first == role) return i;
      if (r.first != ops::kQmmOut) ++i;
    }
    return -1;
  }
};
void PrintTo(const QmmTableCase &c, std::ostream *os) { *os << c.name; }

#include "qmm_table_cases.inc"

std::vector<QmmTableCase> cases_of(QmmScheme s) {
  std::vector<QmmTableCase> v;
  for (auto &c : harness::sampled(qmm_table_cases()))
    if (c.oneshot == nullptr && c.encode_array == nullptr && c.scheme == s && !c.scale_value) v.push_back(c);
  return v;
}
std::vector<QmmTableCase> oneshot_cases() {
  std::vector<QmmTableCase> v;
  for (auto &c : harness::sampled(qmm_table_cases()))
    if (c.oneshot != nullptr) v.push_back(c);
  return v;
}

const QmmTableCase &case_named(const std::string &name) {
  static const std::vector<QmmTableCase> all = qmm_table_cases();
  for (const auto &c : all)
    if (c.name == name) return c;
  ADD_FAILURE() << "no registered case " << name;
  return all.front();
}

using Dev = std::unique_ptr<DeviceTensor>;

// Element strides of `shape`: contiguous, or (strided) every dim padded and the last dim stride 2.
std::vector<int64_t> view_strides(const std::vector<int64_t> &shape, bool strided) {
  std::vector<int64_t> s(shape.size());
  int64_t next = strided ? 2 : 1;
  for (size_t d = shape.size(); d-- > 0;) {
    s[d] = next;
    next = next * shape[d] + (strided ? 3 : 0);
  }
  return s;
}

Dev make_tensor(const std::vector<int64_t> &shape, aclDataType dt, bool strided) {
  return std::make_unique<DeviceTensor>(shape, dt, view_strides(shape, strided), strided ? 5 : 0);
}

// Writes 8-byte words into the view positions of `t` (row-major view order).
void write_words(DeviceTensor &t, const std::vector<uint64_t> &words, int64_t view_off) {
  int64_t extent = view_off + 1;
  for (size_t d = 0; d < t.shape().size(); ++d) extent += (t.shape()[d] - 1) * t.strides()[d];
  std::vector<uint64_t> host(static_cast<size_t>(extent), 0xDEADBEEFDEADBEEFull);  // junk between elements
  for (size_t e = 0; e < words.size(); ++e) {
    const auto idx = unravel(static_cast<int64_t>(e), t.shape());
    int64_t o = view_off;
    for (size_t d = 0; d < idx.size(); ++d) o += idx[d] * t.strides()[d];
    host[static_cast<size_t>(o)] = words[e];
  }
  ASSERT_EQ(aclrtMemcpy(t.data(), host.size() * 8, host.data(), host.size() * 8, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_SUCCESS);
}

// A scale word in aclnnTransQuantParamV2's encoding (refs::quant_param_word) with a random offset
// packed in, which the quantised matmuls ignore; *decoded: the scale it carries.
uint64_t scale_word(float f, float *decoded) {
  std::uniform_real_distribution<double> off(-300, 300);
  const double o = off(rng());
  const uint64_t w = refs::quant_param_word(f, &o);
  *decoded = refs::quant_param_scale(w);
  return w;
}

// Per-element check of an INT8 result against a float64 value `g` with fp32 error bound `err`.
bool int8_ok(double got, double g, double err, bool *exact) {
  const double want = refs::int8_saturate(g);
  const double frac = std::fabs(g - std::floor(g) - 0.5);
  *exact = frac > err || std::fabs(g) > 128.5 + err;
  return *exact ? got == want : std::fabs(got - want) <= 1.0;
}

// =============================================================================================
// int8_dequant

struct Int8Spec {
  std::vector<int64_t> x1;  // logical [batch..., m, k]
  std::vector<int64_t> x2;  // logical [batch..., k, n]
  aclDataType out = ACL_FLOAT16;
  aclDataType scale = ACL_FLOAT;
  int scale_form = 1;  // 0: (1,), 1: (n,), 2: (1, n)
  bool offset = false, offset_per_channel = true;
  bool pertoken = false;  // used only by rows that have the argument
  aclDataType bias = ACL_DT_UNDEFINED;
  bool bias_batched = false;  // (batch, 1, n)
  bool t1 = false, t2 = false;
  bool strided = false;        // every tensor a padded, non-contiguous view
  bool x2_bcast_view = false;  // x2's leading batch dim is a stride-0 (expanded) view
  bool specials = false;       // a floating bias holding NaN, +inf and -inf
  bool x2_nz = false;          // x2 given as FRACTAL_NZ blocks of its (given-shape) matrices
};

std::string describe(const Int8Spec &c) {
  std::ostringstream os;
  os << "x1 " << ::testing::PrintToString(c.x1) << " x2 " << ::testing::PrintToString(c.x2) << " out " << c.out
     << " scale " << c.scale << " form " << c.scale_form << " offset " << c.offset << " pertoken " << c.pertoken
     << " bias " << c.bias << (c.bias_batched ? " (batched)" : "") << " t1 " << c.t1 << " t2 " << c.t2
     << " strided " << c.strided << " x2_bcast " << c.x2_bcast_view << " x2_nz " << c.x2_nz;
  return os.str();
}

class Int8Problem {
 public:
  Int8Problem(const QmmTableCase &tc, Int8Spec c) : tc_(tc), c_(std::move(c)) {
    c_.pertoken = c_.pertoken && tc.has(ops::kQmmPertoken);
    c_.offset = c_.offset && tc.has(ops::kQmmOffset);  // QuantMatmulV2 has none
    c_.t1 = c_.t1 && tc.has_trans;
    c_.t2 = c_.t2 && tc.has_trans;
    const size_t r1 = c_.x1.size(), r2 = c_.x2.size();
    m_ = c_.x1[r1 - 2];
    k_ = c_.x1[r1 - 1];
    n_ = c_.x2[r2 - 1];
    b1_.assign(c_.x1.begin(), c_.x1.end() - 2);
    b2_.assign(c_.x2.begin(), c_.x2.end() - 2);
    const size_t nb = std::max(b1_.size(), b2_.size());
    ob_.assign(nb, 1);
    for (size_t i = 0; i < nb; ++i) {
      const int64_t d1 = i + b1_.size() >= nb ? b1_[i + b1_.size() - nb] : 1;
      const int64_t d2 = i + b2_.size() >= nb ? b2_[i + b2_.size() - nb] : 1;
      ob_[i] = d1 == 1 ? d2 : d1;
    }
    batch_ = numel_of(ob_);

    // x1 / x2 as given (transposed storage order when asked), random int8 everywhere in storage.
    std::vector<int64_t> g1 = c_.x1, g2 = c_.x2;
    if (c_.t1) std::swap(g1[r1 - 1], g1[r1 - 2]);
    if (c_.t2) std::swap(g2[r2 - 1], g2[r2 - 2]);
    x1_ = make_tensor(g1, ACL_INT8, c_.strided);
    if (c_.x2_bcast_view) {
      auto s = view_strides(g2, c_.strided);
      s[0] = 0;
      x2_ = std::make_unique<DeviceTensor>(g2, ACL_INT8, s, c_.strided ? 5 : 0);
    } else {
      x2_ = make_tensor(g2, ACL_INT8, c_.strided);
    }
    x1_->fill_random(-128, 127);
    x2_->fill_random(-128, 127);
    if (c_.x2_nz) x2_nz_ = make_fractal_nz(g2, ACL_INT8, x2_->values());

    // Scale: about target / (typical |acc|), so the results span the output's interesting range.
    const double typical = std::sqrt(static_cast<double>(k_)) * 5461.0;  // sd of a sum of k int8 products
    const double target = c_.out == ACL_INT8 ? 110.0 : 40.0;
    const int64_t sn = c_.scale_form == 0 ? 1 : n_;
    const std::vector<int64_t> sshape = c_.scale_form == 0   ? std::vector<int64_t>{1}
                                        : c_.scale_form == 1 ? std::vector<int64_t>{n_}
                                                             : std::vector<int64_t>{1, n_};
    scale_ = make_tensor(sshape, c_.scale, c_.strided);
    std::uniform_real_distribution<double> jitter(0.5, 1.5);
    if (c_.scale == ACL_FLOAT || c_.scale == ACL_BF16) {
      scale_->fill_random(0.5 * target / typical, 1.5 * target / typical);
      sv_ = scale_->values();
    } else {
      std::vector<uint64_t> words(static_cast<size_t>(sn));
      sv_.resize(words.size());
      for (int64_t j = 0; j < sn; ++j) {
        float f = static_cast<float>(jitter(rng()) * target / typical);
        if (j % 7 == 3) f = -f;  // negative scales are legal
        float decoded = 0;
        words[static_cast<size_t>(j)] = scale_word(f, &decoded);
        sv_[static_cast<size_t>(j)] = decoded;
      }
      write_words(*scale_, words, c_.strided ? 5 : 0);
    }
    if (c_.offset) {
      offset_ = make_tensor(c_.offset_per_channel ? std::vector<int64_t>{n_} : std::vector<int64_t>{1}, ACL_FLOAT,
                            c_.strided);
      offset_->fill_random(-12, 12);
      ov_ = offset_->values();
    }
    if (c_.pertoken) {
      pertoken_ = make_tensor({m_}, ACL_FLOAT, c_.strided);
      pertoken_->fill_random(0.25, 2.0);
      pv_ = pertoken_->values();
    }
    if (c_.bias != ACL_DT_UNDEFINED) {
      bias_ = make_tensor(c_.bias_batched ? std::vector<int64_t>{batch_, 1, n_} : std::vector<int64_t>{n_}, c_.bias,
                          c_.strided);
      if (c_.bias == ACL_INT32) bias_->fill_random(-2.0 * typical, 2.0 * typical);
      else bias_->fill_random(-0.5 * target, 0.5 * target);
      if (c_.specials) {
        std::vector<double> v = bias_->values();
        for (size_t j = 0; j < v.size(); ++j) v[j] = j % 5 == 1 ? NAN : j % 5 == 2 ? INFINITY : j % 5 == 3 ? -INFINITY : v[j];
        bias_->set_values(v);
      }
      bv_ = bias_->values();
    }
    std::vector<int64_t> oshape = ob_;
    oshape.push_back(m_);
    oshape.push_back(n_);
    out_ = make_tensor(oshape, c_.out, c_.strided);
    out_->poison();
    reference();
  }

  QmmArgs args(bool plain_x2 = false) const {
    QmmArgs a;
    a.a = *x1_;
    a.b = x2_nz_ && !plain_x2 ? x2_nz_->get() : x2_->get();
    a.scale = *scale_;
    a.offset = offset_ ? offset_->get() : nullptr;
    a.pertoken = pertoken_ ? pertoken_->get() : nullptr;
    a.bias = bias_ ? bias_->get() : nullptr;
    a.out = *out_;
    a.trans_a = c_.t1;
    a.trans_b = c_.t2;
    return a;
  }
  int phase1(uint64_t *ws, aclOpExecutor **ex) const { return tc_.phase1(args(), ws, ex); }
  int run() {
    out_->poison();
    return run_op([&](uint64_t *ws, aclOpExecutor **ex) { return phase1(ws, ex); }, tc_.launch);
  }
  std::vector<double> out_values() const { return out_->values(); }
  // Another row (the plain twin of a WeightNz row) on the same tensors, x2 plain.
  int run_plain_as(const QmmTableCase &other) {
    out_->poison();
    return run_op([&](uint64_t *ws, aclOpExecutor **ex) { return other.phase1(args(true), ws, ex); }, other.launch);
  }

  // Compares out with the reference (see the top of the file); returns the elements checked exactly.
  int64_t check() const {
    const auto got = out_->values();
    int64_t fails = 0, exact = 0;
    for (size_t e = 0; e < got.size(); ++e) {
      const double g = ref_[e], err = 1e-6 * mag_[e] + 1e-30, a = got[e];
      bool ok, ex = true;
      if (!std::isfinite(g)) {  // NaN / inf from a special bias: INT8 0 / saturated, else the same value
        ok = c_.out == ACL_INT8 ? a == refs::int8_saturate(g) : std::isnan(g) ? std::isnan(a) : a == g;
      } else if (c_.out == ACL_INT8) {
        ok = int8_ok(a, g, err, &ex);
      } else {
        const double ag = std::fabs(g) + err;
        const int e2 = ag > 0 ? static_cast<int>(std::floor(std::log2(ag))) : -126;
        const double ulp = c_.out == ACL_FLOAT16 ? std::ldexp(1.0, std::max(e2, -14) - 10) : std::ldexp(1.0, e2 - 7);
        ok = std::isfinite(a) && std::fabs(a - g) <= 0.5 * ulp + err;
      }
      exact += ex;
      if (!ok && ++fails <= 5)
        ADD_FAILURE() << "out element " << e << " (batch/row/col "
                      << ::testing::PrintToString(unravel(static_cast<int64_t>(e), {batch_, m_, n_})) << "): got " << a
                      << ", reference " << g << " (bound " << err << ")";
    }
    EXPECT_EQ(fails, 0);
    EXPECT_TRUE(out_->untouched_outside_view());
    return exact;
  }
  int64_t saturated() const {
    int64_t s = 0;
    for (double g : ref_) s += std::fabs(g) > 128.5;
    return s;
  }

  DeviceTensor &x1() { return *x1_; }
  DeviceTensor &x2() { return *x2_; }
  DeviceTensor &scale() { return *scale_; }
  DeviceTensor *pertoken() { return pertoken_.get(); }
  DeviceTensor &bias() { return *bias_; }
  DeviceTensor &out() { return *out_; }

 private:
  // The value of the given x1 / x2 at logical [bb (own batch index)][r][c].
  static int64_t at(const std::vector<double> &v, int64_t bb, int64_t r, int64_t c, int64_t rows, int64_t cols,
                    bool trans) {
    const size_t e = static_cast<size_t>(trans ? bb * rows * cols + c * rows + r : bb * rows * cols + r * cols + c);
    return static_cast<int64_t>(v[e]);
  }

  void reference() {
    const auto v1 = x1_->values(), v2 = x2_->values();
    ref_.assign(static_cast<size_t>(batch_ * m_ * n_), 0.0);
    mag_.assign(ref_.size(), 0.0);
    const bool bias_int = c_.bias == ACL_INT32, bias_float = c_.bias != ACL_DT_UNDEFINED && !bias_int;
    for (int64_t ob = 0; ob < batch_; ++ob) {
      const auto idx = unravel(ob, ob_);
      const int64_t bb1 = broadcast_source(idx, ob_, b1_), bb2 = broadcast_source(idx, ob_, b2_);
      for (int64_t i = 0; i < m_; ++i)
        for (int64_t j = 0; j < n_; ++j) {
          int64_t acc = 0;
          for (int64_t p = 0; p < k_; ++p) acc += at(v1, bb1, i, p, m_, k_, c_.t1) * at(v2, bb2, p, j, k_, n_, c_.t2);
          const double bv = c_.bias == ACL_DT_UNDEFINED ? 0.0 : bv_[static_cast<size_t>(c_.bias_batched ? ob * n_ + j : j)];
          const size_t e = static_cast<size_t>((ob * m_ + i) * n_ + j);
          ref_[e] = refs::qmm_dequant_ref(acc, bias_int ? bv : 0.0, sv_[sv_.size() == 1 ? 0 : static_cast<size_t>(j)],
                                          c_.pertoken ? pv_[static_cast<size_t>(i)] : 1.0, bias_float ? bv : 0.0,
                                          c_.offset ? ov_[ov_.size() == 1 ? 0 : static_cast<size_t>(j)] : 0.0, &mag_[e]);
        }
    }
  }

  const QmmTableCase &tc_;
  Int8Spec c_;
  int64_t m_ = 0, k_ = 0, n_ = 0, batch_ = 1;
  std::vector<int64_t> b1_, b2_, ob_;
  Dev x1_, x2_, scale_, offset_, pertoken_, bias_, out_;
  std::unique_ptr<FractalTensor> x2_nz_;
  std::vector<double> sv_, ov_, pv_, bv_, ref_, mag_;
};

class OpTableQmmInt8 : public ::testing::TestWithParam<QmmTableCase> {
 protected:
  void SetUp() override { reseed_for_current_test(); }
  void run_case(const Int8Spec &s) {
    SCOPED_TRACE(describe(s));
    Int8Problem p(GetParam(), s);
    ASSERT_EQ(p.run(), 0) << aclGetRecentErrMsg();
    EXPECT_GT(p.check(), 0);
  }
};

TEST_P(OpTableQmmInt8, OutputAndScaleDtypes) {
  for (aclDataType out : {ACL_INT8, ACL_FLOAT16, ACL_BF16})
    for (aclDataType sd : {ACL_UINT64, ACL_INT64, ACL_FLOAT, ACL_BF16})
      for (int form : {0, 1, 2}) run_case({{7, 67}, {67, 19}, out, sd, form});
}

TEST_P(OpTableQmmInt8, Int8OutSaturatesAndRoundsHalfToEven) {
  Int8Problem p(GetParam(), {{33, 129}, {129, 45}, ACL_INT8, ACL_UINT64, 1});
  ASSERT_EQ(p.run(), 0) << aclGetRecentErrMsg();
  EXPECT_GT(p.check(), 33 * 45 / 2);
  EXPECT_GT(p.saturated(), 0);  // the scales put part of the results beyond +-128
}

TEST_P(OpTableQmmInt8, OffsetAndInt32Bias) {
  for (bool per_channel : {false, true})
    for (aclDataType bias : {ACL_DT_UNDEFINED, ACL_INT32})
      for (aclDataType sd : {ACL_UINT64, ACL_FLOAT})
        run_case({{9, 50}, {50, 37}, ACL_INT8, sd, 1, true, per_channel, false, bias});
}

TEST_P(OpTableQmmInt8, FloatBiases) {
  for (aclDataType bias : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
    for (aclDataType out : {ACL_FLOAT16, ACL_BF16, ACL_INT8})
      run_case({{5, 80}, {80, 23}, out, ACL_FLOAT, 1, false, true, false, bias});
  // (batch, 1, n) biases: INT32 and floating, over a broadcast batch.
  Int8Spec c{{2, 1, 6, 40}, {3, 40, 17}, ACL_FLOAT16, ACL_UINT64, 1, false, true, false, ACL_INT32, true};
  run_case(c);
  c.bias = ACL_BF16;
  c.out = ACL_BF16;
  run_case(c);
}

// NaN and infinities in a floating bias reach out: NaN (INT8: 0), +-inf (INT8: saturated).
TEST_P(OpTableQmmInt8, SpecialValuesInTheBias) {
  for (aclDataType out : {ACL_INT8, ACL_FLOAT16, ACL_BF16})
    for (aclDataType bias : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
      for (int64_t m : {1, 20}) {
        Int8Spec c{{m, 40}, {40, 23}, out, ACL_UINT64, 1, false, true, true, bias};
        c.specials = true;
        run_case(c);
      }
}

// Rows with pertokenScaleOptional: with and without it, every out and bias kind; rows without it
// run the same problems unscaled.
TEST_P(OpTableQmmInt8, PertokenScale) {
  for (aclDataType out : {ACL_INT8, ACL_FLOAT16, ACL_BF16})
    for (aclDataType bias : {ACL_DT_UNDEFINED, ACL_INT32, ACL_FLOAT})
      run_case({{2, 11, 96}, {96, 29}, out, ACL_FLOAT, 1, false, true, true, bias});
  run_case({{13, 64}, {64, 20}, ACL_INT8, ACL_INT64, 0, true, true, true, ACL_INT32});
}

TEST_P(OpTableQmmInt8, TransposesAndStridedViews) {
  for (bool t1 : {false, true})
    for (bool t2 : {false, true})
      for (bool strided : {false, true}) {
        Int8Spec c{{2, 10, 70}, {70, 21}, ACL_FLOAT16, ACL_UINT64, 1, false, true, true, ACL_FLOAT};
        c.t1 = t1;
        c.t2 = t2;
        c.strided = strided;
        run_case(c);
        Int8Spec q{{3, 9, 45}, {3, 45, 14}, ACL_INT8, ACL_FLOAT, 2, true, true, false, ACL_INT32};
        q.t1 = t1;
        q.t2 = t2;
        q.strided = strided;
        run_case(q);
      }
}

TEST_P(OpTableQmmInt8, BatchBroadcast) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{6, 33}, {3, 33, 10}},                      // 2-D x 3-D
      {{4, 6, 33}, {33, 10}},                      // 3-D x 2-D (batch folds into m)
      {{2, 3, 6, 33}, {2, 3, 33, 10}},             // batch dims merge into one
      {{2, 1, 6, 33}, {3, 33, 10}},                // 4-D broadcast: an outer loop
      {{1, 5, 6, 33}, {4, 1, 33, 10}},             // both sides broadcast
      {{2, 1, 2, 1, 3, 20}, {1, 3, 1, 2, 20, 7}},  // 6-D
  };
  for (const auto &s : shapes)
    for (bool strided : {false, true})
      for (aclDataType out : {ACL_INT8, ACL_BF16}) {
        Int8Spec c{s.first, s.second, out, ACL_UINT64, 1, out == ACL_INT8, true, true, ACL_INT32};
        c.strided = strided;
        c.t2 = strided;
        run_case(c);
      }
  // x2 an expanded (stride-0 batch) view, and x1 transposed so its rows do not nest.
  for (bool t1 : {false, true}) {
    Int8Spec c{{4, 6, 33}, {4, 33, 10}, ACL_FLOAT16, ACL_FLOAT, 1};
    c.x2_bcast_view = true;
    c.t1 = t1;
    run_case(c);
  }
}

// Odd m / n / k; m from 1 to well past the small-M limits with x2 [k, n] and [n, k], so the int8
// GEMM's dot, stream and tiles paths all run.
TEST_P(OpTableQmmInt8, OddSizesAndEveryPath) {
  for (int64_t m : {1, 2, 5, 17, 31})
    for (int64_t n : {1, 3, 13, 33})
      for (int64_t k : {1, 7, 31, 97}) run_case({{m, k}, {k, n}, (m + n + k) % 2 ? ACL_INT8 : ACL_FLOAT16, ACL_UINT64, 1});
  for (int64_t m : {1, 4, 8, 9, 16, 17, 64})
    for (bool t2 : {false, true}) {
      Int8Spec c{{m, 75}, {75, 40}, ACL_BF16, ACL_FLOAT, 1, false, true, m % 2 == 1, ACL_FLOAT};
      c.t2 = t2;
      run_case(c);
    }
  // Several blocks in both directions (edges of the engine's tiles), long k.
  run_case({{130, 301}, {301, 261}, ACL_INT8, ACL_FLOAT, 1, true, true, true, ACL_INT32});
  run_case({{3, 29, 3001}, {3001, 37}, ACL_BF16, ACL_UINT64, 1, false, true, true, ACL_FLOAT});
}

TEST_P(OpTableQmmInt8, LargestK) {
  run_case({{2, 65535}, {65535, 3}, ACL_INT8, ACL_UINT64, 1, true, true});
  Int8Spec c{{2, 65535}, {65535, 3}, ACL_FLOAT16, ACL_FLOAT, 0, false, true, true, ACL_INT32};
  c.t2 = true;
  run_case(c);
}

// OPSNN_KERNELS=reference: the int8 GEMM's portable tiles.
TEST_P(OpTableQmmInt8, ReferenceKernels) {
  core::reset_kernel_env_for_testing(nullptr, "reference");
  for (int64_t m : {1, 5, 40}) {
    run_case({{m, 70}, {70, 21}, ACL_INT8, ACL_UINT64, 1, true, true, true, ACL_INT32});
    Int8Spec c{{2, m, 33}, {33, 18}, ACL_BF16, ACL_FLOAT, 2, false, true, true, ACL_FLOAT16};
    c.t2 = true;
    run_case(c);
  }
  core::reset_kernel_env_for_testing(std::getenv("OPSNN_MAX_ISA"), std::getenv("OPSNN_KERNELS"));
}

// The same launch with the whole compute pool and with one thread (the test thread holds the pool,
// so the op's parallel loops run on the stream's worker alone): identical bits.
TEST_P(OpTableQmmInt8, SameBitsForOneAndAllThreads) {
  for (aclDataType out : {ACL_INT8, ACL_FLOAT16, ACL_BF16}) {
    Int8Spec c{{2, 70, 200}, {200, 150}, out, ACL_UINT64, 1, out == ACL_INT8, true, true, ACL_INT32};
    SCOPED_TRACE(describe(c));
    Int8Problem p(GetParam(), c);
    ASSERT_EQ(p.run(), 0) << aclGetRecentErrMsg();
    p.check();
    const auto all = p.out_values();
    int status = -1;
    // Two one-element chunks: the pool's job lock is held until both are done.
    core::parallel_for(2, 1, [&](int64_t begin, int64_t) {
      if (begin == 0) status = p.run();
    });
    ASSERT_EQ(status, 0) << aclGetRecentErrMsg();
    p.check();
    EXPECT_EQ(p.out_values(), all);
  }
}

// A repeatable executor re-pointed at other x1, x2, scale, (pertoken,) bias and out buffers; the
// slot of the null offset refuses an address.
TEST_P(OpTableQmmInt8, RepeatableExecutorRebindsAddresses) {
  const QmmTableCase &tc = GetParam();
  Int8Spec c{{2, 12, 40}, {40, 18}, ACL_FLOAT16, ACL_UINT64, 1, false, true, true, ACL_INT32};
  Int8Problem a(tc, c), b(tc, c);  // same shapes, different data
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(a.phase1(&ws, &ex), 0) << aclGetRecentErrMsg();
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  void *w = nullptr;
  if (ws) ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), 0);
  a.out().poison();
  ASSERT_EQ(tc.launch(w, ws, ex, nullptr), 0);
  ASSERT_EQ(aclrtSynchronizeDevice(), 0);
  {
    SCOPED_TRACE("first launch");
    a.check();
  }
  b.out().poison();
  ASSERT_EQ(aclSetInputTensorAddr(ex, tc.input_index(ops::kQmmA), b.x1(), b.x1().data()), 0);
  ASSERT_EQ(aclSetInputTensorAddr(ex, tc.input_index(ops::kQmmB), b.x2(), b.x2().data()), 0);
  ASSERT_EQ(aclSetInputTensorAddr(ex, tc.input_index(ops::kQmmScale), b.scale(), b.scale().data()), 0);
  ASSERT_EQ(aclSetInputTensorAddr(ex, tc.input_index(ops::kQmmOffset), b.scale(), b.scale().data()),
            ACLNN_ERR_PARAM_INVALID);  // offset was null
  if (b.pertoken() != nullptr)
    ASSERT_EQ(aclSetInputTensorAddr(ex, tc.input_index(ops::kQmmPertoken), *b.pertoken(), b.pertoken()->data()), 0);
  ASSERT_EQ(aclSetInputTensorAddr(ex, tc.input_index(ops::kQmmBias), b.bias(), b.bias().data()), 0);
  ASSERT_EQ(aclSetOutputTensorAddr(ex, 0, b.out(), b.out().data()), 0);
  ASSERT_EQ(tc.launch(w, ws, ex, nullptr), 0);
  ASSERT_EQ(aclrtSynchronizeDevice(), 0);
  {
    SCOPED_TRACE("re-pointed launch");
    b.check();
  }
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
  if (w) aclrtFree(w);
}

TEST_P(OpTableQmmInt8, Errors) {
  const QmmTableCase &tc = GetParam();
  const char *X1 = tc.arg(ops::kQmmA), *X2 = tc.arg(ops::kQmmB), *S = tc.arg(ops::kQmmScale),
             *O = tc.arg(ops::kQmmOffset), *B = tc.arg(ops::kQmmBias), *OUT = tc.arg(ops::kQmmOut);
  DeviceTensor x1({4, 64}, ACL_INT8), x2({64, 32}, ACL_INT8), s({32}, ACL_UINT64), o({32}, ACL_FLOAT);
  DeviceTensor out8({4, 32}, ACL_INT8), out16({4, 32}, ACL_FLOAT16), pt({4}, ACL_FLOAT), bi({32}, ACL_INT32);
  DeviceTensor bf({32}, ACL_FLOAT), f16x({4, 64}, ACL_FLOAT16), x2k({63, 32}, ACL_INT8), s_bad({31}, ACL_UINT64);
  DeviceTensor s_i32({32}, ACL_INT32), s_2d({2, 32}, ACL_FLOAT), o_f16({32}, ACL_FLOAT16), o_bad({5}, ACL_FLOAT);
  DeviceTensor pt_bad({5}, ACL_FLOAT), pt_f16({4}, ACL_FLOAT16), b_bad({31}, ACL_INT32), b_i8({32}, ACL_INT8);
  DeviceTensor b3_bad({2, 1, 32}, ACL_INT32), out_f32({4, 32}, ACL_FLOAT), out_bad({4, 31}, ACL_INT8);
  DeviceTensor x1_1d({64}, ACL_INT8), x1_7d({1, 1, 1, 1, 1, 4, 64}, ACL_INT8), x1_big({1, 65536}, ACL_INT8);
  DeviceTensor x2_big({65536, 2}, ACL_INT8), out_big({1, 2}, ACL_FLOAT16), x1_b2({2, 4, 64}, ACL_INT8);
  DeviceTensor x2_b3({3, 64, 32}, ACL_INT8), out_b({2, 4, 32}, ACL_INT8), x1_e({0, 64}, ACL_INT8);
  DeviceTensor out_e({0, 32}, ACL_INT8);
  DeviceTensor out_overlap({4, 32}, ACL_INT8, {0, 1}, 0);  // rows overlap: stride 0 along m
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto call = [&](aclTensor *a, aclTensor *b, aclTensor *sc, aclTensor *of, aclTensor *p, aclTensor *bb, aclTensor *y,
                  bool t1 = false) {
    return tc.phase1({a, b, sc, of, p, nullptr, nullptr, bb, y, t1}, &ws, &ex);
  };
  const int kNull = ACLNN_ERR_PARAM_NULLPTR, kInv = ACLNN_ERR_PARAM_INVALID;
  EXPECT_TRUE(fails_with(call(nullptr, x2, s, nullptr, nullptr, nullptr, out8), kNull, {tc.api.c_str(), X1}));
  EXPECT_TRUE(fails_with(call(x1, nullptr, s, nullptr, nullptr, nullptr, out8), kNull, {X2}));
  EXPECT_TRUE(fails_with(call(x1, x2, nullptr, nullptr, nullptr, nullptr, out8), kNull, {S}));
  EXPECT_TRUE(fails_with(call(x1, x2, s, nullptr, nullptr, nullptr, nullptr), kNull, {OUT}));
  // dtypes
  EXPECT_TRUE(fails_with(call(f16x, x2, s, nullptr, nullptr, nullptr, out8), kInv, {X1, "FLOAT16"}));
  EXPECT_TRUE(fails_with(call(x1, f16x, s, nullptr, nullptr, nullptr, out8), kInv, {X2, "FLOAT16"}));
  EXPECT_TRUE(fails_with(call(x1, x2, s_i32, nullptr, nullptr, nullptr, out8), kInv, {S, "INT32"}));
  if (tc.has(ops::kQmmOffset))
    EXPECT_TRUE(fails_with(call(x1, x2, s, o_f16, nullptr, nullptr, out8), kInv, {O, "FLOAT16"}));
  EXPECT_TRUE(fails_with(call(x1, x2, s, nullptr, nullptr, b_i8, out8), kInv, {B, "INT8"}));
  EXPECT_TRUE(fails_with(call(x1, x2, s, nullptr, nullptr, nullptr, out_f32), kInv, {OUT, "FLOAT"}));
  // offset only with an INT8 out, and not with a floating bias
  if (tc.has(ops::kQmmOffset)) {
    EXPECT_TRUE(fails_with(call(x1, x2, s, o, nullptr, nullptr, out16), kInv, {O, "INT8"}));
    EXPECT_TRUE(fails_with(call(x1, x2, s, o, nullptr, bf, out8), kInv, {O, "FLOAT", B}));
  }
  // shapes
  EXPECT_TRUE(fails_with(call(x1_1d, x2, s, nullptr, nullptr, nullptr, out8), kInv, {X1, "2 to 6"}));
  EXPECT_TRUE(fails_with(call(x1_7d, x2, s, nullptr, nullptr, nullptr, out8), kInv, {X1, "2 to 6"}));
  EXPECT_TRUE(fails_with(call(x1, x1_7d, s, nullptr, nullptr, nullptr, out8), kInv, {X2, "2 to 6"}));
  EXPECT_TRUE(fails_with(call(x1, x2k, s, nullptr, nullptr, nullptr, out8), kInv, {X1, X2, "64", "63"}));
  if (tc.has_trans)
    EXPECT_TRUE(fails_with(call(x1, x2, s, nullptr, nullptr, nullptr, out8, true), kInv, {X1, X2, "inner dims"}));
  EXPECT_TRUE(fails_with(call(x1_big, x2_big, s, nullptr, nullptr, nullptr, out_big), kInv, {"k", "65536", "65535"}));
  EXPECT_TRUE(fails_with(call(x1_b2, x2_b3, s, nullptr, nullptr, nullptr, out_b), kInv, {X1, X2, "broadcast"}));
  EXPECT_TRUE(fails_with(call(x1, x2, s_bad, nullptr, nullptr, nullptr, out8), kInv, {S, "[31]"}));
  EXPECT_TRUE(fails_with(call(x1, x2, s_2d, nullptr, nullptr, nullptr, out8), kInv, {S, "(1, 32)"}));
  if (tc.has(ops::kQmmOffset))
    EXPECT_TRUE(fails_with(call(x1, x2, s, o_bad, nullptr, nullptr, out8), kInv, {O, "[5]"}));
  EXPECT_TRUE(fails_with(call(x1, x2, s, nullptr, nullptr, b_bad, out8), kInv, {B, "(32,)"}));
  EXPECT_TRUE(fails_with(call(x1, x2, s, nullptr, nullptr, b3_bad, out8), kInv, {B, "(1, 1, 32)"}));
  EXPECT_TRUE(fails_with(call(x1, x2, s, nullptr, nullptr, nullptr, out_bad), kInv, {OUT}));
  EXPECT_TRUE(fails_with(call(x1, x2, s, nullptr, nullptr, nullptr, out_overlap), kInv, {OUT, "overlap"}));
  EXPECT_TRUE(fails_with(call(x1_e, x2, s, nullptr, nullptr, nullptr, out_e), kInv, {"empty"}));
  if (tc.has(ops::kQmmPertoken)) {
    const char *P = tc.arg(ops::kQmmPertoken);
    EXPECT_TRUE(fails_with(call(x1, x2, s, nullptr, pt_f16, nullptr, out8), kInv, {P, "FLOAT16"}));
    EXPECT_TRUE(fails_with(call(x1, x2, s, nullptr, pt_bad, nullptr, out8), kInv, {P, "(4,)"}));
  }
  // a valid call after all that
  EXPECT_EQ(call(x1, x2, s, o, tc.has(ops::kQmmPertoken) ? pt.get() : nullptr, bi, out8), 0) << aclGetRecentErrMsg();
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
}

// ---- QuantMatmulWeightNz: x2 as FRACTAL_NZ blocks (built here by the documented layout,
// fractal_tensors.h) of its given [.., k, n] (transposeX2: [.., n, k]) matrices, INT8 C0 = 32:
// against the reference, and bit-equal to QuantMatmulV4 (the same scheme) on the plain x2.

std::vector<QmmTableCase> nz_cases() {
  std::vector<QmmTableCase> v;
  for (auto &c : cases_of(QmmScheme::kInt8Dequant))
    if (c.weight_nz) v.push_back(c);
  return v;
}

class OpTableQmmInt8Nz : public ::testing::TestWithParam<QmmTableCase> {
 protected:
  void SetUp() override { reseed_for_current_test(); }
};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTableQmmInt8Nz);

TEST_P(OpTableQmmInt8Nz, BlockedX2MatchesReferenceAndV4) {
  const QmmTableCase &twin = case_named("QuantMatmulV4");
  static const int64_t kSizes[] = {1, 5, 16, 17, 31, 32, 33, 70};
  auto pick = [](const int64_t *v, size_t n) { return v[rng()() % n]; };
  for (int t = 0; t < 24; ++t) {
    Int8Spec s;
    const int64_t m = pick(kSizes, 8), k = pick(kSizes, 8), n = pick(kSizes, 8);
    const bool batched = t % 4 == 3;
    s.x1 = batched ? std::vector<int64_t>{2, m, k} : std::vector<int64_t>{m, k};
    s.x2 = batched && t % 8 == 7 ? std::vector<int64_t>{2, k, n} : std::vector<int64_t>{k, n};
    s.out = t % 3 == 0 ? ACL_INT8 : t % 3 == 1 ? ACL_FLOAT16 : ACL_BF16;
    s.scale = t % 2 ? ACL_FLOAT : ACL_UINT64;
    s.t1 = t % 5 == 1;
    s.t2 = t % 2 == 1;
    s.pertoken = t % 3 == 1;
    s.bias = t % 4 == 0 ? ACL_INT32 : t % 4 == 1 && s.out != ACL_INT8 ? ACL_FLOAT : ACL_DT_UNDEFINED;
    s.offset = s.out == ACL_INT8 && t % 2 == 0;
    s.x2_nz = true;
    SCOPED_TRACE(describe(s));
    Int8Problem p(GetParam(), s);
    ASSERT_EQ(p.run(), 0) << aclGetRecentErrMsg();
    EXPECT_GT(p.check(), 0);
    const std::vector<double> got = p.out_values();
    ASSERT_EQ(p.run_plain_as(twin), 0) << aclGetRecentErrMsg();
    const std::vector<double> want = p.out_values();
    for (size_t i = 0; i < got.size(); ++i)
      if (!(got[i] == want[i] || (std::isnan(got[i]) && std::isnan(want[i])))) {
        ADD_FAILURE() << "element " << i << ": WeightNz " << got[i] << ", QuantMatmulV4 " << want[i];
        break;
      }
  }
}

TEST_P(OpTableQmmInt8Nz, Errors) {
  const QmmTableCase &tc = GetParam();
  DeviceTensor x1({4, 40}, ACL_INT8), s({24}, ACL_FLOAT), out({4, 24}, ACL_FLOAT16), extra({24}, ACL_FLOAT);
  const std::vector<int64_t> xs{40, 24};
  const auto good = fractal_nz_storage(xs, ACL_INT8);  // [1, 3, 16, 32]
  auto args = [&](aclTensor *x2) {
    QmmArgs a;
    a.a = x1;
    a.b = x2;
    a.scale = s;
    a.out = out;
    return a;
  };
  auto status = [&](const QmmArgs &a) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    const int st = tc.phase1(a, &ws, &ex);
    if (st == 0) aclDestroyAclOpExecutor(ex);
    return st;
  };
  auto call = [&](aclTensor *x2) { return status(args(x2)); };
  const char *X2 = tc.arg(ops::kQmmB);
  {
    FractalTensor w(xs, ACL_INT8, ACL_FORMAT_FRACTAL_NZ, good, 1 << 12);
    EXPECT_EQ(call(w), 0) << aclGetRecentErrMsg();
  }
  for (int variant = 0; variant < 3; ++variant) {
    std::vector<int64_t> bad = good;
    if (variant == 0) bad[3] = 16;  // the 16-bit block width
    if (variant == 1) bad[1] += 1;
    if (variant == 2) std::swap(bad[0], bad[1]);
    FractalTensor w(xs, ACL_INT8, ACL_FORMAT_FRACTAL_NZ, bad, 1 << 12);
    EXPECT_TRUE(fails_with(call(w), ACLNN_ERR_PARAM_INVALID, {tc.api.c_str(), X2, "storage shape"})) << variant;
  }
  {
    FractalTensor w(xs, ACL_INT8, ACL_FRACTAL_Z_3D, good, 1 << 12);
    EXPECT_TRUE(fails_with(call(w), ACLNN_ERR_PARAM_INVALID, {X2, "format", "FRACTAL_NZ"}));
    FractalTensor w16(xs, ACL_FLOAT16, ACL_FORMAT_FRACTAL_NZ, fractal_nz_storage(xs, ACL_FLOAT16), 1 << 12);
    EXPECT_TRUE(fails_with(call(w16), ACLNN_ERR_PARAM_INVALID, {X2, "dtype"}));
  }
  {  // reserved tensors, and groupSize
    FractalTensor w(xs, ACL_INT8, ACL_FORMAT_FRACTAL_NZ, good, 1 << 12);
    for (int r : {0, 1, 2}) {
      QmmArgs a = args(w);
      (r == 0 ? a.yscale : r == 1 ? a.x1offset : a.yoffset) = extra;
      const char *name = tc.arg(r == 0 ? ops::kQmmYScale : r == 1 ? ops::kQmmAOffset : ops::kQmmYOffset);
      EXPECT_TRUE(fails_with(status(a), ACLNN_ERR_PARAM_INVALID, {name, "reserved"})) << name;
    }
    QmmArgs a = args(w);
    a.group = 32;
    EXPECT_TRUE(fails_with(status(a), ACLNN_ERR_PARAM_INVALID, {"groupSize"}));
  }
}

INSTANTIATE_TEST_SUITE_P(Table, OpTableQmmInt8Nz, ::testing::ValuesIn(nz_cases()), harness::case_name<QmmTableCase>);

INSTANTIATE_TEST_SUITE_P(Table, OpTableQmmInt8, ::testing::ValuesIn(cases_of(QmmScheme::kInt8Dequant)),
                         harness::case_name<QmmTableCase>);

// The two int8_dequant rows without a per-token scale: the same inputs give the same bits.
TEST(OpTableQmm, QuantMatmulV3MatchesV4WithoutPertoken) {
  reseed_for_current_test();
  Int8Spec c{{2, 19, 77}, {77, 41}, ACL_INT8, ACL_INT64, 1, true, false, false, ACL_INT32};
  Int8Problem p4(case_named("QuantMatmulV4"), c);
  ASSERT_EQ(p4.run(), 0) << aclGetRecentErrMsg();
  p4.check();
  reseed_for_current_test();  // the same inputs again
  Int8Problem p3(case_named("QuantMatmulV3"), c);
  ASSERT_EQ(p3.run(), 0) << aclGetRecentErrMsg();
  p3.check();
  EXPECT_EQ(p3.out_values(), p4.out_values());
}

// =============================================================================================
// weight_antiquant

enum class WType { kInt8, kInt4, kInt32 };

// A quantised weight [k, n] (values as ints), stored [k, n] or as the transposed view of [n, k].
struct QWeight {
  int64_t k, n;
  WType type;
  std::vector<double> values;  // [k][n]
  void *dev = nullptr;
  aclTensor *t = nullptr;

  QWeight(int64_t k_, int64_t n_, WType type_, bool transposed) : k(k_), n(n_), type(type_) {
    const int lo = type == WType::kInt8 ? -128 : -8, hi = type == WType::kInt8 ? 127 : 7;
    std::uniform_int_distribution<int> dist(lo, hi);
    values.resize(static_cast<size_t>(k * n));
    for (double &v : values) v = dist(rng());
    const int64_t elems = k * n;
    const size_t bytes = type == WType::kInt8 ? static_cast<size_t>(elems) : static_cast<size_t>((elems + 1) / 2);
    std::vector<uint8_t> host(bytes + 64, 0);
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) {
        const int64_t e = transposed ? j * k + p : p * n + j;
        const int v = static_cast<int>(values[static_cast<size_t>(p * n + j)]);
        if (type == WType::kInt8) {
          host[static_cast<size_t>(e)] = static_cast<uint8_t>(static_cast<int8_t>(v));
        } else {
          uint8_t &b = host[static_cast<size_t>(e / 2)];
          const uint8_t nib = static_cast<uint8_t>(v & 15);
          b = (e & 1) ? static_cast<uint8_t>((b & 0x0F) | (nib << 4)) : static_cast<uint8_t>((b & 0xF0) | nib);
        }
      }
    EXPECT_EQ(aclrtMalloc(&dev, host.size(), ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(dev, host.size(), host.data(), host.size(), ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    if (type == WType::kInt32) {
      const int64_t dims[2] = {k, n / 8}, strides[2] = {n / 8, 1}, storage = k * n / 8;
      t = aclCreateTensor(dims, 2, ACL_INT32, strides, 0, ACL_FORMAT_ND, &storage, 1, dev);
    } else {
      const aclDataType dt = type == WType::kInt8 ? ACL_INT8 : ACL_INT4;
      const int64_t dims[2] = {k, n};
      const int64_t strides[2] = {transposed ? 1 : n, transposed ? k : 1};
      const int64_t storage = k * n;
      t = aclCreateTensor(dims, 2, dt, strides, 0, ACL_FORMAT_ND, &storage, 1, dev);
    }
  }
  ~QWeight() {
    aclDestroyTensor(t);
    aclrtFree(dev);
  }
};

struct WqSpec {
  std::vector<int64_t> x_shape;  // [..., m, k]
  int64_t n;
  aclDataType xt;
  WType wt;
  bool w_trans = false;
  int mode = 1;  // 0 per-tensor, 1 per-channel (n,), 2 per-channel (1, n), 3 per-group
  int group = 0;
  bool offset = false;
  aclDataType bias = ACL_DT_UNDEFINED;
  bool views = false;  // x transposed storage, scale / offset / bias strided, y padded rows
  bool specials = false;  // x holds NaN, +inf and -inf
  bool bias_row = false;  // bias (1, n) instead of (n,)
  // Requantisation: quantScaleOptional's dtype (undefined: none), per channel, with an offset.
  aclDataType qscale = ACL_DT_UNDEFINED;
  bool q_per_channel = true, q_offset = false;
};

std::string describe(const WqSpec &c) {
  std::ostringstream os;
  os << "x " << ::testing::PrintToString(c.x_shape) << " n " << c.n << " xt " << c.xt << " wt " << int(c.wt)
     << " trans " << c.w_trans << " mode " << c.mode << " group " << c.group << " offset " << c.offset << " bias "
     << c.bias << " views " << c.views << " qscale " << c.qscale << " q_per_channel " << c.q_per_channel
     << " q_offset " << c.q_offset;
  return os.str();
}

class OpTableQmmWeight : public ::testing::TestWithParam<QmmTableCase> {
 protected:
  void SetUp() override { reseed_for_current_test(); }
  void run_case(const WqSpec &c);
};

void OpTableQmmWeight::run_case(const WqSpec &c) {
  SCOPED_TRACE(describe(c));
  const QmmTableCase &tc = GetParam();
  const int64_t k = c.x_shape.back(), n = c.n;
  int64_t m = 1;
  for (size_t i = 0; i + 1 < c.x_shape.size(); ++i) m *= c.x_shape[i];
  // x: contiguous, or (views) a 2-D x stored transposed with an offset.
  Dev x = c.views && c.x_shape.size() == 2
              ? std::make_unique<DeviceTensor>(c.x_shape, c.xt, std::vector<int64_t>{1, c.x_shape[0] + 1}, 3)
              : std::make_unique<DeviceTensor>(c.x_shape, c.xt);
  x->fill_random(-1, 1);
  if (c.specials) {
    std::vector<double> v = x->values();
    // Row i % 4: 0 a NaN, 1 a +inf, 2 a +inf and a -inf (NaN sums), 3 finite.
    for (int64_t i = 0; i < m; ++i) {
      const size_t r = static_cast<size_t>(i * k);
      if (i % 4 == 0) v[r + 5] = NAN;
      if (i % 4 == 1 || i % 4 == 2) v[r + 7] = INFINITY;
      if (i % 4 == 2) v[r + static_cast<size_t>(k) - 1] = -INFINITY;
    }
    x->set_values(v);
  }
  QWeight w(k, n, c.wt, c.w_trans);
  const int64_t groups = c.mode == 3 ? (k + c.group - 1) / c.group : 1;
  const std::vector<int64_t> s_shape = c.mode == 0   ? std::vector<int64_t>{1}
                                       : c.mode == 1 ? std::vector<int64_t>{n}
                                       : c.mode == 2 ? std::vector<int64_t>{1, n}
                                                     : std::vector<int64_t>{groups, n};
  Dev scale = make_tensor(s_shape, c.xt, c.views), offset = make_tensor(s_shape, c.xt, c.views);
  scale->fill_random(0.002, 0.02);
  offset->fill_random(-4, 4);
  Dev bias;
  if (c.bias != ACL_DT_UNDEFINED) {
    bias = make_tensor(c.bias_row ? std::vector<int64_t>{1, n} : std::vector<int64_t>{n}, c.bias, c.views);
    bias->fill_random(-1, 1);
  }
  std::vector<int64_t> y_shape = c.x_shape;
  y_shape.back() = n;
  const bool quant = c.qscale != ACL_DT_UNDEFINED;
  const aclDataType yt = quant ? ACL_INT8 : c.xt;
  std::vector<int64_t> y_strides = contiguous_strides(y_shape);
  if (c.views && y_shape.size() == 2) y_strides[0] = n + 5;  // padded rows
  DeviceTensor y(y_shape, yt, y_strides, c.views ? 2 : 0);

  // The float64 result before any requantisation and its magnitude (refs::wq_antiquant_ref).
  const auto xv = x->values(), sv = scale->values(), ov = offset->values();
  const std::vector<double> bv = bias ? bias->values() : std::vector<double>();
  const int64_t gr = c.mode == 3 ? c.group : k;
  std::vector<double> se(static_cast<size_t>(k * n)), oe(se.size(), 0.0);
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j) {
      const size_t si = c.mode == 0 ? 0 : static_cast<size_t>((p / gr) * (c.mode == 3 ? n : 0) + j);
      se[static_cast<size_t>(p * n + j)] = sv[si];
      if (c.offset) oe[static_cast<size_t>(p * n + j)] = ov[si];
    }
  std::vector<double> v(static_cast<size_t>(m * n)), mag(v.size());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const size_t e = static_cast<size_t>(i * n + j);
      v[e] = refs::wq_antiquant_ref(&xv[static_cast<size_t>(i * k)], 1, &w.values[static_cast<size_t>(j)], &oe[static_cast<size_t>(j)],
                                    &se[static_cast<size_t>(j)], n, k, bias ? bv[static_cast<size_t>(j)] : 0.0, &mag[e]);
    }

  // Requantisation scales: about 1.5 * 127 / the column's largest |v| (so some values saturate).
  const int64_t qn = c.q_per_channel ? n : 1;
  std::vector<float> qs(static_cast<size_t>(qn)), qo(static_cast<size_t>(qn), 0.0f);
  Dev qscale, qoffset;
  std::vector<uint64_t> enc(qs.size());
  if (quant) {
    std::uniform_real_distribution<float> jitter(0.8f, 1.2f), off(-6.0f, 6.0f);
    for (int64_t j = 0; j < qn; ++j) {
      double big = 1e-3;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t cc = c.q_per_channel ? j : 0; cc < (c.q_per_channel ? j + 1 : n); ++cc)
          if (std::isfinite(v[static_cast<size_t>(i * n + cc)]))
            big = std::max(big, std::fabs(v[static_cast<size_t>(i * n + cc)]));
      const float sc = static_cast<float>(1.5 * 127.0 / big) * jitter(rng());
      qs[static_cast<size_t>(j)] = sc;
      if (c.qscale != ACL_FLOAT) enc[static_cast<size_t>(j)] = scale_word(sc, &qs[static_cast<size_t>(j)]);
      if (c.q_offset) qo[static_cast<size_t>(j)] = off(rng());
    }
    const std::vector<int64_t> qshape = c.q_per_channel ? std::vector<int64_t>{1, n} : std::vector<int64_t>{1};
    qscale = make_tensor(qshape, c.qscale, c.views);
    if (c.qscale == ACL_FLOAT) {
      qscale->set_values(std::vector<double>(qs.begin(), qs.end()));
    } else {
      write_words(*qscale, enc, c.views ? 5 : 0);
    }
    if (c.q_offset) {
      qoffset = make_tensor(qshape, ACL_FLOAT, c.views);
      qoffset->set_values(std::vector<double>(qo.begin(), qo.end()));
    }
  }

  QmmArgs a;
  a.a = *x;
  a.b = w.t;
  a.scale = *scale;
  a.offset = c.offset ? offset->get() : nullptr;
  a.qscale = qscale ? qscale->get() : nullptr;
  a.qoffset = qoffset ? qoffset->get() : nullptr;
  a.bias = bias ? bias->get() : nullptr;
  a.group = c.mode == 3 ? c.group : 0;
  a.out = y;
  y.poison();
  ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **e) { return tc.phase1(a, ws, e); }, tc.launch), 0)
      << aclGetRecentErrMsg();
  const auto got = y.values();
  EXPECT_TRUE(y.untouched_outside_view());
  if (!quant) {
    const double T = precision_threshold(c.xt);
    double sum = 0, worst = 0;
    for (size_t e = 0; e < v.size(); ++e) {
      if (!std::isfinite(v[e])) {  // NaN / inf from a special x: the same value
        EXPECT_TRUE(std::isnan(v[e]) ? std::isnan(got[e]) : got[e] == v[e]) << "y element " << e << ": got " << got[e]
                                                                             << ", reference " << v[e];
        continue;
      }
      ASSERT_FALSE(std::isnan(got[e])) << "y element " << e << " is NaN (unwritten?)";
      const double rel = std::fabs(got[e] - v[e]) / (mag[e] + 1e-7);
      sum += rel;
      worst = std::max(worst, rel);
    }
    EXPECT_LT(sum / static_cast<double>(v.size()), T);
    EXPECT_LT(worst, 10 * T);
    return;
  }
  int64_t exact = 0, saturated = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const size_t e = static_cast<size_t>(i * n + j), qj = static_cast<size_t>(c.q_per_channel ? j : 0);
      const double q = v[e] * qs[qj] + qo[qj];
      // fp32 error of the kernel's result, scaled: within it of a .5 boundary either side may come out.
      const double err = 1e-5 * mag[e] * qs[qj] + 1e-6 * std::fabs(q);
      bool ex = !std::isfinite(q);
      if (ex) {
        EXPECT_EQ(got[e], refs::int8_saturate(q)) << "y[" << i << "," << j << "] q " << q;
        ++exact;
        saturated += std::fabs(q) > 129.0;
        continue;
      }
      ASSERT_TRUE(int8_ok(got[e], q, err, &ex)) << "y[" << i << "," << j << "] q " << q << " got " << got[e];
      exact += ex;
      saturated += std::fabs(q) > 129.0;
    }
  EXPECT_GT(exact, m * n / 2);
  if (!c.specials) EXPECT_GT(saturated, 0);  // rows of NaN sums (specials) saturate nothing
}

TEST_P(OpTableQmmWeight, Int8AllModesSmallAndLargeM) {
  for (aclDataType xt : GetParam().dtypes)
    for (int64_t m : {1, 2, 3, 4, 5, 16, 33})
      for (int mode : {0, 1, 2, 3})
        for (bool trans : {false, true})
          run_case({{m, 256}, 67, xt, WType::kInt8, trans, mode, mode == 3 ? 64 : 0, mode != 2});
}

// Every x dtype of the row with every bias dtype it takes, (n,) and (1, n) biases, every path.
TEST_P(OpTableQmmWeight, BiasDtypesAndShapes) {
  for (aclDataType xt : GetParam().dtypes)
    for (aclDataType bias : {xt, ACL_FLOAT})
      for (int64_t m : {2, 12, 40})
        for (bool row : {false, true}) {
          WqSpec c{{m, 96}, 24, xt, m == 12 ? WType::kInt4 : WType::kInt8, m == 40, 1, 0, true, bias};
          c.bias_row = row;
          run_case(c);
        }
}

// NaN and infinities in x reach y as in the float64 reference (the stream path's factored sums
// must not turn them into other values), and the requantised INT8 y gets 0 / saturation.
TEST_P(OpTableQmmWeight, SpecialValuesInX) {
  for (aclDataType xt : GetParam().dtypes)
    for (int64_t m : {1, 3, 9, 40})
      for (bool trans : {false, true}) {
        WqSpec c{{m, 128}, 40, xt, trans ? WType::kInt4 : WType::kInt8, trans, 3, 64, true, ACL_FLOAT};
        c.specials = true;
        run_case(c);
        c.qscale = ACL_FLOAT;
        c.q_offset = true;
        if (xt == ACL_FLOAT16) run_case(c);  // requantisation takes FLOAT16 x only with a FLOAT16 / FLOAT bias
      }
}

TEST_P(OpTableQmmWeight, Int4AllModesSmallAndLargeM) {
  for (int64_t m : {1, 2, 4, 7, 40})
    for (int mode : {0, 1, 3})
      for (bool trans : {false, true})
        run_case({{m, 192}, 50, ACL_BF16, WType::kInt4, trans, mode, mode == 3 ? 32 : 0, true, ACL_FLOAT});
}

TEST_P(OpTableQmmWeight, Int32PackedInt4) {
  for (int64_t m : {1, 3, 20}) run_case({{m, 128}, 64, ACL_FLOAT16, WType::kInt32, false, 3, 64, true, ACL_FLOAT16});
}

TEST_P(OpTableQmmWeight, GroupSizesAndRaggedK) {
  for (int g : {32, 64, 128})
    for (int64_t k : {int64_t{g} + 1, int64_t{3 * g - 7}, int64_t{4 * g}})
      for (int64_t m : {1, 9}) {
        run_case({{m, k}, 40, ACL_FLOAT16, WType::kInt8, false, 3, g, true, ACL_FLOAT});
        run_case({{m, k + k % 2}, 40, ACL_BF16, WType::kInt4, true, 3, g, false, ACL_BF16});
      }
}

TEST_P(OpTableQmmWeight, BatchDimsAndOddSizes) {
  run_case({{2, 3, 100}, 33, ACL_FLOAT16, WType::kInt8, false, 1, 0, true, ACL_FLOAT16});
  run_case({{2, 1, 100}, 33, ACL_BF16, WType::kInt8, true, 1, 0, false, ACL_FLOAT});
  run_case({{1, 1}, 1, ACL_FLOAT16, WType::kInt8, false, 0, 0, false});
  run_case({{3, 5, 66}, 130, ACL_FLOAT16, WType::kInt4, false, 1, 0, true});
  run_case({{1, 4096}, 300, ACL_FLOAT16, WType::kInt4, false, 3, 128, true, ACL_FLOAT16});
}

// Non-contiguous views: x stored transposed with an offset, strided scale / offset / bias /
// requantisation vectors, y with padded rows; every path.
TEST_P(OpTableQmmWeight, Views) {
  for (int64_t m : {2, 12, 40})
    for (WType wt : {WType::kInt8, WType::kInt4}) {
      WqSpec c{{m, 128}, 48, ACL_BF16, wt, m == 12, 3, 64, true, ACL_BF16};
      c.views = true;
      run_case(c);
      WqSpec q{{m, 96}, 40, ACL_FLOAT16, wt, false, 1, 0, true, ACL_FLOAT};
      q.views = true;
      q.qscale = ACL_UINT64;
      q.q_offset = true;
      run_case(q);
    }
}

TEST_P(OpTableQmmWeight, RequantisedInt8Output) {
  // m 1 / 3: streaming path; 9 / 16: streaming ([k, n]) or fused (transposed); 40: fused.
  for (int64_t m : {1, 3, 9, 16, 40})
    for (bool trans : {false, true}) {
      WqSpec a{{m, 256}, 48, ACL_FLOAT16, WType::kInt8, trans, 1, 0, false, ACL_FLOAT16};
      a.qscale = ACL_FLOAT;
      a.q_offset = true;
      run_case(a);
      WqSpec b{{m, 192}, 34, ACL_FLOAT16, WType::kInt4, trans, 1};
      b.qscale = ACL_UINT64;
      run_case(b);
      WqSpec c{{m, 128}, 40, ACL_FLOAT16, WType::kInt8, trans, 1, 0, false, ACL_FLOAT};
      c.qscale = ACL_INT64;
      c.q_per_channel = false;
      c.q_offset = true;
      run_case(c);
    }
}

// OPSNN_KERNELS=reference: the whole weight dequantised into the workspace, then the GEMM
// engine's reference (with the bias as its addend, or fp32 rows then the requantisation).
TEST_P(OpTableQmmWeight, ReferenceKernels) {
  core::reset_kernel_env_for_testing(nullptr, "reference");
  for (int64_t m : {1, 7, 40}) {
    run_case({{m, 160}, 36, ACL_FLOAT16, WType::kInt8, m == 7, 3, 32, true, ACL_FLOAT});
    run_case({{2, m, 64}, 20, ACL_BF16, WType::kInt4, false, 0, 0, true, ACL_BF16});
    WqSpec q{{m, 96}, 24, ACL_FLOAT16, WType::kInt8, true, 2};
    q.qscale = ACL_FLOAT;
    q.q_offset = true;
    run_case(q);
  }
  core::reset_kernel_env_for_testing(std::getenv("OPSNN_MAX_ISA"), std::getenv("OPSNN_KERNELS"));
}

TEST_P(OpTableQmmWeight, Errors) {
  const QmmTableCase &tc = GetParam();
  const char *X = tc.arg(ops::kQmmA), *W = tc.arg(ops::kQmmB), *S = tc.arg(ops::kQmmScale),
             *O = tc.arg(ops::kQmmOffset), *QS = tc.arg(ops::kQmmQScale), *QO = tc.arg(ops::kQmmQOffset),
             *B = tc.arg(ops::kQmmBias), *Y = tc.arg(ops::kQmmOut);
  DeviceTensor x({4, 64}, ACL_FLOAT16), y({4, 32}, ACL_FLOAT16), s({32}, ACL_FLOAT16), sb({32}, ACL_BF16);
  DeviceTensor sg({2, 32}, ACL_FLOAT16), qs({32}, ACL_UINT64), yb({4, 33}, ACL_FLOAT16), x1d({64}, ACL_FLOAT16);
  DeviceTensor y8({4, 32}, ACL_INT8), qs_bad({31}, ACL_UINT64), qs_f16({32}, ACL_FLOAT16), qo({32}, ACL_FLOAT);
  DeviceTensor xe({0, 64}, ACL_FLOAT16), ye({0, 32}, ACL_FLOAT16), bias_i8({32}, ACL_INT8);
  DeviceTensor y_col({4, 32}, ACL_FLOAT16, {1, 4}, 0);  // a transposed y: no unit last stride
  QWeight w(64, 32, WType::kInt8, false), w4(64, 32, WType::kInt4, false), wk(63, 32, WType::kInt8, false);
  QWeight w4odd(64, 31, WType::kInt4, false);
  DeviceTensor y31({4, 31}, ACL_FLOAT16), s31({31}, ACL_FLOAT16);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto call = [&](aclTensor *xx, aclTensor *ww, aclTensor *ss, aclTensor *oo, aclTensor *q, aclTensor *qoo,
                  aclTensor *bb, int g, aclTensor *yy) {
    return tc.phase1({xx, ww, ss, oo, nullptr, q, qoo, bb, yy, false, false, g}, &ws, &ex);
  };
  const int kNull = ACLNN_ERR_PARAM_NULLPTR, kInv = ACLNN_ERR_PARAM_INVALID;
  EXPECT_TRUE(fails_with(call(nullptr, w.t, s, nullptr, nullptr, nullptr, nullptr, 0, y), kNull, {tc.api.c_str(), X}));
  EXPECT_TRUE(fails_with(call(x, nullptr, s, nullptr, nullptr, nullptr, nullptr, 0, y), kNull, {W}));
  EXPECT_TRUE(fails_with(call(x, w.t, nullptr, nullptr, nullptr, nullptr, nullptr, 0, y), kNull, {S}));
  EXPECT_TRUE(fails_with(call(x, w.t, s, nullptr, nullptr, nullptr, nullptr, 0, nullptr), kNull, {Y}));
  // dtypes
  EXPECT_TRUE(fails_with(call(y8, w.t, s, nullptr, nullptr, nullptr, nullptr, 0, y), kInv, {X, "INT8"}));
  EXPECT_TRUE(fails_with(call(x, x, s, nullptr, nullptr, nullptr, nullptr, 0, y), kInv, {W, "INT8"}));
  EXPECT_TRUE(fails_with(call(x, w.t, sb, nullptr, nullptr, nullptr, nullptr, 0, y), kInv, {S, "BF16"}));
  EXPECT_TRUE(fails_with(call(x, w.t, s, sb, nullptr, nullptr, nullptr, 0, y), kInv, {O, "BF16"}));
  EXPECT_TRUE(fails_with(call(x, w.t, s, nullptr, nullptr, nullptr, bias_i8, 0, y), kInv, {B, "INT8"}));
  EXPECT_TRUE(fails_with(call(x, w.t, s, nullptr, nullptr, nullptr, sb, 0, y), kInv, {B, "BF16"}));
  EXPECT_TRUE(fails_with(call(x, w.t, s, nullptr, nullptr, nullptr, nullptr, 0, y8), kInv, {Y, "INT8"}));
  // with quantScaleOptional y must be INT8; the scale FLOAT / UINT64 / INT64; no offset alone
  EXPECT_TRUE(fails_with(call(x, w.t, s, nullptr, qs, nullptr, nullptr, 0, y), kInv, {Y, "INT8"}));
  EXPECT_TRUE(fails_with(call(x, w.t, s, nullptr, qs_f16, nullptr, nullptr, 0, y8), kInv, {QS, "FLOAT16"}));
  EXPECT_TRUE(fails_with(call(x, w.t, s, nullptr, qs, qs_f16, nullptr, 0, y8), kInv, {QO, "FLOAT16"}));
  EXPECT_TRUE(fails_with(call(x, w.t, s, nullptr, nullptr, qo, nullptr, 0, y8), kInv, {QO, QS}));
  // shapes
  EXPECT_TRUE(fails_with(call(x1d, w.t, s, nullptr, nullptr, nullptr, nullptr, 0, y), kInv, {X, "2 to 6"}));
  EXPECT_TRUE(fails_with(call(x, sg, s, nullptr, nullptr, nullptr, nullptr, 0, y), kInv, {W}));
  EXPECT_TRUE(fails_with(call(x, wk.t, s, nullptr, nullptr, nullptr, nullptr, 0, y), kInv, {X, W, "64", "63"}));
  EXPECT_TRUE(fails_with(call(x, w.t, s, nullptr, nullptr, nullptr, nullptr, 0, yb), kInv, {Y}));
  EXPECT_TRUE(fails_with(call(x, w.t, s, nullptr, nullptr, nullptr, nullptr, 0, y_col), kInv, {Y, "unit last stride"}));
  EXPECT_TRUE(fails_with(call(xe, w.t, s, nullptr, nullptr, nullptr, nullptr, 0, ye), kInv, {"empty"}));
  EXPECT_TRUE(fails_with(call(x, w4odd.t, s31, nullptr, nullptr, nullptr, nullptr, 0, y31), kInv, {W, "even n"}));
  for (int g : {16, 48, 64, -32})
    EXPECT_TRUE(fails_with(call(x, w.t, sg, nullptr, nullptr, nullptr, nullptr, g, y), kInv, {"antiquantGroupSize"}))
        << g;
  EXPECT_TRUE(fails_with(call(x, w.t, s, nullptr, nullptr, nullptr, nullptr, 32, y), kInv, {S, "per-group"}));
  EXPECT_TRUE(fails_with(call(x, w.t, sg, nullptr, nullptr, nullptr, nullptr, 0, y), kInv, {S, "(32,)"}));
  EXPECT_TRUE(fails_with(call(x, w.t, s, sg, nullptr, nullptr, nullptr, 0, y), kInv, {O}));
  EXPECT_TRUE(fails_with(call(x, w.t, s, nullptr, qs_bad, nullptr, nullptr, 0, y8), kInv, {QS, "[31]"}));
  EXPECT_TRUE(fails_with(call(x, w.t, s, nullptr, qs, s31, nullptr, 0, y8), kInv, {QO}));
  EXPECT_TRUE(fails_with(call(x, w.t, s, nullptr, nullptr, nullptr, yb, 0, y), kInv, {B}));
  // weight layouts: views over the weights' buffers.
  auto view = [](void *dev, aclDataType dt, std::vector<int64_t> dims, std::vector<int64_t> strides, int64_t offset,
                 int64_t storage, aclFormat fmt = ACL_FORMAT_ND) {
    return aclCreateTensor(dims.data(), dims.size(), dt, strides.data(), offset, fmt, &storage, 1, dev);
  };
  DeviceTensor x63({4, 63}, ACL_FLOAT16), x3({2, 4, 64}, ACL_FLOAT16, {4 * 64 + 8, 64, 1}, 0), y3({2, 4, 32}, ACL_FLOAT16);
  struct Bad {
    aclTensor *w;
    aclTensor *x;
    const char *w1, *w2, *w3;  // the message's words
  } bad[] = {
      {view(w.dev, ACL_INT8, {64, 32}, {32, 1}, 0, 2048, ACL_FORMAT_FRACTAL_NZ), x, W, "FRACTAL_NZ", "ND"},
      {view(w.dev, ACL_INT8, {1, 64, 32}, {2048, 32, 1}, 0, 2048), x, W, "2-D", "[1, 64, 32]"},
      {view(w.dev, ACL_INT32, {64, 4}, {8, 1}, 0, 512), x, W, "INT32", "contiguous"},
      {view(w.dev, ACL_INT4, {64, 32}, {32, 1}, 1, 2049), x, W, "INT4", "byte"},
      {view(w.dev, ACL_INT4, {64, 32}, {64, 2}, 0, 4096), x, W, "INT4", "transposed view"},
      {view(w.dev, ACL_INT4, {63, 32}, {1, 63}, 0, 2016), x63, W, "INT4", "even k"},
  };
  for (auto &b : bad) {
    EXPECT_TRUE(fails_with(call(b.x, b.w, s, nullptr, nullptr, nullptr, nullptr, 0, y), kInv, {b.w1, b.w2, b.w3}))
        << b.w3;
    aclDestroyTensor(b.w);
  }
  EXPECT_TRUE(fails_with(call(x3, w.t, s, nullptr, nullptr, nullptr, nullptr, 0, y3), kInv, {X, Y, "evenly spaced"}));
  // valid calls after all that
  EXPECT_EQ(call(x, w.t, s, nullptr, qs, qo, nullptr, 0, y8), 0) << aclGetRecentErrMsg();
  aclDestroyAclOpExecutor(ex);
  ex = nullptr;
  EXPECT_EQ(call(x, w4.t, s, nullptr, nullptr, nullptr, nullptr, 0, y), 0) << aclGetRecentErrMsg();
  aclDestroyAclOpExecutor(ex);
}

INSTANTIATE_TEST_SUITE_P(Table, OpTableQmmWeight, ::testing::ValuesIn(cases_of(QmmScheme::kWeightAntiquant)),
                         harness::case_name<QmmTableCase>);

// =============================================================================================
// encode_param: the 64-bit words bit for bit against refs::quant_param_word.

// The 64-bit words of a 1-D or (1, n) view.
std::vector<uint64_t> read_words(const DeviceTensor &t, int64_t view_off) {
  const int64_t count = t.shape().back(), stride = t.strides().back();
  std::vector<uint64_t> host(static_cast<size_t>(view_off + (count - 1) * stride + 1));
  EXPECT_EQ(aclrtMemcpy(host.data(), host.size() * 8, t.data(), host.size() * 8, ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_SUCCESS);
  std::vector<uint64_t> v(static_cast<size_t>(count));
  for (int64_t j = 0; j < count; ++j) v[static_cast<size_t>(j)] = host[static_cast<size_t>(view_off + j * stride)];
  return v;
}

struct ParamSpec {
  std::vector<int64_t> scale, offset, out;  // offset empty: none
  aclDataType out_dtype = ACL_UINT64;
  bool views = false;  // strided scale / offset / out with offsets
};

class OpTableQmmParam : public ::testing::TestWithParam<QmmTableCase> {
 protected:
  void SetUp() override { reseed_for_current_test(); }
  int run(DeviceTensor &scale, DeviceTensor *offset, DeviceTensor &out) {
    QmmArgs a;
    a.scale = scale;
    a.offset = offset ? offset->get() : nullptr;
    a.out = out;
    return run_op([&](uint64_t *ws, aclOpExecutor **ex) { return GetParam().phase1(a, ws, ex); }, GetParam().launch);
  }
  void run_encoding(const ParamSpec &c);
};

void OpTableQmmParam::run_encoding(const ParamSpec &c) {
  SCOPED_TRACE(::testing::Message() << "scale " << ::testing::PrintToString(c.scale) << " offset "
                                    << ::testing::PrintToString(c.offset) << " out "
                                    << ::testing::PrintToString(c.out) << " " << c.out_dtype << " views " << c.views);
  Dev scale = make_tensor(c.scale, ACL_FLOAT, c.views);
  scale->fill_random(-3, 3);
  Dev offset;
  std::vector<double> ov;
  if (!c.offset.empty()) {
    offset = make_tensor(c.offset, ACL_FLOAT, c.views);
    // Values beyond the clamp range, exact halves (the rounding rule shows there) and a NaN.
    std::vector<double> v(static_cast<size_t>(numel_of(c.offset)));
    std::uniform_real_distribution<double> d(-300, 300);
    for (size_t j = 0; j < v.size(); ++j) v[j] = j % 3 == 0 ? std::floor(d(rng())) + 0.5 : d(rng());
    if (v.size() > 5) {
      v[1] = -0.5;
      v[2] = 0.5;
      v[4] = -255.5;
      v[5] = NAN;
    }
    offset->set_values(v);
    ov = offset->values();
  }
  std::vector<int64_t> ostr = contiguous_strides(c.out);
  if (c.views) ostr.back() = 3;
  const int64_t view_off = c.views ? 2 : 0;
  DeviceTensor out(c.out, c.out_dtype, ostr, view_off);
  out.poison();
  ASSERT_EQ(run(*scale, offset.get(), out), 0) << aclGetRecentErrMsg();
  const auto sv = scale->values();
  const auto got = read_words(out, view_off);
  for (size_t j = 0; j < got.size(); ++j) {
    const float s = static_cast<float>(sv[sv.size() == 1 ? 0 : j]);
    const double *o = ov.empty() ? nullptr : &ov[ov.size() == 1 ? 0 : j];
    EXPECT_EQ(got[j], refs::quant_param_word(s, o)) << "element " << j << " scale " << s << " offset " << (o ? *o : 0.0);
  }
  EXPECT_TRUE(out.untouched_outside_view());
}

TEST_P(OpTableQmmParam, EncodingBitExact) {
  for (bool views : {false, true}) {
    run_encoding({{37}, {}, {37}, ACL_UINT64, views});
    run_encoding({{37}, {37}, {37}, ACL_UINT64, views});
    run_encoding({{1}, {41}, {41}, ACL_INT64, views});
    run_encoding({{41}, {1}, {41}, ACL_UINT64, views});
    run_encoding({{1}, {}, {1}, ACL_INT64, views});
    run_encoding({{1}, {1}, {1}, ACL_UINT64, views});
    run_encoding({{1, 23}, {23}, {1, 23}, ACL_INT64, views});
    run_encoding({{1, 23}, {1, 23}, {1, 23}, ACL_UINT64, views});
    run_encoding({{64}, {64}, {64}, ACL_UINT64, views});
  }
}

TEST_P(OpTableQmmParam, Errors) {
  const QmmTableCase &tc = GetParam();
  const char *S = tc.arg(ops::kQmmScale), *O = tc.arg(ops::kQmmOffset), *OUT = tc.arg(ops::kQmmOut);
  DeviceTensor s({8}, ACL_FLOAT), o({8}, ACL_FLOAT), out({8}, ACL_UINT64), s16({8}, ACL_FLOAT16);
  DeviceTensor o16({8}, ACL_FLOAT16), out_f({8}, ACL_FLOAT), out_bad({9}, ACL_UINT64), o_bad({3}, ACL_FLOAT);
  DeviceTensor s2({2, 8}, ACL_FLOAT), s12({1, 8}, ACL_FLOAT), out12({1, 8}, ACL_UINT64), s1({1}, ACL_FLOAT);
  DeviceTensor o12({1, 12}, ACL_FLOAT), out_ov({8}, ACL_UINT64, {0}, 0), s0({0}, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto call = [&](aclTensor *a, aclTensor *b, aclTensor *c) {
    QmmArgs q;
    q.scale = a;
    q.offset = b;
    q.out = c;
    return tc.phase1(q, &ws, &ex);
  };
  const int kNull = ACLNN_ERR_PARAM_NULLPTR, kInv = ACLNN_ERR_PARAM_INVALID;
  EXPECT_TRUE(fails_with(call(nullptr, o, out), kNull, {tc.api.c_str(), S}));
  EXPECT_TRUE(fails_with(call(s, o, nullptr), kNull, {OUT}));
  EXPECT_TRUE(fails_with(call(s16, o, out), kInv, {S, "FLOAT16"}));
  EXPECT_TRUE(fails_with(call(s, o16, out), kInv, {O, "FLOAT16"}));
  EXPECT_TRUE(fails_with(call(s, o, out_f), kInv, {OUT, "FLOAT", "UINT64"}));
  EXPECT_TRUE(fails_with(call(s, o, out_bad), kInv, {OUT, "[9]"}));
  EXPECT_TRUE(fails_with(call(s, o_bad, out), kInv, {S, O}));
  EXPECT_TRUE(fails_with(call(s2, nullptr, out), kInv, {S, "[2, 8]"}));
  EXPECT_TRUE(fails_with(call(s0, nullptr, out), kInv, {S, "t >= 1"}));
  EXPECT_TRUE(fails_with(call(s12, nullptr, out), kInv, {OUT, "[1, 8]"}));
  EXPECT_TRUE(fails_with(call(s1, o12, out12), kInv, {OUT}));
  EXPECT_TRUE(fails_with(call(s, nullptr, out_ov), kInv, {OUT, "overlap"}));
  EXPECT_EQ(call(s12, s1, out12), 0) << aclGetRecentErrMsg();
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
}

// The words as QuantMatmulV4's scale == the FLOAT scale with its 13 low mantissa bits cleared: the
// same output bits, with or without an offset packed into the words (the matmul ignores it).
TEST_P(OpTableQmmParam, RoundTripThroughQuantMatmul) {
  const QmmTableCase &v4 = case_named("QuantMatmulV4");
  const int64_t m = 9, k = 75, n = 31;
  for (aclDataType out_dtype : {ACL_INT8, ACL_FLOAT16, ACL_BF16})
    for (bool packed_offset : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "out " << out_dtype << " packed offset " << packed_offset);
      DeviceTensor x1({m, k}, ACL_INT8), x2({k, n}, ACL_INT8), scale({n}, ACL_FLOAT), off({n}, ACL_FLOAT);
      DeviceTensor words({n}, ACL_UINT64), trunc({n}, ACL_FLOAT), y_words({m, n}, out_dtype), y_float({m, n}, out_dtype);
      x1.fill_random(-128, 127);
      x2.fill_random(-128, 127);
      scale.fill_random(2e-4, 2e-3);
      off.fill_random(-100, 100);
      ASSERT_EQ(run(scale, packed_offset ? &off : nullptr, words), 0) << aclGetRecentErrMsg();
      auto sv = scale.values();
      for (double &v : sv) v = refs::quant_param_scale(refs::quant_param_word(static_cast<float>(v), nullptr));
      trunc.set_values(sv);
      y_words.poison();
      y_float.poison();
      for (auto [s, y] : {std::pair<DeviceTensor *, DeviceTensor *>{&words, &y_words}, {&trunc, &y_float}}) {
        QmmArgs a;
        a.a = x1;
        a.b = x2;
        a.scale = *s;
        a.out = *y;
        ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) { return v4.phase1(a, ws, ex); }, v4.launch), 0)
            << aclGetRecentErrMsg();
      }
      std::vector<unsigned char> a(static_cast<size_t>(m * n * elem_size(out_dtype))), b(a.size());
      ASSERT_EQ(aclrtMemcpy(a.data(), a.size(), y_words.data(), a.size(), ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
      ASSERT_EQ(aclrtMemcpy(b.data(), b.size(), y_float.data(), b.size(), ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
      EXPECT_EQ(a, b);
      // Not a trivial comparison: the results vary.
      const auto v = y_float.values();
      EXPECT_GT(*std::max_element(v.begin(), v.end()), *std::min_element(v.begin(), v.end()));
    }
}

INSTANTIATE_TEST_SUITE_P(Table, OpTableQmmParam, ::testing::ValuesIn(cases_of(QmmScheme::kEncodeParam)),
                         harness::case_name<QmmTableCase>);

// TransQuantParamV3's roundMode 1: the scale rounded to its top 19 bits (nearest, ties to the even
// bit 13) before the V2 encoding; the reference picks the nearer of the two 19-bit neighbours in
// float64.
float round_to_19_bits(float s) {
  uint32_t u;
  std::memcpy(&u, &s, 4);
  const uint32_t down = u & 0xFFFFE000u, up = down + 0x2000u;
  float fd, fu;
  std::memcpy(&fd, &down, 4);
  std::memcpy(&fu, &up, 4);
  const double dd = std::fabs(static_cast<double>(s) - fd), du = std::fabs(static_cast<double>(fu) - s);
  if (dd != du) return dd < du ? fd : fu;
  return (down & 0x2000u) == 0 ? fd : fu;
}

std::vector<QmmTableCase> round_mode_cases() {
  std::vector<QmmTableCase> v;
  for (auto &c : cases_of(QmmScheme::kEncodeParam))
    if (c.has_round_mode) v.push_back(c);
  return v;
}

class OpTableQmmParamRound : public ::testing::TestWithParam<QmmTableCase> {};

TEST_P(OpTableQmmParamRound, RoundModeOneRoundsTheScale) {
  reseed_for_current_test();
  const int64_t n = 64;
  DeviceTensor scale({n}, ACL_FLOAT), offset({n}, ACL_FLOAT), out({n}, ACL_UINT64);
  std::vector<double> sv(static_cast<size_t>(n));
  std::uniform_real_distribution<double> d(-4, 4);
  for (auto &e : sv) e = static_cast<float>(d(rng()));
  // Exact ties: the 13 dropped bits 0x1000 with bit 13 clear (stays) and set (rounds up); just below / above.
  const uint32_t patterns[] = {0x3F801000u, 0x3F803000u, 0x3F800FFFu, 0x3F801001u, 0xBF803000u, 0x3FFFF000u};
  for (size_t k = 0; k < 6; ++k) {
    float f;
    std::memcpy(&f, &patterns[k], 4);
    sv[k] = f;
  }
  scale.set_values(sv);
  offset.fill_random(-300, 300);
  const auto ov = offset.values();
  for (int64_t mode : {0, 1}) {
    QmmArgs a;
    a.scale = scale;
    a.offset = offset;
    a.out = out;
    a.round_mode = mode;
    ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) { return GetParam().phase1(a, ws, ex); }, GetParam().launch),
              0)
        << aclGetRecentErrMsg();
    const auto got = read_words(out, 0);
    for (int64_t j = 0; j < n; ++j) {
      const float s = static_cast<float>(sv[static_cast<size_t>(j)]);
      EXPECT_EQ(got[static_cast<size_t>(j)], refs::quant_param_word(mode == 1 ? round_to_19_bits(s) : s,
                                                                    &ov[static_cast<size_t>(j)]))
          << "mode " << mode << " element " << j << " scale " << s;
    }
  }
  QmmArgs a;
  a.scale = scale;
  a.out = out;
  a.round_mode = 2;
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_TRUE(fails_with(GetParam().phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"roundMode"}));
}

INSTANTIATE_TEST_SUITE_P(Table, OpTableQmmParamRound, ::testing::ValuesIn(round_mode_cases()),
                         harness::case_name<QmmTableCase>);

// TransQuantParam (host arrays, a malloc'ed result): the same words as refs::quant_param_word.
std::vector<QmmTableCase> encode_array_cases() {
  std::vector<QmmTableCase> v;
  for (auto &c : harness::sampled(qmm_table_cases()))
    if (c.encode_array != nullptr) v.push_back(c);
  return v;
}

class OpTableQmmEncodeArray : public ::testing::TestWithParam<QmmTableCase> {};

TEST_P(OpTableQmmEncodeArray, WordsAndErrors) {
  reseed_for_current_test();
  const QmmTableCase &c = GetParam();
  std::uniform_real_distribution<double> d(-300, 300);
  for (auto sizes : {std::pair<uint64_t, uint64_t>{17, 17}, {1, 9}, {9, 1}, {5, 0}}) {
    std::vector<float> s(sizes.first), o(sizes.second);
    for (auto &e : s) e = static_cast<float>(d(rng()) / 100);
    for (size_t k = 0; k < o.size(); ++k) o[k] = k % 2 ? static_cast<float>(d(rng())) : std::floor(static_cast<float>(d(rng()))) + 0.5f;
    uint64_t *words = nullptr, count = 0;
    ASSERT_EQ(c.encode_array(s.data(), s.size(), o.empty() ? nullptr : o.data(), o.size(), &words, &count), 0)
        << aclGetRecentErrMsg();
    ASSERT_EQ(count, std::max<uint64_t>(sizes.first, std::max<uint64_t>(sizes.second, 1)));
    for (uint64_t j = 0; j < count; ++j) {
      const double ov = o.empty() ? 0.0 : o[o.size() == 1 ? 0 : j];
      EXPECT_EQ(words[j], refs::quant_param_word(s[s.size() == 1 ? 0 : j], o.empty() ? nullptr : &ov)) << "word " << j;
    }
    std::free(words);
  }
  std::vector<float> s(4, 1.0f), o3(3, 1.0f);
  uint64_t *words = nullptr, count = 0;
  EXPECT_TRUE(fails_with(c.encode_array(nullptr, 4, nullptr, 0, &words, &count), ACLNN_ERR_PARAM_NULLPTR, {"scaleArray"}));
  EXPECT_TRUE(fails_with(c.encode_array(s.data(), 4, nullptr, 0, nullptr, &count), ACLNN_ERR_PARAM_NULLPTR, {"quantParam"}));
  EXPECT_TRUE(fails_with(c.encode_array(s.data(), 4, o3.data(), 3, &words, &count), ACLNN_ERR_PARAM_INVALID,
                         {"scaleSize", "offsetSize"}));
  EXPECT_TRUE(fails_with(c.encode_array(s.data(), 0, nullptr, 0, &words, &count), ACLNN_ERR_PARAM_INVALID, {"scaleSize"}));
}

INSTANTIATE_TEST_SUITE_P(Table, OpTableQmmEncodeArray, ::testing::ValuesIn(encode_array_cases()),
                         harness::case_name<QmmTableCase>);

// =============================================================================================
// prepack_weight

// The elements a weight of `shape` and dtype needs once re-laid (the documented formula, computed
// independently: batch * align(d0, 16) * align(d1, 16 or 32 for INT8)); -1 when 2^62 or more.
int64_t documented_weight_size(const std::vector<int64_t> &shape, aclDataType dt) {
  const int64_t inner = dt == ACL_INT8 ? 32 : 16;
  long double e = 1;
  for (size_t i = 0; i + 2 < shape.size(); ++i) e *= static_cast<long double>(shape[i]);
  const auto up = [](long double v, int64_t a) { return std::ceil(v / a) * a; };
  e *= up(static_cast<long double>(shape[shape.size() - 2]), 16) * up(static_cast<long double>(shape.back()), inner);
  return e >= std::ldexp(1.0L, 62) ? -1 : static_cast<int64_t>(e);
}

// Mm(x, b) -> out, queued on `st` (nullptr: the default stream, synchronised by run_op).
int run_mm(DeviceTensor &x, DeviceTensor &b, DeviceTensor &out, aclrtStream st = nullptr) {
  return run_op([&](uint64_t *sz, aclOpExecutor **e) { return aclnnMmGetWorkspaceSize(x, b, out, 0, sz, e); },
                aclnnMm, st);
}

// Bit-identical values (compared as the doubles DeviceTensor::values returns).
bool same_bits(const DeviceTensor &a, const DeviceTensor &b) {
  const auto va = a.values(), vb = b.values();
  return va.size() == vb.size() && std::memcmp(va.data(), vb.data(), va.size() * sizeof(double)) == 0;
}

// Stream order around a write over the packed weight w: Mm(x, w), `write` and Mm(x, w) again, all
// queued on one new stream before anything runs. The first must give `before_want` (the packed
// weight's values), the second Mm(x, after) (the plain values written), computed afterwards.
void check_queued_write(DeviceTensor &x, DeviceTensor &w, const DeviceTensor &before_want, DeviceTensor &after,
                        const std::function<void(aclrtStream)> &write, const char *what) {
  SCOPED_TRACE(what);
  DeviceTensor before(before_want.shape(), ACL_FLOAT), got(before_want.shape(), ACL_FLOAT),
      want(before_want.shape(), ACL_FLOAT);
  aclrtStream st = nullptr;
  ASSERT_EQ(aclrtCreateStream(&st), 0);
  ASSERT_EQ(run_mm(x, w, before, st), 0);
  write(st);
  ASSERT_EQ(run_mm(x, w, got, st), 0);
  ASSERT_EQ(aclrtSynchronizeStream(st), 0);
  ASSERT_EQ(aclrtDestroyStream(st), 0);
  ASSERT_EQ(run_mm(x, after, want), 0);
  EXPECT_TRUE(same_bits(before, before_want)) << "the matmul queued before the write";
  EXPECT_TRUE(same_bits(got, want)) << "the matmul queued after it";
}

class OpTableQmmPrepack : public ::testing::TestWithParam<QmmTableCase> {
 protected:
  void SetUp() override { reseed_for_current_test(); }
  int pack(aclTensor *w) const {
    QmmArgs a;
    a.b = w;
    return run_op([&](uint64_t *s, aclOpExecutor **e) { return GetParam().phase1(a, s, e); }, GetParam().launch);
  }
  // out = x @ w via Mm, w [k, n] (or the transposed view of [n, k]) in a buffer of the documented
  // size; once plain, once after the row's op. Bits must match (INT8: the weight is untouched).
  void check_case(int64_t m, int64_t k, int64_t n, aclDataType dt, bool trans) const;
};

void OpTableQmmPrepack::check_case(int64_t m, int64_t k, int64_t n, aclDataType dt, bool trans) const {
  SCOPED_TRACE(::testing::Message() << "m " << m << " k " << k << " n " << n << " dt " << dt << " trans " << trans);
  const int64_t cap = documented_weight_size({k, n}, dt == ACL_FLOAT ? ACL_FLOAT16 : dt);
  std::vector<int64_t> ws = trans ? std::vector<int64_t>{1, k} : std::vector<int64_t>{n, 1};
  DeviceTensor w({k, n}, dt, ws, 0, cap);
  if (dt == ACL_INT8) {
    w.fill_random(-100, 100);
    const auto before = w.values();
    ASSERT_EQ(pack(w), 0) << aclGetRecentErrMsg();
    EXPECT_EQ(before, w.values());
    return;
  }
  DeviceTensor x({m, k}, dt);
  x.fill_random(-1, 1);
  w.fill_random(-1, 1);
  DeviceTensor out1({m, n}, dt), out2({m, n}, dt);
  ASSERT_EQ(run_mm(x, w, out1), 0) << aclGetRecentErrMsg();
  ASSERT_EQ(pack(w), 0) << aclGetRecentErrMsg();
  EXPECT_TRUE(kernels::gemm_prepacked_b_registered(w.data(), k, n, dt, ws[0], ws[1])) << "not re-laid";
  ASSERT_EQ(run_mm(x, w, out2), 0) << aclGetRecentErrMsg();
  EXPECT_TRUE(same_bits(out1, out2));
}

TEST_P(OpTableQmmPrepack, MatmulsBitIdenticalToPlainWeight) {
  for (aclDataType dt : GetParam().dtypes)
    for (bool trans : {false, true})
      for (int64_t m : {1, 3, 4, 7, 64})
        for (auto kn : {std::pair<int64_t, int64_t>{16, 16}, {33, 50}, {300, 17}, {520, 100}})
          check_case(m, kn.first, kn.second, dt, trans);
}

// A weight in host memory (not an aclrtMalloc block) is left plain: the runtime cannot hear when it
// is freed and its address reused, so it is never registered as pre-packed (a stale entry would make
// the next plain weight at that address read as packed).
TEST_P(OpTableQmmPrepack, HostMemoryWeightStaysPlain) {
  // Host pointers are refused at launch in the checked mode (OPSNN_CHECKED=1); this is the normal mode's rule.
  struct NormalMode {
    bool was = rt::checked_mode();
    NormalMode() { rt::set_checked_mode_for_testing(false); }
    ~NormalMode() { rt::set_checked_mode_for_testing(was); }
  } normal_mode;
  const int64_t m = 3, k = 40, n = 24;
  const int64_t cap = documented_weight_size({k, n}, ACL_FLOAT16);
  std::vector<float> host(static_cast<size_t>(cap));
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(((i * 2654435761u) % 2001) / 1000.0 - 1.0);
  const std::vector<float> before = host;
  int64_t shape[2] = {k, n}, strides[2] = {n, 1}, storage = cap;
  aclTensor *w = aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, &storage, 1, host.data());
  ASSERT_EQ(pack(w), 0) << aclGetRecentErrMsg();
  EXPECT_EQ(host, before) << "the host weight was re-laid";
  EXPECT_FALSE(kernels::gemm_prepacked_b_registered(host.data(), k, n, ACL_FLOAT, n, 1));
  // Mm over it equals Mm over the same values in device memory.
  DeviceTensor x({m, k}, ACL_FLOAT), dev({k, n}, ACL_FLOAT), o1({m, n}, ACL_FLOAT), o2({m, n}, ACL_FLOAT);
  x.fill_random(-1, 1);
  std::vector<double> plain(host.begin(), host.begin() + k * n);
  dev.set_values(plain);
  ASSERT_EQ(run_op([&](uint64_t *s, aclOpExecutor **e) { return aclnnMmGetWorkspaceSize(x, w, o1, 0, s, e); }, aclnnMm), 0);
  ASSERT_EQ(run_mm(x, dev, o2), 0);
  EXPECT_EQ(o1.values(), o2.values());
  aclDestroyTensor(w);
}

TEST_P(OpTableQmmPrepack, RepeatableExecutorRepointedBetweenPlainAndPacked) {
  const int64_t m = 2, k = 64, n = 40;
  DeviceTensor x({m, k}, ACL_FLOAT), plain({k, n}, ACL_FLOAT);
  DeviceTensor packed({k, n}, ACL_FLOAT, {n, 1}, 0, documented_weight_size({k, n}, ACL_FLOAT16));
  x.fill_random(-1, 1);
  plain.fill_random(-1, 1);
  packed.set_values(plain.values());
  ASSERT_EQ(pack(packed), 0);
  DeviceTensor o1({m, n}, ACL_FLOAT), o2({m, n}, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(aclnnMmGetWorkspaceSize(x, plain, o1, 0, &ws, &ex), 0);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  void *wsp = nullptr;
  if (ws > 0) ASSERT_EQ(aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST), 0);
  ASSERT_EQ(aclnnMm(wsp, ws, ex, nullptr), 0);
  ASSERT_EQ(aclSetInputTensorAddr(ex, 1, packed, packed.data()), 0);
  ASSERT_EQ(aclSetOutputTensorAddr(ex, 0, o2, o2.data()), 0);
  ASSERT_EQ(aclnnMm(wsp, ws, ex, nullptr), 0);
  ASSERT_EQ(aclrtSynchronizeDevice(), 0);
  const auto a = o1.values(), b = o2.values();
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]) << i;
  aclDestroyAclOpExecutor(ex);
  if (wsp) aclrtFree(wsp);
}

// A weight re-laid and then overwritten through the runtime (new plain values copied in, whole or
// in part) is read as plain again, and matmuls queued before the copy still see the packed weight.
// `fresh` holds the same plain values in an ordinary buffer: bits must match it.
TEST_P(OpTableQmmPrepack, RuntimeCopiesIntoAPackedWeightMakeItPlain) {
  const int64_t m = 3, k = 48, n = 40;
  const int64_t cap = documented_weight_size({k, n}, ACL_FLOAT16);
  DeviceTensor x({m, k}, ACL_FLOAT), w({k, n}, ACL_FLOAT, {n, 1}, 0, cap), fresh({k, n}, ACL_FLOAT);
  x.fill_random(-1, 1);
  auto mm = [&](DeviceTensor &b, DeviceTensor &o, aclrtStream st = nullptr) { return run_mm(x, b, o, st); };
  std::vector<float> host(static_cast<size_t>(cap), 0.0f);
  auto new_values = [&](uint32_t seed) {  // plain row-major k x n into host[] and into fresh
    std::vector<double> v(static_cast<size_t>(k * n));
    for (size_t i = 0; i < v.size(); ++i) v[i] = host[i] = static_cast<float>(((i * 2654435761u + seed) % 2001) / 1000.0 - 1.0);
    fresh.set_values(v);
  };
  DeviceTensor got({m, n}, ACL_FLOAT), want({m, n}, ACL_FLOAT);

  // 1. aclrtMemcpy of the whole buffer.
  new_values(1);
  ASSERT_EQ(aclrtMemcpy(w.data(), cap * 4, host.data(), cap * 4, ACL_MEMCPY_HOST_TO_DEVICE), 0);
  ASSERT_EQ(pack(w), 0) << aclGetRecentErrMsg();
  new_values(2);
  ASSERT_EQ(aclrtMemcpy(w.data(), cap * 4, host.data(), cap * 4, ACL_MEMCPY_HOST_TO_DEVICE), 0);
  ASSERT_EQ(mm(w, got), 0);
  ASSERT_EQ(mm(fresh, want), 0);
  EXPECT_TRUE(same_bits(got, want)) << "after aclrtMemcpy";

  // 2. One copy into the middle of the buffer (not at its start): from then on the buffer is read
  // plain, whatever it holds (here half packed layout, half new values).
  ASSERT_EQ(pack(w), 0);
  new_values(5);
  const size_t off = static_cast<size_t>(k / 2 * n);
  ASSERT_EQ(aclrtMemcpy(static_cast<float *>(w.data()) + off, (cap - off) * 4, host.data() + off, 4 * n,
                        ACL_MEMCPY_HOST_TO_DEVICE), 0);
  fresh.set_values(w.values());  // the plain reading of w's bytes
  ASSERT_EQ(mm(w, got), 0);
  ASSERT_EQ(mm(fresh, want), 0);
  EXPECT_TRUE(same_bits(got, want)) << "after a partial aclrtMemcpy";
  new_values(2);
  ASSERT_EQ(aclrtMemcpy(w.data(), cap * 4, host.data(), cap * 4, ACL_MEMCPY_HOST_TO_DEVICE), 0);

  // 3. Stream order: Mm on the packed weight, then aclrtMemcpyAsync of new plain values, then Mm,
  // all queued on one stream before anything runs.
  ASSERT_EQ(pack(w), 0);
  DeviceTensor before_want({m, n}, ACL_FLOAT);
  ASSERT_EQ(mm(fresh, before_want), 0);  // the packed weight holds seed 2's values
  check_queued_write(x, w, before_want, fresh, [&](aclrtStream st) {
    new_values(3);
    ASSERT_EQ(aclrtMemcpyAsync(w.data(), cap * 4, host.data(), cap * 4, ACL_MEMCPY_HOST_TO_DEVICE, st), 0);
  }, "aclrtMemcpyAsync");

  // 4. aclrtMemcpy2d over the weight's rows.
  ASSERT_EQ(pack(w), 0);
  new_values(4);
  ASSERT_EQ(aclrtMemcpy2d(w.data(), n * 4, host.data(), n * 4, n * 4, k, ACL_MEMCPY_HOST_TO_DEVICE), 0);
  ASSERT_EQ(mm(w, got), 0);
  ASSERT_EQ(mm(fresh, want), 0);
  EXPECT_TRUE(same_bits(got, want)) << "after aclrtMemcpy2d";

  // 5. aclrtMemsetAsync over a few rows in the middle (the rest keeps the packed layout's bytes).
  ASSERT_EQ(pack(w), 0);
  aclrtStream st = nullptr;
  ASSERT_EQ(aclrtCreateStream(&st), 0);
  ASSERT_EQ(aclrtMemsetAsync(static_cast<float *>(w.data()) + 5 * n, (cap - 5 * n) * 4, 0, 3 * n * 4, st), 0);
  ASSERT_EQ(aclrtSynchronizeStream(st), 0);
  ASSERT_EQ(aclrtDestroyStream(st), 0);
  fresh.set_values(w.values());
  ASSERT_EQ(mm(w, got), 0);
  ASSERT_EQ(mm(fresh, want), 0);
  EXPECT_TRUE(same_bits(got, want)) << "after aclrtMemsetAsync";

  // 6. A 2-D copy writes only its rows: a weight lying in the pitch padding between two rows stays
  // packed (rows of 16 floats at storage elements [0, 16) and [16 + cap, 32 + cap); the weight's
  // packed extent is [16, 16 + cap)).
  DeviceTensor wv({k, n}, ACL_FLOAT, {n, 1}, 16, 32 + cap);
  new_values(6);
  wv.set_values(fresh.values());
  ASSERT_EQ(pack(wv), 0);
  std::vector<float> rows(32, 0.5f);
  ASSERT_EQ(aclrtMemcpy2d(wv.data(), (16 + cap) * 4, rows.data(), 64, 64, 2, ACL_MEMCPY_HOST_TO_DEVICE), 0);
  ASSERT_EQ(mm(wv, got), 0);
  ASSERT_EQ(mm(fresh, want), 0);
  EXPECT_TRUE(same_bits(got, want)) << "a weight between the rows of an aclrtMemcpy2d";
}

// An op whose output is written over a pre-packed weight (aclnnInplaceCopy of new plain values,
// aclnnInplaceFillScalar over a few of its rows) makes it plain again, when the op runs: a matmul
// queued before it still sees the packed weight. An output view whose bounding range covers the
// packed extent without any of its elements touching it leaves the weight packed.
TEST_P(OpTableQmmPrepack, OpOutputsOverAPackedWeightMakeItPlain) {
  const int64_t m = 3, k = 40, n = 24;
  const int64_t cap = documented_weight_size({k, n}, ACL_FLOAT16);
  DeviceTensor x({m, k}, ACL_FLOAT), w({k, n}, ACL_FLOAT, {n, 1}, 0, cap), fresh({k, n}, ACL_FLOAT),
      src({k, n}, ACL_FLOAT);
  x.fill_random(-1, 1);
  auto mm = [&](DeviceTensor &b, DeviceTensor &o, aclrtStream st = nullptr) { return run_mm(x, b, o, st); };
  DeviceTensor got({m, n}, ACL_FLOAT), want({m, n}, ACL_FLOAT), before_want({m, n}, ACL_FLOAT);

  // 1. aclnnInplaceCopy of new plain values over the whole packed weight, queued on one stream after
  //    a matmul that must still read the packed layout.
  fresh.fill_random(-1, 1);
  w.set_values(fresh.values());
  ASSERT_EQ(pack(w), 0) << aclGetRecentErrMsg();
  ASSERT_EQ(mm(fresh, before_want), 0);
  src.fill_random(-1, 1);
  check_queued_write(x, w, before_want, src, [&](aclrtStream st) {
    ASSERT_EQ(run_op([&](uint64_t *sz, aclOpExecutor **e) { return aclnnInplaceCopyGetWorkspaceSize(w, src, sz, e); },
                     aclnnInplaceCopy, st),
              0)
        << aclGetRecentErrMsg();
  }, "aclnnInplaceCopy");

  // 2. aclnnInplaceFillScalar over rows 5..7 of the buffer (a [3, n] view into it): the rest keeps
  //    the packed layout's bytes, and the buffer is read plain from then on.
  w.set_values(fresh.values());
  ASSERT_EQ(pack(w), 0);
  float half_value = 0.5f;
  aclScalar *half = aclCreateScalar(&half_value, ACL_FLOAT);
  auto fill = [&](std::vector<int64_t> dims, std::vector<int64_t> strides, int64_t offset, void *base,
                  int64_t storage) {
    aclTensor *t = aclCreateTensor(dims.data(), dims.size(), ACL_FLOAT, strides.data(), offset, ACL_FORMAT_ND,
                                   &storage, 1, base);
    const int rc = run_op(
        [&](uint64_t *sz, aclOpExecutor **e) { return aclnnInplaceFillScalarGetWorkspaceSize(t, half, sz, e); },
        aclnnInplaceFillScalar);
    aclDestroyTensor(t);
    return rc;
  };
  ASSERT_EQ(fill({3, n}, {n, 1}, 5 * n, w.data(), cap), 0) << aclGetRecentErrMsg();
  fresh.set_values(w.values());  // the plain reading of w's bytes
  ASSERT_EQ(mm(w, got), 0);
  ASSERT_EQ(mm(fresh, want), 0);
  EXPECT_TRUE(same_bits(got, want)) << "after aclnnInplaceFillScalar over three rows";

  // 3. Two elements written just before and just after the packed extent (storage elements
  //    [16, 16 + k * align(n, 16))): the weight between them stays packed.
  const int64_t extent = k * ((n + 15) / 16 * 16), storage = 32 + cap;
  DeviceTensor wv({k, n}, ACL_FLOAT, {n, 1}, 16, storage);
  fresh.fill_random(-1, 1);
  wv.set_values(fresh.values());
  ASSERT_EQ(pack(wv), 0);
  ASSERT_EQ(fill({2}, {extent + 1}, 15, wv.data(), storage), 0) << aclGetRecentErrMsg();
  ASSERT_EQ(mm(wv, got), 0);
  ASSERT_EQ(mm(fresh, want), 0);
  EXPECT_TRUE(same_bits(got, want)) << "an output view around the packed extent, touching none of it";

  // 4. The op on a 3-D [1, k, n] view of the packed buffer leaves it as it is (no step runs, so
  //    nothing is written and the weight stays packed).
  const int64_t dims3[3] = {1, k, n}, strides3[3] = {k * n, n, 1};
  aclTensor *w3 = aclCreateTensor(dims3, 3, ACL_FLOAT, strides3, 16, ACL_FORMAT_ND, &storage, 1, wv.data());
  ASSERT_EQ(pack(w3), 0) << aclGetRecentErrMsg();
  aclDestroyTensor(w3);
  ASSERT_EQ(mm(wv, got), 0);
  EXPECT_TRUE(same_bits(got, want)) << "after a no-op on a 3-D view of the packed buffer";
  aclDestroyScalar(half);
}

TEST_P(OpTableQmmPrepack, Errors) {
  const QmmTableCase &tc = GetParam();
  const char *W = tc.arg(ops::kQmmB);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto call = [&](aclTensor *t) {
    QmmArgs a;
    a.b = t;
    return tc.phase1(a, &ws, &ex);
  };
  EXPECT_TRUE(fails_with(call(nullptr), ACLNN_ERR_PARAM_NULLPTR, {tc.api.c_str(), W}));
  DeviceTensor v({32}, ACL_FLOAT), i32({4, 4}, ACL_INT32), v7({1, 1, 1, 1, 1, 4, 4}, ACL_FLOAT);
  EXPECT_TRUE(fails_with(call(v), ACLNN_ERR_PARAM_INVALID, {W, "2 to 6"}));
  EXPECT_TRUE(fails_with(call(v7), ACLNN_ERR_PARAM_INVALID, {W, "2 to 6"}));
  EXPECT_TRUE(fails_with(call(i32), ACLNN_ERR_PARAM_INVALID, {W, "INT32"}));
  // Hardening #18 B.4: a storage of the view's size cannot hold the packed layout (K * align(N, 16)):
  // a 161002 giving the size needed, not a heap overflow.
  DeviceTensor h({33, 65}, ACL_FLOAT16);
  EXPECT_TRUE(fails_with(call(h), ACLNN_ERR_PARAM_INVALID, {W, "2145", "2640", "aclnnCalculateMatmulWeightSizeV2"}));
  // ... nor a storage described large enough over a device allocation that is not.
  void *small = nullptr;
  ASSERT_EQ(aclrtMalloc(&small, 33 * 65 * 2, ACL_MEM_MALLOC_HUGE_FIRST), 0);
  const int64_t dims[2] = {33, 65}, storage = 33 * 80;
  aclTensor *t = aclCreateTensor(dims, 2, ACL_FLOAT16, nullptr, 0, ACL_FORMAT_ND, &storage, 1, small);
  EXPECT_TRUE(fails_with(call(t), ACLNN_ERR_PARAM_INVALID, {W, "packed extent", "allocation"}));
  aclDestroyTensor(t);
  ASSERT_EQ(aclrtFree(small), 0);
  // Storage dims whose product overflows even 128 bits (they are recorded, not bounded): large
  // enough, never an overflow in the check (found by tests/fuzz under UBSan).
  std::vector<float> host(16 * 16);
  const int64_t wdims[2] = {16, 16}, huge[3] = {INT64_MAX, INT64_MAX, INT64_MAX};
  aclTensor *hw = aclCreateTensor(wdims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, huge, 3, host.data());
  ASSERT_NE(hw, nullptr) << aclGetRecentErrMsg();
  ASSERT_EQ(call(hw), 0) << aclGetRecentErrMsg();
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
  aclDestroyTensor(hw);
}

INSTANTIATE_TEST_SUITE_P(Table, OpTableQmmPrepack, ::testing::ValuesIn(cases_of(QmmScheme::kPrepackWeight)),
                         harness::case_name<QmmTableCase>);

// =============================================================================================
// weight_size (one-shot)

class OpTableQmmSize : public ::testing::TestWithParam<QmmTableCase> {
 protected:
  // The row's answer for `shape` in `dt` (rows without a dataType parameter size their own dtype).
  int size(std::vector<int64_t> shape, aclDataType dt, uint64_t *n) const {
    QmmArgs a;
    a.shape = aclCreateIntArray(shape.data(), shape.size());
    a.dtype = dt;
    const int st = GetParam().oneshot(a, n);
    aclDestroyIntArray(a.shape);
    return st;
  }
  std::vector<aclDataType> dtypes() const {
    if (GetParam().weight_dtype != ACL_DT_UNDEFINED) return {GetParam().weight_dtype};
    return {ACL_FLOAT16, ACL_BF16, ACL_FLOAT, ACL_INT8};
  }
};

TEST_P(OpTableQmmSize, DocumentedFormula) {
  reseed_for_current_test();
  std::vector<std::vector<int64_t>> shapes = {{510, 510}, {100, 40}, {17, 33}, {3, 100, 40}, {0, 7}, {2, 1, 3, 1, 16, 32}};
  for (int i = 0; i < 20; ++i) {
    std::vector<int64_t> s(static_cast<size_t>(2 + rng()() % 5));
    for (auto &d : s) d = static_cast<int64_t>(rng()() % 70);
    shapes.push_back(s);
  }
  for (aclDataType dt : dtypes())
    for (const auto &s : shapes) {
      uint64_t n = 12345;
      ASSERT_EQ(size(s, dt, &n), 0) << aclGetRecentErrMsg();
      EXPECT_EQ(static_cast<int64_t>(n), documented_weight_size(s, dt)) << ::testing::PrintToString(s) << " " << dt;
    }
  uint64_t n = 0;  // the documentation's example
  ASSERT_EQ(size({510, 510}, ACL_FLOAT16, &n), 0);
  EXPECT_EQ(n, 262144u);
}

// Hardening #18 B.5: sizes that wrap are errors, never a wrapped answer.
TEST_P(OpTableQmmSize, Errors) {
  const QmmTableCase &tc = GetParam();
  uint64_t n = 0;
  QmmArgs a;
  const int64_t dims[2] = {17, 33};
  a.shape = aclCreateIntArray(dims, 2);
  EXPECT_TRUE(fails_with(tc.oneshot(a, nullptr), ACLNN_ERR_PARAM_NULLPTR, {tc.api.c_str(), "weightTensorSize"}));
  aclDestroyIntArray(a.shape);
  a.shape = nullptr;
  EXPECT_TRUE(fails_with(tc.oneshot(a, &n), ACLNN_ERR_PARAM_NULLPTR, {"tensorShape"}));
  const aclDataType dt = dtypes().front();
  EXPECT_TRUE(fails_with(size({5}, dt, &n), ACLNN_ERR_PARAM_INVALID, {"tensorShape", "2 to 6"}));
  EXPECT_TRUE(fails_with(size({1, 1, 1, 1, 1, 5, 5}, dt, &n), ACLNN_ERR_PARAM_INVALID, {"tensorShape", "2 to 6"}));
  EXPECT_TRUE(fails_with(size({5, -1}, dt, &n), ACLNN_ERR_PARAM_INVALID, {"tensorShape[1]"}));
  if (tc.weight_dtype == ACL_DT_UNDEFINED)
    for (aclDataType bad : {ACL_INT32, ACL_DOUBLE, ACL_UINT64})
      EXPECT_TRUE(fails_with(size({5, 5}, bad, &n), ACLNN_ERR_PARAM_INVALID, {"dataType"}));
  for (aclDataType d : dtypes()) {
    EXPECT_TRUE(fails_with(size({int64_t{1} << 40, int64_t{1} << 40}, d, &n), ACLNN_ERR_PARAM_INVALID,
                           {"tensorShape", "2^62"}));
    EXPECT_TRUE(fails_with(size({int64_t{1} << 62, int64_t{1} << 62, 4, 4}, d, &n), ACLNN_ERR_PARAM_INVALID,
                           {"tensorShape", "2^62"}));
    EXPECT_EQ(size({int64_t{1} << 20, 16}, d, &n), 0);
    EXPECT_EQ(n, (uint64_t{1} << 20) * (d == ACL_INT8 ? 32u : 16u));
  }
}

INSTANTIATE_TEST_SUITE_P(Table, OpTableQmmSize, ::testing::ValuesIn(oneshot_cases()), harness::case_name<QmmTableCase>);

// OPSNN_TABLE_SAMPLE may leave a scheme without rows.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTableQmmInt8);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTableQmmWeight);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTableQmmParam);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTableQmmPrepack);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTableQmmSize);

}  // namespace
}  // namespace opsnn::test
