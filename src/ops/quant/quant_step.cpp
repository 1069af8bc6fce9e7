#include "ops/quant/quant_step.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/error.h"
#include "core/thread_pool.h"

namespace opsnn::ops {

using kernels::quant_load_row;
using kernels::quant_round_sat;

int64_t QuantOperand::row_offset(int64_t r) const {
  int64_t off = 0;
  for (int d = nd - 2; d >= 0; --d) {
    off += (r % dims[d]) * strides[d];
    r /= dims[d];
  }
  return off;
}

namespace {

float read_one(const core::LaunchArgs &a, const QuantOperand &t, int64_t index) {
  float v = 0.0f;
  quant_load_row(t.base(a) + index * t.step * static_cast<int64_t>(core::dtype_size(t.dt)), t.dt, 1, 1, &v);
  return v;
}

// n values of a parameter for row r: one value, a row along the last dim, or the row's axis value.
void param_row(const core::LaunchArgs &a, const QuantOperand &p, QuantAlong along, int64_t index, int64_t n,
               float *dst) {
  if (along == QuantAlong::kLast && p.step != 0) {
    quant_load_row(p.base(a), p.dt, p.step, n, dst);
    return;
  }
  std::fill(dst, dst + n, read_one(a, p, index));
}

char *row_ptr(const core::LaunchArgs &a, const QuantOperand &t, int64_t r) {
  return t.base(a) + t.row_offset(r) * static_cast<int64_t>(core::dtype_size(t.dt));
}

}  // namespace

int64_t QuantStep::param_index(int64_t r, int64_t j) const {
  switch (along) {
    case QuantAlong::kOne: return 0;
    case QuantAlong::kLast: return j;
    default: return (r / axis_inner) % axis_size;
  }
}

int64_t QuantStep::group_of(const core::LaunchArgs &a, int64_t r) const {
  const char *g = group.base(a);
  int64_t end = 0;
  for (int64_t e = 0; e < groups; ++e) {
    const int64_t v = group.dt == ACL_INT64 ? reinterpret_cast<const int64_t *>(g)[e * group.step]
                                            : reinterpret_cast<const int32_t *>(g)[e * group.step];
    end = group_counts ? end + v : v;  // row counts (SwiGluQuantV2's groupListType 1) or cumulative ends
    if (r < end) return e;
  }
  return groups - 1;
}

void QuantStep::load_x(const core::LaunchArgs &a, int64_t r, float *dst) const {
  if (x_packed) {
    kernels::quant_load_int4_row(reinterpret_cast<const uint8_t *>(x.base(a)), r * n, n, dst);
    return;
  }
  quant_load_row(row_ptr(a, x, r), x.dt, x.strides[x.nd - 1], n, dst);
}

void QuantStep::store_y(const core::LaunchArgs &a, int64_t r, const int32_t *q) const {
  if (y_packed) {
    kernels::quant_store_ints(q, n, y.dt, true, r * n, y.base(a), 1);
    return;
  }
  kernels::quant_store_ints(q, n, y.dt, false, 0, row_ptr(a, y, r), y.strides[y.nd - 1]);
}

// AscendQuant(V3), Quantize, GroupQuant: one affine map per element.
void QuantStep::run_affine(const core::LaunchArgs &a, float *buf) const {
  const int64_t nn = n;
  float *xr = buf, *s = buf + 2 * nn, *o = buf + 3 * nn;
  int32_t *q = reinterpret_cast<int32_t *>(buf + nn);
  for (int64_t r = 0; r < rows; ++r) {
    load_x(a, r, xr);
    const int64_t idx = param_index(r, 0);
    if (kind == QuantKind::kGroupQuant) {
      const int64_t e = group_of(a, r);
      quant_load_row(scale.base(a) + e * scale.strides[0] * static_cast<int64_t>(core::dtype_size(scale.dt)),
                     scale.dt, scale.strides[1], nn, s);
    } else {
      param_row(a, scale, along, idx, nn, s);
    }
    if (offset.present) param_row(a, offset, kind == QuantKind::kGroupQuant ? QuantAlong::kOne : along, idx, nn, o);
    if (kind == QuantKind::kQuantize) {
      // PyTorch's quantize_val: zero_point + round(x * (1 / scale)), then clamped.
      for (int64_t j = 0; j < nn; ++j) {
        const float inv = 1.0f / s[j];
        float rv = std::nearbyint(xr[j] * inv);
        if (rv != rv) rv = 0.0f;
        rv = std::min(std::max(rv, -1e12f), 1e12f);
        // A float zero point may be NaN or beyond int64: bounded like the product (the sum is clamped below).
        float zf = offset.present ? std::nearbyint(o[j]) : 0.0f;
        if (zf != zf) zf = 0.0f;
        const int64_t zp = static_cast<int64_t>(std::min(std::max(zf, -1e12f), 1e12f));
        const int64_t v = static_cast<int64_t>(rv) + zp;
        q[j] = static_cast<int32_t>(std::min<int64_t>(std::max<int64_t>(v, lo), hi));
      }
    } else {
      kernels::quant_affine_row(xr, nn, s, 1, offset.present ? o : nullptr, 1, sqrt_mode, round, lo, hi, q);
    }
    store_y(a, r, q);
  }
}

// AscendAntiQuant: (x + offset) * scale (* scale) into FLOAT16 / BF16.
void QuantStep::run_anti(const core::LaunchArgs &a, float *buf) const {
  const int64_t nn = n;
  float *xr = buf, *v = buf + nn, *s = buf + 2 * nn, *o = buf + 3 * nn;
  param_row(a, scale, along, 0, nn, s);
  if (offset.present) param_row(a, offset, along, 0, nn, o);
  for (int64_t r = 0; r < rows; ++r) {
    load_x(a, r, xr);
    for (int64_t j = 0; j < nn; ++j) {
      const float sc = sqrt_mode ? s[j] * s[j] : s[j];
      v[j] = (offset.present ? xr[j] + o[j] : xr[j]) * sc;
    }
    kernels::quant_store_floats(v, nn, y.dt, row_ptr(a, y, r), y.strides[y.nd - 1]);
  }
}

namespace {

// The scale (and asymmetric offset) of values spanning [mn, mx] (absolute maximum amax).
struct DynParams {
  float scale = 0.0f, offset = 0.0f;
};
DynParams dyn_params(bool symmetric, float amax, float mn, float mx, int32_t lo, int32_t hi, float qmax) {
  DynParams p;
  if (symmetric) {
    p.scale = amax / qmax;
  } else {
    p.scale = (mx - mn) / static_cast<float>(hi - lo);
    p.offset = p.scale == 0.0f ? 0.0f : static_cast<float>(hi) - mx / p.scale;
  }
  return p;
}

int32_t dyn_quant(float v, const DynParams &p, bool symmetric, int32_t lo, int32_t hi) {
  if (p.scale == 0.0f) return 0;  // a row of zeros (or constant, asymmetric): no NaN
  const float t = symmetric ? v / p.scale : v / p.scale + p.offset;
  return quant_round_sat(t, kernels::QuantRound::kHalfEven, lo, hi);
}

}  // namespace

// The smooth row of row r (its group's with a group index).
const char *QuantStep::smooth_row(const core::LaunchArgs &a, int64_t r) const {
  const int64_t e = groups > 0 ? group_of(a, r) : 0;
  return smooth.base(a) + e * (groups > 0 ? smooth.strides[0] : 0) * static_cast<int64_t>(core::dtype_size(smooth.dt));
}

// One row of per-token DynamicQuant (buf: this task's 7 * n floats).
void QuantStep::token_row(const core::LaunchArgs &a, int64_t r, float *buf) const {
  const int64_t nn = n;
  float *xr = buf, *sm = buf + 2 * nn;
  int32_t *q = reinterpret_cast<int32_t *>(buf + nn);
  float ext[3] = {0.0f, 0.0f, 0.0f};  // max |in|, min, max
  if (token_fast) {
    token.prep(row_ptr(a, x, r), x.dt, smooth.present ? smooth_row(a, r) : nullptr, nn, xr, ext);
  } else {
    load_x(a, r, xr);
    if (smooth.present) {
      quant_load_row(smooth_row(a, r), smooth.dt, smooth.strides[smooth.nd - 1], nn, sm);
      for (int64_t j = 0; j < nn; ++j) xr[j] *= sm[j];
    }
    ext[1] = std::numeric_limits<float>::infinity();
    ext[2] = -ext[1];
    for (int64_t j = 0; j < nn; ++j) {
      ext[0] = std::fmax(ext[0], std::fabs(xr[j]));
      ext[1] = std::fmin(ext[1], xr[j]);
      ext[2] = std::fmax(ext[2], xr[j]);
    }
  }
  if (nn == 0) ext[1] = ext[2] = 0.0f;
  const DynParams p = dyn_params(symmetric, ext[0], ext[1], ext[2], lo, hi, qmax);
  if (y_fp8) {
    store_fp8_row(a, r, xr, &p.scale, std::max<int64_t>(nn, 1));
  } else if (token_fast && !y_packed && y.strides[y.nd - 1] == 1) {
    token.int8(xr, nn, p.scale, p.offset, reinterpret_cast<int8_t *>(row_ptr(a, y, r)));
  } else {
    for (int64_t j = 0; j < nn; ++j) q[j] = dyn_quant(xr[j], p, symmetric, lo, hi);
    store_y(a, r, q);
  }
  reinterpret_cast<float *>(scale_out.base(a))[r] = p.scale;
  if (offset_out.present) reinterpret_cast<float *>(offset_out.base(a))[r] = p.offset;
}

void QuantStep::store_fp8_row(const core::LaunchArgs &a, int64_t r, const float *v, const float *scale,
                              int64_t per_scale) const {
  uint8_t *yr = reinterpret_cast<uint8_t *>(row_ptr(a, y, r));
  const int64_t ys = y.strides[y.nd - 1];
  for (int64_t j = 0; j < n; ++j) {
    const float s = scale[j / per_scale];
    yr[j * ys] = s == 0.0f ? 0 : kernels::lf_encode(v[j] / s, y_fmt, kernels::LfRound::kRint, true);
  }
}

// DynamicQuant(V2/V3/V4): scales from the data, per token, per tensor or per channel.
void QuantStep::run_dynamic(const core::LaunchArgs &a, float *buf) const {
  const int64_t nn = n;
  if (dyn == DynMode::kPerToken) {
    const int64_t per_task = 7 * std::max<int64_t>(nn, 1);
    core::parallel_tasks(tasks, [&](int64_t t) {
      for (int64_t r = rows * t / tasks; r < rows * (t + 1) / tasks; ++r) token_row(a, r, buf + t * per_task);
    });
    return;
  }
  float *xr = buf, *sm = buf + 2 * nn, *cmax = buf + 5 * nn, *cmin = buf + 6 * nn;
  int32_t *q = reinterpret_cast<int32_t *>(buf + nn);
  // x times the smooth row of row r, into xr.
  auto input_row = [&](int64_t r) {
    load_x(a, r, xr);
    if (!smooth.present) return;
    quant_load_row(smooth_row(a, r), smooth.dt, smooth.strides[smooth.nd - 1], nn, sm);
    for (int64_t j = 0; j < nn; ++j) xr[j] *= sm[j];
  };
  float *so = reinterpret_cast<float *>(scale_out.base(a));
  float *oo = offset_out.present ? reinterpret_cast<float *>(offset_out.base(a)) : nullptr;
  const float inf = std::numeric_limits<float>::infinity();
  // Per tensor / per channel: the extrema over all rows first (per column for per channel).
  std::fill(cmax, cmax + nn, -inf);
  std::fill(cmin, cmin + nn, inf);
  float amax = 0.0f;
  for (int64_t r = 0; r < rows; ++r) {
    input_row(r);
    for (int64_t j = 0; j < nn; ++j) {
      cmax[j] = std::fmax(cmax[j], xr[j]);
      cmin[j] = std::fmin(cmin[j], xr[j]);
    }
  }
  const int64_t nparams = dyn == DynMode::kPerTensor ? 1 : nn;
  float gmax = -inf, gmin = inf;
  for (int64_t j = 0; j < nn; ++j) {
    gmax = std::fmax(gmax, cmax[j]);
    gmin = std::fmin(gmin, cmin[j]);
  }
  if (rows * nn == 0) gmax = gmin = 0.0f;
  amax = std::fmax(std::fabs(gmax), std::fabs(gmin));
  // cmax / cmin become the per-column scale / offset.
  for (int64_t j = 0; j < nparams; ++j) {
    DynParams p;
    if (dyn == DynMode::kPerTensor) {
      p = dyn_params(symmetric, amax, gmin, gmax, lo, hi, qmax);
    } else {
      const float mx = rows == 0 ? 0.0f : cmax[j], mn = rows == 0 ? 0.0f : cmin[j];
      p = dyn_params(symmetric, std::fmax(std::fabs(mx), std::fabs(mn)), mn, mx, lo, hi, qmax);
    }
    cmax[j] = p.scale;
    cmin[j] = p.offset;
    so[j] = p.scale;
    if (oo != nullptr) oo[j] = p.offset;
  }
  for (int64_t r = 0; r < rows; ++r) {
    input_row(r);
    if (y_fp8) {  // symmetric: the scales alone
      store_fp8_row(a, r, xr, cmax, dyn == DynMode::kPerTensor ? std::max<int64_t>(nn, 1) : 1);
      continue;
    }
    for (int64_t j = 0; j < nn; ++j) {
      const int64_t k = dyn == DynMode::kPerTensor ? 0 : j;
      DynParams p;
      p.scale = cmax[k];
      p.offset = cmin[k];
      q[j] = dyn_quant(xr[j], p, symmetric, lo, hi);
    }
    store_y(a, r, q);
  }
}

// FakeQuantPerTensor / PerChannelAffineCachemask (PyTorch's formulas).
void QuantStep::run_fake(const core::LaunchArgs &a, float *buf) const {
  const int64_t nn = n;
  float *xr = buf, *v = buf + nn, *s = buf + 2 * nn, *z = buf + 3 * nn;
  uint8_t *m = reinterpret_cast<uint8_t *>(buf + 4 * nn);
  for (int64_t r = 0; r < rows; ++r) {
    load_x(a, r, xr);
    const int64_t idx = param_index(r, 0);
    param_row(a, scale, along, idx, nn, s);
    param_row(a, offset, along, idx, nn, z);
    for (int64_t j = 0; j < nn; ++j) {
      if (!enabled) {
        v[j] = xr[j];
        m[j] = 1;
        continue;
      }
      const float inv = 1.0f / s[j];
      const float rv = std::nearbyint(xr[j] * inv);
      const int64_t zp = static_cast<int64_t>(z[j]);  // an INT32 zero point: exact
      // A NaN or huge product lands below quantMin (as PyTorch's int64 conversion does on x86).
      // quantMin / quantMax may be any int64: no +1 / -1 on them, and c - zp in double.
      int64_t c;
      if (rv != rv || std::fabs(rv) > 1e15f) {
        m[j] = 0;
        c = rv > 0 ? quant_max : quant_min;
      } else {
        const int64_t qv = zp + static_cast<int64_t>(rv);
        m[j] = qv >= quant_min && qv <= quant_max;
        c = std::min(std::max(qv, quant_min), quant_max);
      }
      v[j] = static_cast<float>(static_cast<double>(c) - static_cast<double>(zp)) * s[j];
    }
    kernels::quant_store_floats(v, nn, y.dt, row_ptr(a, y, r), y.strides[y.nd - 1]);
    uint8_t *mo = reinterpret_cast<uint8_t *>(row_ptr(a, mask, r));
    for (int64_t j = 0; j < nn; ++j) mo[j * mask.strides[mask.nd - 1]] = m[j];
  }
}

// DequantBias: INT32 [M, N] times per-column and per-row scales, with a bias before or after.
void QuantStep::run_dequant_bias(const core::LaunchArgs &a, float *buf) const {
  const int64_t nn = n;
  float *v = buf, *ws = buf + nn, *bf = buf + 2 * nn;
  param_row(a, scale, QuantAlong::kLast, 0, nn, ws);
  if (bias.present && bias.dt != ACL_INT32) param_row(a, bias, QuantAlong::kLast, 0, nn, bf);
  const int32_t *bi = bias.present && bias.dt == ACL_INT32 ? reinterpret_cast<const int32_t *>(bias.base(a)) : nullptr;
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t *xr = reinterpret_cast<const int32_t *>(row_ptr(a, x, r));
    const int64_t xs = x.strides[x.nd - 1];
    const float as = act_scale.present ? read_one(a, act_scale, r) : 1.0f;
    for (int64_t j = 0; j < nn; ++j) {
      const int64_t xi = xr[j * xs];
      if (bi != nullptr) {
        v[j] = static_cast<float>(xi + bi[j * bias.step]) * ws[j] * as;
      } else {
        v[j] = static_cast<float>(xi) * ws[j] * as;
        if (bias.present) v[j] += bf[j];
      }
    }
    kernels::quant_store_floats(v, nn, y.dt, row_ptr(a, y, r), y.strides[y.nd - 1]);
  }
}

// GeluQuant: gelu in fp32, then the static affine map or per-row dynamic scales (roundMode for both).
void QuantStep::run_gelu(const core::LaunchArgs &a, float *buf) const {
  const int64_t nn = n;
  float *g = buf, *s = buf + 2 * nn, *o = buf + 3 * nn;
  int32_t *q = reinterpret_cast<int32_t *>(buf + nn);
  if (scale.present) param_row(a, scale, QuantAlong::kLast, 0, nn, s);
  if (offset.present) param_row(a, offset, QuantAlong::kLast, 0, nn, o);
  for (int64_t r = 0; r < rows; ++r) {
    load_x(a, r, g);
    for (int64_t j = 0; j < nn; ++j) {
      const float v = g[j];
      g[j] = gelu_tanh ? 0.5f * v * (1.0f + std::tanh(0.7978845608028654f * (v + 0.044715f * v * v * v)))
                       : 0.5f * v * (1.0f + std::erf(v * 0.7071067811865476f));
    }
    if (!gelu_dynamic) {
      kernels::quant_affine_row(g, nn, s, 1, offset.present ? o : nullptr, 1, false, round, lo, hi, q);
    } else {
      if (scale.present)
        for (int64_t j = 0; j < nn; ++j) g[j] *= s[j];
      float ext[3];
      kernels::quant_row_extrema(g, nn, ext);
      const float sc = ext[0] / static_cast<float>(hi);
      for (int64_t j = 0; j < nn; ++j) q[j] = sc == 0.0f ? 0 : quant_round_sat(g[j] / sc, round, lo, hi);
      reinterpret_cast<float *>(scale_out.base(a))[r] = sc;
    }
    store_y(a, r, q);
  }
}

// Group e's n values of a [G, n] / [G] / [G, 1] parameter (or [n] / [1, n] / [1] without groups).
void QuantStep::group_values(const core::LaunchArgs &a, const QuantOperand &p, int64_t e, float *dst) const {
  const char *base = p.base(a) + (groups > 0 ? e * p.strides[0] : 0) * static_cast<int64_t>(core::dtype_size(p.dt));
  if (p.step != 0) {
    quant_load_row(base, p.dt, p.step, n, dst);
  } else {
    quant_load_row(base, p.dt, 1, 1, dst);
    std::fill(dst + 1, dst + n, dst[0]);
  }
}

// SwiGluQuant: the halves of x's row, silu on one, their product quantised per row (dynamic) or by the
// group's scale / offset (static).
void QuantStep::run_swiglu(const core::LaunchArgs &a, float *buf) const {
  const int64_t h = n;
  float *xr = buf, *s = buf + 2 * h, *o = buf + 3 * h, *ws = buf + 5 * h, *bs = buf + 7 * h;
  int32_t *q = reinterpret_cast<int32_t *>(buf + 4 * h);
  // DequantSwigluQuant: the weight scale and a floating bias once; SwiGluQuant's quant scale is `scale`.
  const bool dequant = kind == QuantKind::kDequantSwiGluQuant;
  const QuantOperand &qs = dequant ? smooth : scale;
  const bool int_bias = dequant && bias.present && bias.dt == ACL_INT32;
  if (dequant && scale.present) quant_load_row(scale.base(a), scale.dt, scale.step, 2 * h, ws);
  if (dequant && bias.present && !int_bias) quant_load_row(bias.base(a), bias.dt, bias.step, 2 * h, bs);
  for (int64_t r = 0; r < rows; ++r) {
    const char *xrow = row_ptr(a, x, r);
    const int64_t xs = x.strides[x.nd - 1];
    if (int_bias && x.dt == ACL_INT32) {  // the integer sum first, exactly
      const int32_t *xi = reinterpret_cast<const int32_t *>(xrow), *bi = reinterpret_cast<const int32_t *>(bias.base(a));
      for (int64_t j = 0; j < 2 * h; ++j)
        xr[j] = static_cast<float>(static_cast<int64_t>(xi[j * xs]) + bi[j * bias.step]);
    } else {
      quant_load_row(xrow, x.dt, xs, 2 * h, xr);
      if (int_bias)
        for (int64_t j = 0; j < 2 * h; ++j) xr[j] += static_cast<float>(reinterpret_cast<const int32_t *>(bias.base(a))[j * bias.step]);
    }
    if (dequant) {
      const float as = act_scale.present ? read_one(a, act_scale, r) : 1.0f;
      for (int64_t j = 0; j < 2 * h; ++j) {
        float v = xr[j];
        if (scale.present) v *= ws[j];
        if (act_scale.present) v *= as;
        if (bias.present && !int_bias) v += bs[j];
        xr[j] = v;
      }
    }
    for (int64_t j = 0; j < h; ++j) {
      float act;
      if (situ) {  // beta tanh(g / beta) sigmoid(g) * (linearBeta > 0 ? linearBeta tanh(u / linearBeta) : u)
        const float g = activate_left ? xr[j] : xr[h + j], u = activate_left ? xr[h + j] : xr[j];
        const float up = situ_linear_beta > 0.0f ? situ_linear_beta * std::tanh(u / situ_linear_beta) : u;
        act = situ_beta * std::tanh(g / situ_beta) / (1.0f + std::exp(-g)) * up;
      } else if (swiglu_clamped) {  // interleaved pairs (glu, linear), clamped
        const float glu = std::fmin(xr[2 * j], clamp_limit);
        const float lin = std::fmin(std::fmax(xr[2 * j + 1], -clamp_limit), clamp_limit);
        act = glu / (1.0f + std::exp(-glu_alpha * glu)) * (lin + glu_bias);
      } else {
        const float lhs = xr[j], rhs = xr[h + j];
        act = activate_left ? lhs / (1.0f + std::exp(-lhs)) * rhs : lhs * (rhs / (1.0f + std::exp(-rhs)));
      }
      xr[j] = act;  // (pair j is read before act j is written: 2j >= j)
    }
    const int64_t e = groups > 0 ? group_of(a, r) : 0;
    if (qs.present) group_values(a, qs, e, s);
    if (swiglu_static) {
      if (offset.present) group_values(a, offset, e, o);
      for (int64_t j = 0; j < h; ++j) {
        const float v = !qs.present ? xr[j] : situ ? xr[j] / s[j] : xr[j] * s[j];
        q[j] = quant_round_sat(v + (offset.present ? o[j] : 0.0f), round, lo, hi);
      }
    } else {
      if (qs.present)
        for (int64_t j = 0; j < h; ++j) xr[j] *= s[j];
      float ext[3];
      kernels::quant_row_extrema(xr, h, ext);
      DynParams p;
      p.scale = ext[0] / static_cast<float>(hi);
      for (int64_t j = 0; j < h; ++j) q[j] = p.scale == 0.0f ? 0 : quant_round_sat(xr[j] / p.scale, round, lo, hi);
      reinterpret_cast<float *>(scale_out.base(a))[r] = p.scale;
    }
    store_y(a, r, q);
  }
}

// The cumulative group ends of groupList / groupListOptional (type 0: ends, 1: counts, 2: (index, count)
// pairs), each non-negative, the ends non-decreasing and the total <= limit (= limit when must_reach);
// 161002 otherwise, before anything is written.
int QuantStep::group_ends(const core::LaunchArgs &a, int64_t limit, bool must_reach, std::vector<int64_t> *ends) const {
  const char *g = group.base(a);
  const int64_t count_at = group_list_type == 2 ? flat_pair_step : 0;
  int64_t end = 0;
  ends->clear();
  for (int64_t e = 0; e < groups; ++e) {
    const int64_t i = e * group.step + count_at;
    const int64_t v = group.dt == ACL_INT64 ? reinterpret_cast<const int64_t *>(g)[i]
                                            : reinterpret_cast<const int32_t *>(g)[i];
    const long long lv = static_cast<long long>(v), le = static_cast<long long>(e);
    if (v < 0) return fail(ACLNN_ERR_PARAM_INVALID, "group list entry %lld is %lld; it must be >= 0", le, lv);
    if (group_list_type == 0 && v < end)
      return fail(ACLNN_ERR_PARAM_INVALID, "group list entry %lld is %lld, below the one before (%lld); cumulative "
                  "ends must not decrease", le, lv, static_cast<long long>(end));
    end = group_list_type == 0 ? v : end + v;
    if (end > limit)
      return fail(ACLNN_ERR_PARAM_INVALID, "group list reaches row %lld past x's %lld", static_cast<long long>(end),
                  static_cast<long long>(limit));
    ends->push_back(end);
  }
  if (must_reach && end != limit)
    return fail(ACLNN_ERR_PARAM_INVALID, "group list ends at row %lld; its last end must be x's M (%lld)",
                static_cast<long long>(end), static_cast<long long>(limit));
  return 0;
}

namespace {

// A block row of DynamicBlockQuant: rows [r0, r1) of a matrix and the scale row it writes.
struct BlockRow {
  int64_t r0, r1, scale_row;
};

}  // namespace

// Row r of x into xr (fp32) and, unless bmax is null, each column block's max |x| folded into bmax (NaN
// ignored): the tier's prep kernel per block segment on contiguous rows, else the generic load.
void QuantStep::block_row_max(const core::LaunchArgs &a, int64_t r, float *xr, float *bmax) const {
  if (token_fast) {
    const char *row = row_ptr(a, x, r);
    const int64_t es = static_cast<int64_t>(core::dtype_size(x.dt));
    for (int64_t k = 0; k * blk_cols < n; ++k) {
      float ext[3];
      token.prep(row + k * blk_cols * es, x.dt, nullptr, std::min(blk_cols, n - k * blk_cols), xr + k * blk_cols, ext);
      if (bmax != nullptr) bmax[k] = std::fmax(bmax[k], ext[0]);
    }
    return;
  }
  load_x(a, r, xr);
  for (int64_t j = 0; j < n && bmax != nullptr; ++j) bmax[j / blk_cols] = std::fmax(bmax[j / blk_cols], std::fabs(xr[j]));
}

// DynamicBlockQuant (grouped: inside each group of rows): per task a range of block rows; the block
// maxima over those rows first, then each row divided by its blocks' scales. Group i's block rows start
// at its first row s and write scale rows s / R + i + k; the scale rows no block writes are 0.
int QuantStep::run_block(const core::LaunchArgs &a, float *buf) const {
  const int64_t nn = std::max<int64_t>(n, 1), nbc = (n + blk_cols - 1) / blk_cols, m = blk_m;
  const int64_t batches = scale_out.nd == 3 ? scale_out.dims[0] : 1;  // x's B
  std::vector<int64_t> ends{m};
  if (kind == QuantKind::kGroupedBlockQuant)
    if (const int rc = group_ends(a, m, true, &ends); rc != 0) return rc;
  std::vector<BlockRow> blocks;
  int64_t start = 0;
  for (size_t i = 0; i < ends.size(); ++i) {
    for (int64_t r = start, k = 0; r < ends[i]; r += blk_rows, ++k)
      blocks.push_back({r, std::min(r + blk_rows, ends[i]), start / blk_rows + static_cast<int64_t>(i) + k});
    start = ends[i];
  }
  char *so = scale_out.base(a);
  const int64_t scale_rows = scale_out.nd >= 2 ? scale_out.dims[scale_out.nd - 2] : 1;
  const int64_t so_step = scale_out.strides[scale_out.nd - 1];
  if (kind == QuantKind::kGroupedBlockQuant) {  // the rows no block writes
    const std::vector<float> zeros(static_cast<size_t>(nbc), 0.0f);
    for (int64_t s = 0; s < batches * scale_rows; ++s)
      kernels::quant_store_floats(zeros.data(), nbc, ACL_FLOAT, so + scale_out.row_offset(s) * 4, so_step);
  }
  const int64_t per = static_cast<int64_t>(blocks.size()), total = batches * per;
  core::parallel_tasks(tasks, [&](int64_t t) {
    float *xr = buf + t * 7 * nn, *bmax = xr + 3 * nn;
    int32_t *q = reinterpret_cast<int32_t *>(xr + nn);
    for (int64_t br = total * t / tasks; br < total * (t + 1) / tasks; ++br) {
      const BlockRow &blk = blocks[static_cast<size_t>(br % per)];
      const int64_t base = br / per * m, r0 = base + blk.r0, r1 = base + blk.r1;
      std::fill(bmax, bmax + nbc, 0.0f);
      for (int64_t r = r0; r < r1; ++r) block_row_max(a, r, xr, bmax);
      for (int64_t k = 0; k < nbc; ++k) bmax[k] = std::fmin(bmax[k] / qmax, scale_cap);
      kernels::quant_store_floats(bmax, nbc, ACL_FLOAT,
                                  so + scale_out.row_offset(br / per * scale_rows + blk.scale_row) * 4, so_step);
      for (int64_t r = r0; r < r1; ++r) {
        if (r1 - r0 > 1) block_row_max(a, r, xr, nullptr);  // (one row: xr still holds it)
        if (y_fp8) {
          store_fp8_row(a, r, xr, bmax, blk_cols);
          continue;
        }
        if (token_fast) {  // block by block on the tier's kernel: the same quotient, rounding and saturation
          int8_t *yr = reinterpret_cast<int8_t *>(row_ptr(a, y, r));
          for (int64_t k = 0; k < nbc; ++k)
            token.int8(xr + k * blk_cols, std::min(blk_cols, n - k * blk_cols), bmax[k], 0.0f, yr + k * blk_cols);
          continue;
        }
        for (int64_t j = 0; j < n; ++j)  // a scale of 0 (a block of zeros): y 0
          q[j] = bmax[j / blk_cols] == 0.0f ? 0 : kernels::quant_round_sat(xr[j] / bmax[j / blk_cols], round, lo, hi);
        store_y(a, r, q);
      }
    }
  });
  return 0;
}

// FlatQuant: per chunk of slices the two GEMMs (T = x[k] @ P2, R = P1 @ T), then per slice (tasks over the
// chunk) max |R| * clipRatio / 7 and the M rows quantised. With a group list only the slices before its total
// are computed; the others get scale 0 and out 0 (a chunk wholly past the total runs no GEMM).
int QuantStep::run_flat(const core::LaunchArgs &a, float *buf) const {
  const int64_t m = flat_m, nn = n, slices = rows / std::max<int64_t>(m, 1), mn = m * nn;
  std::vector<int64_t> ends{slices};
  if (groups > 0)
    if (const int rc = group_ends(a, slices, false, &ends); rc != 0) return rc;
  const int64_t computed = ends.back();
  float *t = reinterpret_cast<float *>(a.get(flat_scratch)), *r = t + flat_chunk * mn;
  void *gws = a.get(flat_gemm_ws);
  const int64_t x_slice = x.strides[0] * static_cast<int64_t>(core::dtype_size(x.dt));
  float *scales = reinterpret_cast<float *>(scale_out.base(a));
  for (int64_t c0 = 0; c0 < slices; c0 += flat_chunk) {
    const int64_t cn = std::min(flat_chunk, slices - c0), w = cn == flat_chunk ? 0 : 1;
    if (c0 < computed) {
      kernels::gemm_run(flat->x_p2[w], x.base(a) + c0 * x_slice, p2.base(a), t, gws);
      kernels::gemm_run(flat->p1_t[w], p1.base(a), t, r, gws);
    }
    const int64_t ntask = std::min(tasks, cn);
    core::parallel_tasks(ntask, [&](int64_t task) {
      int32_t *q = reinterpret_cast<int32_t *>(buf + task * std::max<int64_t>(nn, 1));
      for (int64_t s = cn * task / ntask; s < cn * (task + 1) / ntask; ++s) {
        const int64_t k = c0 + s;
        const float *rk = r + s * mn;
        float amax = 0.0f;
        for (int64_t e = 0; e < mn && k < computed; ++e) amax = std::fmax(amax, std::fabs(rk[e]));
        const float scale = amax * clip_ratio / 7.0f;
        scales[k * scale_out.strides[0]] = scale;
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < nn; ++j)
            q[j] = scale == 0.0f ? 0 : kernels::quant_round_sat(rk[i * nn + j] / scale, round, lo, hi);
          store_y(a, k * m + i, q);
        }
      }
    });
  }
  return 0;
}

int QuantStep::run(const core::LaunchArgs &args) const {
  // (grouped block quant: an empty x still checks groupList and zeroes its scale rows)
  if (rows == 0 && kind != QuantKind::kDynamic && kind != QuantKind::kGroupedBlockQuant) return 0;
  float *buf = reinterpret_cast<float *>(args.get(ws));
  switch (kind) {
    case QuantKind::kAntiQuant: run_anti(args, buf); break;
    case QuantKind::kDynamic: run_dynamic(args, buf); break;
    case QuantKind::kFakeTensor:
    case QuantKind::kFakeChannel: run_fake(args, buf); break;
    case QuantKind::kDequantBias: run_dequant_bias(args, buf); break;
    case QuantKind::kQuantMax: break;  // phase 1 rejects every documented destination
    case QuantKind::kGeluQuant: run_gelu(args, buf); break;
    case QuantKind::kSwiGluQuant:
    case QuantKind::kDequantSwiGluQuant: run_swiglu(args, buf); break;
    case QuantKind::kBlockQuant:
    case QuantKind::kGroupedBlockQuant: return run_block(args, buf);
    case QuantKind::kFlatQuant: return run_flat(args, buf);
    default: run_affine(args, buf); break;
  }
  return 0;
}

}  // namespace opsnn::ops
