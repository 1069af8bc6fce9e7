// The few-input-channel direct convolution: its scratch layout, the weight conversion and the
// portable unit (conv_small_avx2.cpp / conv_small_avx512.cpp compile the same body wider).
#include "kernels/conv/conv_small.h"

#include <algorithm>

#include "kernels/conv/conv_small_impl.h"

namespace opsnn::kernels {

SmallPlanes conv_small_planes(const ConvGeom &g, int64_t c_in) {
  SmallPlanes p;
  for (int i = 0; i < 3; ++i) p.e[i] = std::max<int64_t>((g.small[i] - 1) * g.s[i] + (g.k[i] - 1) * g.d[i] + 1, 1);
  int64_t far = 0;  // the farthest tap's offset from J = 0 of output plane o0 = 0, plus the last o0's
  p.shifted = g.s[1] == 1;
  if (p.shifted) {
    p.plen = p.rlen = p.pitch = g.small[2];
    p.kplane = p.e[0] * p.e[1] * p.rlen;
    p.plane = g.k[2] * p.kplane;
    far = (g.k[2] - 1) * p.kplane + ((p.e[0] - 1) * p.e[1] + (g.k[1] - 1) * g.d[1]) * p.rlen;
  } else {
    p.plen = (p.e[2] + g.s[2] - 1) / g.s[2];
    p.rlen = g.s[2] * p.plen;
    p.plane = p.e[0] * p.e[1] * p.rlen;
    p.pitch = g.s[1] * p.rlen;
    int64_t far2 = 0;
    for (int64_t k2 = 0; k2 < g.k[2]; ++k2)
      far2 = std::max(far2, ((k2 * g.d[2]) % g.s[2]) * p.plen + (k2 * g.d[2]) / g.s[2]);
    far = ((p.e[0] - 1) * p.e[1] + (g.k[1] - 1) * g.d[1]) * p.rlen + far2;
  }
  p.wide = (g.small[1] - 1) * p.pitch + g.small[2];
  // ... plus whole vectors of the widest unit (16 floats) over the wide plane.
  const int64_t floats = (c_in - 1) * p.plane + far + (p.wide + 15) / 16 * 16;
  p.floats = std::max(floats, c_in * p.plane + 16) / 16 * 16 + 16;
  return p;
}

int64_t conv_small_weight_floats(const ConvGeom &g, int64_t c_in, int64_t c_out) {
  return c_out * c_in * g.kprod() + c_out;
}

void conv_small_weights(const ConvGeom &g, int64_t c_in, int64_t c_out, const char *w, aclDataType w_dt,
                        const int64_t ws[5], const char *bias, aclDataType bias_dt, int64_t bs, float *dst) {
  const int64_t wes = w_dt == ACL_FLOAT ? 4 : w_dt == ACL_DOUBLE ? 8 : 2;
  for (int64_t co = 0; co < c_out; ++co)
    for (int64_t ci = 0; ci < c_in; ++ci)
      for (int64_t k0 = 0; k0 < g.k[0]; ++k0)
        for (int64_t k1 = 0; k1 < g.k[1]; ++k1)
          for (int64_t k2 = 0; k2 < g.k[2]; ++k2)
            *dst++ = conv_load(w_dt, w + wes * (co * ws[0] + ci * ws[1] + k0 * ws[2] + k1 * ws[3] + k2 * ws[4]));
  const int64_t bes = bias_dt == ACL_FLOAT ? 4 : bias_dt == ACL_DOUBLE ? 8 : 2;
  for (int64_t co = 0; co < c_out; ++co) *dst++ = bias != nullptr ? conv_load(bias_dt, bias + bes * co * bs) : 0.0f;
}

void conv_small_portable(const SmallArgs &a, float *scratch, int threads) { small_body(a, scratch, threads); }

}  // namespace opsnn::kernels
