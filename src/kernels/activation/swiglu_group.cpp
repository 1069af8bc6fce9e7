#include "kernels/activation/swiglu_group.h"

#include <algorithm>
#include <cmath>

#include "aclnn/aclnn_base.h"
#include "common/error.h"
#include "core/dtype.h"
#include "core/thread_pool.h"
#include "kernels/elementwise/convert.h"
#include "kernels/loop/loop_walk.h"
#include "kernels/quant/quant_rows.h"

namespace opsnn::kernels {
namespace {

constexpr int64_t kChunk = 256;  // elements of a half-row per pass (stack buffers: the launch allocates nothing)

int64_t row_offset(const SwigluGroupPlan &P, const SwgRowView &v, int64_t r) {
  return unravel_offset(P.lead_ndim, P.lead_dims, v.lead, r);
}
int64_t flat_offset(const SwgFlatView &v, int64_t r) { return unravel_offset(v.ndim, v.dims, v.strides, r); }

// The clamps keep a NaN (as torch.clamp).
inline float clamp_a(float a, float c) { return c > 0.0f && a > c ? c : a; }
inline float clamp_b(float b, float c) { return c > 0.0f ? (b > c ? c : b < -c ? -c : b) : b; }

struct Rows {
  const SwigluGroupPlan &P;
  const SwigluGroupArgs &a;
  int64_t es;  // element size of the row tensors

  const char *at(const char *base, const SwgRowView &v, int64_t r, int64_t j) const {
    return base + (row_offset(P, v, r) + j * v.last) * es;
  }
  char *at(char *base, const SwgRowView &v, int64_t r, int64_t j) const {
    return base + (row_offset(P, v, r) + j * v.last) * es;
  }
  float weight(int64_t r) const {
    return a.weight != nullptr ? reinterpret_cast<const float *>(a.weight)[flat_offset(P.weight, r)] : 1.0f;
  }

  // The activation of the half-row chunk [j0, j0 + n) of row r into vo (va, vb: its halves, loaded here).
  void activation(int64_t r, int64_t j0, int64_t n, float *va, float *vb, float *vo) const {
    const void *in[2] = {va, vb};
    load_as<float>(P.dtype, at(a.x, P.x, r, j0), P.x.last * es, va, n);
    load_as<float>(P.dtype, at(a.x, P.x, r, P.h + j0), P.x.last * es, vb, n);
    P.act(n, vo, in, P.act_scalars);
  }

  void forward(int64_t r) const {
    const float w = weight(r);
    float va[kChunk], vb[kChunk], vo[kChunk];
    for (int64_t j0 = 0; j0 < P.h; j0 += kChunk) {
      const int64_t n = std::min(kChunk, P.h - j0);
      activation(r, j0, n, va, vb, vo);
      for (int64_t j = 0; j < n; ++j) vo[j] *= w;
      store_from<float>(vo, P.dtype, at(a.y, P.y, r, j0), P.y.last * es, n);
    }
  }

  // SwigluGroupQuant: the activation (yOrigin), the weight, then one INT8 / FLOAT8 block quantisation per
  // quant_block.
  void forward_quant(int64_t r) const {
    const float w = weight(r);
    float va[kChunk], vb[kChunk], vo[kChunk];
    int32_t q[kChunk];
    for (int64_t j0 = 0; j0 < P.h; j0 += kChunk) {
      const int64_t n = std::min(kChunk, P.h - j0);
      activation(r, j0, n, va, vb, vo);
      if (P.origin) store_from<float>(vo, P.dtype, at(a.origin, P.y_origin, r, j0), P.y_origin.last * es, n);
      for (int64_t j = 0; j < n; ++j) vo[j] *= w;
      for (int64_t b0 = 0; b0 < n; b0 += P.quant_block)  // (kChunk is a multiple of the block)
        scale_block(vo + b0, std::min(P.quant_block, n - b0), scale_at(r, (j0 + b0) / P.quant_block));
      char *y = a.y + row_offset(P, P.y, r) + j0 * P.y.last;
      if (P.fp8) {
        for (int64_t j = 0; j < n; ++j)
          reinterpret_cast<uint8_t *>(y)[j * P.y.last] = lf_encode(vo[j], P.fp8_fmt, LfRound::kRint, true);
        continue;
      }
      if (P.int8 != nullptr) {  // vo / 1: the same rounding, saturation and NaN rule as below
        P.int8(vo, n, 1.0f, 0.0f, reinterpret_cast<int8_t *>(y));
        continue;
      }
      for (int64_t j = 0; j < n; ++j) q[j] = quant_round_sat(vo[j], QuantRound::kHalfEven, -128, 127);
      quant_store_ints(q, n, ACL_INT8, false, 0, y, P.y.last);
    }
  }

  float *scale_at(int64_t r, int64_t k) const {
    return reinterpret_cast<float *>(a.scale) + row_offset(P, P.scale, r) + k * P.scale.last;
  }

  // a = max(max |v| over the finite v, 1e-4); scale a / qmax or its power of two above (roundScale); v becomes
  // v * (1 / scale). The product is finite wherever v is (|v| <= a), and +-inf / NaN where v is: the documented
  // "a non-finite product quantises v itself" is quantising the product.
  void scale_block(float *v, int64_t n, float *scale) const {
    float amax = 0.0f;
    for (int64_t j = 0; j < n; ++j)
      if (std::isfinite(v[j])) amax = std::max(amax, std::fabs(v[j]));
    const float a_hat = std::max(amax, 1e-4f), raw = a_hat / P.qmax;
    float inv = P.qmax / a_hat;
    *scale = raw;
    if (P.round_scale) {  // 2^ceil(log2(raw)): frexp gives raw = m 2^e with m in [0.5, 1)
      int e = 0;
      const float m = std::frexp(raw, &e);
      if (m == 0.5f) --e;
      *scale = std::ldexp(1.0f, e);
      inv = std::ldexp(1.0f, -e);
    }
    for (int64_t j = 0; j < n; ++j) v[j] *= inv;
  }

  void backward(int64_t r) const {
    const float w = weight(r), c = P.clamp;
    float g[kChunk], va[kChunk], vb[kChunk], yo[kChunk];
    double dot = 0.0;
    for (int64_t j0 = 0; j0 < P.h; j0 += kChunk) {
      const int64_t n = std::min(kChunk, P.h - j0);
      load_as<float>(P.dtype, at(a.dy, P.dy, r, j0), P.dy.last * es, g, n);
      load_as<float>(P.dtype, at(a.x, P.x, r, j0), P.x.last * es, va, n);
      load_as<float>(P.dtype, at(a.x, P.x, r, P.h + j0), P.x.last * es, vb, n);
      if (a.dweight != nullptr) {
        load_as<float>(P.dtype, at(a.y_origin, P.y_origin, r, j0), P.y_origin.last * es, yo, n);
        for (int64_t j = 0; j < n; ++j) dot += static_cast<double>(g[j]) * yo[j];
      }
      for (int64_t j = 0; j < n; ++j) {
        // In double: silu's derivative crosses zero (x0 ~ -1.28), where fp32 would lose its relative accuracy.
        const double x0 = clamp_a(va[j], c), x1 = clamp_b(vb[j], c);
        const double g0 = static_cast<double>(g[j]) * w, sig = 1.0 / (1.0 + std::exp(-x0));
        const bool pass_a = !(c > 0.0f) || va[j] < c, pass_b = !(c > 0.0f) || (-c < vb[j] && vb[j] < c);
        va[j] = pass_a ? static_cast<float>(g0 * x1 * (sig * (1.0 + x0 * (1.0 - sig)))) : 0.0f;
        vb[j] = pass_b ? static_cast<float>(g0 * x0 * sig) : 0.0f;
      }
      store_from<float>(va, P.dtype, at(a.y, P.y, r, j0), P.y.last * es, n);
      store_from<float>(vb, P.dtype, at(a.y, P.y, r, P.h + j0), P.y.last * es, n);
    }
    if (a.dweight != nullptr) reinterpret_cast<float *>(a.dweight)[flat_offset(P.dweight, r)] = static_cast<float>(dot);
  }

  void zero(int64_t r) const {  // a row past sum(groupIndex)
    const float z[1] = {0.0f};
    if (P.quant) {
      const int32_t zq[1] = {0};
      for (int64_t j = 0; j < P.h; ++j) {
        quant_store_ints(zq, 1, ACL_INT8, false, 0, a.y + row_offset(P, P.y, r) + j * P.y.last, 1);
        if (P.origin) store_from<float>(z, P.dtype, at(a.origin, P.y_origin, r, j), 0, 1);
      }
      for (int64_t k = 0; k < (P.h + P.quant_block - 1) / P.quant_block; ++k) *scale_at(r, k) = 0.0f;
      return;
    }
    const int64_t width = P.backward ? 2 * P.h : P.h;
    for (int64_t j = 0; j < width; ++j) store_from<float>(z, P.dtype, at(a.y, P.y, r, j), 0, 1);
    if (a.dweight != nullptr) reinterpret_cast<float *>(a.dweight)[flat_offset(P.dweight, r)] = 0.0f;
  }
};

}  // namespace

int swiglu_group_run(const SwigluGroupPlan &P, const SwigluGroupArgs &a) {
  int64_t valid = P.rows;
  if (a.group != nullptr) {  // checked before any write
    int64_t sum = 0;
    for (int64_t i = 0; i < P.group_n; ++i) {
      const int64_t v = a.group[i * P.group_stride];
      if (v < 0)
        return fail(ACLNN_ERR_PARAM_INVALID, "groupIndexOptional[%lld] = %lld; group token counts must be >= 0",
                    static_cast<long long>(i), static_cast<long long>(v));
      sum = std::min(sum + v, P.rows);
    }
    valid = sum;
  }
  const Rows rows{P, a, static_cast<int64_t>(core::dtype_size(P.dtype))};
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, P.h));
  core::parallel_for(P.rows, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      if (r >= valid)
        rows.zero(r);
      else if (P.backward)
        rows.backward(r);
      else if (P.quant)
        rows.forward_quant(r);
      else
        rows.forward(r);
    }
  });
  return 0;
}

}  // namespace opsnn::kernels
