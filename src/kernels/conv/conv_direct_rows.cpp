// The direct convolution over packed input rows: its weight packing, scratch size and the portable unit
// (conv_direct_rows_avx2.cpp / conv_direct_rows_avx512.cpp compile the same body wider).
#include "kernels/conv/conv_direct_rows.h"

#include "kernels/conv/conv_direct_rows_nchw_impl.h"

namespace opsnn::kernels {

int64_t conv_direct_rows_packed_floats(const ConvGeom &g, int64_t c_in, int64_t c_out) {
  const int64_t cp = (c_out + kDirectBlock - 1) / kDirectBlock * kDirectBlock;
  return (g.k[1] * g.k[2] * c_in + 1) * cp;
}

void conv_direct_rows_pack(const ConvGeom &g, int64_t c_in, int64_t c_out, const char *w, aclDataType w_dt,
                           const int64_t ws[5], const char *bias, aclDataType bias_dt, int64_t bs, float *dst) {
  const int64_t cp = (c_out + kDirectBlock - 1) / kDirectBlock * kDirectBlock;
  auto esize = [](aclDataType dt) -> int64_t { return dt == ACL_FLOAT ? 4 : dt == ACL_DOUBLE ? 8 : 2; };
  const int64_t wes = esize(w_dt), bes = esize(bias_dt);
  for (int64_t k1 = 0; k1 < g.k[1]; ++k1)
    for (int64_t k2 = 0; k2 < g.k[2]; ++k2)
      for (int64_t ci = 0; ci < c_in; ++ci, dst += cp)
        for (int64_t co = 0; co < cp; ++co)
          dst[co] = co < c_out ? conv_load(w_dt, w + wes * (co * ws[0] + ci * ws[1] + k1 * ws[3] + k2 * ws[4])) : 0.0f;
  for (int64_t co = 0; co < cp; ++co)
    dst[co] = bias != nullptr && co < c_out ? conv_load(bias_dt, bias + bes * co * bs) : 0.0f;
}

int64_t conv_direct_rows_scratch_floats(const ConvGeom &g, int64_t c_in, int64_t c_out) {
  const DrRing ring = dr_ring(g, c_in);
  const int64_t blocks = (c_out + kDirectBlock - 1) / kDirectBlock;
  return ring.rows * ring.pitch + g.small[2] * blocks * kDirectBlock;  // the ring, then the row buffer
}

int64_t conv_direct_rows_nchw_scratch_floats(const ConvGeom &g, int64_t c_in, int64_t /*c_out*/) {
  const DnRing ring = dn_ring(g, c_in);
  return ring.rows * ring.pitch + kDnNc * ((g.small[2] + 15) / 16 * 16);  // the ring, then a narrow row's stage
}

void conv_direct_rows_portable(const DirectArgs &a, float *scratch, int threads) {
  direct_rows_body(a, scratch, threads);
}
void conv_direct_rows_nchw_portable(const DirectArgs &a, float *scratch, int threads) {
  direct_rows_nchw_body(a, scratch, threads);
}

}  // namespace opsnn::kernels
