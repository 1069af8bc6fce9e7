#include "kernels/quant/mx_quant.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/error.h"
#include "common/half.h"
#include "core/thread_pool.h"
#include "kernels/quant/quant_rows.h"

namespace opsnn::kernels {
namespace {

uint32_t bits_of(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// The biased exponent of s rounded up to a power of two that is >= s (the documented "E_int + 1 when the
// mantissa is non-zero"); subnormal s rounds up only above half of 2^-126 when `subnormal_up`.
uint8_t e8m0_at_least(float s, bool subnormal_up) {
  const uint32_t b = bits_of(s);
  int e = static_cast<int>((b >> 23) & 0xFF);
  const uint32_t m = b & 0x7FFFFF;
  if (e == 255) return 255;
  if (e > 0 && e < 254 && m > 0) ++e;
  else if (e == 0 && subnormal_up && m > 0x400000) ++e;
  return static_cast<uint8_t>(e);
}

void put_code(uint8_t *y, int64_t idx, uint8_t c, bool nibbles) {
  if (!nibbles) {
    y[idx] = c;
    return;
  }
  uint8_t &byte = y[idx >> 1];
  byte = (idx & 1) ? static_cast<uint8_t>((byte & 0x0F) | (c << 4)) : static_cast<uint8_t>((byte & 0xF0) | (c & 0xF));
}

int64_t decompose(int64_t lin, int nd, const int64_t *dims, const int64_t *strides) {
  int64_t off = 0;
  for (int d = nd - 1; d >= 0; --d) {
    off += (lin % dims[d]) * strides[d];
    lin /= dims[d];
  }
  return off;
}

}  // namespace

int64_t MxLines::offset(int64_t p, int64_t q) const {
  return decompose(p, pre_nd, pre_dims, pre_strides) + decompose(q, post_nd, post_dims, post_strides);
}

MxLines mx_lines(const aclTensor &t, int axis) {
  MxLines L;
  for (int d = 0; d < t.ndim; ++d) {
    if (d == axis) continue;
    const bool before = d < axis;
    (before ? L.pre_dims[L.pre_nd] : L.post_dims[L.post_nd]) = t.dims[d];
    (before ? L.pre_strides[L.pre_nd++] : L.post_strides[L.post_nd++]) = t.strides[d];
    (before ? L.pre : L.post) *= t.dims[d];
  }
  L.n = t.ndim > 0 ? t.dims[axis] : 1;
  L.axis_stride = t.ndim > 0 ? t.strides[axis] : 1;
  return L;
}

uint8_t mx_scale_code(float amax, const MxScaleRule &r) {
  if (!std::isfinite(amax)) return 255;
  if (r.alg == 1) return e8m0_at_least(std::max(amax, r.low_bound) / r.dst_max, true);
  if (r.alg == 2 && r.ratio) return e8m0_at_least(amax / r.dst_max, false);
  if (amax == 0.0f) return 0;
  const int biased = static_cast<int>((bits_of(amax) >> 23) & 0xFF);  // floor(log2 amax) + 127 when normal
  int e = (biased > 0 ? biased - 127 : std::ilogb(amax)) - r.emax;
  if (r.alg == 2) {  // a mantissa above ceil_above: the next binade (amax / scale would exceed dstTypeMax)
    const float frac = std::ldexp(amax, -std::ilogb(amax)) - 1.0f;
    if (frac > r.ceil_above) ++e;
  }
  return e8m0_of_exp(e);
}

namespace {

// codes[i] of v[i] / 2^(code - 127) (one exact multiplication); a NaN scale: the format's positive NaN
// (FLOAT4: 0).
// 2^(127 - code), the inverse of a block scale: built from its exponent bits (normal for codes 0..253).
float inverse_scale(uint8_t code) {
  if (code > 253) return std::ldexp(1.0f, 127 - static_cast<int>(code));
  const uint32_t b = static_cast<uint32_t>(254 - code) << 23;
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

void encode_run(const MxRowKernels &rk, const float *v, int64_t k, uint8_t code, LowFloat fmt, LfRound round,
                uint8_t *codes) {
  const float inv = inverse_scale(code);
  if (code == 255) std::memset(codes, low_float_spec(fmt).nan, static_cast<size_t>(k));
  else if (round == LfRound::kRint) rk.encode_rint(v, k, inv, fmt, codes);
  else
    for (int64_t i = 0; i < k; ++i) codes[i] = lf_encode(v[i] * inv, fmt, round);
}

// k codes to y's elements first, first + stride, ...: whole bytes when they are consecutive and pair up.
void store_run(uint8_t *y, int64_t first, int64_t stride, const uint8_t *codes, int64_t k, bool nibbles) {
  if (stride == 1 && !nibbles) {
    std::memcpy(y + first, codes, static_cast<size_t>(k));
  } else if (stride == 1 && first % 2 == 0 && k % 2 == 0) {
    for (int64_t i = 0; i < k; i += 2) y[(first + i) >> 1] = static_cast<uint8_t>((codes[i] & 0xF) | (codes[i + 1] << 4));
  } else {
    for (int64_t i = 0; i < k; ++i) put_code(y, first + i * stride, codes[i], nibbles);
  }
}

}  // namespace

void mx_quant_line(const MxRowKernels &rk, const float *v, int64_t n, int64_t blocksize, LowFloat fmt, LfRound round,
                   const MxScaleRule &rule, uint8_t *y, uint8_t *scale) {
  const int64_t blocks = (n + blocksize - 1) / blocksize;
  const bool nibbles = low_float_spec(fmt).bits == 4;
  uint8_t codes[1024];  // one block (blocksize <= 1024)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t i0 = b * blocksize, k = std::min(blocksize, n - i0);
    const uint8_t code = mx_scale_code(rk.amax(v + i0, k), rule);
    scale[b] = code;
    encode_run(rk, v + i0, k, code, fmt, round, codes);
    store_run(y, i0, 1, codes, k, nibbles);
  }
  if (blocks % 2 == 1) scale[blocks] = 0;
}

void mx_quant_run(const MxQuantPlan &p, const char *x, uint8_t *y, uint8_t *scale, float *buf) {
  const MxLines &L = p.x;
  const int64_t n = L.n, bs = p.blocksize, blocks = (n + bs - 1) / bs, pairs = (blocks + 1) / 2;
  const bool nibbles = low_float_spec(p.fmt).bits == 4;
  const int64_t es = static_cast<int64_t>(core::dtype_size(p.x_dtype));
  core::parallel_tasks(p.tasks, [&](int64_t t) {
    float *line = buf + t * n;
    uint8_t codes[1024];  // one block (blocksize <= 1024)
    for (int64_t pi = L.pre * t / p.tasks; pi < L.pre * (t + 1) / p.tasks; ++pi)
      for (int64_t q = 0; q < L.post; ++q) {
        quant_load_row(x + L.offset(pi, q) * es, p.x_dtype, L.axis_stride, n, line);
        if (L.post == 1) {  // a whole line of y and of the scales (FLOAT4: n is even, whole bytes)
          mx_quant_line(p.rows, line, n, bs, p.fmt, p.round, p.rule, y + (nibbles ? pi * n / 2 : pi * n),
                        scale + pi * pairs * 2);
          continue;
        }
        for (int64_t b = 0; b < 2 * pairs; ++b) {
          const int64_t i0 = b * bs, k = std::max<int64_t>(0, std::min(bs, n - i0));
          const uint8_t code = k > 0 ? mx_scale_code(p.rows.amax(line + i0, k), p.rule) : 0;
          scale[((pi * pairs + b / 2) * L.post + q) * 2 + (b & 1)] = code;
          if (k == 0) continue;
          encode_run(p.rows, line + i0, k, code, p.fmt, p.round, codes);
          store_run(y, (pi * n + i0) * L.post + q, L.post, codes, k, nibbles);
        }
      }
  });
}

namespace {

// The scales of block row r (of batch bi) of a 32 x 32-block matrix [m, n]: bcode[c] for its cb block columns,
// broadcast to scale1 [.., m, cpairs, 2] (every row of the block row) and scale2 [.., rpairs, n, 2] (every
// column); the pads (an odd block-column or block-row count) 0.
void put_block_scales(uint8_t *s1, uint8_t *s2, int64_t bi, int64_t r, int64_t m, int64_t n, const uint8_t *bcode) {
  const int64_t rb = (m + 31) / 32, cb = (n + 31) / 32, cpairs = (cb + 1) / 2, rpairs = (rb + 1) / 2;
  const int64_t r0 = r * 32, kr = std::min<int64_t>(32, m - r0);
  for (int64_t i = 0; i < kr; ++i)
    for (int64_t c = 0; c < 2 * cpairs; ++c) s1[((bi * m + r0 + i) * cpairs + c / 2) * 2 + (c & 1)] = c < cb ? bcode[c] : 0;
  for (int64_t j = 0; j < n; ++j) {
    uint8_t *s2p = s2 + ((bi * rpairs + r / 2) * n + j) * 2;
    s2p[r & 1] = bcode[j / 32];
    if (r == rb - 1 && rb % 2 == 1) s2p[1] = 0;
  }
}

}  // namespace

void mx_block_quant_run(const MxBlockPlan &p, const char *x, uint8_t *y, uint8_t *s1, uint8_t *s2, float *buf) {
  const int64_t m = p.m, n = p.n, rb = (m + 31) / 32, cb = (n + 31) / 32;
  const bool nibbles = low_float_spec(p.fmt).bits == 4;
  const int64_t es = static_cast<int64_t>(core::dtype_size(p.x_dtype));
  core::parallel_tasks(p.tasks, [&](int64_t t) {
    float *rows = buf + t * (32 * n + cb);  // one block row (up to 32 rows of n), then its cb block scales
    uint8_t *bcode = reinterpret_cast<uint8_t *>(rows + 32 * n), codes[32];
    for (int64_t w = p.batch * rb * t / p.tasks; w < p.batch * rb * (t + 1) / p.tasks; ++w) {
      const int64_t bi = w / rb, r = w % rb, r0 = r * 32, kr = std::min<int64_t>(32, m - r0);
      for (int64_t i = 0; i < kr; ++i)
        quant_load_row(x + (bi * p.stride_b + (r0 + i) * p.stride_m) * es, p.x_dtype, p.stride_n, n, rows + i * n);
      for (int64_t c = 0; c < cb; ++c) {
        float amax = 0.0f;
        const int64_t kc = std::min<int64_t>(32, n - c * 32);
        for (int64_t i = 0; i < kr && amax == amax; ++i) {
          const float a = p.rows.amax(rows + i * n + c * 32, kc);
          amax = (a > amax || a != a) ? a : amax;
        }
        bcode[c] = mx_scale_code(amax, p.rule);
      }
      put_block_scales(s1, s2, bi, r, m, n, bcode);
      for (int64_t i = 0; i < kr; ++i)
        for (int64_t c = 0; c < cb; ++c) {
          const int64_t kc = std::min<int64_t>(32, n - c * 32);
          encode_run(p.rows, rows + i * n + c * 32, kc, bcode[c], p.fmt, p.round, codes);
          store_run(y, (bi * m + r0 + i) * n + c * 32, 1, codes, kc, nibbles);
        }
    }
  });
}

void mx_to_block_run(const MxToBlockPlan &p, const uint8_t *x, const uint8_t *mxscale, uint8_t *y, uint8_t *s1,
                     uint8_t *s2, uint8_t *buf) {
  const int64_t m = p.m, n = p.n, rb = (m + 31) / 32, cb = (n + 31) / 32, cpairs = (cb + 1) / 2;
  const int offset = low_float_spec(p.dst).max_exp - low_float_spec(p.src).max_exp;  // MAX_OFFSET
  core::parallel_tasks(p.tasks, [&](int64_t t) {
    uint8_t *bcode = buf + t * cb, codes[32];
    for (int64_t w = p.batch * rb * t / p.tasks; w < p.batch * rb * (t + 1) / p.tasks; ++w) {
      const int64_t bi = w / rb, r = w % rb, r0 = r * 32, kr = std::min<int64_t>(32, m - r0);
      auto row_scale = [&](int64_t i, int64_t c) { return mxscale[((bi * m + r0 + i) * cpairs + c / 2) * 2 + (c & 1)]; };
      for (int64_t c = 0; c < cb; ++c) {  // the block's exponent: its rows' largest, less MAX_OFFSET (255: NaN)
        int top = 0;
        for (int64_t i = 0; i < kr; ++i) top = std::max<int>(top, row_scale(i, c));
        bcode[c] = top == 255 ? 255 : static_cast<uint8_t>(std::max(0, top - offset));
      }
      put_block_scales(s1, s2, bi, r, m, n, bcode);
      for (int64_t i = 0; i < kr; ++i)
        for (int64_t c = 0; c < cb; ++c) {
          const int64_t kc = std::min<int64_t>(32, n - c * 32), first = (bi * m + r0 + i) * n + c * 32;
          // x * 2^(row scale - block scale): exact in fp32, then the FLOAT8 code (saturated; 255: NaN)
          const int sh = static_cast<int>(row_scale(i, c)) - static_cast<int>(bcode[c]);
          for (int64_t k = 0; k < kc; ++k) {
            const float v = std::ldexp(lf_decode(lf_code_at(x, first + k, true), p.src), sh);
            codes[k] = bcode[c] == 255 || row_scale(i, c) == 255 ? low_float_spec(p.dst).nan
                                                                 : lf_encode(v, p.dst, LfRound::kRint);
          }
          store_run(y, first, 1, codes, kc, false);
        }
    }
  });
}

int mx_grouped_quant_run(const MxGroupedPlan &p, const char *x, const char *group, uint8_t *y, uint8_t *scale,
                         float *buf) {
  auto end_of = [&](int64_t g) -> int64_t {
    return p.group_i64 ? reinterpret_cast<const int64_t *>(group)[g * p.group_stride]
                       : reinterpret_cast<const int32_t *>(group)[g * p.group_stride];
  };
  int64_t prev = 0;
  for (int64_t g = 0; g < p.groups; ++g) {  // validated before anything is written
    const int64_t end = end_of(g);
    if (end < prev || end > p.m || (g == p.groups - 1 && end != p.m))
      return fail(ACLNN_ERR_PARAM_INVALID, "groupIndex[%lld] = %lld: the group ends must be non-decreasing, >= 0 "
                  "and end at x's %lld rows", static_cast<long long>(g), static_cast<long long>(end),
                  static_cast<long long>(p.m));
    prev = end;
  }
  const bool nibbles = low_float_spec(p.fmt).bits == 4;
  const int64_t es = static_cast<int64_t>(core::dtype_size(p.x_dtype));
  core::parallel_tasks(p.tasks, [&](int64_t t) {
    const int64_t c0 = t * p.width, w = std::min(p.width, p.n - c0);
    if (w <= 0) return;
    float *rows = buf + t * p.buf_floats(), *inv = rows + 32 * p.width, *tmp = inv + p.width;
    auto *codes = reinterpret_cast<uint8_t *>(tmp + p.width);
    auto *col_code = codes + p.width;
    auto scale_at = [&](int64_t row, int64_t c, int k) -> uint8_t & { return scale[(row * p.n + c0 + c) * 2 + k]; };
    int64_t start = 0, srow = 0;
    for (int64_t g = 0; g < p.groups; ++g) {
      const int64_t end = end_of(g), blocks = (end - start + 31) / 32;
      for (int64_t b = 0; b < blocks; ++b) {
        const int64_t r0 = start + b * 32, kr = std::min<int64_t>(32, end - r0);
        for (int64_t i = 0; i < kr; ++i)
          quant_load_row(x + ((r0 + i) * p.x_stride_m + c0 * p.x_stride_n) * es, p.x_dtype, p.x_stride_n, w,
                         rows + i * p.width);
        for (int64_t c = 0; c < w; ++c) {  // each column's block scale and its exact inverse
          float amax = 0.0f;
          for (int64_t i = 0; i < kr; ++i) {
            const float a = std::fabs(rows[i * p.width + c]);
            amax = (a > amax || a != a) ? a : amax;
          }
          col_code[c] = mx_scale_code(amax, p.rule);
          inv[c] = col_code[c] == 255 ? NAN : std::ldexp(1.0f, 127 - static_cast<int>(col_code[c]));
          scale_at(srow + b / 2, c, b & 1) = col_code[c];
          if (b == blocks - 1 && blocks % 2 == 1) scale_at(srow + b / 2, c, 1) = 0;
        }
        for (int64_t i = 0; i < kr; ++i) {
          for (int64_t c = 0; c < w; ++c) tmp[c] = std::isnan(inv[c]) ? NAN : rows[i * p.width + c] * inv[c];
          encode_run(p.rows, tmp, w, 127, p.fmt, p.round, codes);  // scale code 127: multiplier 1
          const int64_t first = (r0 + i) * p.y_stride_m + c0 * p.y_stride_n;
          store_run(y, first, p.y_stride_n, codes, w, nibbles);
        }
      }
      srow += (blocks + 1) / 2;
      start = end;
    }
    for (int64_t row = srow; row < p.scale_rows; ++row)  // past the last group's scales
      for (int64_t c = 0; c < w; ++c) scale_at(row, c, 0) = scale_at(row, c, 1) = 0;
  });
  return 0;
}

namespace {

// v as x's dtype (FLOAT16 / BF16, round to nearest even) would hold it.
float as_dtype(float v, aclDataType dt) {
  return dt == ACL_BF16 ? bf16_to_float(float_to_bf16(v)) : dt == ACL_FLOAT16 ? half_to_float(float_to_half(v)) : v;
}

}  // namespace

void mx_dual_level_run(const MxDualLevelPlan &p, const char *x, const char *smooth, uint8_t *y, float *s0, uint8_t *s1,
                       float *buf) {
  const MxLines &L = p.x;
  const int64_t n = L.n, l0 = p.l0, b0 = (n + l0 - 1) / l0, blocks = (n + 31) / 32, pairs = (blocks + 1) / 2;
  const int64_t es = static_cast<int64_t>(core::dtype_size(p.x_dtype));
  core::parallel_tasks(p.tasks, [&](int64_t t) {
    float *row = buf + t * 2 * n, *sm = row + n;
    uint8_t codes[32];
    if (smooth != nullptr) quant_load_row(smooth, p.x_dtype, p.smooth_stride, n, sm);
    for (int64_t r = L.pre * t / p.tasks; r < L.pre * (t + 1) / p.tasks; ++r) {
      quant_load_row(x + L.offset(r, 0) * es, p.x_dtype, L.axis_stride, n, row);
      if (smooth != nullptr)
        for (int64_t j = 0; j < n; ++j) row[j] = as_dtype(row[j] * sm[j], p.x_dtype);
      for (int64_t b = 0; b < b0; ++b) {  // level 0: t = x / (max|x| / 6) in x's dtype
        const int64_t i0 = b * l0, k = std::min(l0, n - i0);
        const float scale = p.rows.amax(row + i0, k) / 6.0f;
        s0[r * b0 + b] = scale;
        for (int64_t i = i0; i < i0 + k; ++i) row[i] = scale == 0.0f ? 0.0f : as_dtype(row[i] / scale, p.x_dtype);
      }
      for (int64_t b = 0; b < 2 * pairs; ++b) {  // level 1: MX blocks of 32 of t
        const int64_t i0 = b * 32, k = std::max<int64_t>(0, std::min<int64_t>(32, n - i0));
        const uint8_t code = k > 0 ? mx_scale_code(p.rows.amax(row + i0, k), p.rule) : 0;
        s1[(r * pairs + b / 2) * 2 + (b & 1)] = code;
        if (k == 0) continue;
        encode_run(p.rows, row + i0, k, code, LowFloat::kE2M1, p.round, codes);
        store_run(y, r * n + i0, 1, codes, k, true);
      }
    }
  });
}

void anti_mx_run(const AntiMxPlan &p, const uint8_t *x, const uint8_t *scale, char *y, float *buf) {
  const MxLines &L = p.x;
  const int64_t n = L.n, bs = p.blocksize;
  const bool nibbles = low_float_spec(p.fmt).bits == 4;
  const int64_t ys = static_cast<int64_t>(core::dtype_size(p.y_dtype));
  core::parallel_tasks(p.tasks, [&](int64_t t) {
    float *line = buf + t * n;
    for (int64_t pi = L.pre * t / p.tasks; pi < L.pre * (t + 1) / p.tasks; ++pi)
      for (int64_t q = 0; q < L.post; ++q) {
        const int64_t xo = L.offset(pi, q), so = p.scale.offset(pi, q);
        for (int64_t i = 0; i < n; ++i) {
          const int64_t b = i / bs;
          const uint8_t s = scale[so + (b / 2) * p.scale.axis_stride + (b & 1) * p.scale_k_stride];
          line[i] = lf_decode(lf_code_at(x, xo + i * L.axis_stride, nibbles), p.fmt) * e8m0_decode(s);
        }
        // y is contiguous [pre, n, post]: the line's elements are post apart
        quant_store_floats(line, n, p.y_dtype, y + (pi * n * L.post + q) * ys, L.post);
      }
  });
}

}  // namespace opsnn::kernels
