#include "kernels/conv/conv.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "common/half.h"
#include "core/thread_pool.h"
#include "kernels/conv/conv_depthwise_impl.h"
#include "kernels/conv/conv_direct_impl.h"

namespace opsnn::kernels {
namespace {

// floor(a / b) for b > 0 and any a.
int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// The small-side positions o in [0, n) whose big-side coordinate o*s - p + kk*d lies in [0, big):
// [lo, hi).
void valid_range(int64_t n, int64_t s, int64_t p, int64_t kk, int64_t d, int64_t big, int64_t *lo, int64_t *hi) {
  const int64_t off = kk * d - p;  // big = o*s + off
  *lo = std::max<int64_t>(0, floor_div(-off + s - 1, s));
  *hi = std::min<int64_t>(n, floor_div(big - 1 - off, s) + 1);
  if (*hi < *lo) *hi = *lo;
}

template <class T>
void im2col_t(const ConvGeom &g, const ConvImage &src, int64_t C, int64_t l0, int64_t len, T *dst, int64_t ld,
              T pad = T(0)) {
  const int64_t kp = g.kprod();
  const T *base = reinterpret_cast<const T *>(src.base);
  core::parallel_for(C * kp, 4, [&](int64_t j0, int64_t j1) {
    for (int64_t j = j0; j < j1; ++j) {
      const int64_t c = j / kp, kk = j % kp;
      const int64_t kd = kk / (g.k[1] * g.k[2]), kh = (kk / g.k[2]) % g.k[1], kw = kk % g.k[2];
      T *row = dst + j * ld;
      int64_t wlo, whi;
      valid_range(g.small[2], g.s[2], g.p[2], kw, g.d[2], g.big[2], &wlo, &whi);
      const T *cb = base + c * src.sc;
      int64_t l = l0, done = 0;
      while (done < len) {
        const int64_t ow = l % g.small[2], rest = l / g.small[2];
        const int64_t oh = rest % g.small[1], od = rest / g.small[1];
        const int64_t run = std::min(len - done, g.small[2] - ow);
        T *o = row + done;
        const int64_t id = od * g.s[0] - g.p[0] + kd * g.d[0], ih = oh * g.s[1] - g.p[1] + kh * g.d[1];
        if (id < 0 || id >= g.big[0] || ih < 0 || ih >= g.big[1]) {
          std::fill(o, o + run, pad);
        } else {
          const T *in = cb + id * src.ss[0] + ih * src.ss[1];
          const int64_t a = std::min(std::max(ow, wlo), ow + run), b = std::min(ow + run, std::max(whi, a));
          int64_t x = ow;
          for (; x < a; ++x) o[x - ow] = pad;
          const int64_t step = g.s[2] * src.ss[2], off = (kw * g.d[2] - g.p[2]) * src.ss[2];
          if (step == 1) {
            std::memcpy(o + (a - ow), in + a + off, static_cast<size_t>(b - a) * sizeof(T));
            x = b;
          } else {
            for (; x < b; ++x) o[x - ow] = in[x * step + off];
          }
          for (x = b; x < ow + run; ++x) o[x - ow] = pad;
        }
        done += run;
        l += run;
      }
    }
  });
}

}  // namespace

float conv_load(aclDataType dt, const char *p) {
  switch (dt) {
    case ACL_FLOAT: { float v; std::memcpy(&v, p, 4); return v; }
    case ACL_FLOAT16: { uint16_t h; std::memcpy(&h, p, 2); return half_to_float(h); }
    case ACL_BF16: { uint16_t h; std::memcpy(&h, p, 2); return bf16_to_float(h); }
    case ACL_DOUBLE: { double v; std::memcpy(&v, p, 8); return static_cast<float>(v); }
    default: return 0.0f;
  }
}

void conv_put(aclDataType dt, char *p, float v) {
  switch (dt) {
    case ACL_FLOAT: std::memcpy(p, &v, 4); break;
    case ACL_FLOAT16: { const uint16_t h = float_to_half(v); std::memcpy(p, &h, 2); break; }
    case ACL_BF16: { const uint16_t h = float_to_bf16(v); std::memcpy(p, &h, 2); break; }
    case ACL_DOUBLE: { const double d = v; std::memcpy(p, &d, 8); break; }
    default: break;
  }
}

void conv_im2col(const ConvGeom &g, const ConvImage &src, int64_t C, int64_t l0, int64_t len, char *dst, int64_t ld) {
  if (esize_of(src.dtype) == 4)
    im2col_t<uint32_t>(g, src, C, l0, len, reinterpret_cast<uint32_t *>(dst), ld);
  else
    im2col_t<uint16_t>(g, src, C, l0, len, reinterpret_cast<uint16_t *>(dst), ld);
}

void conv_im2col_i8(const ConvGeom &g, const ConvImage &src, int64_t C, int64_t l0, int64_t len, int8_t *dst,
                    int64_t ld, int8_t pad) {
  im2col_t<int8_t>(g, src, C, l0, len, dst, ld, pad);
}

void conv_col2im(const ConvGeom &g, const float *col, int64_t ld, int64_t C, int64_t l0, int64_t len, float *acc) {
  const int64_t kp = g.kprod(), bn = g.big_n();
  core::parallel_for(C, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      float *plane = acc + c * bn;
      for (int64_t kk = 0; kk < kp; ++kk) {
        const int64_t kd = kk / (g.k[1] * g.k[2]), kh = (kk / g.k[2]) % g.k[1], kw = kk % g.k[2];
        const float *row = col + (c * kp + kk) * ld;
        int64_t wlo, whi;
        valid_range(g.small[2], g.s[2], g.p[2], kw, g.d[2], g.big[2], &wlo, &whi);
        int64_t l = l0, done = 0;
        while (done < len) {
          const int64_t ow = l % g.small[2], rest = l / g.small[2];
          const int64_t oh = rest % g.small[1], od = rest / g.small[1];
          const int64_t run = std::min(len - done, g.small[2] - ow);
          const int64_t id = od * g.s[0] - g.p[0] + kd * g.d[0], ih = oh * g.s[1] - g.p[1] + kh * g.d[1];
          if (id >= 0 && id < g.big[0] && ih >= 0 && ih < g.big[1]) {
            float *out = plane + (id * g.big[1] + ih) * g.big[2] + (kw * g.d[2] - g.p[2]);
            const float *in = row + done - ow;
            const int64_t a = std::max(ow, wlo), b = std::min(ow + run, std::max(whi, a));
            const int64_t s = g.s[2];
            for (int64_t x = a; x < b; ++x) out[x * s] += in[x];
          }
          done += run;
          l += run;
        }
      }
    }
  });
}

void conv_store(const float *acc, int64_t C, const int64_t dims[3], const ConvImage &dst, const char *bias,
                aclDataType bias_dtype, int64_t bs) {
  const size_t es = esize_of(dst.dtype), bes = esize_of(bias_dtype);
  const int64_t n = dims[0] * dims[1] * dims[2];
  char *base = const_cast<char *>(dst.base);
  core::parallel_for(C, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const float b = bias != nullptr ? conv_load(bias_dtype, bias + static_cast<int64_t>(bes) * c * bs) : 0.0f;
      const float *a = acc + c * n;
      for (int64_t x0 = 0; x0 < dims[0]; ++x0)
        for (int64_t x1 = 0; x1 < dims[1]; ++x1) {
          char *o = base + static_cast<int64_t>(es) * (c * dst.sc + x0 * dst.ss[0] + x1 * dst.ss[1]);
          const float *ar = a + (x0 * dims[1] + x1) * dims[2];
          float buf[256];
          for (int64_t x2 = 0; x2 < dims[2]; x2 += 256) {
            const int64_t n2 = std::min<int64_t>(256, dims[2] - x2);
            for (int64_t i = 0; i < n2; ++i) buf[i] = ar[x2 + i] + b;
            store_row(dst.dtype, buf, n2, o + static_cast<int64_t>(es) * x2 * dst.ss[2], dst.ss[2]);
          }
        }
    }
  });
}

void conv_fill_rows(char *dst, aclDataType dt, int64_t rows, int64_t cols, int64_t rs, int64_t cs, const char *bias,
                    aclDataType bias_dtype, int64_t bs) {
  const int64_t es = static_cast<int64_t>(esize_of(dt)), bes = static_cast<int64_t>(esize_of(bias_dtype));
  for (int64_t r = 0; r < rows; ++r) {
    float buf[256];
    const float b = conv_load(bias_dtype, bias + bes * r * bs);
    for (int i = 0; i < 256; ++i) buf[i] = b;
    char *row = dst + es * r * rs;
    for (int64_t c = 0; c < cols; c += 256)
      store_row(dt, buf, std::min<int64_t>(256, cols - c), row + es * c * cs, cs);
  }
}

namespace {
template <class Fn>
void for_each_index(int ndim, const int64_t *dims, const int64_t *strides, Fn fn) {
  int64_t total = 1;
  for (int d = 0; d < ndim; ++d) total *= dims[d];
  std::vector<int64_t> idx(static_cast<size_t>(std::max(ndim, 1)), 0);
  int64_t off = 0;
  for (int64_t i = 0; i < total; ++i) {
    fn(i, off);
    for (int d = ndim - 1; d >= 0; --d) {
      if (++idx[static_cast<size_t>(d)] < dims[d]) {
        off += strides[d];
        break;
      }
      off -= strides[d] * (dims[d] - 1);
      idx[static_cast<size_t>(d)] = 0;
    }
  }
}
}  // namespace

void conv_to_float(const char *src, aclDataType dt, int ndim, const int64_t *dims, const int64_t *strides, float *dst) {
  const int64_t es = static_cast<int64_t>(esize_of(dt));
  for_each_index(ndim, dims, strides, [&](int64_t i, int64_t off) { dst[i] = conv_load(dt, src + es * off); });
}

void conv_from_float(const float *src, int ndim, const int64_t *dims, const int64_t *strides, aclDataType dt,
                     char *dst) {
  const int64_t es = static_cast<int64_t>(esize_of(dt));
  for_each_index(ndim, dims, strides, [&](int64_t i, int64_t off) { conv_put(dt, dst + es * off, src[i]); });
}

void conv_bias_grad(const char *src, aclDataType dt, int64_t N, int64_t C, const int64_t spatial[3], int64_t sn,
                    int64_t sc, const int64_t ss[3], char *out, aclDataType out_dt, int64_t os) {
  const int64_t es = static_cast<int64_t>(esize_of(dt)), oes = static_cast<int64_t>(esize_of(out_dt));
  core::parallel_for(C, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      double sum = 0;
      for (int64_t n = 0; n < N; ++n)
        for (int64_t x0 = 0; x0 < spatial[0]; ++x0)
          for (int64_t x1 = 0; x1 < spatial[1]; ++x1) {
            const char *p = src + es * (n * sn + c * sc + x0 * ss[0] + x1 * ss[1]);
            for (int64_t x2 = 0; x2 < spatial[2]; ++x2) sum += conv_load(dt, p + es * x2 * ss[2]);
          }
      conv_put(out_dt, out + oes * c * os, static_cast<float>(sum));
    }
  });
}

int64_t conv_depthwise_scratch_floats(const ConvGeom &g) { return depthwise_scratch_floats(g); }

void conv_depthwise_portable(const DepthwiseArgs &a, float *scratch, int threads) { depthwise_body(a, scratch, threads); }
int64_t conv_depthwise_nhwc_scratch_floats(const ConvGeom &g, int64_t c) { return depthwise_nhwc_scratch_floats(g, c); }
void conv_depthwise_nhwc_portable(const DepthwiseArgs &a, float *scratch, int threads) {
  depthwise_nhwc_body(a, scratch, threads);
}

int64_t conv_direct_packed_floats(const ConvGeom &g, int64_t c_in, int64_t c_out) {
  const int64_t blocks = (c_out + kDirectBlock - 1) / kDirectBlock;
  return blocks * kDirectBlock * (g.kprod() * c_in + 1);
}

void conv_direct_pack(const ConvGeom &g, int64_t c_in, int64_t c_out, const char *w, aclDataType w_dt,
                      const int64_t ws[5], const char *bias, aclDataType bias_dt, int64_t bs, float *dst) {
  const int64_t blocks = (c_out + kDirectBlock - 1) / kDirectBlock, taps = g.kprod();
  const int64_t wbs = taps * c_in * kDirectBlock, wes = static_cast<int64_t>(esize_of(w_dt));
  float *pb = dst + blocks * wbs;
  core::parallel_for(blocks, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      float *blk = dst + b * wbs;
      for (int64_t j = 0; j < kDirectBlock; ++j) {
        const int64_t oc = b * kDirectBlock + j;
        if (oc >= c_out) {  // padding channels: zero weights, zero bias
          for (int64_t i = 0; i < taps * c_in; ++i) blk[i * kDirectBlock + j] = 0.0f;
          pb[oc] = 0.0f;
          continue;
        }
        for (int64_t ic = 0; ic < c_in; ++ic)
          for (int64_t k0 = 0; k0 < g.k[0]; ++k0)
            for (int64_t k1 = 0; k1 < g.k[1]; ++k1)
              for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
                const int64_t tap = (k0 * g.k[1] + k1) * g.k[2] + k2;
                const char *src = w + wes * (oc * ws[0] + ic * ws[1] + k0 * ws[2] + k1 * ws[3] + k2 * ws[4]);
                blk[(tap * c_in + ic) * kDirectBlock + j] = conv_load(w_dt, src);
              }
        pb[oc] = bias != nullptr ? conv_load(bias_dt, bias + static_cast<int64_t>(esize_of(bias_dt)) * oc * bs) : 0.0f;
      }
    }
  });
}

void conv_direct_portable(const DirectArgs &a, int threads) { direct_body(a, threads); }

}  // namespace opsnn::kernels
