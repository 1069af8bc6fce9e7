#include "kernels/vfusion/msda.h"

#include <cmath>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "common/error.h"
#include "common/half.h"
#include "core/thread_pool.h"
#include "kernels/elementwise/convert.h"

namespace opsnn::kernels {
namespace {

inline double ld(aclDataType dt, const char *base, int64_t off) {
  switch (dt) {
    case ACL_FLOAT: return reinterpret_cast<const float *>(base)[off];
    case ACL_FLOAT16: return half_to_float(reinterpret_cast<const uint16_t *>(base)[off]);
    case ACL_BF16: return bf16_to_float(reinterpret_cast<const uint16_t *>(base)[off]);
    default: return load_one(dt, base, off);
  }
}

// acc[c] += w * row[c * stride], c < n, the row in `dt` (the dtype switch outside the loop).
template <class T, class Load>
void axpy_as(double w, const T *row, int64_t stride, int64_t n, double *acc, Load load) {
  for (int64_t c = 0; c < n; ++c) acc[c] += w * static_cast<double>(load(row[c * stride]));
}
void axpy(aclDataType dt, double w, const char *base, int64_t off, int64_t stride, int64_t n, double *acc) {
  switch (dt) {
    case ACL_FLOAT:
      return axpy_as(w, reinterpret_cast<const float *>(base) + off, stride, n, acc, [](float v) { return v; });
    case ACL_FLOAT16:
      return axpy_as(w, reinterpret_cast<const uint16_t *>(base) + off, stride, n, acc, half_to_float);
    case ACL_BF16:
      return axpy_as(w, reinterpret_cast<const uint16_t *>(base) + off, stride, n, acc, bf16_to_float);
    default:
      for (int64_t c = 0; c < n; ++c) acc[c] += w * load_one(dt, base, off + c * stride);
  }
}

// row[c * stride] = v[c] in `dt`, c < n (one conversion call per row).
void store_row(const double *v, int64_t n, aclDataType dt, char *base, int64_t off, int64_t stride) {
  store_from<double>(v, dt, base + off * static_cast<int64_t>(core::dtype_size(dt)),
                     stride * static_cast<int64_t>(core::dtype_size(dt)), n);
}

struct Level {
  int64_t h, w, start;
};

// The bilinear corners of one sampling point (grid_sample, align_corners = false, zero padding): key index
// (-1: outside the map) and weight of (y0, x0), (y0, x1), (y1, x0), (y1, x1), and the fractions.
struct Corners {
  int64_t key[4];
  double w[4];
  double ax, ay;
  bool any;  // some corner inside
};

Corners corners(const Level &lv, double u, double v) {
  Corners c{};
  const double x = u * static_cast<double>(lv.w) - 0.5, y = v * static_cast<double>(lv.h) - 0.5;
  c.any = x > -1.0 && x < static_cast<double>(lv.w) && y > -1.0 && y < static_cast<double>(lv.h);  // false for NaN
  if (!c.any) return c;
  const double fx = std::floor(x), fy = std::floor(y);
  const int64_t x0 = static_cast<int64_t>(fx), y0 = static_cast<int64_t>(fy);
  c.ax = x - fx;
  c.ay = y - fy;
  const int64_t xs[2] = {x0, x0 + 1}, ys[2] = {y0, y0 + 1};
  const double wx[2] = {1.0 - c.ax, c.ax}, wy[2] = {1.0 - c.ay, c.ay};
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      const bool in = ys[i] >= 0 && ys[i] < lv.h && xs[j] >= 0 && xs[j] < lv.w;
      c.key[i * 2 + j] = in ? lv.start + ys[i] * lv.w + xs[j] : -1;
      c.w[i * 2 + j] = wy[i] * wx[j];
    }
  return c;
}

void forward(const MsdaPlan &P, const MsdaArgs &a, const std::vector<Level> &lv) {
  const aclDataType dt = P.dtype;
  const int64_t C = P.channels;
  core::parallel_for(P.bs * P.queries, 1, [&](int64_t r0, int64_t r1) {
    std::vector<double> acc(static_cast<size_t>(C));
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = r / P.queries, q = r % P.queries;
      for (int64_t h = 0; h < P.heads; ++h) {
        std::fill(acc.begin(), acc.end(), 0.0);
        const int64_t vbase = b * P.value[0] + h * P.value[2];
        for (int64_t l = 0; l < P.levels; ++l)
          for (int64_t p = 0; p < P.points; ++p) {
            const int64_t lo = b * P.loc[0] + q * P.loc[1] + h * P.loc[2] + l * P.loc[3] + p * P.loc[4];
            const Corners k = corners(lv[static_cast<size_t>(l)], ld(dt, a.loc, lo), ld(dt, a.loc, lo + P.loc[5]));
            if (!k.any) continue;
            const double aw = ld(dt, a.attn, b * P.attn[0] + q * P.attn[1] + h * P.attn[2] + l * P.attn[3] + p * P.attn[4]);
            for (int i = 0; i < 4; ++i)
              if (k.key[i] >= 0) axpy(dt, aw * k.w[i], a.value, vbase + k.key[i] * P.value[1], P.value[3], C, acc.data());
          }
        store_row(acc.data(), C, dt, a.out, b * P.out[0] + q * P.out[1] + h * C * P.out[2], P.out[2]);
      }
    }
  });
}

void backward(const MsdaPlan &P, const MsdaArgs &a, const std::vector<Level> &lv) {
  const aclDataType dt = P.dtype;
  const int64_t C = P.channels;
  core::parallel_for(P.bs * P.heads, 1, [&](int64_t t0, int64_t t1) {
    std::vector<double> dv(static_cast<size_t>(P.keys * C)), g(static_cast<size_t>(C)), corner_v(static_cast<size_t>(4 * C));
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t b = t / P.heads, h = t % P.heads;
      std::fill(dv.begin(), dv.end(), 0.0);
      const int64_t vbase = b * P.value[0] + h * P.value[2];
      for (int64_t q = 0; q < P.queries; ++q) {
        std::fill(g.begin(), g.end(), 0.0);
        axpy(dt, 1.0, a.dy, b * P.out[0] + q * P.out[1] + h * C * P.out[2], P.out[2], C, g.data());
        for (int64_t l = 0; l < P.levels; ++l)
          for (int64_t p = 0; p < P.points; ++p) {
            const Level &L = lv[static_cast<size_t>(l)];
            const int64_t lo = b * P.loc[0] + q * P.loc[1] + h * P.loc[2] + l * P.loc[3] + p * P.loc[4];
            const int64_t ao = b * P.attn[0] + q * P.attn[1] + h * P.attn[2] + l * P.attn[3] + p * P.attn[4];
            const Corners k = corners(L, ld(dt, a.loc, lo), ld(dt, a.loc, lo + P.loc[5]));
            const double aw = ld(dt, a.attn, ao);
            double gw = 0, gx = 0, gy = 0;
            if (k.any) {
              std::fill(corner_v.begin(), corner_v.end(), 0.0);
              for (int i = 0; i < 4; ++i)
                if (k.key[i] >= 0)
                  axpy(dt, 1.0, a.value, vbase + k.key[i] * P.value[1], P.value[3], C, corner_v.data() + i * C);
              for (int64_t c = 0; c < C; ++c) {
                const double v00 = corner_v[static_cast<size_t>(c)], v01 = corner_v[static_cast<size_t>(C + c)],
                             v10 = corner_v[static_cast<size_t>(2 * C + c)], v11 = corner_v[static_cast<size_t>(3 * C + c)];
                const double gc = g[static_cast<size_t>(c)];
                gw += gc * (k.w[0] * v00 + k.w[1] * v01 + k.w[2] * v10 + k.w[3] * v11);
                gx += gc * ((1.0 - k.ay) * (v01 - v00) + k.ay * (v11 - v10));
                gy += gc * ((1.0 - k.ax) * (v10 - v00) + k.ax * (v11 - v01));
                for (int i = 0; i < 4; ++i)
                  if (k.key[i] >= 0) dv[static_cast<size_t>(k.key[i] * C + c)] += k.w[i] * aw * gc;
              }
            }
            const int64_t go = b * P.dloc[0] + q * P.dloc[1] + h * P.dloc[2] + l * P.dloc[3] + p * P.dloc[4];
            store_one(aw * gx * static_cast<double>(L.w), dt, a.dloc, go);
            store_one(aw * gy * static_cast<double>(L.h), dt, a.dloc, go + P.dloc[5]);
            store_one(gw, dt, a.dattn, b * P.dattn[0] + q * P.dattn[1] + h * P.dattn[2] + l * P.dattn[3] + p * P.dattn[4]);
          }
      }
      for (int64_t key = 0; key < P.keys; ++key)
        store_row(dv.data() + key * C, C, dt, a.dvalue, b * P.dvalue[0] + key * P.dvalue[1] + h * P.dvalue[2],
                  P.dvalue[3]);
    }
  });
}

}  // namespace

int msda_run(const MsdaPlan &P, const MsdaArgs &a) {
  std::vector<Level> lv(static_cast<size_t>(P.levels));
  for (int64_t l = 0; l < P.levels; ++l) {
    Level &L = lv[static_cast<size_t>(l)];
    L.h = static_cast<int64_t>(load_one(P.shape_dtype, a.shape, l * P.shape[0]));
    L.w = static_cast<int64_t>(load_one(P.shape_dtype, a.shape, l * P.shape[0] + P.shape[1]));
    L.start = static_cast<int64_t>(load_one(P.start_dtype, a.start, l * P.start));
    if (L.h < 0 || L.w < 0 || L.h > P.keys || L.w > P.keys)
      return fail(ACLNN_ERR_PARAM_INVALID, "spatialShape[%lld] = (%lld, %lld) is not a level of at most %lld keys",
                  static_cast<long long>(l), static_cast<long long>(L.h), static_cast<long long>(L.w),
                  static_cast<long long>(P.keys));
    if (L.start < 0 || L.start > P.keys || L.h * L.w > P.keys - L.start)
      return fail(ACLNN_ERR_PARAM_INVALID,
                  "levelStartIndex[%lld] = %lld with spatialShape[%lld] = (%lld, %lld) reaches past value's %lld keys",
                  static_cast<long long>(l), static_cast<long long>(L.start), static_cast<long long>(l),
                  static_cast<long long>(L.h), static_cast<long long>(L.w), static_cast<long long>(P.keys));
  }
  if (P.backward) backward(P, a, lv);
  else forward(P, a, lv);
  return 0;
}

}  // namespace opsnn::kernels
