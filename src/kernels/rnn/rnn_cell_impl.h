// The gate math of rnn_cell.h, compiled once per ISA tier (rnn_cell_<tier>.cpp define
// OPSNN_RNN_CELL_NAMESPACE and include this): vmath's sigmoid / tanh vectorise along a row only with
// the tier's flags (the baseline build called fmaf out of line).
#pragma once

#include "core/thread_pool.h"
#include "kernels/elementwise/vmath.h"
#include "kernels/rnn/rnn_cell.h"

#ifndef OPSNN_RNN_CELL_NAMESPACE
#error "define OPSNN_RNN_CELL_NAMESPACE before including rnn_cell_impl.h"
#endif

namespace opsnn::kernels::OPSNN_RNN_CELL_NAMESPACE {
namespace {


// Rows per task: about 16 K gate elements, at least one row.
int64_t grain(int64_t hidden) { return hidden >= 4096 ? 1 : 4096 / (hidden > 0 ? hidden : 1); }

template <class Row>
void for_rows(int64_t rows, int64_t hidden, Row &&row) {
  core::parallel_for(rows, grain(hidden), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) row(r);
  });
}

void lstm_cell_forward(const LstmCellFwd &a) {
  const int64_t H = a.hidden;
  for_rows(a.rows, H, [&](int64_t r) {
    const float *p = a.pre + r * a.ld_pre;
    const float *p2 = a.pre2 ? a.pre2 + r * a.ld_pre2 : nullptr;
    const float *cp = a.c_prev + r * a.ld_c_prev;
    float *act = a.act + r * a.ld_act;
    float *c = a.c + r * a.ld_c, *h = a.h + r * a.ld_h;
    float *tc = a.tanhc ? a.tanhc + r * a.ld_tanhc : nullptr;
#pragma GCC ivdep  // rows may be updated in place (act == pre), element by element
    for (int64_t j = 0; j < 4 * H; ++j) {
      float v = p[j];
      if (p2) v += p2[j];
      if (a.bias) v += a.bias[j];
      act[j] = v;
    }
#pragma GCC ivdep  // rows may be updated in place (act == pre), element by element
    for (int64_t j = 0; j < H; ++j) {
      const float ig = vmath::sigmoid(act[j]), fg = vmath::sigmoid(act[H + j]);
      const float gg = vmath::tanh(act[2 * H + j]), og = vmath::sigmoid(act[3 * H + j]);
      const float cv = fg * cp[j] + ig * gg;
      const float t = vmath::tanh(cv);
      act[j] = ig;
      act[H + j] = fg;
      act[2 * H + j] = gg;
      act[3 * H + j] = og;
      c[j] = cv;
      h[j] = og * t;
      if (tc) tc[j] = t;
    }
  });
}

void lstm_cell_backward(const LstmCellBwd &a) {
  const int64_t H = a.hidden;
  for_rows(a.rows, H, [&](int64_t r) {
    const float *act = a.act + r * a.ld_act;
    const float *cp = a.c_prev + r * a.ld_c_prev, *c = a.c + r * a.ld_c;
    const float *tc = a.tanhc ? a.tanhc + r * a.ld_tanhc : nullptr;
    const float *dh = a.dh ? a.dh + r * a.ld_dh : nullptr, *dc = a.dc ? a.dc + r * a.ld_dc : nullptr;
    float *dg = a.dgates + r * a.ld_dgates, *dcp = a.dc_prev + r * a.ld_dc_prev;
#pragma GCC ivdep  // rows may be updated in place (act == pre), element by element
    for (int64_t j = 0; j < H; ++j) {
      const float ig = act[j], fg = act[H + j], gg = act[2 * H + j], og = act[3 * H + j];
      const float t = tc ? tc[j] : vmath::tanh(c[j]);
      const float dhv = dh ? dh[j] : 0.0f;
      const float dcv = (dc ? dc[j] : 0.0f) + dhv * og * (1.0f - t * t);
      dg[j] = dcv * gg * ig * (1.0f - ig);
      dg[H + j] = dcv * cp[j] * fg * (1.0f - fg);
      dg[2 * H + j] = dcv * ig * (1.0f - gg * gg);
      dg[3 * H + j] = dhv * t * og * (1.0f - og);
      dcp[j] = dcv * fg;
    }
  });
}

void gru_cell_forward(const GruCellFwd &a) {
  const int64_t H = a.hidden;
  for_rows(a.rows, H, [&](int64_t r) {
    const float *gx = a.gx + r * a.ld_gx, *gh = a.gh + r * a.ld_gh, *hp = a.h_prev + r * a.ld_h_prev;
    float *act = a.act + r * a.ld_act, *hn = a.hn + r * a.ld_hn, *h = a.h + r * a.ld_h;
#pragma GCC ivdep  // rows may be updated in place (act == pre), element by element
    for (int64_t j = 0; j < H; ++j) {
      const float rg = vmath::sigmoid(gx[j] + gh[j]);
      const float zg = vmath::sigmoid(gx[H + j] + gh[H + j]);
      const float hnv = gh[2 * H + j];
      const float ng = vmath::tanh(gx[2 * H + j] + rg * hnv);
      act[j] = rg;
      act[H + j] = zg;
      act[2 * H + j] = ng;
      hn[j] = hnv;
      h[j] = (1.0f - zg) * ng + zg * hp[j];
    }
  });
}

void gru_cell_backward(const GruCellBwd &a) {
  const int64_t H = a.hidden;
  for_rows(a.rows, H, [&](int64_t r) {
    const float *act = a.act + r * a.ld_act, *hn = a.hn + r * a.ld_hn, *hp = a.h_prev + r * a.ld_h_prev;
    const float *dh = a.dh + r * a.ld_dh;
    float *dgx = a.dgx + r * a.ld_dgx, *dgh = a.dgh + r * a.ld_dgh, *dhp = a.dh_prev + r * a.ld_dh_prev;
#pragma GCC ivdep  // rows may be updated in place (act == pre), element by element
    for (int64_t j = 0; j < H; ++j) {
      const float rg = act[j], zg = act[H + j], ng = act[2 * H + j];
      const float dn = dh[j] * (1.0f - zg) * (1.0f - ng * ng);  // gradient of n's pre-activation
      const float dz = dh[j] * (hp[j] - ng) * zg * (1.0f - zg);
      const float dr = dn * hn[j] * rg * (1.0f - rg);
      dgx[j] = dr;
      dgx[H + j] = dz;
      dgx[2 * H + j] = dn;
      dgh[j] = dr;
      dgh[H + j] = dz;
      dgh[2 * H + j] = dn * rg;
      dhp[j] = dh[j] * zg;
    }
  });
}

const RnnCellKernels kCellKernels = {&lstm_cell_forward, &lstm_cell_backward, &gru_cell_forward, &gru_cell_backward};

}  // namespace
}  // namespace opsnn::kernels::OPSNN_RNN_CELL_NAMESPACE
