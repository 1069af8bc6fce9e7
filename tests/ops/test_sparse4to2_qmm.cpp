// aclnnTransSparse4to2Para and aclnnSparse4to2QuantMatmulWeightNz (src/ops/matmul/quant_matmul.ops,
// scheme sparse4to2 / sparse_pack; ops/matmul/qmm_phase1.h). The encoder is checked by a decoder
// written here from the documented layout (values [K1, ceil(n / 16), 16, 32], one code byte per 8
// values [K1, ceil(n / 16), 16, 8], K1 = ceil(ceil(k / 8) * 4 / 32); a nibble per group of 4, its
// low 2 bits the first kept value's position, its high 2 bits the second's minus 1) and against
// the documented codes of the ATC sparsity table; the matmul against a float64 reference over the
// dense weight (exact int sums, then xScale * sparseWeightScale + bias), and every error path.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "aclnnop/aclnn_sparse4to2quant_matmul_weight_nz.h"
#include "fractal_tensors.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

using Dims = std::vector<int64_t>;
constexpr int kNull = 161001, kInvalid = 161002;

size_t at(int64_t i) { return static_cast<size_t>(i); }

// A random 2:4 sparse [n, k] weight: each group of 4 along k keeps 0, 1 or 2 non-zeros (mostly 2).
std::vector<int8_t> sparse_weight(int64_t n, int64_t k) {
  std::vector<int8_t> w(at(n * k), 0);
  std::uniform_int_distribution<int> val(-128, 127), pos(0, 3), keep(0, 7);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; c += 4) {
      const int want = keep(rng()) == 0 ? 0 : keep(rng()) == 1 ? 1 : 2;
      for (int t = 0; t < want; ++t) {
        const int64_t col = c + pos(rng());
        if (col < k) w[at(r * k + col)] = static_cast<int8_t>(val(rng()) | 1);  // non-zero
      }
    }
  return w;
}

// The outputs of one aclnnTransSparse4to2Para call, freed with free().
struct Packed {
  int8_t *values = nullptr;
  uint8_t *codes = nullptr;
  int64_t *vdims = nullptr, *cdims = nullptr;
  uint64_t vnd = 0, cnd = 0;
  Packed() = default;
  Packed(const Packed &) = delete;
  ~Packed() {
    std::free(values);
    std::free(codes);
    std::free(vdims);
    std::free(cdims);
  }
  int64_t velems() const { return vdims[0] * vdims[1] * vdims[2] * vdims[3]; }
  int64_t celems() const { return cdims[0] * cdims[1] * cdims[2] * cdims[3]; }
};

int pack(const std::vector<int8_t> &w, int64_t n, int64_t k, Packed *p) {
  const int64_t dims[2] = {n, k};
  aclIntArray *shape = aclCreateIntArray(dims, 2);
  const int rc = aclnnTransSparse4to2Para(w.data(), shape, &p->values, &p->vdims, &p->vnd, &p->codes, &p->cdims, &p->cnd);
  aclDestroyIntArray(shape);
  return rc;
}

// The dense weight the documented layout describes.
std::vector<int8_t> reference_decode(const Packed &p, int64_t n, int64_t k) {
  std::vector<int8_t> w(at(n * k), 0);
  const int64_t n16 = p.vdims[1] * 16;
  for (int64_t k1 = 0; k1 < p.vdims[0]; ++k1)
    for (int64_t r = 0; r < n; ++r)
      for (int64_t g = 0; g < 16; ++g) {  // groups of 4 in the block's 64 values
        const int64_t col0 = k1 * 64 + g * 4;
        const uint8_t byte = p.codes[at((k1 * n16 + r) * 8 + g / 2)];
        const int nib = g % 2 == 0 ? byte & 0xF : byte >> 4;
        const int8_t *kept = p.values + (k1 * n16 + r) * 32 + g * 2;
        const int64_t cols[2] = {col0 + (nib & 3), col0 + 1 + (nib >> 2)};
        for (int s = 0; s < 2; ++s) {
          if (kept[s] == 0) continue;
          EXPECT_LT(cols[s], k) << "a kept value past k";
          if (cols[s] < k) w[at(r * k + cols[s])] = kept[s];
        }
      }
  return w;
}

TEST(TransSparse4to2Para, RoundTripsOverShapes) {
  reseed_for_current_test();
  for (const auto &nk : std::vector<Dims>{{1, 1}, {1, 4}, {3, 8}, {16, 64}, {17, 65}, {5, 130}, {33, 200}, {2, 7}}) {
    const int64_t n = nk[0], k = nk[1];
    SCOPED_TRACE("n k " + std::to_string(n) + " " + std::to_string(k));
    const std::vector<int8_t> w = sparse_weight(n, k);
    Packed p;
    ASSERT_EQ(pack(w, n, k, &p), 0) << aclGetRecentErrMsg();
    const int64_t k_half = (k + 7) / 8 * 4, k1 = (k_half + 31) / 32, n1 = (n + 15) / 16;
    ASSERT_EQ(p.vnd, 4u);
    ASSERT_EQ(p.cnd, 4u);
    EXPECT_EQ(Dims(p.vdims, p.vdims + 4), (Dims{k1, n1, 16, 32}));
    EXPECT_EQ(Dims(p.cdims, p.cdims + 4), (Dims{k1, n1, 16, 8}));
    EXPECT_EQ(reference_decode(p, n, k), w);
    for (int64_t r = n; r < n1 * 16; ++r)  // padding rows hold zeros
      for (int64_t b = 0; b < k1; ++b)
        for (int64_t e = 0; e < 32; ++e) EXPECT_EQ(p.values[at((b * n1 * 16 + r) * 32 + e)], 0);
  }
}

// The codes of the documented table (ATC --sparsity): [0 0 X Y] -> (2, 2), [0 X 0 Y] -> (1, 2),
// [0 0 0 X] -> (0, 2), [0 0 0 0] -> (0, 0); and one with the first pair kept, [X Y 0 0] -> (0, 0).
TEST(TransSparse4to2Para, DocumentedCodes) {
  const std::vector<int8_t> w = {0, 0, 5, 7, 0, 3, 0, -2, 0, 0, 0, 9, 0, 0, 0, 0, 4, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  Packed p;
  ASSERT_EQ(pack(w, 1, 32, &p), 0) << aclGetRecentErrMsg();
  EXPECT_EQ(p.codes[0], (0b1010) | (0b1001 << 4));
  EXPECT_EQ(p.codes[1], (0b1000) | (0b0000 << 4));
  EXPECT_EQ(p.codes[2], 0);
  const std::vector<int8_t> kept(p.values, p.values + 10);
  EXPECT_EQ(kept, (std::vector<int8_t>{5, 7, 3, -2, 0, 9, 0, 0, 4, 6}));
}

TEST(TransSparse4to2Para, Errors) {
  std::vector<int8_t> w(32, 0);
  const int64_t dims[2] = {2, 16}, one[1] = {32}, bad[2] = {0, 32};
  aclIntArray *shape = aclCreateIntArray(dims, 2), *shape1 = aclCreateIntArray(one, 1), *shape0 = aclCreateIntArray(bad, 2);
  int8_t *v = nullptr;
  uint8_t *c = nullptr;
  int64_t *vd = nullptr, *cd = nullptr;
  uint64_t vn = 0, cn = 0;
  EXPECT_TRUE(fails_with(aclnnTransSparse4to2Para(nullptr, shape, &v, &vd, &vn, &c, &cd, &cn), kNull, {"weight"}));
  EXPECT_TRUE(fails_with(aclnnTransSparse4to2Para(w.data(), nullptr, &v, &vd, &vn, &c, &cd, &cn), kNull, {"shape"}));
  EXPECT_TRUE(fails_with(aclnnTransSparse4to2Para(w.data(), shape, nullptr, &vd, &vn, &c, &cd, &cn), kNull, {"sparseWeight"}));
  EXPECT_TRUE(fails_with(aclnnTransSparse4to2Para(w.data(), shape, &v, nullptr, &vn, &c, &cd, &cn), kNull, {"sparseWeightDims"}));
  EXPECT_TRUE(fails_with(aclnnTransSparse4to2Para(w.data(), shape, &v, &vd, nullptr, &c, &cd, &cn), kNull, {"sparseWeightDimsNum"}));
  EXPECT_TRUE(fails_with(aclnnTransSparse4to2Para(w.data(), shape, &v, &vd, &vn, nullptr, &cd, &cn), kNull, {"index"}));
  EXPECT_TRUE(fails_with(aclnnTransSparse4to2Para(w.data(), shape, &v, &vd, &vn, &c, nullptr, &cn), kNull, {"indexDims"}));
  EXPECT_TRUE(fails_with(aclnnTransSparse4to2Para(w.data(), shape, &v, &vd, &vn, &c, &cd, nullptr), kNull, {"indexDimsNum"}));
  EXPECT_TRUE(fails_with(aclnnTransSparse4to2Para(w.data(), shape1, &v, &vd, &vn, &c, &cd, &cn), kInvalid, {"shape"}));
  EXPECT_TRUE(fails_with(aclnnTransSparse4to2Para(w.data(), shape0, &v, &vd, &vn, &c, &cd, &cn), kInvalid, {"shape"}));
  w[20] = 1;  // row 1, columns 4..7: three non-zeros
  w[21] = 2;
  w[23] = 3;
  EXPECT_TRUE(fails_with(aclnnTransSparse4to2Para(w.data(), shape, &v, &vd, &vn, &c, &cd, &cn), kInvalid,
                         {"weight", "row 1", "columns 4..7"}));
  EXPECT_EQ(v, nullptr);  // nothing handed out on an error
  EXPECT_EQ(c, nullptr);
  aclDestroyIntArray(shape);
  aclDestroyIntArray(shape1);
  aclDestroyIntArray(shape0);
}

// ---- aclnnSparse4to2QuantMatmulWeightNz

// The pair as device tensors: sparseWeight INT8 view (n, k_half) over the value blocks, index UINT8
// view (n, ceil(k / 8)) over the code blocks (codes_blocks: the 4-D view of the blocks themselves).
struct SparseOperands {
  std::unique_ptr<FractalTensor> values, codes;
  SparseOperands(const Packed &p, int64_t n, int64_t k, aclFormat format, bool codes_blocks = false) {
    values = std::make_unique<FractalTensor>(Dims{n, (k + 7) / 8 * 4}, ACL_INT8, format, Dims(p.vdims, p.vdims + 4),
                                             p.velems());
    const Dims cblocks(p.cdims, p.cdims + 4);
    codes = std::make_unique<FractalTensor>(codes_blocks ? cblocks : Dims{n, (k + 7) / 8}, ACL_UINT8, ACL_FORMAT_ND,
                                            cblocks, p.celems());
    write(p);
  }
  void write(const Packed &p) {
    EXPECT_EQ(aclrtMemcpy(values->data(), at(p.velems()), p.values, at(p.velems()), ACL_MEMCPY_HOST_TO_DEVICE), 0);
    EXPECT_EQ(aclrtMemcpy(codes->data(), at(p.celems()), p.codes, at(p.celems()), ACL_MEMCPY_HOST_TO_DEVICE), 0);
  }
};

struct MatmulCase {
  int64_t m, k, n;
  bool bias, padded_x, nz_format, codes_blocks;
};

struct Reference {
  std::vector<double> value, bound;
};

Reference reference(const DeviceTensor &x, const std::vector<int8_t> &w, const DeviceTensor &xs, const DeviceTensor &ws,
                    const DeviceTensor *bias, int64_t m, int64_t k, int64_t n) {
  const auto vx = x.values(), vxs = xs.values(), vws = ws.values();
  const auto vb = bias != nullptr ? bias->values() : std::vector<double>{};
  Reference r;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t acc = 0;
      for (int64_t p = 0; p < k; ++p) acc += static_cast<int64_t>(vx[at(i * k + p)]) * w[at(j * k + p)];
      const double prod = static_cast<double>(acc) * vxs[at(i)] * vws[at(j)];
      const double b = bias != nullptr ? vb[at(j)] : 0.0;
      r.value.push_back(prod + b);
      r.bound.push_back(std::fabs(prod) + std::fabs(b));
    }
  return r;
}

void check_matmul(const MatmulCase &t) {
  const int64_t m = t.m, k = t.k, n = t.n;
  SCOPED_TRACE("m k n " + std::to_string(m) + " " + std::to_string(k) + " " + std::to_string(n) + " bias " +
               std::to_string(t.bias) + " padded x " + std::to_string(t.padded_x) + " nz " + std::to_string(t.nz_format) +
               " index blocks " + std::to_string(t.codes_blocks));
  const std::vector<int8_t> w = sparse_weight(n, k);
  Packed p;
  ASSERT_EQ(pack(w, n, k, &p), 0) << aclGetRecentErrMsg();
  SparseOperands sw(p, n, k, t.nz_format ? ACL_FORMAT_FRACTAL_NZ : ACL_FORMAT_ND, t.codes_blocks);
  auto x = t.padded_x ? padded_view({m, k}, ACL_INT8) : std::make_unique<DeviceTensor>(Dims{m, k}, ACL_INT8);
  DeviceTensor xs({m}, ACL_FLOAT), ws({n}, ACL_FLOAT), out({m, n}, ACL_BF16);
  auto bias = t.bias ? std::make_unique<DeviceTensor>(Dims{n}, ACL_BF16) : nullptr;
  x->fill_random(-128, 127);
  xs.fill_random(0.25, 2.0);
  ws.fill_random(-1.0 / k, 1.0 / k);
  if (bias) bias->fill_random(-3, 3);
  const Reference ref = reference(*x, w, xs, ws, bias.get(), m, k, n);
  ASSERT_EQ(run_op([&](uint64_t *wsz, aclOpExecutor **ex) {
              return aclnnSparse4to2QuantMatmulWeightNzGetWorkspaceSize(*x, *sw.values, *sw.codes, xs, ws,
                                                                       bias ? bias->get() : nullptr, out, wsz, ex);
            }, aclnnSparse4to2QuantMatmulWeightNz), 0) << aclGetRecentErrMsg();
  EXPECT_TRUE(meets_absolute_bound(out, ref.value, ref.bound));
}

TEST(Sparse4to2QuantMatmulWeightNz, MatchesDenseReference) {
  reseed_for_current_test();
  int i = 0;
  for (bool bias : {true, false})
    for (bool padded : {false, true})
      for (bool nz : {true, false}) {
        check_matmul({1 + (i * 7) % 19, 1 + (i * 37) % 150, 1 + (i * 11) % 40, bias, padded, nz, i % 3 == 0});
        ++i;
      }
  check_matmul({64, 512, 128, true, false, true, false});  // the documented sample's shape
  check_matmul({33, 1000, 70, false, true, false, true});
}

// A repeatable executor decodes once and decodes again after the pair's bytes are rewritten.
TEST(Sparse4to2QuantMatmulWeightNz, KeptDenseCopyFollowsWrites) {
  reseed_for_current_test();
  const int64_t m = 5, k = 96, n = 20;
  const std::vector<int8_t> w1 = sparse_weight(n, k), w2 = sparse_weight(n, k);
  Packed p1, p2;
  ASSERT_EQ(pack(w1, n, k, &p1), 0);
  ASSERT_EQ(pack(w2, n, k, &p2), 0);
  SparseOperands sw(p1, n, k, ACL_FORMAT_FRACTAL_NZ);
  DeviceTensor x({m, k}, ACL_INT8), xs({m}, ACL_FLOAT), ws({n}, ACL_FLOAT), out({m, n}, ACL_BF16);
  x.fill_random(-128, 127);
  xs.fill_random(0.5, 1.5);
  ws.fill_random(-0.01, 0.01);
  uint64_t wsz = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(aclnnSparse4to2QuantMatmulWeightNzGetWorkspaceSize(x, *sw.values, *sw.codes, xs, ws, nullptr, out, &wsz, &ex), 0)
      << aclGetRecentErrMsg();
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  void *wsp = nullptr;
  if (wsz > 0) ASSERT_EQ(aclrtMalloc(&wsp, wsz, ACL_MEM_MALLOC_HUGE_FIRST), 0);
  for (int launch = 0; launch < 3; ++launch) {
    SCOPED_TRACE("launch " + std::to_string(launch));
    if (launch == 2) sw.write(p2);  // both buffers rewritten through the runtime
    out.poison();
    ASSERT_EQ(aclnnSparse4to2QuantMatmulWeightNz(wsp, wsz, ex, nullptr), 0);
    ASSERT_EQ(aclrtSynchronizeDevice(), 0);
    const Reference ref = reference(x, launch == 2 ? w2 : w1, xs, ws, nullptr, m, k, n);
    EXPECT_TRUE(meets_absolute_bound(out, ref.value, ref.bound));
  }
  // Only the codes rewritten (same values): the dense copy must follow them too.
  std::vector<int8_t> w3 = w2;
  Packed p3;
  for (int64_t r = 0; r < n; ++r)  // move each group's kept values: same value bytes, other codes
    for (int64_t c = 0; c < k; c += 4) {
      int8_t *g = w3.data() + r * k + c;
      if (g[0] == 0 && g[1] != 0 && g[2] == 0 && g[3] == 0) std::swap(g[0], g[1]);
    }
  ASSERT_EQ(pack(w3, n, k, &p3), 0);
  ASSERT_EQ(std::memcmp(p3.values, p2.values, at(p2.velems())), 0);
  EXPECT_EQ(aclrtMemcpy(sw.codes->data(), at(p3.celems()), p3.codes, at(p3.celems()), ACL_MEMCPY_HOST_TO_DEVICE), 0);
  ASSERT_EQ(aclnnSparse4to2QuantMatmulWeightNz(wsp, wsz, ex, nullptr), 0);
  ASSERT_EQ(aclrtSynchronizeDevice(), 0);
  const Reference ref = reference(x, w3, xs, ws, nullptr, m, k, n);
  EXPECT_TRUE(meets_absolute_bound(out, ref.value, ref.bound));
  aclDestroyAclOpExecutor(ex);
  if (wsp) aclrtFree(wsp);
}

TEST(Sparse4to2QuantMatmulWeightNz, Errors) {
  reseed_for_current_test();
  const int64_t m = 4, k = 40, n = 18;
  Packed p;
  ASSERT_EQ(pack(sparse_weight(n, k), n, k, &p), 0);
  SparseOperands sw(p, n, k, ACL_FORMAT_FRACTAL_NZ);
  DeviceTensor x({m, k}, ACL_INT8), xs({m}, ACL_FLOAT), ws({n}, ACL_FLOAT), bias({n}, ACL_BF16), out({m, n}, ACL_BF16);
  DeviceTensor x16({m, k}, ACL_FLOAT16), x0({0, k}, ACL_INT8), out0({0, n}, ACL_BF16), xk({m, k + 8}, ACL_INT8);
  DeviceTensor xsbad({m + 1}, ACL_FLOAT), xs16({m}, ACL_FLOAT16), wsbad({n + 1}, ACL_FLOAT), bias32({n}, ACL_FLOAT);
  DeviceTensor out16({m, n}, ACL_FLOAT16), outbad({m, n + 1}, ACL_BF16), x3({1, m, k}, ACL_INT8), xs0({0}, ACL_FLOAT);
  // The pair with wrong dtypes / shapes / storage.
  FractalTensor v16({n, 20}, ACL_FLOAT16, ACL_FORMAT_ND, Dims(p.vdims, p.vdims + 4), p.velems());
  FractalTensor vshape({n + 1, 20}, ACL_INT8, ACL_FORMAT_ND, Dims(p.vdims, p.vdims + 4), p.velems());
  FractalTensor vsmall({n, 20}, ACL_INT8, ACL_FORMAT_ND, Dims{n, 20}, n * 20);
  FractalTensor c8({n, 5}, ACL_INT8, ACL_FORMAT_ND, Dims(p.cdims, p.cdims + 4), p.celems());
  FractalTensor cshape({n, 6}, ACL_UINT8, ACL_FORMAT_ND, Dims(p.cdims, p.cdims + 4), p.celems());
  FractalTensor csmall({n, 5}, ACL_UINT8, ACL_FORMAT_ND, Dims{n, 5}, n * 5);
  Dims cblocks_bad(p.cdims, p.cdims + 4);
  cblocks_bad[3] = 4;  // a 4-D view that is not the blocks
  FractalTensor cblocks({cblocks_bad}, ACL_UINT8, ACL_FORMAT_ND, Dims(p.cdims, p.cdims + 4), p.celems());
  auto call = [&](const aclTensor *a, const aclTensor *v, const aclTensor *c, const aclTensor *s1, const aclTensor *s2,
                  const aclTensor *b, aclTensor *o) {
    uint64_t wsz = 0;
    aclOpExecutor *ex = nullptr;
    const int rc = aclnnSparse4to2QuantMatmulWeightNzGetWorkspaceSize(a, v, c, s1, s2, b, o, &wsz, &ex);
    if (rc == 0) aclDestroyAclOpExecutor(ex);
    return rc;
  };
  aclTensor *V = *sw.values, *C = *sw.codes;
  EXPECT_TRUE(fails_with(call(nullptr, V, C, xs, ws, bias, out), kNull, {"x"}));
  EXPECT_TRUE(fails_with(call(x, nullptr, C, xs, ws, bias, out), kNull, {"sparseWeight"}));
  EXPECT_TRUE(fails_with(call(x, V, nullptr, xs, ws, bias, out), kNull, {"index"}));
  EXPECT_TRUE(fails_with(call(x, V, C, nullptr, ws, bias, out), kNull, {"xScale"}));
  EXPECT_TRUE(fails_with(call(x, V, C, xs, nullptr, bias, out), kNull, {"sparseWeightScale"}));
  EXPECT_TRUE(fails_with(call(x, V, C, xs, ws, bias, nullptr), kNull, {"out"}));
  EXPECT_TRUE(fails_with(call(x16, V, C, xs, ws, bias, out), kInvalid, {"x", "FLOAT16"}));
  EXPECT_TRUE(fails_with(call(x3, V, C, xs, ws, bias, out), kInvalid, {"x"}));
  EXPECT_TRUE(fails_with(call(xk, V, C, xs, ws, bias, out), kInvalid, {"sparseWeight"}));
  EXPECT_TRUE(fails_with(call(x, v16, C, xs, ws, bias, out), kInvalid, {"sparseWeight", "FLOAT16"}));
  EXPECT_TRUE(fails_with(call(x, vshape, C, xs, ws, bias, out), kInvalid, {"index"}));
  EXPECT_TRUE(fails_with(call(x, vsmall, C, xs, ws, bias, out), kInvalid, {"sparseWeight", "storage"}));
  EXPECT_TRUE(fails_with(call(x, V, c8, xs, ws, bias, out), kInvalid, {"index", "INT8"}));
  EXPECT_TRUE(fails_with(call(x, V, cshape, xs, ws, bias, out), kInvalid, {"index"}));
  EXPECT_TRUE(fails_with(call(x, V, csmall, xs, ws, bias, out), kInvalid, {"index", "storage"}));
  EXPECT_TRUE(fails_with(call(x, V, cblocks, xs, ws, bias, out), kInvalid, {"index", "its blocks"}));
  EXPECT_TRUE(fails_with(call(x, V, C, xsbad, ws, bias, out), kInvalid, {"xScale"}));
  EXPECT_TRUE(fails_with(call(x, V, C, xs16, ws, bias, out), kInvalid, {"xScale", "FLOAT16"}));
  EXPECT_TRUE(fails_with(call(x, V, C, xs, wsbad, bias, out), kInvalid, {"sparseWeightScale"}));
  EXPECT_TRUE(fails_with(call(x, V, C, xs, ws, bias32, out), kInvalid, {"biasOptional", "FLOAT"}));
  EXPECT_TRUE(fails_with(call(x, V, C, xs, ws, bias, out16), kInvalid, {"out", "FLOAT16"}));
  EXPECT_TRUE(fails_with(call(x, V, C, xs, ws, bias, outbad), kInvalid, {"out"}));
  EXPECT_TRUE(fails_with(call(x0, V, C, xs0, ws, bias, out0), kInvalid, {"empty"}));
  EXPECT_EQ(call(x, V, C, xs, ws, nullptr, out), 0) << aclGetRecentErrMsg();
}

}  // namespace
}  // namespace opsnn::test
