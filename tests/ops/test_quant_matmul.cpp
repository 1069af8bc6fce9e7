// aclnnQuantMatmulV3 / V4 against an independent reference: exact int64 products of the int8
// operands (read through the tensors' own views, batch broadcast resolved index by index), then the
// dequantisation in float64 (scale as the float the op must decode: a FLOAT, a BF16, or the low 32
// bits of a UINT64 / INT64 word), then the output's rounding rule.
//  * FLOAT16 / BF16 out: each element within half an ulp of the output dtype (at the float64 value)
//    plus the op's fp32 evaluation error, bounded by 1e-6 * the magnitude of the terms (a few fp32
//    roundings of 2^-24 each). That is tighter than precision.md's MERE / MARE, which it implies.
//  * INT8 out: exact (round half to even, saturation), except where the float64 value lies within
//    that same fp32 error bound of a .5 boundary: there the op's fp32 value may fall on either side,
//    so a difference of 1 is accepted for those elements only.
// Every output is poisoned before the run and checked for writes outside its view.
#include <cmath>
#include <cstring>
#include <memory>
#include <sstream>

#include "aclnnop/aclnn_quant_matmul_v3.h"
#include "aclnnop/aclnn_quant_matmul_v4.h"
#include "core/thread_pool.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

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

std::unique_ptr<DeviceTensor> make_tensor(const std::vector<int64_t> &shape, aclDataType dt, bool strided) {
  return std::make_unique<DeviceTensor>(shape, dt, view_strides(shape, strided), strided ? 5 : 0);
}

// Writes 8-byte words into the view positions of `t` (row-major view order; view offset `view_off`).
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

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

struct QmmCase {
  std::vector<int64_t> x1;  // logical [batch..., m, k]
  std::vector<int64_t> x2;  // logical [batch..., k, n]
  aclDataType out = ACL_FLOAT16;
  aclDataType scale = ACL_FLOAT;
  int scale_form = 1;  // 0: (1,), 1: (n,), 2: (1, n)
  bool offset = false, offset_per_channel = true;
  bool pertoken = false;
  aclDataType bias = ACL_DT_UNDEFINED;
  bool bias_batched = false;  // (batch, 1, n)
  bool t1 = false, t2 = false;
  bool strided = false;      // every tensor a padded, non-contiguous view
  bool x2_bcast_view = false;  // x2's leading batch dim is a stride-0 (expanded) view
  bool v3 = false;
};

std::string describe(const QmmCase &c) {
  std::ostringstream os;
  os << "x1 " << ::testing::PrintToString(c.x1) << " x2 " << ::testing::PrintToString(c.x2) << " out " << c.out
     << " scale " << c.scale << " form " << c.scale_form << " offset " << c.offset << " pertoken " << c.pertoken
     << " bias " << c.bias << (c.bias_batched ? " (batched)" : "") << " t1 " << c.t1 << " t2 " << c.t2
     << " strided " << c.strided << " x2_bcast " << c.x2_bcast_view << " v3 " << c.v3;
  return os.str();
}

// One problem: inputs, out, and the float64 reference.
class QmmProblem {
 public:
  explicit QmmProblem(const QmmCase &c) : c_(c) {
    const size_t r1 = c.x1.size(), r2 = c.x2.size();
    m_ = c.x1[r1 - 2];
    k_ = c.x1[r1 - 1];
    n_ = c.x2[r2 - 1];
    b1_.assign(c.x1.begin(), c.x1.end() - 2);
    b2_.assign(c.x2.begin(), c.x2.end() - 2);
    const size_t nb = std::max(b1_.size(), b2_.size());
    ob_.assign(nb, 1);
    for (size_t i = 0; i < nb; ++i) {
      const int64_t d1 = i + b1_.size() >= nb ? b1_[i + b1_.size() - nb] : 1;
      const int64_t d2 = i + b2_.size() >= nb ? b2_[i + b2_.size() - nb] : 1;
      ob_[i] = d1 == 1 ? d2 : d1;
    }
    batch_ = numel_of(ob_);

    // x1 / x2 as given (transposed storage order when asked), random int8 everywhere in storage.
    std::vector<int64_t> g1 = c.x1, g2 = c.x2;
    if (c.t1) std::swap(g1[r1 - 1], g1[r1 - 2]);
    if (c.t2) std::swap(g2[r2 - 1], g2[r2 - 2]);
    x1_ = make_tensor(g1, ACL_INT8, c.strided);
    if (c.x2_bcast_view) {
      auto s = view_strides(g2, c.strided);
      s[0] = 0;
      x2_ = std::make_unique<DeviceTensor>(g2, ACL_INT8, s, c.strided ? 5 : 0);
    } else {
      x2_ = make_tensor(g2, ACL_INT8, c.strided);
    }
    x1_->fill_random(-128, 127);
    x2_->fill_random(-128, 127);

    // Scale: about target / (typical |acc|), so the results span the output's interesting range.
    const double typical = std::sqrt(static_cast<double>(k_)) * 5461.0;  // sd of a sum of k int8 products
    const double target = c.out == ACL_INT8 ? 110.0 : 40.0;
    const int64_t sn = c.scale_form == 0 ? 1 : n_;
    std::vector<int64_t> sshape = c.scale_form == 0 ? std::vector<int64_t>{1}
                                  : c.scale_form == 1 ? std::vector<int64_t>{n_}
                                                      : std::vector<int64_t>{1, n_};
    scale_ = make_tensor(sshape, c.scale, c.strided);
    std::uniform_real_distribution<double> jitter(0.5, 1.5), sign(-1.0, 1.0);
    sv_.resize(static_cast<size_t>(sn));
    if (c.scale == ACL_FLOAT || c.scale == ACL_BF16) {
      scale_->fill_random(0.5 * target / typical, 1.5 * target / typical);
      sv_ = scale_->values();
    } else {
      // aclnnTransQuantParam's encoding: float bits, low 13 mantissa bits cleared, bit 46 set; random
      // junk in the offset field (bits 37..45), which the op must ignore.
      std::vector<uint64_t> words(static_cast<size_t>(sn));
      std::uniform_int_distribution<uint64_t> junk(0, 511);
      for (int64_t j = 0; j < sn; ++j) {
        float f = static_cast<float>(jitter(rng()) * target / typical);
        if (j % 7 == 3) f = -f;  // negative scales are legal
        const uint32_t u = bits_of(f) & 0xFFFFE000u;
        sv_[static_cast<size_t>(j)] = float_of(u);
        words[static_cast<size_t>(j)] = u | (uint64_t{1} << 46) | (junk(rng()) << 37);
      }
      write_words(*scale_, words, c.strided ? 5 : 0);
    }
    if (c.offset) {
      offset_ = make_tensor(c.offset_per_channel ? std::vector<int64_t>{n_} : std::vector<int64_t>{1}, ACL_FLOAT,
                            c.strided);
      offset_->fill_random(-12, 12);
      ov_ = offset_->values();
    }
    if (c.pertoken) {
      pertoken_ = make_tensor({m_}, ACL_FLOAT, c.strided);
      pertoken_->fill_random(0.25, 2.0);
      pv_ = pertoken_->values();
    }
    if (c.bias != ACL_DT_UNDEFINED) {
      bias_ = make_tensor(c.bias_batched ? std::vector<int64_t>{batch_, 1, n_} : std::vector<int64_t>{n_}, c.bias,
                          c.strided);
      if (c.bias == ACL_INT32) bias_->fill_random(-2.0 * typical, 2.0 * typical);
      else bias_->fill_random(-0.5 * target, 0.5 * target);
      bv_ = bias_->values();
    }
    std::vector<int64_t> oshape = ob_;
    oshape.push_back(m_);
    oshape.push_back(n_);
    out_ = make_tensor(oshape, c.out, c.strided);
    out_->poison();
    reference();
  }

  int phase1(uint64_t *ws, aclOpExecutor **ex) const {
    const aclTensor *off = offset_ ? offset_->get() : nullptr, *bias = bias_ ? bias_->get() : nullptr;
    if (c_.v3)
      return aclnnQuantMatmulV3GetWorkspaceSize(*x1_, *x2_, *scale_, off, bias, c_.t1, c_.t2, *out_, ws, ex);
    return aclnnQuantMatmulV4GetWorkspaceSize(*x1_, *x2_, *scale_, off, pertoken_ ? pertoken_->get() : nullptr, bias,
                                              c_.t1, c_.t2, *out_, ws, ex);
  }
  int run() {
    out_->poison();
    return run_op([&](uint64_t *ws, aclOpExecutor **ex) { return phase1(ws, ex); },
                  c_.v3 ? aclnnQuantMatmulV3 : aclnnQuantMatmulV4);
  }
  std::vector<double> out_values() const { return out_->values(); }

  // Compares out with the reference (see the top of the file). Returns the number of elements
  // compared exactly (INT8) or checked (float outputs).
  int64_t check() const {
    const auto got = out_->values();
    int64_t fails = 0, exact = 0;
    for (size_t e = 0; e < got.size(); ++e) {
      const double g = ref_[e], err = 1e-6 * mag_[e] + 1e-30, a = got[e];
      bool ok;
      if (c_.out == ACL_INT8) {
        const double want = std::min(127.0, std::max(-128.0, std::nearbyint(g)));
        const double frac = std::fabs(g - std::floor(g) - 0.5);
        if (frac > err || std::fabs(g) > 128.5 + err) {
          ok = a == want;
          ++exact;
        } else {
          ok = std::fabs(a - want) <= 1.0;
        }
      } else {
        const double ag = std::fabs(g) + err;
        const int ex = ag > 0 ? static_cast<int>(std::floor(std::log2(ag))) : -126;
        const double ulp = c_.out == ACL_FLOAT16 ? std::ldexp(1.0, std::max(ex, -14) - 10) : std::ldexp(1.0, ex - 7);
        ok = std::isfinite(a) && std::fabs(a - g) <= 0.5 * ulp + err;
        ++exact;
      }
      if (!ok && ++fails <= 5)
        ADD_FAILURE() << "out element " << e << " (batch/row/col " << ::testing::PrintToString(unravel(
                                                                           static_cast<int64_t>(e),
                                                                           {batch_, m_, n_}))
                      << "): got " << a << ", reference " << g << " (bound " << err << ")";
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
  DeviceTensor &pertoken() { return *pertoken_; }
  DeviceTensor &scale() { return *scale_; }
  DeviceTensor &bias() { return *bias_; }
  DeviceTensor &out() { return *out_; }
  const QmmCase &spec() const { return c_; }

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
    for (int64_t ob = 0; ob < batch_; ++ob) {
      const auto idx = unravel(ob, ob_);
      const int64_t bb1 = broadcast_source(idx, ob_, b1_), bb2 = broadcast_source(idx, ob_, b2_);
      for (int64_t i = 0; i < m_; ++i)
        for (int64_t j = 0; j < n_; ++j) {
          int64_t acc = 0;
          for (int64_t p = 0; p < k_; ++p) acc += at(v1, bb1, i, p, m_, k_, c_.t1) * at(v2, bb2, p, j, k_, n_, c_.t2);
          const size_t jn = static_cast<size_t>(c_.bias_batched ? ob * n_ + j : j);
          double a = static_cast<double>(acc);
          if (c_.bias == ACL_INT32) a += bv_[jn];
          double g = a * sv_[sv_.size() == 1 ? 0 : static_cast<size_t>(j)];
          if (c_.pertoken) g *= pv_[static_cast<size_t>(i)];
          double mag = std::fabs(g);
          if (c_.bias != ACL_DT_UNDEFINED && c_.bias != ACL_INT32) {
            g += bv_[jn];
            mag += std::fabs(bv_[jn]);
          }
          if (c_.offset) {
            const double o = ov_[ov_.size() == 1 ? 0 : static_cast<size_t>(j)];
            g += o;
            mag += std::fabs(o);
          }
          const size_t e = static_cast<size_t>((ob * m_ + i) * n_ + j);
          ref_[e] = g;
          mag_[e] = mag;
        }
    }
  }

  QmmCase c_;
  int64_t m_ = 0, k_ = 0, n_ = 0, batch_ = 1;
  std::vector<int64_t> b1_, b2_, ob_;
  std::unique_ptr<DeviceTensor> x1_, x2_, scale_, offset_, pertoken_, bias_, out_;
  std::vector<double> sv_, ov_, pv_, bv_, ref_, mag_;
};

void run_case(const QmmCase &c) {
  SCOPED_TRACE(describe(c));
  QmmProblem p(c);
  ASSERT_EQ(p.run(), 0) << aclGetRecentErrMsg();
  const int64_t checked = p.check();
  EXPECT_GT(checked, 0);
}

class QuantMatmul : public ::testing::Test {
 protected:
  void SetUp() override { reseed_for_current_test(); }
};

TEST_F(QuantMatmul, OutputAndScaleDtypes) {
  for (aclDataType out : {ACL_INT8, ACL_FLOAT16, ACL_BF16})
    for (aclDataType sd : {ACL_UINT64, ACL_INT64, ACL_FLOAT, ACL_BF16})
      for (int form : {0, 1, 2}) {
        QmmCase c{{7, 67}, {67, 19}, out, sd, form};
        run_case(c);
      }
}

TEST_F(QuantMatmul, Int8OutSaturatesAndRoundsHalfToEven) {
  QmmCase c{{33, 129}, {129, 45}, ACL_INT8, ACL_UINT64, 1};
  QmmProblem p(c);
  ASSERT_EQ(p.run(), 0) << aclGetRecentErrMsg();
  EXPECT_GT(p.check(), 33 * 45 / 2);
  EXPECT_GT(p.saturated(), 0);  // the scales put part of the results beyond +-128
}

TEST_F(QuantMatmul, OffsetAndInt32Bias) {
  for (bool per_channel : {false, true})
    for (aclDataType bias : {ACL_DT_UNDEFINED, ACL_INT32})
      for (aclDataType sd : {ACL_UINT64, ACL_FLOAT}) {
        QmmCase c{{9, 50}, {50, 37}, ACL_INT8, sd, 1, true, per_channel, false, bias};
        run_case(c);
      }
}

TEST_F(QuantMatmul, FloatBiases) {
  for (aclDataType bias : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
    for (aclDataType out : {ACL_FLOAT16, ACL_BF16, ACL_INT8}) {
      QmmCase c{{5, 80}, {80, 23}, out, ACL_FLOAT, 1, false, true, false, bias};
      run_case(c);
    }
  // (batch, 1, n) biases: INT32 and FLOAT, over a broadcast batch.
  QmmCase c{{2, 1, 6, 40}, {3, 40, 17}, ACL_FLOAT16, ACL_UINT64, 1, false, true, false, ACL_INT32, true};
  run_case(c);
  c.bias = ACL_BF16;
  c.out = ACL_BF16;
  run_case(c);
}

TEST_F(QuantMatmul, PertokenScale) {
  for (aclDataType out : {ACL_INT8, ACL_FLOAT16, ACL_BF16})
    for (aclDataType bias : {ACL_DT_UNDEFINED, ACL_INT32, ACL_FLOAT}) {
      QmmCase c{{2, 11, 96}, {96, 29}, out, ACL_FLOAT, 1, false, true, true, bias};
      run_case(c);
    }
  QmmCase c{{13, 64}, {64, 20}, ACL_INT8, ACL_INT64, 0, true, true, true, ACL_INT32};
  run_case(c);
}

TEST_F(QuantMatmul, TransposesAndStridedViews) {
  for (bool t1 : {false, true})
    for (bool t2 : {false, true})
      for (bool strided : {false, true}) {
        QmmCase c{{2, 10, 70}, {70, 21}, ACL_FLOAT16, ACL_UINT64, 1, false, true, true, ACL_FLOAT};
        c.t1 = t1;
        c.t2 = t2;
        c.strided = strided;
        run_case(c);
        QmmCase q{{3, 9, 45}, {3, 45, 14}, ACL_INT8, ACL_FLOAT, 2, true, true, false, ACL_INT32};
        q.t1 = t1;
        q.t2 = t2;
        q.strided = strided;
        run_case(q);
      }
}

TEST_F(QuantMatmul, BatchBroadcast) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{6, 33}, {3, 33, 10}},                   // 2-D x 3-D
      {{4, 6, 33}, {33, 10}},                   // 3-D x 2-D (batch folds into m)
      {{2, 3, 6, 33}, {2, 3, 33, 10}},          // batch dims merge into one
      {{2, 1, 6, 33}, {3, 33, 10}},             // 4-D broadcast: an outer loop
      {{1, 5, 6, 33}, {4, 1, 33, 10}},          // both sides broadcast
      {{2, 1, 2, 1, 3, 20}, {1, 3, 1, 2, 20, 7}}, // 6-D
  };
  for (const auto &s : shapes)
    for (bool strided : {false, true})
      for (aclDataType out : {ACL_INT8, ACL_BF16}) {
        QmmCase c{s.first, s.second, out, ACL_UINT64, 1, out == ACL_INT8, true, true, ACL_INT32};
        c.strided = strided;
        c.t2 = strided;
        run_case(c);
      }
  // x2 an expanded (stride-0 batch) view, and x1 transposed so its rows do not nest.
  for (bool t1 : {false, true}) {
    QmmCase c{{4, 6, 33}, {4, 33, 10}, ACL_FLOAT16, ACL_FLOAT, 1};
    c.x2_bcast_view = true;
    c.t1 = t1;
    run_case(c);
  }
}

TEST_F(QuantMatmul, OddSizes) {
  for (int64_t m : {1, 2, 5, 17, 31})
    for (int64_t n : {1, 3, 13, 33})
      for (int64_t k : {1, 7, 31, 97}) {
        QmmCase c{{m, k}, {k, n}, (m + n + k) % 2 ? ACL_INT8 : ACL_FLOAT16, ACL_UINT64, 1};
        run_case(c);
      }
  // Several blocks in both directions (edges of the engine's tiles), long k.
  run_case({{130, 301}, {301, 261}, ACL_INT8, ACL_FLOAT, 1, true, true, true, ACL_INT32});
  run_case({{3, 29, 3001}, {3001, 37}, ACL_BF16, ACL_UINT64, 1, false, true, true, ACL_FLOAT});
}

TEST_F(QuantMatmul, LargestK) {
  run_case({{2, 65535}, {65535, 3}, ACL_INT8, ACL_UINT64, 1, true, true});
  QmmCase c{{2, 65535}, {65535, 3}, ACL_FLOAT16, ACL_FLOAT, 0, false, true, true, ACL_INT32};
  c.t2 = true;
  run_case(c);
}

TEST_F(QuantMatmul, V3MatchesV4WithoutPertoken) {
  QmmCase c{{2, 19, 77}, {77, 41}, ACL_INT8, ACL_INT64, 1, true, false, false, ACL_INT32};
  QmmProblem p4(c);
  ASSERT_EQ(p4.run(), 0) << aclGetRecentErrMsg();
  p4.check();
  const auto v4 = p4.out_values();
  c.v3 = true;
  reseed_for_current_test();  // the same inputs again
  QmmProblem p3(c);
  ASSERT_EQ(p3.run(), 0) << aclGetRecentErrMsg();
  p3.check();
  EXPECT_EQ(p3.out_values(), v4);
  for (aclDataType out : {ACL_FLOAT16, ACL_BF16}) {
    QmmCase d{{4, 30}, {2, 30, 9}, out, ACL_BF16, 1, false, true, false, ACL_FLOAT};
    d.v3 = true;
    run_case(d);
  }
}

// The same launch with the whole compute pool and with one thread (the test thread holds the pool,
// so the op's parallel loops run on the stream's worker alone): identical bits.
TEST_F(QuantMatmul, SameBitsForOneAndAllThreads) {
  for (aclDataType out : {ACL_INT8, ACL_FLOAT16, ACL_BF16}) {
    QmmCase c{{2, 70, 200}, {200, 150}, out, ACL_UINT64, 1, out == ACL_INT8, true, true, ACL_INT32};
    SCOPED_TRACE(describe(c));
    QmmProblem p(c);
    ASSERT_EQ(p.run(), 0) << aclGetRecentErrMsg();
    p.check();
    const auto all = p.out_values();
    int status = -1;
    // Two one-element chunks: the pool's job lock is held until both are done (one chunk alone would
    // run without taking the pool).
    core::parallel_for(2, 1, [&](int64_t begin, int64_t) {
      if (begin == 0) status = p.run();
    });
    ASSERT_EQ(status, 0) << aclGetRecentErrMsg();
    p.check();
    EXPECT_EQ(p.out_values(), all);
  }
}

// A repeatable executor re-pointed at other x1, scale, bias and out buffers (V4 input indices: x1 0,
// x2 1, scale 2, offset 3, pertokenScaleOptional 4, bias 5; out is output 0).
TEST_F(QuantMatmul, RepeatableExecutorRebindsAddresses) {
  QmmCase c{{2, 12, 40}, {40, 18}, ACL_FLOAT16, ACL_UINT64, 1, false, true, true, ACL_INT32};
  QmmProblem a(c), b(c);  // same shapes, different data
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(a.phase1(&ws, &ex), 0) << aclGetRecentErrMsg();
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  void *w = nullptr;
  if (ws) ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), 0);
  a.out().poison();
  ASSERT_EQ(aclnnQuantMatmulV4(w, ws, ex, nullptr), 0);
  ASSERT_EQ(aclrtSynchronizeDevice(), 0);
  {
    SCOPED_TRACE("first launch");
    a.check();
  }
  b.out().poison();
  ASSERT_EQ(aclSetInputTensorAddr(ex, 0, b.x1(), b.x1().data()), 0);
  ASSERT_EQ(aclSetInputTensorAddr(ex, 1, b.x2(), b.x2().data()), 0);
  ASSERT_EQ(aclSetInputTensorAddr(ex, 2, b.scale(), b.scale().data()), 0);
  ASSERT_EQ(aclSetInputTensorAddr(ex, 3, b.scale(), b.scale().data()), ACLNN_ERR_PARAM_INVALID);  // offset was null
  ASSERT_EQ(aclSetInputTensorAddr(ex, 4, b.pertoken(), b.pertoken().data()), 0);
  ASSERT_EQ(aclSetInputTensorAddr(ex, 5, b.bias(), b.bias().data()), 0);
  ASSERT_EQ(aclSetOutputTensorAddr(ex, 0, b.out(), b.out().data()), 0);
  ASSERT_EQ(aclnnQuantMatmulV4(w, ws, ex, nullptr), 0);
  ASSERT_EQ(aclrtSynchronizeDevice(), 0);
  {
    SCOPED_TRACE("re-pointed launch");
    b.check();
  }
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
  if (w) aclrtFree(w);
}

TEST_F(QuantMatmul, Errors) {
  DeviceTensor x1({4, 64}, ACL_INT8), x2({64, 32}, ACL_INT8), s({32}, ACL_UINT64), o({32}, ACL_FLOAT);
  DeviceTensor out8({4, 32}, ACL_INT8), out16({4, 32}, ACL_FLOAT16), pt({4}, ACL_FLOAT), bi({32}, ACL_INT32);
  DeviceTensor bf({32}, ACL_FLOAT), f16x({4, 64}, ACL_FLOAT16), x2k({63, 32}, ACL_INT8), s_bad({31}, ACL_UINT64);
  DeviceTensor s_i32({32}, ACL_INT32), s_2d({2, 32}, ACL_FLOAT), o_f16({32}, ACL_FLOAT16), o_bad({5}, ACL_FLOAT);
  DeviceTensor pt_bad({5}, ACL_FLOAT), pt_f16({4}, ACL_FLOAT16), b_bad({31}, ACL_INT32), b_i8({32}, ACL_INT8);
  DeviceTensor b3_bad({2, 1, 32}, ACL_INT32), out_f32({4, 32}, ACL_FLOAT), out_bad({4, 31}, ACL_INT8);
  DeviceTensor x1_1d({64}, ACL_INT8), x1_7d({1, 1, 1, 1, 1, 4, 64}, ACL_INT8), x1_big({1, 65536}, ACL_INT8);
  DeviceTensor x2_big({65536, 2}, ACL_INT8), out_big({1, 2}, ACL_FLOAT16), x1_b2({2, 4, 64}, ACL_INT8);
  DeviceTensor x2_b3({3, 64, 32}, ACL_INT8), out_b({2, 4, 32}, ACL_INT8);
  // out whose rows overlap: stride 0 along m.
  DeviceTensor out_overlap({4, 32}, ACL_INT8, {0, 1}, 0);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto v4 = [&](const aclTensor *a, const aclTensor *b, const aclTensor *sc, const aclTensor *of, const aclTensor *p,
                const aclTensor *bb, const aclTensor *y, bool t1 = false, bool t2 = false) {
    return aclnnQuantMatmulV4GetWorkspaceSize(a, b, sc, of, p, bb, t1, t2, y, &ws, &ex);
  };
  const int kNull = ACLNN_ERR_PARAM_NULLPTR, kInv = ACLNN_ERR_PARAM_INVALID;
  EXPECT_TRUE(fails_with(v4(nullptr, x2, s, nullptr, nullptr, nullptr, out8), kNull, {"aclnnQuantMatmulV4", "x1"}));
  EXPECT_TRUE(fails_with(v4(x1, nullptr, s, nullptr, nullptr, nullptr, out8), kNull, {"x2"}));
  EXPECT_TRUE(fails_with(v4(x1, x2, nullptr, nullptr, nullptr, nullptr, out8), kNull, {"scale"}));
  EXPECT_TRUE(fails_with(v4(x1, x2, s, nullptr, nullptr, nullptr, nullptr), kNull, {"out"}));
  EXPECT_TRUE(fails_with(aclnnQuantMatmulV3GetWorkspaceSize(x1, x2, s, nullptr, nullptr, false, false, nullptr, &ws, &ex),
                         kNull, {"aclnnQuantMatmulV3", "out"}));
  // dtypes
  EXPECT_TRUE(fails_with(v4(f16x, x2, s, nullptr, nullptr, nullptr, out8), kInv, {"x1", "FLOAT16"}));
  EXPECT_TRUE(fails_with(v4(x1, f16x, s, nullptr, nullptr, nullptr, out8), kInv, {"x2", "FLOAT16"}));
  EXPECT_TRUE(fails_with(v4(x1, x2, s_i32, nullptr, nullptr, nullptr, out8), kInv, {"scale", "INT32"}));
  EXPECT_TRUE(fails_with(v4(x1, x2, s, o_f16, nullptr, nullptr, out8), kInv, {"offset", "FLOAT16"}));
  EXPECT_TRUE(fails_with(v4(x1, x2, s, nullptr, pt_f16, nullptr, out8), kInv, {"pertokenScaleOptional", "FLOAT16"}));
  EXPECT_TRUE(fails_with(v4(x1, x2, s, nullptr, nullptr, b_i8, out8), kInv, {"bias", "INT8"}));
  EXPECT_TRUE(fails_with(v4(x1, x2, s, nullptr, nullptr, nullptr, out_f32), kInv, {"out", "FLOAT"}));
  // offset only with INT8 out, and not with a floating bias
  EXPECT_TRUE(fails_with(v4(x1, x2, s, o, nullptr, nullptr, out16), kInv, {"offset", "INT8"}));
  EXPECT_TRUE(fails_with(v4(x1, x2, s, o, nullptr, bf, out8), kInv, {"offset", "FLOAT", "bias"}));
  // shapes
  EXPECT_TRUE(fails_with(v4(x1_1d, x2, s, nullptr, nullptr, nullptr, out8), kInv, {"x1", "2 to 6"}));
  EXPECT_TRUE(fails_with(v4(x1_7d, x2, s, nullptr, nullptr, nullptr, out8), kInv, {"x1", "2 to 6"}));
  EXPECT_TRUE(fails_with(v4(x1, x1_7d, s, nullptr, nullptr, nullptr, out8), kInv, {"x2", "2 to 6"}));
  EXPECT_TRUE(fails_with(v4(x1, x2k, s, nullptr, nullptr, nullptr, out8), kInv, {"x1", "x2", "k", "64", "63"}));
  EXPECT_TRUE(fails_with(v4(x1, x2, s, nullptr, nullptr, nullptr, out8, true, false), kInv, {"reduce dims"}));
  EXPECT_TRUE(fails_with(v4(x1_big, x2_big, s, nullptr, nullptr, nullptr, out_big), kInv, {"k", "65536", "65535"}));
  EXPECT_TRUE(fails_with(v4(x1_b2, x2_b3, s, nullptr, nullptr, nullptr, out_b), kInv, {"x1", "x2", "broadcast"}));
  EXPECT_TRUE(fails_with(v4(x1, x2, s_bad, nullptr, nullptr, nullptr, out8), kInv, {"scale", "[31]"}));
  EXPECT_TRUE(fails_with(v4(x1, x2, s_2d, nullptr, nullptr, nullptr, out8), kInv, {"scale", "(1, 32)"}));
  EXPECT_TRUE(fails_with(v4(x1, x2, s, o_bad, nullptr, nullptr, out8), kInv, {"offset", "[5]"}));
  EXPECT_TRUE(fails_with(v4(x1, x2, s, nullptr, pt_bad, nullptr, out8), kInv, {"pertokenScaleOptional", "(4,)"}));
  EXPECT_TRUE(fails_with(v4(x1, x2, s, nullptr, nullptr, b_bad, out8), kInv, {"bias", "(32,)"}));
  EXPECT_TRUE(fails_with(v4(x1, x2, s, nullptr, nullptr, b3_bad, out8), kInv, {"bias", "(1, 1, 32)"}));
  EXPECT_TRUE(fails_with(v4(x1, x2, s, nullptr, nullptr, nullptr, out_bad), kInv, {"out"}));
  EXPECT_TRUE(fails_with(v4(x1, x2, s, nullptr, nullptr, nullptr, out_overlap), kInv, {"out", "overlap"}));
  // a valid call after all that
  EXPECT_EQ(v4(x1, x2, s, o, pt, bi, out8), 0) << aclGetRecentErrMsg();
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
}

}  // namespace
}  // namespace opsnn::test
