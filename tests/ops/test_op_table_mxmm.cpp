// The test harness of the block-scaled / emulated matmul table (src/ops/matmul/mx_matmul.ops), cases
// registered from the table by tools/gen_ops.py --tests (mxmm_table_cases.inc). Against float64 references
// written here from the documented formulas (element values from tests/common/low_float_ref.h, the MX
// scale rule from mx_scale_ref.h):
//   - QuantMatmulActivationQuantWeightNz: sum over blocks of 32 of the block products times both E8M0
//     scales, + bias, GELU (tanh / erf), then DynamicMxQuant along n; random shapes, every dtype pair,
//     transposes, batch, ND and FRACTAL_NZ x2, strided x1 / scales, each scaleAlg / roundMode. The fp32
//     sums differ from float64 by ~1e-5 of the terms' magnitudes, so each scale (a code) must be one the
//     reference gives within that slack of the block max, each element one within that slack of its value;
//   - DualLevelQuantMatmulWeightNz: the level-0 FLOAT scales per 512 times the level-1 sums, + bias, rounded
//     to FLOAT16 / BF16 (precision.md's absolute-bound variant);
//   - MatmulEmuSplitWeight: x @ wHigh + wLowScale * (x @ wLow) in float64 (absolute-bound variant);
//   - empty tensors and every error path with its status, naming the argument.
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "fractal_tensors.h"
#include "low_float_ref.h"
#include "mx_scale_ref.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct MxmmArgs {
  aclTensor *a = nullptr, *b = nullptr, *b_low = nullptr, *a_scale = nullptr, *b_scale = nullptr, *a_l0 = nullptr,
            *b_l0 = nullptr, *bias = nullptr, *y = nullptr, *y_scale = nullptr;
  bool trans_a = false, trans_b = false;
  int64_t group_size = 0, level0_group = 512, level1_group = 32, scale_alg = 0;
  int8_t y_dtype = 0;
  const char *activation = "gelu_tanh", *quant_mode = "mx", *round_mode = "rint";
  double dst_type_max = 0.0;
  float low_scale = 0.00390625f;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct MxmmTableCase {
  std::string name, api;
  std::vector<aclDataType> dtypes;
  int (*phase1)(const MxmmArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
};

#include "mxmm_table_cases.inc"

const MxmmTableCase &find_case(const std::string &name) {
  static const std::vector<MxmmTableCase> all = mxmm_table_cases();
  for (const auto &c : all)
    if (c.name == name) return c;
  ADD_FAILURE() << name << " is not in the table";
  return all.front();
}

int run(const MxmmTableCase &c, const MxmmArgs &a) {
  return run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
}

int phase1_status(const MxmmTableCase &c, const MxmmArgs &a) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  return c.phase1(a, &ws, &ex);
}

// An edit of a valid call that phase 1 must refuse with `code`, the message containing `needle`.
struct BadCase {
  int code;
  const char *needle;
  std::function<void(MxmmArgs &)> edit;
};

void expect_refused(const MxmmTableCase &c, const std::function<MxmmArgs()> &valid, const std::vector<BadCase> &bad) {
  ASSERT_EQ(run(c, valid()), 0) << aclGetRecentErrMsg();
  for (const BadCase &b : bad) {
    MxmmArgs a = valid();
    b.edit(a);
    EXPECT_TRUE(fails_with(phase1_status(c, a), b.code, {b.needle})) << b.needle;
  }
}

using Shape = std::vector<int64_t>;
using Dev = std::unique_ptr<DeviceTensor>;
constexpr int64_t kGroupSize = (int64_t{1} << 32) | (int64_t{1} << 16) | 32;

bool is_fp4(aclDataType dt) { return dt == ACL_FLOAT4_E2M1; }
int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// A random finite code of dt.
int random_code(aclDataType dt) {
  auto &g = rng();
  for (;;) {
    const int c = static_cast<int>(g() % (is_fp4(dt) ? 16 : 256));
    if (std::isfinite(lfref::value(lfref::fmt_of(dt), c))) return c;
  }
}

// Writes codes (row-major over t's view) into t's storage (FLOAT4: nibbles; strides and offset in nibbles).
void put_codes(const DeviceTensor &t, const std::vector<int> &codes, int64_t offset) {
  auto *p = static_cast<uint8_t *>(t.data());
  for (size_t i = 0; i < codes.size(); ++i) {
    const auto idx = unravel(static_cast<int64_t>(i), t.shape());
    int64_t e = offset;
    for (size_t d = 0; d < idx.size(); ++d) e += idx[d] * t.strides()[d];
    if (!is_fp4(t.dtype())) {
      p[e] = static_cast<uint8_t>(codes[i]);
      continue;
    }
    uint8_t &byte = p[e >> 1];
    byte = (e & 1) ? static_cast<uint8_t>((byte & 0x0F) | (codes[i] << 4)) : static_cast<uint8_t>((byte & 0xF0) | codes[i]);
  }
}

// A code tensor of `shape` (padded = every dim padded + an even offset: strided) filled with random codes.
struct Codes {
  Dev t;
  std::vector<int> v;
};
Codes random_codes(const Shape &shape, aclDataType dt, bool padded, int lo = -1, int hi = -1) {
  Codes c;
  c.t = padded ? padded_view(shape, dt, 2) : std::make_unique<DeviceTensor>(shape, dt);
  c.v.resize(static_cast<size_t>(numel_of(shape)));
  for (int &x : c.v) x = lo < 0 ? random_code(dt) : lo + static_cast<int>(rng()() % (hi - lo + 1));
  put_codes(*c.t, c.v, padded ? 2 : 0);
  return c;
}

// FRACTAL_NZ of a view [batch..., R, C] from its row-major codes: the blocks of the view's matrices, or
// (transposed: the view's last two strides swapped) of their [C, R] transposes; storage [.., ceil(SC / C0),
// ceil(SR / 16), 16, C0] of the stored [SR, SC], C0 = 32 bytes (32 FLOAT8, 64 FLOAT4), padding left at 0x5A.
std::unique_ptr<FractalTensor> nz_codes(const Shape &view, aclDataType dt, const std::vector<int> &codes,
                                        bool transposed = false) {
  const size_t nd = view.size();
  const int64_t r = view[nd - 2], c = view[nd - 1], c0 = is_fp4(dt) ? 64 : 32;
  const int64_t sr = transposed ? c : r, sc = transposed ? r : c, sr16 = cdiv(sr, 16) * 16;
  Shape storage(view.begin(), view.end() - 2);
  int64_t batch = 1;
  for (int64_t d : storage) batch *= d;
  storage.insert(storage.end(), {cdiv(sc, c0), sr16 / 16, 16, c0});
  const int64_t mat = cdiv(sc, c0) * c0 * sr16;
  auto t = std::make_unique<FractalTensor>(view, dt, ACL_FORMAT_FRACTAL_NZ, storage, batch * mat, transposed);
  auto *p = static_cast<uint8_t *>(t->data());
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < r; ++i)
      for (int64_t j = 0; j < c; ++j) {
        const int64_t si = transposed ? j : i, sj = transposed ? i : j;
        const int64_t e = b * mat + ((sj / c0) * sr16 + si) * c0 + sj % c0;
        const int code = codes[static_cast<size_t>((b * r + i) * c + j)];
        if (!is_fp4(dt)) {
          p[e] = static_cast<uint8_t>(code);
          continue;
        }
        uint8_t &byte = p[e >> 1];
        byte = (e & 1) ? static_cast<uint8_t>((byte & 0x0F) | (code << 4)) : static_cast<uint8_t>((byte & 0xF0) | code);
      }
  return t;
}

double e8m0(int code) { return std::ldexp(1.0, code - 127); }

double gelu(double x, bool erf_form) {
  if (erf_form) return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}

// ---- QuantMatmulActivationQuantWeightNz ----

struct ActQuantCase {
  aclDataType adt, bdt;
  bool trans_a, trans_b, nz, batched, padded;
  bool b_shared;     // batched x1 with a 2-D x2 (and x2Scale) shared by every batch
  bool nz_swapped;   // x2's FRACTAL_NZ view has its last two strides swapped (the blocks of its transpose)
  bool tiny_block;   // x1's first scale code 0 (the decoded values leave BF16's normal range)
  bool tiny_scales;  // every scale near 2^-66: products below fp32's normal range (the BF16 tiles would flush them)
  int bias;  // 0 none, 1 (n,), 2 (batch, 1, n)
  bool erf_form;
  mxref::Config cf;
};

void run_act_quant(const ActQuantCase &k, int64_t m, int64_t kk, int64_t n) {
  const MxmmTableCase &c = find_case("QuantMatmulActivationQuantWeightNz");
  // one batch dim, or two (y 4-D: then bias is (n,) only)
  const Shape bat = !k.batched ? Shape{} : k.bias == 2 || rng()() % 2 ? Shape{2} : Shape{2, 3};
  const int64_t B = numel_of(bat), pairs = cdiv(kk, 64);
  auto with = [&](Shape tail) {
    Shape s = bat;
    s.insert(s.end(), tail.begin(), tail.end());
    return s;
  };
  // x1 view [B.., m, k] / [B.., k, m]; x2 view [B.., k, n] / [B.., n, k]
  Codes x1 = random_codes(with(k.trans_a ? Shape{kk, m} : Shape{m, kk}), k.adt, k.padded);
  auto with2 = [&](Shape tail) { return k.b_shared ? tail : with(tail); };
  const Shape x2view = with2(k.trans_b ? Shape{n, kk} : Shape{kk, n});
  Codes x2 = random_codes(x2view, k.bdt, false);
  std::unique_ptr<FractalTensor> x2nz;
  if (k.nz) x2nz = nz_codes(x2view, k.bdt, x2.v, k.nz_swapped);
  // scales around 1, or (tiny_scales) around 2^-66: products near and below fp32's normal range
  const int slo = k.tiny_scales ? 58 : 118, shi = k.tiny_scales ? 64 : 130;
  Codes s1 = random_codes(with(k.trans_a ? Shape{pairs, m, 2} : Shape{m, pairs, 2}), ACL_FLOAT8_E8M0, k.padded, slo, shi);
  Codes s2 = random_codes(with2(k.trans_b ? Shape{n, pairs, 2} : Shape{pairs, n, 2}), ACL_FLOAT8_E8M0, false, slo, shi);
  if (k.tiny_block) {  // one block of x1 scaled by 2^-127: not BF16 normals, so the fp32 path must serve it
    s1.v[0] = 0;
    put_codes(*s1.t, s1.v, k.padded ? 2 : 0);
  }
  Dev bias;
  std::vector<double> bv;
  if (k.bias) {
    bias = std::make_unique<DeviceTensor>(k.bias == 1 ? Shape{n} : Shape{B, 1, n}, ACL_FLOAT);
    bias->fill_random(-4, 4);
    bv = bias->values();
  }
  DeviceTensor y(with({m, n}), k.adt), ys(with({m, cdiv(n, 64), 2}), ACL_FLOAT8_E8M0);
  MxmmArgs a;
  a.a = *x1.t;
  a.b = k.nz ? x2nz->get() : x2.t->get();
  a.a_scale = *s1.t;
  a.b_scale = *s2.t;
  a.bias = bias ? bias->get() : nullptr;
  a.trans_a = k.trans_a;
  a.trans_b = k.trans_b;
  a.group_size = rng()() % 2 ? kGroupSize : 0;
  a.activation = k.erf_form ? "gelu_erf" : "gelu_tanh";
  static char rint[] = "rint", floor_[] = "floor", round_[] = "round";
  a.round_mode = k.cf.mode == lfref::kFloor ? floor_ : k.cf.mode == lfref::kRound ? round_ : rint;
  a.scale_alg = k.cf.alg;
  a.dst_type_max = k.cf.dtm;
  a.y = y;
  a.y_scale = ys;
  ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();

  const lfref::Fmt fa = lfref::fmt_of(k.adt), fb = lfref::fmt_of(k.bdt), fy = lfref::fmt_of(k.adt);
  const auto got_y = mxref::codes_of(y), got_s = mxref::codes_of(ys);
  int bad = 0;
  for (int64_t b = 0; b < B && bad < 8; ++b)
    for (int64_t i = 0; i < m && bad < 8; ++i) {
      std::vector<double> act(n), slack(n);
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0, mag = 0;
        for (int64_t p = 0; p < kk; ++p) {
          const int64_t blk = p / 32, sp = blk / 2, sh = blk % 2;
          const size_t ia = k.trans_a ? ((b * kk + p) * m + i) : ((b * m + i) * kk + p);
          const int64_t b2 = k.b_shared ? 0 : b;
          const size_t ib = k.trans_b ? ((b2 * n + j) * kk + p) : ((b2 * kk + p) * n + j);
          const size_t isa = k.trans_a ? (((b * pairs + sp) * m + i) * 2 + sh) : (((b * m + i) * pairs + sp) * 2 + sh);
          const size_t isb = k.trans_b ? (((b2 * n + j) * pairs + sp) * 2 + sh) : (((b2 * pairs + sp) * n + j) * 2 + sh);
          const double t = lfref::value(fa, x1.v[ia]) * e8m0(s1.v[isa]) * lfref::value(fb, x2.v[ib]) * e8m0(s2.v[isb]);
          sum += t;
          mag += std::fabs(t);
        }
        if (k.bias) {
          const double bb = bv[static_cast<size_t>(k.bias == 1 ? j : b * n + j)];
          sum += bb;
          mag += std::fabs(bb);
        }
        act[j] = gelu(sum, k.erf_form);
        slack[j] = 3e-5 * mag + 1e-5 * std::fabs(act[j]) + kk * std::ldexp(1.0, -149);
      }
      const int64_t row = b * m + i;
      for (int64_t blk = 0; blk * 32 < n; ++blk) {
        double amax = 0, samax = 0;
        for (int64_t j = blk * 32; j < std::min(n, blk * 32 + 32); ++j) {
          amax = std::max(amax, std::fabs(act[j]));
          samax = std::max(samax, slack[j]);
        }
        const int sgot = got_s[static_cast<size_t>((row * cdiv(n, 64) + blk / 2) * 2 + blk % 2)];
        const int slo = mxref::ref_scale(std::max(0.0, amax - samax), k.cf), shi = mxref::ref_scale(amax + samax, k.cf);
        if (sgot < slo || sgot > shi) {
          ADD_FAILURE() << "yScaleOut of row " << row << " block " << blk << " = " << sgot << ", want " << slo << ".."
                        << shi << " (block max " << amax << ")";
          ++bad;
          continue;
        }
        const double inv = 1.0 / e8m0(sgot);
        for (int64_t j = blk * 32; j < std::min(n, blk * 32 + 32); ++j) {
          const int got = got_y[static_cast<size_t>(row * n + j)];
          const double lo = lfref::value(fy, lfref::encode(fy, (act[j] - slack[j]) * inv, k.cf.mode));
          const double hi = lfref::value(fy, lfref::encode(fy, (act[j] + slack[j]) * inv, k.cf.mode));
          const double gv = lfref::value(fy, got);
          if (!(gv >= lo && gv <= hi) && bad++ < 8)
            ADD_FAILURE() << "yOut[" << row << ", " << j << "] = " << gv << ", want " << lo << ".." << hi
                          << " (activated " << act[j] << ", scale code " << sgot << ")";
        }
      }
    }
  // pads past an odd block count stay 0
  if (cdiv(n, 32) % 2 == 1)
    for (int64_t row = 0; row < B * m; ++row) EXPECT_EQ(got_s[static_cast<size_t>(row * cdiv(n, 64) * 2 + cdiv(n, 64) * 2 - 1)], 0);
}

TEST(OpTableMxmm, ActQuantEveryDtypeLayoutAndModeAgainstFloat64) {
  reseed_for_current_test();
  auto &g = rng();
  const aclDataType pairs[3][2] = {{ACL_FLOAT8_E4M3FN, ACL_FLOAT8_E4M3FN}, {ACL_FLOAT8_E5M2, ACL_FLOAT8_E4M3FN},
                                   {ACL_FLOAT4_E2M1, ACL_FLOAT4_E2M1}};
  for (int it = 0; it < 36; ++it) {
    ActQuantCase k{};
    k.adt = pairs[it % 3][0];
    k.bdt = pairs[it % 3][1];
    const bool fp4 = is_fp4(k.adt);
    k.trans_a = !fp4 && g() % 2;
    k.trans_b = (it / 3) % 2;
    k.nz = (it / 6) % 2;
    k.nz_swapped = k.nz && g() % 2;
    k.tiny_block = g() % 4 == 0;
    k.tiny_scales = g() % 5 == 0;
    k.batched = g() % 3 == 0;
    k.b_shared = k.batched && g() % 2;
    k.padded = !fp4 && g() % 2;
    k.bias = static_cast<int>(g() % (k.batched ? 3 : 2));
    k.erf_form = g() % 2;
    k.cf.dst = k.adt;
    k.cf.alg = fp4 ? (g() % 2 ? 2 : 0) : static_cast<int64_t>(g() % 2);
    if (k.cf.alg == 2) {
      const double dtms[] = {0.0, 6.0, 7.0, 9.5};
      k.cf.dtm = dtms[g() % 4];
    }
    if (fp4) k.cf.mode = static_cast<lfref::Mode>(g() % 3);  // rint, round, floor
    int64_t m = 1 + static_cast<int64_t>(g() % 12), kk = 2 + static_cast<int64_t>(g() % 150),
            n = 2 + static_cast<int64_t>(g() % 100);
    if (fp4) kk += kk % 2, n += n % 2;
    SCOPED_TRACE(testing::Message() << "case " << it << " x1 " << k.adt << " m " << m << " k " << kk << " n " << n
                                    << " transA " << k.trans_a << " transB " << k.trans_b << " nz " << k.nz << k.nz_swapped << " tiny " << k.tiny_block << k.tiny_scales << " batch "
                                    << k.batched << " shared x2 " << k.b_shared << " bias " << k.bias << " alg " << k.cf.alg << " dtm " << k.cf.dtm);
    run_act_quant(k, m, kk, n);
  }
}

// A valid call of the act-quant op and its tensors, for the error cases.
struct ActQuantProblem {
  Codes x1 = random_codes({4, 64}, ACL_FLOAT8_E4M3FN, false);
  Codes x2 = random_codes({64, 32}, ACL_FLOAT8_E4M3FN, false);
  Codes s1 = random_codes({4, 1, 2}, ACL_FLOAT8_E8M0, false, 127, 127);
  Codes s2 = random_codes({1, 32, 2}, ACL_FLOAT8_E8M0, false, 127, 127);
  DeviceTensor y{{4, 32}, ACL_FLOAT8_E4M3FN}, ys{{4, 1, 2}, ACL_FLOAT8_E8M0};
  MxmmArgs args() const {
    MxmmArgs a;
    a.a = *x1.t;
    a.b = *x2.t;
    a.a_scale = *s1.t;
    a.b_scale = *s2.t;
    a.y = y;
    a.y_scale = ys;
    a.group_size = kGroupSize;
    return a;
  }
};

TEST(OpTableMxmm, ActQuantErrorsNameTheArgument) {
  const MxmmTableCase &c = find_case("QuantMatmulActivationQuantWeightNz");
  ActQuantProblem p;
  DeviceTensor f16({4, 64}, ACL_FLOAT16), e5({64, 32}, ACL_FLOAT8_E5M2), y5({4, 32}, ACL_FLOAT8_E5M2),
      badk({60, 32}, ACL_FLOAT8_E4M3FN), s1bad({4, 2, 2}, ACL_FLOAT8_E8M0), s2f({1, 32, 2}, ACL_FLOAT),
      biasbad({31}, ACL_FLOAT), biasf16({32}, ACL_FLOAT16), ybad({4, 30}, ACL_FLOAT8_E4M3FN),
      ysbad({4, 2, 2}, ACL_FLOAT8_E8M0), empty({0, 64}, ACL_FLOAT8_E4M3FN), x1t({64, 4}, ACL_FLOAT4_E2M1),
      s1t({1, 4, 2}, ACL_FLOAT8_E8M0), k1({4, 1}, ACL_FLOAT8_E4M3FN), x2k1({1, 32}, ACL_FLOAT8_E4M3FN);
  auto ystrided = std::make_unique<DeviceTensor>(Shape{4, 32}, ACL_FLOAT8_E4M3FN, Shape{64, 1}, 0);
  // FLOAT4 operands (x1 [4, 64], x2 [64, n]) for the FLOAT4-only rules
  Codes f4x1 = random_codes({4, 64}, ACL_FLOAT4_E2M1, false), f4x2 = random_codes({64, 32}, ACL_FLOAT4_E2M1, false),
        f4x2odd = random_codes({64, 31}, ACL_FLOAT4_E2M1, false);
  DeviceTensor f4y({4, 32}, ACL_FLOAT4_E2M1), f4yodd({4, 31}, ACL_FLOAT4_E2M1), s2odd({1, 31, 2}, ACL_FLOAT8_E8M0);
  // x2 with batch dims other than x1's; a (batch, 1, n) bias with a 2-D y; FRACTAL_NZ with a wrong storage shape
  Codes x2b = random_codes({3, 64, 32}, ACL_FLOAT8_E4M3FN, false);
  Codes s2b = random_codes({3, 1, 32, 2}, ACL_FLOAT8_E8M0, false, 127, 127);
  DeviceTensor bias3({1, 1, 32}, ACL_FLOAT);
  FractalTensor nzbad({64, 32}, ACL_FLOAT8_E4M3FN, ACL_FORMAT_FRACTAL_NZ, {1, 3, 16, 32}, 2048);
  auto fp4 = [&](MxmmArgs &a) {
    a.a = *f4x1.t;
    a.b = *f4x2.t;
    a.y = f4y;
  };
  const std::vector<BadCase> bad = {
      {ACLNN_ERR_PARAM_NULLPTR, "x1", [](MxmmArgs &a) { a.a = nullptr; }},
      {ACLNN_ERR_PARAM_NULLPTR, "x2Scale", [](MxmmArgs &a) { a.b_scale = nullptr; }},
      {ACLNN_ERR_PARAM_NULLPTR, "x1ScaleOptional", [](MxmmArgs &a) { a.a_scale = nullptr; }},
      {ACLNN_ERR_PARAM_NULLPTR, "activationType", [](MxmmArgs &a) { a.activation = nullptr; }},
      {ACLNN_ERR_PARAM_NULLPTR, "quantMode", [](MxmmArgs &a) { a.quant_mode = nullptr; }},
      {ACLNN_ERR_PARAM_NULLPTR, "roundMode", [](MxmmArgs &a) { a.round_mode = nullptr; }},
      {ACLNN_ERR_PARAM_NULLPTR, "yOut", [](MxmmArgs &a) { a.y = nullptr; }},
      {ACLNN_ERR_PARAM_NULLPTR, "yScaleOut", [](MxmmArgs &a) { a.y_scale = nullptr; }},
      {ACLNN_ERR_PARAM_INVALID, "x1", [&](MxmmArgs &a) { a.a = f16; }},
      {ACLNN_ERR_PARAM_INVALID, "x2", [&](MxmmArgs &a) { a.b = e5; }},
      {ACLNN_ERR_PARAM_INVALID, "x2", [&](MxmmArgs &a) { a.b = badk; }},
      {ACLNN_ERR_PARAM_INVALID, "x1ScaleOptional", [&](MxmmArgs &a) { a.a_scale = s1bad; }},
      {ACLNN_ERR_PARAM_INVALID, "x2Scale", [&](MxmmArgs &a) { a.b_scale = s2f; }},
      {ACLNN_ERR_PARAM_INVALID, "biasOptional", [&](MxmmArgs &a) { a.bias = biasbad; }},
      {ACLNN_ERR_PARAM_INVALID, "biasOptional", [&](MxmmArgs &a) { a.bias = biasf16; }},
      {ACLNN_ERR_PARAM_INVALID, "groupSize", [](MxmmArgs &a) { a.group_size = 64; }},
      {ACLNN_ERR_PARAM_INVALID, "activationType", [](MxmmArgs &a) { a.activation = "relu"; }},
      {ACLNN_ERR_PARAM_INVALID, "quantMode", [](MxmmArgs &a) { a.quant_mode = "pertoken"; }},
      {ACLNN_ERR_PARAM_INVALID, "roundMode", [](MxmmArgs &a) { a.round_mode = "floor"; }},
      {ACLNN_ERR_PARAM_INVALID, "scaleAlg", [](MxmmArgs &a) { a.scale_alg = 2; }},
      {ACLNN_ERR_PARAM_INVALID, "yOut", [&](MxmmArgs &a) { a.y = y5; }},
      {ACLNN_ERR_PARAM_INVALID, "yOut", [&](MxmmArgs &a) { a.y = ybad; }},
      {ACLNN_ERR_PARAM_INVALID, "yOut", [&](MxmmArgs &a) { a.y = *ystrided; }},
      {ACLNN_ERR_PARAM_INVALID, "yScaleOut", [&](MxmmArgs &a) { a.y_scale = ysbad; }},
      {ACLNN_ERR_PARAM_INVALID, "x1", [&](MxmmArgs &a) { a.a = empty; }},
      {ACLNN_ERR_PARAM_INVALID, "k = 1", [&](MxmmArgs &a) { a.a = k1; a.b = x2k1; }},
      {ACLNN_ERR_PARAM_INVALID, "transposeX1", [&](MxmmArgs &a) { a.a = x1t; a.trans_a = true; a.a_scale = s1t; }},
      {ACLNN_ERR_PARAM_INVALID, "batch dims", [&](MxmmArgs &a) { a.b = *x2b.t; a.b_scale = *s2b.t; }},
      {ACLNN_ERR_PARAM_INVALID, "biasOptional", [&](MxmmArgs &a) { a.bias = bias3; }},
      {ACLNN_ERR_PARAM_INVALID, "x2", [&](MxmmArgs &a) { a.b = nzbad; }},
      {ACLNN_ERR_PARAM_INVALID, "dstTypeMax", [&](MxmmArgs &a) { fp4(a); a.scale_alg = 2; a.dst_type_max = 5.0; }},
      {ACLNN_ERR_PARAM_INVALID, "roundMode", [&](MxmmArgs &a) { fp4(a); a.round_mode = "ceil"; }},
      {ACLNN_ERR_PARAM_INVALID, "scaleAlg", [&](MxmmArgs &a) { fp4(a); a.scale_alg = 1; }},
      {ACLNN_ERR_PARAM_INVALID, "even", [&](MxmmArgs &a) { fp4(a); a.b = *f4x2odd.t; a.b_scale = s2odd; a.y = f4yodd; }},
      {ACLNN_ERR_PARAM_INVALID, "x2", [&](MxmmArgs &a) { a.a = *f4x1.t; a.y = f4y; }},
  };
  expect_refused(c, [&] { return p.args(); }, bad);
}

// ---- DualLevelQuantMatmulWeightNz ----

TEST(OpTableMxmm, DualLevelAgainstFloat64) {
  reseed_for_current_test();
  auto &g = rng();
  const MxmmTableCase &c = find_case("DualLevelQuantMatmulWeightNz");
  for (int it = 0; it < 8; ++it) {
    const int64_t m = 1 + static_cast<int64_t>(g() % 20), n = 1 + static_cast<int64_t>(g() % 40);
    const int64_t k = it < 2 ? 1024 : 2 * (1 + static_cast<int64_t>(g() % 700)), groups = cdiv(k, 512),
                  pairs = cdiv(k, 64);
    const bool nz = it % 2 == 0, padded = it % 4 == 1, bias_on = it % 3 != 0;
    const aclDataType odt = it % 2 ? ACL_BF16 : ACL_FLOAT16;
    SCOPED_TRACE(testing::Message() << "m " << m << " n " << n << " k " << k << " nz " << nz << " padded " << padded);
    Codes x1 = random_codes({m, k}, ACL_FLOAT4_E2M1, padded);
    Codes x2 = random_codes({n, k}, ACL_FLOAT4_E2M1, false);
    auto x2nz = nz_codes({n, k}, ACL_FLOAT4_E2M1, x2.v);
    Codes s1 = random_codes({m, pairs, 2}, ACL_FLOAT8_E8M0, padded, 120, 132);
    Codes s2 = random_codes({n, pairs, 2}, ACL_FLOAT8_E8M0, false, 120, 132);
    if (it % 3 == 2) {  // a block scaled by 2^-127: not BF16 normals, the fp32 plan serves the launch
      s1.v[0] = 0;
      put_codes(*s1.t, s1.v, padded ? 2 : 0);
    }
    Dev l1 = padded ? padded_view({m, groups}, ACL_FLOAT, 3) : std::make_unique<DeviceTensor>(Shape{m, groups}, ACL_FLOAT);
    DeviceTensor l2({groups, n}, ACL_FLOAT), bias({n}, ACL_FLOAT);
    l1->fill_random(-2, 2);
    l2.fill_random(0.25, 2);
    bias.fill_random(-8, 8);
    Dev out = padded ? padded_view({m, n}, odt, 3) : std::make_unique<DeviceTensor>(Shape{m, n}, odt);
    MxmmArgs a;
    a.a = *x1.t;
    a.b = nz ? x2nz->get() : x2.t->get();
    a.a_l0 = *l1;
    a.b_l0 = l2;
    a.a_scale = *s1.t;
    a.b_scale = *s2.t;
    a.bias = bias_on ? bias.get() : nullptr;
    a.trans_b = true;
    a.y = *out;
    ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
    const auto l1v = l1->values(), l2v = l2.values(), bv = bias.values();
    const lfref::Fmt f = lfref::fmt_of(ACL_FLOAT4_E2M1);
    std::vector<double> want(static_cast<size_t>(m * n)), bound(want.size());
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = bias_on ? bv[j] : 0.0, mag = std::fabs(sum);
        for (int64_t gi = 0; gi < groups; ++gi) {
          double inner = 0, inner_mag = 0;
          for (int64_t blk = gi * 16; blk < std::min(cdiv(k, 32), gi * 16 + 16); ++blk) {
            double dot = 0, dmag = 0;
            for (int64_t p = blk * 32; p < std::min(k, blk * 32 + 32); ++p) {
              const double t = lfref::value(f, x1.v[i * k + p]) * lfref::value(f, x2.v[j * k + p]);
              dot += t;
              dmag += std::fabs(t);
            }
            const double s = e8m0(s1.v[(i * pairs + blk / 2) * 2 + blk % 2]) * e8m0(s2.v[(j * pairs + blk / 2) * 2 + blk % 2]);
            inner += dot * s;
            inner_mag += dmag * s;
          }
          const double l0 = l1v[i * groups + gi] * l2v[gi * n + j];
          sum += l0 * inner;
          mag += std::fabs(l0) * inner_mag;
        }
        want[i * n + j] = sum;
        bound[i * n + j] = mag;
      }
    EXPECT_TRUE(meets_absolute_bound(*out, want, bound));
  }
}

TEST(OpTableMxmm, DualLevelErrorsNameTheArgument) {
  const MxmmTableCase &c = find_case("DualLevelQuantMatmulWeightNz");
  Codes x1 = random_codes({4, 512}, ACL_FLOAT4_E2M1, false), x2 = random_codes({8, 512}, ACL_FLOAT4_E2M1, false);
  Codes s1 = random_codes({4, 8, 2}, ACL_FLOAT8_E8M0, false, 127, 127), s2 = random_codes({8, 8, 2}, ACL_FLOAT8_E8M0, false, 127, 127);
  DeviceTensor l1({4, 1}, ACL_FLOAT), l2({1, 8}, ACL_FLOAT), out({4, 8}, ACL_BF16), outf({4, 8}, ACL_FLOAT),
      l2bad({8, 1}, ACL_FLOAT), e4({8, 512}, ACL_FLOAT8_E4M3FN), s2bad({8, 4, 2}, ACL_FLOAT8_E8M0),
      x2odd({8, 510}, ACL_FLOAT4_E2M1), biasbad({4}, ACL_FLOAT), outbad({4, 9}, ACL_BF16),
      x1empty({0, 512}, ACL_FLOAT4_E2M1), x13({1, 4, 512}, ACL_FLOAT4_E2M1), l1h({4, 1}, ACL_FLOAT16);
  l1.fill_random(1, 1);
  l2.fill_random(1, 1);
  auto args = [&] {
    MxmmArgs a;
    a.a = *x1.t;
    a.b = *x2.t;
    a.a_l0 = l1;
    a.b_l0 = l2;
    a.a_scale = *s1.t;
    a.b_scale = *s2.t;
    a.trans_b = true;
    a.y = out;
    return a;
  };
  const std::vector<BadCase> bad = {
      {ACLNN_ERR_PARAM_NULLPTR, "x2", [](MxmmArgs &a) { a.b = nullptr; }},
      {ACLNN_ERR_PARAM_NULLPTR, "x1Level0Scale", [](MxmmArgs &a) { a.a_l0 = nullptr; }},
      {ACLNN_ERR_PARAM_NULLPTR, "x2Level1Scale", [](MxmmArgs &a) { a.b_scale = nullptr; }},
      {ACLNN_ERR_PARAM_NULLPTR, "out", [](MxmmArgs &a) { a.y = nullptr; }},
      {ACLNN_ERR_PARAM_INVALID, "x2", [&](MxmmArgs &a) { a.b = e4; }},
      {ACLNN_ERR_PARAM_INVALID, "x2", [&](MxmmArgs &a) { a.b = x2odd; }},
      {ACLNN_ERR_PARAM_INVALID, "x1 is empty", [&](MxmmArgs &a) { a.a = x1empty; }},
      {ACLNN_ERR_PARAM_INVALID, "x1 must be 2-D", [&](MxmmArgs &a) { a.a = x13; }},
      {ACLNN_ERR_PARAM_INVALID, "x1Level0Scale", [&](MxmmArgs &a) { a.a_l0 = l1h; }},
      {ACLNN_ERR_PARAM_INVALID, "x2Level0Scale", [&](MxmmArgs &a) { a.b_l0 = l2bad; }},
      {ACLNN_ERR_PARAM_INVALID, "x2Level1Scale", [&](MxmmArgs &a) { a.b_scale = s2bad; }},
      {ACLNN_ERR_PARAM_INVALID, "optionalBias", [&](MxmmArgs &a) { a.bias = biasbad; }},
      {ACLNN_ERR_PARAM_INVALID, "out", [&](MxmmArgs &a) { a.y = outf; }},
      {ACLNN_ERR_PARAM_INVALID, "out", [&](MxmmArgs &a) { a.y = outbad; }},
      {ACLNN_ERR_PARAM_INVALID, "transposeX1", [](MxmmArgs &a) { a.trans_a = true; }},
      {ACLNN_ERR_PARAM_INVALID, "transposeX2", [](MxmmArgs &a) { a.trans_b = false; }},
      {ACLNN_ERR_PARAM_INVALID, "level0GroupSize", [](MxmmArgs &a) { a.level0_group = 256; }},
      {ACLNN_ERR_PARAM_INVALID, "level1GroupSize", [](MxmmArgs &a) { a.level1_group = 64; }},
  };
  expect_refused(c, args, bad);
}

// ---- MatmulEmuSplitWeight ----

TEST(OpTableMxmm, EmuSplitAgainstFloat64) {
  reseed_for_current_test();
  auto &g = rng();
  const MxmmTableCase &c = find_case("MatmulEmuSplitWeight");
  for (int it = 0; it < 10; ++it) {
    const int64_t m = 1 + static_cast<int64_t>(g() % 70), k = 1 + static_cast<int64_t>(g() % 200),
                  n = 1 + static_cast<int64_t>(g() % 90);
    const int view = it % 3;  // 0 contiguous, 1 padded + offset, 2 transposed
    SCOPED_TRACE(testing::Message() << "m " << m << " k " << k << " n " << n << " view " << view);
    auto make = [&](const Shape &s, aclDataType dt) -> Dev {
      if (view == 1) return padded_view(s, dt, 3);
      if (view == 2) return transposed_view(s, dt);
      return std::make_unique<DeviceTensor>(s, dt);
    };
    Dev x = make({m, k}, ACL_BF16), wh = make({k, n}, ACL_BF16), wl = make({k, n}, ACL_BF16), y = make({m, n}, ACL_FLOAT);
    x->fill_random(-2, 2);
    wh->fill_random(-1, 1);
    wl->fill_random(-1, 1);
    y->poison();
    MxmmArgs a;
    a.a = *x;
    a.b = *wh;
    a.b_low = *wl;
    a.y = *y;
    ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
    const auto xv = x->values(), hv = wh->values(), lv = wl->values();
    std::vector<double> want(static_cast<size_t>(m * n)), bound(want.size());
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0, mag = 0;
        for (int64_t p = 0; p < k; ++p) {
          const double w = hv[p * n + j] + 0.00390625 * lv[p * n + j];
          s += xv[i * k + p] * w;
          mag += std::fabs(xv[i * k + p]) * (std::fabs(hv[p * n + j]) + 0.00390625 * std::fabs(lv[p * n + j]));
        }
        want[i * n + j] = s;
        bound[i * n + j] = mag;
      }
    EXPECT_TRUE(meets_absolute_bound(*y, want, bound));
  }
}

TEST(OpTableMxmm, EmuSplitErrorsNameTheArgument) {
  const MxmmTableCase &c = find_case("MatmulEmuSplitWeight");
  DeviceTensor x({4, 8}, ACL_BF16), wh({8, 6}, ACL_BF16), wl({8, 6}, ACL_BF16), y({4, 6}, ACL_FLOAT),
      xf({4, 8}, ACL_FLOAT16), wlbad({8, 5}, ACL_BF16), whk({7, 6}, ACL_BF16), yb({4, 6}, ACL_BF16),
      ybad({4, 5}, ACL_FLOAT), x3({1, 4, 8}, ACL_BF16), xe({0, 8}, ACL_BF16);
  x.fill_random(-1, 1);
  wh.fill_random(-1, 1);
  wl.fill_random(-1, 1);
  auto args = [&] {
    MxmmArgs a;
    a.a = x;
    a.b = wh;
    a.b_low = wl;
    a.y = y;
    return a;
  };
  const std::vector<BadCase> bad = {
      {ACLNN_ERR_PARAM_NULLPTR, "x", [](MxmmArgs &a) { a.a = nullptr; }},
      {ACLNN_ERR_PARAM_NULLPTR, "wHigh", [](MxmmArgs &a) { a.b = nullptr; }},
      {ACLNN_ERR_PARAM_NULLPTR, "wLow", [](MxmmArgs &a) { a.b_low = nullptr; }},
      {ACLNN_ERR_PARAM_NULLPTR, "y", [](MxmmArgs &a) { a.y = nullptr; }},
      {ACLNN_ERR_PARAM_INVALID, "x", [&](MxmmArgs &a) { a.a = xf; }},
      {ACLNN_ERR_PARAM_INVALID, "x", [&](MxmmArgs &a) { a.a = x3; }},
      {ACLNN_ERR_PARAM_INVALID, "x", [&](MxmmArgs &a) { a.a = xe; }},
      {ACLNN_ERR_PARAM_INVALID, "wHigh", [&](MxmmArgs &a) { a.b = whk; a.b_low = whk; }},
      {ACLNN_ERR_PARAM_INVALID, "wLow", [&](MxmmArgs &a) { a.b_low = wlbad; }},
      {ACLNN_ERR_PARAM_INVALID, "y", [&](MxmmArgs &a) { a.y = yb; }},
      {ACLNN_ERR_PARAM_INVALID, "y", [&](MxmmArgs &a) { a.y = ybad; }},
      {ACLNN_ERR_PARAM_INVALID, "wLowScale", [](MxmmArgs &a) { a.low_scale = 0.5f; }},
      {ACLNN_ERR_PARAM_INVALID, "wLowScale", [](MxmmArgs &a) { a.low_scale = NAN; }},
      {ACLNN_ERR_PARAM_INVALID, "yDtype", [](MxmmArgs &a) { a.y_dtype = 1; }},
  };
  expect_refused(c, args, bad);
}

}  // namespace
}  // namespace opsnn::test
