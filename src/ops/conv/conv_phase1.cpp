#include "ops/conv/conv_phase1.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "common/error.h"
#include "core/impl_list.h"
#include "core/op_checks.h"
#include "core/thread_pool.h"
#include "core/verbose.h"
#include "kernels/conv/conv.h"
#include "kernels/conv/deform.h"
#include "kernels/matmul/gemm.h"
#include "kernels/matmul/igemm.h"
#include "kernels/matmul/qmm_epilogue.h"
#include "ops/matmul/matmul_common.h"

namespace opsnn::ops {
namespace {

using core::shape_string;
using kernels::ConvGeom;

// Column tiles are sized so the column buffer stays within this many bytes (at least 16 columns,
// or the whole span); OPSNN_CONV_COLUMN_BYTES overrides it (tests use a tiny budget to reach many
// tiles with small shapes).
int64_t column_budget() {
  const char *env = std::getenv("OPSNN_CONV_COLUMN_BYTES");
  if (env != nullptr && *env != '\0') {
    const long long v = std::atoll(env);
    if (v > 0) return v;
  }
  return int64_t{4} << 20;
}

int64_t esz(aclDataType dt) { return static_cast<int64_t>(core::dtype_size(dt)); }

// A logical [N, C, s0, s1, s2] view of a tensor (leading spatial dims of size 1 added; channels-last
// formats NHWC / NDHWC read as [N, spatial..., C]).
struct Logical {
  int64_t dims[5] = {1, 1, 1, 1, 1}, strides[5] = {0, 0, 0, 0, 0};
};

bool channels_last(const aclTensor &t) {
  return (t.format == ACL_FORMAT_NHWC && t.ndim == 4) || (t.format == ACL_FORMAT_NDHWC && t.ndim == 5);
}

Logical logical(const aclTensor &t) {
  Logical l;
  const int nsp = t.ndim - 2;
  const bool cl = channels_last(t);
  const int cdim = cl ? t.ndim - 1 : 1;
  l.dims[0] = t.dims[0];
  l.strides[0] = t.strides[0];
  l.dims[1] = t.dims[cdim];
  l.strides[1] = t.strides[cdim];
  for (int i = 0; i < nsp; ++i) {
    const int src = cl ? 1 + i : 2 + i;
    l.dims[2 + 3 - nsp + i] = t.dims[src];
    l.strides[2 + 3 - nsp + i] = t.strides[src];
  }
  return l;
}

// The shape of a tensor with logical dims [N, C, spatial(nsp)] in t's format order.
core::Shape shape_in_format(const aclTensor &like, int64_t n, int64_t c, const int64_t *sp, int nsp) {
  core::Shape s;
  s.ndim = nsp + 2;
  s.dims[0] = n;
  if (channels_last(like)) {
    for (int i = 0; i < nsp; ++i) s.dims[1 + i] = sp[i];
    s.dims[nsp + 1] = c;
  } else {
    s.dims[1] = c;
    for (int i = 0; i < nsp; ++i) s.dims[2 + i] = sp[i];
  }
  return s;
}

// One side of the geometry at launch: where it is and its logical strides (elements).
struct Side {
  core::OperandRef ref;
  aclDataType dt = ACL_FLOAT;
  int64_t n = 0, c = 0, sp[3] = {1, 1, 1};
  int64_t sn = 0, sc = 0, ss[3] = {0, 0, 0};
  // Stride of the flattened spatial index, or -1 when the spatial dims do not nest.
  int64_t flat_stride() const {
    int64_t fs = -1, inner = 1;
    for (int i = 2; i >= 0; --i) {
      if (sp[i] == 1) continue;
      if (fs < 0) {
        fs = ss[i];
      } else if (ss[i] != fs * inner) {
        return -1;
      }
      inner *= sp[i];
    }
    return fs < 0 ? 1 : fs;
  }
  kernels::ConvImage image(const char *base, int64_t n_idx, int64_t c0) const {
    kernels::ConvImage im;
    im.base = base + esz(dt) * (n_idx * sn + c0 * sc);
    im.dtype = dt;
    im.sc = sc;
    for (int i = 0; i < 3; ++i) im.ss[i] = ss[i];
    return im;
  }
};

Side side_of(int slot, const aclTensor &t, const Logical &l) {
  Side s;
  s.ref = core::OperandRef::of_slot(slot, t);
  s.dt = t.dtype;
  s.n = l.dims[0];
  s.c = l.dims[1];
  s.sn = l.strides[0];
  s.sc = l.strides[1];
  for (int i = 0; i < 3; ++i) {
    s.sp[i] = l.dims[2 + i];
    s.ss[i] = l.strides[2 + i];
  }
  return s;
}

// The weight [C_small, C_big / groups, k0, k1, k2].
struct Weight {
  core::OperandRef ref;
  aclDataType dt = ACL_FLOAT;
  int64_t dims[5] = {1, 1, 1, 1, 1}, strides[5] = {0, 0, 0, 0, 0};
  // Stride of the flattened (c, k0, k1, k2) index j, or -1 (then the step packs it to fp32).
  int64_t j_stride() const {
    int64_t fs = -1, inner = 1;
    for (int i = 4; i >= 1; --i) {
      if (dims[i] == 1) continue;
      if (fs < 0) {
        fs = strides[i];
      } else if (strides[i] != fs * inner) {
        return -1;
      }
      inner *= dims[i];
    }
    return fs < 0 ? 1 : fs;
  }
};

Weight weight_of(int slot, const aclTensor &t, const Logical &l) {
  Weight w;
  w.ref = core::OperandRef::of_slot(slot, t);
  w.dt = t.dtype;
  for (int i = 0; i < 5; ++i) {
    w.dims[i] = l.dims[i];
    w.strides[i] = l.strides[i];
  }
  return w;
}

struct Bias {
  core::OperandRef ref;  // slot -1: none
  aclDataType dt = ACL_FLOAT;
  int64_t stride = 0;
  bool present() const { return ref.slot >= 0; }
};

enum class Mode : uint8_t { kForward, kData, kWgrad };

// What the candidate lists look at.
struct ConvDesc {
  Mode mode;
  ConvGeom g;
  int64_t groups, cbg, csg;
  bool big_flat, small_flat;
  int64_t big_sc = 0, small_sc = 0;  // channel strides (channels-last: 1)
  aclDataType big_dt = ACL_FLOAT, small_dt = ACL_FLOAT;
};

bool unit_geometry(const ConvGeom &g) {
  for (int i = 0; i < 3; ++i)
    if (g.k[i] != 1 || g.s[i] != 1 || g.p[i] != 0 || g.big[i] != g.small[i]) return false;
  return true;
}

// Forward / data: best first; the last (im2col + GEMM / GEMM + col2im) takes everything.
const core::Impl<ConvDesc> kForwardImpls[] = {
    {"depthwise_nhwc", core::kNoIsa,
     [](const ConvDesc &d, const core::Why &why) {
       if (d.mode != Mode::kForward) return why("not a forward convolution");
       if (d.groups == 1 || d.cbg != 1) return why("not depthwise (groups=%lld with %lld input channels per group)",
                                                   static_cast<long long>(d.groups), static_cast<long long>(d.cbg));
       if (d.csg != 1) return why("channel multiplier %lld", static_cast<long long>(d.csg));
       if (d.big_sc != 1 || d.small_sc != 1)
         return why("not channels-last (channel strides %lld / %lld)", static_cast<long long>(d.big_sc),
                    static_cast<long long>(d.small_sc));
       if (d.big_dt != ACL_FLOAT || d.small_dt != ACL_FLOAT) return why("not FLOAT input and output");
       if (d.g.k[0] * d.g.k[1] > 64) return why("more than 64 kernel rows");
       return true;
     }},
    {"depthwise_direct", core::kNoIsa,
     [](const ConvDesc &d, const core::Why &why) {
       if (d.mode != Mode::kForward) return why("not a forward convolution");
       if (d.groups == 1 || d.cbg != 1) return why("not depthwise (groups=%lld with %lld input channels per group)",
                                                   static_cast<long long>(d.groups), static_cast<long long>(d.cbg));
       return true;
     }},
    {"gemm_1x1", core::kNoIsa,
     [](const ConvDesc &d, const core::Why &why) {
       if (!unit_geometry(d.g)) return why("not a 1x1 stride-1 unpadded kernel");
       if (!d.big_flat || !d.small_flat) return why("spatial dims do not nest");
       return true;
     }},
    {"im2col_gemm", core::kNoIsa, nullptr},
};

// The direct depthwise kernel's ISA tiers (the same source auto-vectorised per unit), best first.
#if defined(__x86_64__)
const core::Impl<int> kDepthwiseTiers[] = {
    {"avx512", static_cast<int>(core::Isa::kAvx512), nullptr},
    {"avx2", static_cast<int>(core::Isa::kAvx2), nullptr},
    {"portable", static_cast<int>(core::Isa::kPortable), nullptr},
};
const kernels::DepthwiseFn kDepthwiseFns[] = {kernels::conv_depthwise_avx512, kernels::conv_depthwise_avx2,
                                              kernels::conv_depthwise_portable};
const kernels::DepthwiseFn kDepthwiseNhwcFns[] = {kernels::conv_depthwise_nhwc_avx512,
                                                  kernels::conv_depthwise_nhwc_avx2,
                                                  kernels::conv_depthwise_nhwc_portable};
#else
const core::Impl<int> kDepthwiseTiers[] = {{"portable", static_cast<int>(core::Isa::kPortable), nullptr}};
const kernels::DepthwiseFn kDepthwiseFns[] = {kernels::conv_depthwise_portable};
const kernels::DepthwiseFn kDepthwiseNhwcFns[] = {kernels::conv_depthwise_nhwc_portable};
#endif

void record(const char *engine, const char *name, const core::ImplTrace *trace) {
  if (core::current_phase1_trace() != nullptr) core::record_choice(std::string("conv:") + engine + "/" + name, trace);
}

int choose_impl(const ConvDesc &d, const char *engine) {
  core::ImplTrace trace;
  const bool traced = core::current_phase1_trace() != nullptr;
  const int i = core::choose(kForwardImpls, d, traced ? &trace : nullptr);
  record(engine, kForwardImpls[i].name, traced ? &trace : nullptr);
  return i;
}

kernels::GemmPlan plan_gemm(const kernels::GemmDesc &d) {
  kernels::GemmPlan p;
  if (!kernels::gemm_plan(d, &p))
    throw_error(ACLNN_ERR_INNER_TILING_ERROR, "GEMM planning failed: %s", last_error_message());
  return p;
}

// ---- The im2col / col2im + GEMM step (all three modes) ----

class ConvGemmStep final : public core::Step {
 public:
  Mode mode = Mode::kForward;
  ConvGeom g;
  int64_t groups = 1, csg = 1, cbg = 1, kc = 1, batch = 0;
  Side big, small;
  Weight w;
  Bias bias;                 // forward: small-side channels; data: big-side channels
  bool pack_w = false;       // weight gathered to dense fp32 first
  bool bias_prefill = false;  // forward: the tile is filled with the bias, the GEMM adds to it (beta = 1)
  int64_t w_row = 0, w_j = 0;  // strides of the (possibly packed) weight: [C_small, j]
  aclDataType w_dt = ACL_FLOAT;
  // Small-side tiles: flat (tiles over the flattened spatial index) or row by row.
  bool flat = true;
  int64_t fs = 1, lt = 1, tail = 0;
  kernels::GemmPlan full, part;
  core::WsKey col, acc, wpack, scratch;

  int run(const core::LaunchArgs &args) const override {
    const char *wbase = w.ref.address(args);
    if (pack_w) {
      float *p = reinterpret_cast<float *>(args.get(wpack));
      kernels::conv_to_float(wbase, w.dt, 5, w.dims, w.strides, p);
      wbase = reinterpret_cast<const char *>(p);
    }
    char *bigp = big.ref.address(args), *smallp = small.ref.address(args);
    char *colp = args.get(col);
    float *accp = reinterpret_cast<float *>(acc.booked() ? args.get(acc) : nullptr);
    char *sc = args.get(scratch);
    const char *biasp = bias.present() ? bias.ref.address(args) : nullptr;
    const int64_t wes = esz(w_dt), ses = esz(small.dt);
    if (mode == Mode::kWgrad) std::fill(accp, accp + small.c * kc, 0.0f);
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t gi = 0; gi < groups; ++gi) {
        const kernels::ConvImage big_img = big.image(bigp, n, gi * cbg);
        char *small_g = smallp + ses * (n * small.sn + gi * csg * small.sc);
        const char *w_g = wbase + wes * gi * csg * w_row;
        if (mode == Mode::kData) std::fill(accp, accp + cbg * g.big_n(), 0.0f);
        const int64_t rows = flat ? 1 : g.small[0] * g.small[1];
        const int64_t span = flat ? g.small_n() : g.small[2];
        for (int64_t r = 0; r < rows; ++r) {
          for (int64_t c0 = 0; c0 < span; c0 += lt) {
            const int64_t len = std::min(lt, span - c0);
            const kernels::GemmPlan &plan = len == lt ? full : part;
            const int64_t l0 = r * span + c0;
            const int64_t off = flat ? c0 * fs
                                     : (r / g.small[1]) * small.ss[0] + (r % g.small[1]) * small.ss[1] + c0 * small.ss[2];
            char *tile = small_g + ses * off;
            switch (mode) {
              case Mode::kForward: {
                kernels::conv_im2col(g, big_img, cbg, l0, len, colp, lt);
                const char *d = biasp != nullptr ? biasp + esz(bias.dt) * gi * csg * bias.stride : nullptr;
                if (bias_prefill)
                  kernels::conv_fill_rows(tile, small.dt, csg, len, small.sc, flat ? fs : small.ss[2], d, bias.dt,
                                          bias.stride);
                kernels::gemm_run(plan, w_g, colp, tile, sc, bias_prefill ? nullptr : d);
                break;
              }
              case Mode::kData:
                kernels::gemm_run(plan, w_g, tile, colp, sc);
                kernels::conv_col2im(g, reinterpret_cast<const float *>(colp), lt, cbg, l0, len, accp);
                break;
              case Mode::kWgrad:
                kernels::conv_im2col(g, big_img, cbg, l0, len, colp, lt);
                kernels::gemm_run(plan, tile, colp, accp + gi * csg * kc, sc);
                break;
            }
          }
        }
        if (mode == Mode::kData) {
          const char *bb = biasp != nullptr ? biasp + esz(bias.dt) * gi * cbg * bias.stride : nullptr;
          kernels::ConvImage out = big_img;
          kernels::conv_store(accp, cbg, g.big, out, bb, bias.dt, bias.stride);
        }
      }
    }
    if (mode == Mode::kWgrad) {
      // gradWeight (registered as `w`) from the accumulator.
      kernels::conv_from_float(accp, 5, w.dims, w.strides, w.dt, const_cast<char *>(w.ref.address(args)));
    }
    return 0;
  }
};

// ---- The direct depthwise step ----

class DepthwiseStep final : public core::Step {
 public:
  kernels::DepthwiseFn fn = nullptr;
  kernels::DepthwiseArgs a;
  Side big, small;
  Weight w;
  Bias bias;
  core::WsKey scratch;
  int threads = 1;
  int run(const core::LaunchArgs &args) const override {
    kernels::DepthwiseArgs x = a;
    x.in = big.image(big.ref.address(args), 0, 0);
    x.out = small.image(small.ref.address(args), 0, 0);
    x.out_base = small.ref.address(args);
    x.w = w.ref.address(args);
    x.bias = bias.present() ? bias.ref.address(args) : nullptr;
    fn(x, reinterpret_cast<float *>(args.get(scratch)), threads);
    return 0;
  }
};

class BiasGradStep final : public core::Step {
 public:
  Side go;
  core::OperandRef out;
  aclDataType out_dt = ACL_FLOAT;
  int64_t out_stride = 1;
  int run(const core::LaunchArgs &args) const override {
    kernels::conv_bias_grad(go.ref.address(args), go.dt, go.n, go.c, go.sp, go.sn, go.sc, go.ss, out.address(args),
                            out_dt, out_stride);
    return 0;
  }
};

class Im2colStep final : public core::Step {
 public:
  ConvGeom g;
  Side in;
  core::OperandRef out;
  int64_t out_sn = 0, out_rs = 0, out_cs = 1;
  core::WsKey col;
  int run(const core::LaunchArgs &args) const override {
    const int64_t es = esz(in.dt), kc = in.c * g.kprod(), L = g.small_n();
    char *o = out.address(args);
    char *inp = in.ref.address(args);
    for (int64_t n = 0; n < in.n; ++n) {
      char *dst = o + es * n * out_sn;
      if (out_cs == 1) {
        kernels::conv_im2col(g, in.image(inp, n, 0), in.c, 0, L, dst, out_rs);
      } else {
        char *c = args.get(col);
        kernels::conv_im2col(g, in.image(inp, n, 0), in.c, 0, L, c, L);
        for (int64_t r = 0; r < kc; ++r)
          for (int64_t l = 0; l < L; ++l)
            std::memcpy(dst + es * (r * out_rs + l * out_cs), c + es * (r * L + l), static_cast<size_t>(es));
      }
    }
    return 0;
  }
};

// ---- Recording ----

struct Problem {
  ConvGeom g;
  int nsp = 2;
  int64_t groups = 1;
};

// The column tiling of the small side.
void set_tiles(ConvGemmStep &s, const Side &small_side) {
  const int64_t f = small_side.flat_stride();
  s.flat = f >= 0;
  s.fs = s.flat ? f : 0;
  const int64_t span = s.flat ? s.g.small_n() : s.g.small[2];
  const int64_t budget = column_budget();
  int64_t cap = budget / (s.kc * 4);
  if (cap < span) cap = budget >= (int64_t{1} << 20) ? std::max<int64_t>(16, cap / 16 * 16) : std::max<int64_t>(1, cap);
  s.lt = std::max<int64_t>(1, std::min(span, cap));
  s.tail = span % s.lt;
}

void set_weight(ConvGemmStep &s, const Weight &w, core::OpBuilder &b) {
  s.w = w;
  const int64_t j = w.j_stride();
  if (j < 0) {
    s.pack_w = true;
    s.w_row = s.kc;
    s.w_j = 1;
    s.w_dt = ACL_FLOAT;
    s.wpack = b.book("conv.weight", static_cast<uint64_t>(w.dims[0] * s.kc * 4));
  } else {
    s.w_row = w.strides[0];
    s.w_j = j;
    s.w_dt = w.dt;
  }
}

void finish_gemm_step(core::OpBuilder &b, std::unique_ptr<ConvGemmStep> s,
                      kernels::GemmDesc (*desc)(const ConvGemmStep &, int64_t)) {
  s->full = plan_gemm(desc(*s, s->lt));
  size_t ws = s->full.workspace_bytes;
  if (s->tail > 0) {
    s->part = plan_gemm(desc(*s, s->tail));
    ws = std::max(ws, s->part.workspace_bytes);
  }
  const size_t col_es = s->mode == Mode::kData ? 4 : static_cast<size_t>(esz(s->big.dt));
  s->col = b.book("conv.columns", static_cast<uint64_t>(s->kc * s->lt) * col_es);
  if (s->mode == Mode::kData) s->acc = b.book("conv.accumulator", static_cast<uint64_t>(s->cbg * s->g.big_n() * 4));
  if (s->mode == Mode::kWgrad) s->acc = b.book("conv.weight_grad", static_cast<uint64_t>(s->small.c * s->kc * 4));
  s->scratch = b.book("gemm.scratch", ws);
  b.add_step<ConvGemmStep>(std::move(*s));
}

kernels::GemmDesc forward_desc(const ConvGemmStep &s, int64_t len) {
  kernels::GemmDesc d;
  d.m = s.csg;
  d.n = len;
  d.k = s.kc;
  d.a = {s.w_dt, s.w_row, s.w_j, 0};
  d.b = {s.big.dt, s.lt, 1, 0};
  d.c = {s.small.dt, s.small.sc, s.flat ? s.fs : s.small.ss[2], 0};
  if (s.bias.present()) {
    d.beta = 1.0f;
    if (!s.bias_prefill) {
      d.has_d = true;
      d.d = {s.bias.dt, s.bias.stride, 0, 0};
    }
  }
  return d;
}

kernels::GemmDesc data_desc(const ConvGemmStep &s, int64_t len) {
  kernels::GemmDesc d;
  d.m = s.kc;
  d.n = len;
  d.k = s.csg;
  d.a = {s.w_dt, s.w_j, s.w_row, 0};
  d.b = {s.small.dt, s.small.sc, s.flat ? s.fs : s.small.ss[2], 0};
  d.c = {ACL_FLOAT, s.lt, 1, 0};
  return d;
}

kernels::GemmDesc wgrad_desc(const ConvGemmStep &s, int64_t len) {
  kernels::GemmDesc d;
  d.m = s.csg;
  d.n = s.kc;
  d.k = len;
  d.a = {s.small.dt, s.small.sc, s.flat ? s.fs : s.small.ss[2], 0};
  d.b = {s.big.dt, 1, s.lt, 0};
  d.c = {ACL_FLOAT, s.kc, 1, 0};
  d.beta = 1.0f;
  return d;
}

ConvDesc desc_of(Mode mode, const Problem &p, const Side &big, const Side &small, int64_t cbg, int64_t csg) {
  return ConvDesc{mode,     p.g,      p.groups, cbg,    csg, big.flat_stride() >= 0, small.flat_stride() >= 0,
                  big.sc,   small.sc, big.dt,   small.dt};
}

// The bias is written first and the GEMM adds its product (beta = 1) when that rounds no
// differently: the output is FLOAT or has the bias's dtype (the bias is then exact in it). The
// GEMM's addend epilogue (D) is the general way, slower on the engine's direct-C path.
bool prefill_bias(const Bias &bias, const Side &out) {
  return bias.present() && (out.dt == ACL_FLOAT || out.dt == bias.dt);
}

// Fills a registered side's channels with the bias (before a GEMM step that adds to it).
class BiasFillStep final : public core::Step {
 public:
  Side out;
  Bias bias;
  int run(const core::LaunchArgs &args) const override {
    char *o = out.ref.address(args);
    const char *bp = bias.ref.address(args);
    const int64_t es = esz(out.dt), sp = out.sp[0] * out.sp[1] * out.sp[2];
    const int64_t fs = out.flat_stride();
    core::parallel_for(out.n, 1, [&](int64_t n0, int64_t n1) {
      for (int64_t n = n0; n < n1; ++n) {
        if (fs >= 0) {
          kernels::conv_fill_rows(o + es * n * out.sn, out.dt, out.c, sp, out.sc, fs, bp, bias.dt, bias.stride);
          continue;
        }
        for (int64_t x0 = 0; x0 < out.sp[0]; ++x0)
          for (int64_t x1 = 0; x1 < out.sp[1]; ++x1)
            kernels::conv_fill_rows(o + es * (n * out.sn + x0 * out.ss[0] + x1 * out.ss[1]), out.dt, out.c, out.sp[2],
                                    out.sc, out.ss[2], bp, bias.dt, bias.stride);
      }
    });
    return 0;
  }
};

// small = W @ im2col(big) (+ bias).
void record_forward(core::OpBuilder &b, const Problem &p, const Side &big, const Side &small, const Weight &w,
                    const Bias &bias) {
  if (small.n == 0 || p.g.small_n() == 0 || small.c == 0) return;
  const int64_t cbg = big.c / p.groups, csg = small.c / p.groups;
  const ConvDesc d = desc_of(Mode::kForward, p, big, small, cbg, csg);
  const int impl = choose_impl(d, "forward");
  if (impl == 0 || impl == 1) {  // depthwise_nhwc / depthwise_direct, in the best ISA tier
    DepthwiseStep s;
    core::ImplTrace trace;
    const bool traced = core::current_phase1_trace() != nullptr;
    const int tier = core::choose(kDepthwiseTiers, 0, traced ? &trace : nullptr);
    record("depthwise", kDepthwiseTiers[tier].name, traced ? &trace : nullptr);
    s.fn = impl == 0 ? kDepthwiseNhwcFns[tier] : kDepthwiseFns[tier];
    s.a.g = p.g;
    s.a.n = big.n;
    s.a.c_in = big.c;
    s.a.mult = csg;
    s.a.in_sn = big.sn;
    s.a.w_dtype = w.dt;
    s.a.w_s0 = w.strides[0];
    for (int i = 0; i < 3; ++i) s.a.w_ss[i] = w.strides[2 + i];
    s.a.bias_dtype = bias.dt;
    s.a.bias_s = bias.stride;
    s.a.out_sn = small.sn;
    s.big = big;
    s.small = small;
    s.w = w;
    s.bias = bias;
    s.threads = static_cast<int>(std::min<int64_t>(core::num_threads(), std::max<int64_t>(1, big.n * big.c)));
    if (impl == 0)  // the re-laid-out weight and bias, shared by the threads
      s.scratch = b.book("conv.depthwise_weight",
                         static_cast<uint64_t>(kernels::conv_depthwise_nhwc_scratch_floats(p.g, big.c) * 4));
    else
      s.scratch = b.book("conv.depthwise_planes",
                         static_cast<uint64_t>(kernels::conv_depthwise_scratch_floats(p.g) * 4 * s.threads));
    b.add_step<DepthwiseStep>(std::move(s));
    return;
  }
  if (impl == 2) {  // gemm_1x1: one GEMM per group, batched over N, reading every operand in place
    GemmCall call;
    kernels::GemmDesc &gd = call.desc;
    call.ref[kGemmA] = w.ref;
    call.ref[kGemmB] = big.ref;
    call.ref[kGemmC] = small.ref;
    gd.batch = small.n;
    gd.m = csg;
    gd.n = p.g.small_n();
    gd.k = cbg;
    gd.a = {w.dt, w.strides[0], w.strides[1], 0};
    gd.b = {big.dt, big.sc, big.flat_stride(), big.sn};
    gd.c = {small.dt, small.sc, small.flat_stride(), small.sn};
    if (prefill_bias(bias, small)) {
      BiasFillStep fill;
      fill.out = small;
      fill.bias = bias;
      b.add_step<BiasFillStep>(std::move(fill));
      gd.beta = 1.0f;
    } else if (bias.present()) {
      call.ref[kGemmD] = bias.ref;
      gd.has_d = true;
      gd.beta = 1.0f;
      gd.d = {bias.dt, bias.stride, 0, 0};
    }
    if (p.groups > 1) {
      call.outer_ndim = 1;
      call.outer_shape[0] = p.groups;
      call.outer_stride[kGemmA][0] = csg * w.strides[0] * esz(w.dt);
      call.outer_stride[kGemmB][0] = cbg * big.sc * esz(big.dt);
      call.outer_stride[kGemmC][0] = csg * small.sc * esz(small.dt);
      call.outer_stride[kGemmD][0] = csg * bias.stride * esz(bias.dt);
    }
    record_gemms(b, {call});
    return;
  }
  auto s = std::make_unique<ConvGemmStep>();
  s->mode = Mode::kForward;
  s->bias_prefill = prefill_bias(bias, small);
  s->g = p.g;
  s->groups = p.groups;
  s->csg = csg;
  s->cbg = cbg;
  s->kc = cbg * p.g.kprod();
  s->batch = small.n;
  s->big = big;
  s->small = small;
  s->bias = bias;
  set_weight(*s, w, b);
  set_tiles(*s, small);
  finish_gemm_step(b, std::move(s), forward_desc);
}

// big = col2im(W^T @ small) (+ bias on big's channels).
void record_data(core::OpBuilder &b, const Problem &p, const Side &big, const Side &small, const Weight &w,
                 const Bias &bias) {
  if (big.n == 0 || p.g.big_n() == 0 || big.c == 0) return;
  const int64_t cbg = big.c / p.groups, csg = small.c / p.groups;
  const ConvDesc d = desc_of(Mode::kData, p, big, small, cbg, csg);
  const int impl = choose_impl(d, "data");
  if (impl == 2) {  // gemm_1x1: big_g = W_g^T @ small_g
    GemmCall call;
    kernels::GemmDesc &gd = call.desc;
    call.ref[kGemmA] = w.ref;
    call.ref[kGemmB] = small.ref;
    call.ref[kGemmC] = big.ref;
    gd.batch = big.n;
    gd.m = cbg;
    gd.n = p.g.big_n();
    gd.k = csg;
    gd.a = {w.dt, w.strides[1], w.strides[0], 0};
    gd.b = {small.dt, small.sc, small.flat_stride(), small.sn};
    gd.c = {big.dt, big.sc, big.flat_stride(), big.sn};
    if (prefill_bias(bias, big)) {
      BiasFillStep fill;
      fill.out = big;
      fill.bias = bias;
      b.add_step<BiasFillStep>(std::move(fill));
      gd.beta = 1.0f;
    } else if (bias.present()) {
      call.ref[kGemmD] = bias.ref;
      gd.has_d = true;
      gd.beta = 1.0f;
      gd.d = {bias.dt, bias.stride, 0, 0};
    }
    if (p.groups > 1) {
      call.outer_ndim = 1;
      call.outer_shape[0] = p.groups;
      call.outer_stride[kGemmA][0] = csg * w.strides[0] * esz(w.dt);
      call.outer_stride[kGemmB][0] = csg * small.sc * esz(small.dt);
      call.outer_stride[kGemmC][0] = cbg * big.sc * esz(big.dt);
      call.outer_stride[kGemmD][0] = cbg * bias.stride * esz(bias.dt);
    }
    record_gemms(b, {call});
    return;
  }
  auto s = std::make_unique<ConvGemmStep>();
  s->mode = Mode::kData;
  s->g = p.g;
  s->groups = p.groups;
  s->csg = csg;
  s->cbg = cbg;
  s->kc = cbg * p.g.kprod();
  s->batch = big.n;
  s->big = big;
  s->small = small;
  s->bias = bias;
  set_weight(*s, w, b);
  set_tiles(*s, small);
  finish_gemm_step(b, std::move(s), data_desc);
}

// gradWeight (registered as `gw`, shaped like the weight) = sum over n of small_g @ im2col(big)^T.
void record_wgrad(core::OpBuilder &b, const Problem &p, const Side &big, const Side &small, const Weight &gw) {
  const int64_t cbg = big.c / p.groups, csg = small.c / p.groups;
  record("wgrad", "im2col_gemm", nullptr);
  auto s = std::make_unique<ConvGemmStep>();
  s->mode = Mode::kWgrad;
  s->g = p.g;
  s->groups = p.groups;
  s->csg = csg;
  s->cbg = cbg;
  s->kc = cbg * p.g.kprod();
  s->batch = p.g.small_n() == 0 ? 0 : small.n;
  s->big = big;
  s->small = small;
  s->w = gw;
  s->w_dt = gw.dt;
  set_tiles(*s, small);
  if (s->lt == 0) s->lt = 1;
  finish_gemm_step(b, std::move(s), wgrad_desc);
}

// ---- Argument checks ----

std::vector<int64_t> int_array(const aclIntArray *a, const char *name, int nsp, bool allow_single) {
  const auto &v = a->values;
  if (static_cast<int>(v.size()) == nsp) return v;
  if (allow_single && v.size() == 1) return std::vector<int64_t>(static_cast<size_t>(nsp), v[0]);
  throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %zu values; it must have %d (one per spatial dim)", name, v.size(), nsp);
}

void check_cube(int cube) {
  // A mode allowing lower precision is a permission: every path computes with fp32 products and
  // fp32 accumulation (BF16 / FLOAT16 inputs are widened exactly), at least as precise as any mode.
  if (cube < 0 || cube > 3)
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "cubeMathType is %d; expected 0 (KEEP_DTYPE), 1 (ALLOW_FP32_DOWN_PRECISION), 2 (USE_FP16) or "
                "3 (USE_HF32)",
                cube);
}

// Stride / padding / dilation / output padding into the geometry (spatial dims right-aligned).
void set_params(Problem &p, int nsp, const std::vector<int64_t> &k, const std::vector<int64_t> &s,
                const std::vector<int64_t> &pad, const std::vector<int64_t> &dil) {
  p.nsp = nsp;
  for (int i = 0; i < nsp; ++i) {
    const int j = 3 - nsp + i;
    if (s[static_cast<size_t>(i)] <= 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "stride must be positive, got %s",
                  shape_string(s.data(), nsp).c_str());
    if (pad[static_cast<size_t>(i)] < 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "padding must be non-negative, got %s",
                  shape_string(pad.data(), nsp).c_str());
    if (dil[static_cast<size_t>(i)] <= 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "dilation must be positive, got %s",
                  shape_string(dil.data(), nsp).c_str());
    constexpr int64_t kMaxParam = int64_t{1} << 31;  // keeps every size computation below far from overflow
    if (s[static_cast<size_t>(i)] > kMaxParam || pad[static_cast<size_t>(i)] > kMaxParam ||
        dil[static_cast<size_t>(i)] > kMaxParam)
      throw_error(ACLNN_ERR_PARAM_INVALID, "stride %s, padding %s or dilation %s has a value above 2^31",
                  shape_string(s.data(), nsp).c_str(), shape_string(pad.data(), nsp).c_str(),
                  shape_string(dil.data(), nsp).c_str());
    p.g.k[j] = k[static_cast<size_t>(i)];
    p.g.s[j] = s[static_cast<size_t>(i)];
    p.g.p[j] = pad[static_cast<size_t>(i)];
    p.g.d[j] = dil[static_cast<size_t>(i)];
  }
}

// The small side of a convolution from its big side.
void infer_small(Problem &p, const char *input_name) {
  for (int j = 3 - p.nsp; j < 3; ++j) {
    const __int128 span128 = static_cast<__int128>(p.g.big[j]) + 2 * static_cast<__int128>(p.g.p[j]) -
                             static_cast<__int128>(p.g.d[j]) * (p.g.k[j] - 1) - 1;
    const int64_t span = span128 < 0 ? -1 : static_cast<int64_t>(std::min<__int128>(span128, int64_t{1} << 62));
    if (span < 0)
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "the kernel (size %lld, dilation %lld) is larger than %s's padded size %lld: the output size "
                  "would not be positive",
                  static_cast<long long>(p.g.k[j]), static_cast<long long>(p.g.d[j]), input_name,
                  static_cast<long long>(p.g.big[j] + 2 * p.g.p[j]));
    p.g.small[j] = span / p.g.s[j] + 1;
  }
}

void check_dtype_like(const aclTensor *t, const char *name, aclDataType want, const char *like) {
  if (t->dtype != want)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", name,
                core::dtype_name(t->dtype), like, core::dtype_name(want));
}

void check_out(const aclTensor *t, const char *name, const core::Shape &shape, const ConvRule &rule) {
  core::check_dtype_in(t, name, rule.dtypes);
  core::check_shape_equals(*t, name, shape);
  core::check_no_internal_overlap(*t, name);
}

void check_rank(const aclTensor *t, const char *name, int lo, int hi) {
  if (t->ndim < lo || t->ndim > hi) {
    if (lo == hi)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be %d-D; it has shape %s", name, lo, shape_string(*t).c_str());
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have %d to %d dims; it has shape %s", name, lo, hi,
                shape_string(*t).c_str());
  }
}

Bias bias_of(int slot, const aclTensor *t) {
  Bias bb;
  if (t == nullptr) return bb;
  bb.ref = core::OperandRef::of_slot(slot, *t);
  bb.dt = t->dtype;
  bb.stride = t->strides[0];
  return bb;
}

void check_bias(const aclTensor *bias, const char *name, int64_t channels, aclDataType in_dt) {
  if (bias == nullptr) return;
  if (bias->dtype != in_dt && bias->dtype != ACL_FLOAT)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must be the input's dtype %s or FLOAT", name,
                core::dtype_name(bias->dtype), core::dtype_name(in_dt));
  core::Shape s;
  s.ndim = 1;
  s.dims[0] = channels;
  core::check_shape_equals(*bias, name, s);
}

// The geometry and the weight checks shared by Convolution and ConvolutionBackward. `small_sp` /
// `big_sp` come back in the spatial order of the tensors (nsp values).
struct ConvShapes {
  Problem p;
  int64_t c_in = 0, c_out = 0;
  core::Shape out_shape;  // the forward output's shape (in the input's format)
};

ConvShapes conv_shapes(const aclTensor *input, const char *in_name, const aclTensor *weight, const char *w_name,
                       const aclIntArray *stride, const aclIntArray *padding, const aclIntArray *dilation,
                       bool transposed, const aclIntArray *output_padding, int64_t groups) {
  check_rank(input, in_name, 3, 5);
  if (weight->ndim != input->ndim)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must have as many dims as %s %s", w_name,
                shape_string(*weight).c_str(), in_name, shape_string(*input).c_str());
  const int nsp = input->ndim - 2;
  if (groups <= 0) throw_error(ACLNN_ERR_PARAM_INVALID, "groups must be positive, got %lld", static_cast<long long>(groups));
  const Logical li = logical(*input), lw = logical(*weight);
  ConvShapes r;
  Problem &p = r.p;
  p.groups = groups;
  std::vector<int64_t> k(static_cast<size_t>(nsp));
  for (int i = 0; i < nsp; ++i) {
    k[static_cast<size_t>(i)] = lw.dims[2 + 3 - nsp + i];
    if (k[static_cast<size_t>(i)] <= 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; its kernel dims must be positive", w_name,
                  shape_string(*weight).c_str());
  }
  set_params(p, nsp, k, int_array(stride, "stride", nsp, true), int_array(padding, "padding", nsp, true),
             int_array(dilation, "dilation", nsp, true));
  r.c_in = li.dims[1];
  if (r.c_in <= 0 || lw.dims[0] <= 0 || lw.dims[1] <= 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s and %s %s must have positive channel counts", in_name,
                shape_string(*input).c_str(), w_name, shape_string(*weight).c_str());
  if (!transposed) {
    r.c_out = lw.dims[0];
    if (lw.dims[1] * groups != r.c_in)
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "%s %s has %lld input channels per group; with groups = %lld the input needs %lld channels, "
                  "%s %s has %lld",
                  w_name, shape_string(*weight).c_str(), static_cast<long long>(lw.dims[1]),
                  static_cast<long long>(groups), static_cast<long long>(lw.dims[1] * groups), in_name,
                  shape_string(*input).c_str(), static_cast<long long>(r.c_in));
    if (r.c_out % groups != 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s has %lld output channels, not divisible by groups = %lld", w_name,
                  shape_string(*weight).c_str(), static_cast<long long>(r.c_out), static_cast<long long>(groups));
    for (int i = 0; i < 3; ++i) p.g.big[i] = li.dims[2 + i];
    infer_small(p, in_name);
  } else {
    if (lw.dims[0] != r.c_in)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s must have %s's %lld channels as its first dim (transposed)", w_name,
                  shape_string(*weight).c_str(), in_name, static_cast<long long>(r.c_in));
    if (r.c_in % groups != 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s has %lld channels, not divisible by groups = %lld", in_name,
                  shape_string(*input).c_str(), static_cast<long long>(r.c_in), static_cast<long long>(groups));
    r.c_out = lw.dims[1] * groups;
    const std::vector<int64_t> op = int_array(output_padding, "outputPadding", nsp, true);
    for (int i = 0; i < nsp; ++i) {
      const int j = 3 - nsp + i;
      const int64_t o = op[static_cast<size_t>(i)];
      if (o < 0 || (o >= p.g.s[j] && o >= p.g.d[j]))
        throw_error(ACLNN_ERR_PARAM_INVALID,
                    "outputPadding %s must be non-negative and smaller than either stride or dilation",
                    shape_string(op.data(), nsp).c_str());
      p.g.small[j] = li.dims[2 + j];
      const __int128 big = static_cast<__int128>(p.g.small[j] - 1) * p.g.s[j] - 2 * static_cast<__int128>(p.g.p[j]) +
                           static_cast<__int128>(p.g.d[j]) * (p.g.k[j] - 1) + o + 1;
      if (big > (static_cast<__int128>(1) << 62))
        throw_error(ACLNN_ERR_PARAM_INVALID, "the transposed convolution's output size is too large");
      p.g.big[j] = static_cast<int64_t>(big);
      if (p.g.big[j] <= 0)
        throw_error(ACLNN_ERR_PARAM_INVALID, "the transposed convolution's output size %lld is not positive",
                    static_cast<long long>(p.g.big[j]));
    }
  }
  int64_t sp[3];
  for (int i = 0; i < nsp; ++i) sp[i] = transposed ? p.g.big[3 - nsp + i] : p.g.small[3 - nsp + i];
  r.out_shape = shape_in_format(*input, li.dims[0], r.c_out, sp, nsp);
  return r;
}

void check_input_dtypes(const ConvRule &rule, const aclTensor *input, const char *in_name, const aclTensor *weight,
                        const char *w_name) {
  core::check_dtype_in(input, in_name, rule.dtypes);
  check_dtype_like(weight, w_name, input->dtype, in_name);
}

// ---- The ops ----

void convolution(core::OpBuilder &b, const ConvRule &rule, const ConvCall &c) {
  core::check_tensor(c.input, c.input_name);
  core::check_tensor(c.weight, c.weight_name);
  if (c.bias != nullptr) core::check_tensor(c.bias, c.bias_name);
  core::check_not_null(c.stride, "stride");
  core::check_not_null(c.padding, "padding");
  core::check_not_null(c.dilation, "dilation");
  core::check_not_null(c.output_padding, "outputPadding");
  core::check_tensor(c.output, c.output_name);
  check_input_dtypes(rule, c.input, c.input_name, c.weight, c.weight_name);
  check_cube(c.cube_math_type);
  const ConvShapes s = conv_shapes(c.input, c.input_name, c.weight, c.weight_name, c.stride, c.padding, c.dilation,
                                   c.transposed, c.output_padding, c.groups);
  check_bias(c.bias, c.bias_name, s.c_out, c.input->dtype);
  check_out(c.output, c.output_name, s.out_shape, rule);
  const int in = b.input(c.input), w = b.input(c.weight), bi = b.input(c.bias), out = b.output(c.output);
  const Side x = side_of(in, *c.input, logical(*c.input)), y = side_of(out, *c.output, logical(*c.output));
  const Weight wt = weight_of(w, *c.weight, logical(*c.weight));
  if (!c.transposed)
    record_forward(b, s.p, x, y, wt, bias_of(bi, c.bias));
  else
    record_data(b, s.p, y, x, wt, bias_of(bi, c.bias));
}

void conv_depthwise2d(core::OpBuilder &b, const ConvRule &rule, const ConvCall &c) {
  core::check_tensor(c.input, c.input_name);
  core::check_tensor(c.weight, c.weight_name);
  core::check_not_null(c.kernel_size, "kernelSize");
  if (c.bias != nullptr) core::check_tensor(c.bias, c.bias_name);
  core::check_not_null(c.stride, "stride");
  core::check_not_null(c.padding, "padding");
  core::check_not_null(c.dilation, "dilation");
  core::check_tensor(c.output, c.output_name);
  check_input_dtypes(rule, c.input, c.input_name, c.weight, c.weight_name);
  check_cube(c.cube_math_type);
  check_rank(c.input, c.input_name, 4, 4);
  check_rank(c.weight, c.weight_name, 4, 4);
  const Logical lw = logical(*c.weight);
  const std::vector<int64_t> ks = int_array(c.kernel_size, "kernelSize", 2, true);
  if (ks[0] != lw.dims[3] || ks[1] != lw.dims[4])
    throw_error(ACLNN_ERR_PARAM_INVALID, "kernelSize %s does not match %s's kernel dims %s",
                shape_string(ks.data(), 2).c_str(), c.weight_name, shape_string(*c.weight).c_str());
  const int64_t channels = logical(*c.input).dims[1];
  if (lw.dims[1] != 1 || channels <= 0 || lw.dims[0] % channels != 0)
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "%s %s must be [C_out, 1, kH, kW] with C_out a multiple of %s's %lld channels (depthwise)",
                c.weight_name, shape_string(*c.weight).c_str(), c.input_name, static_cast<long long>(channels));
  aclIntArray zero;
  zero.values = {0, 0};
  const ConvShapes s = conv_shapes(c.input, c.input_name, c.weight, c.weight_name, c.stride, c.padding, c.dilation,
                                   false, &zero, channels);
  check_bias(c.bias, c.bias_name, s.c_out, c.input->dtype);
  check_out(c.output, c.output_name, s.out_shape, rule);
  const int in = b.input(c.input), w = b.input(c.weight), bi = b.input(c.bias), out = b.output(c.output);
  record_forward(b, s.p, side_of(in, *c.input, logical(*c.input)), side_of(out, *c.output, logical(*c.output)),
                 weight_of(w, *c.weight, lw), bias_of(bi, c.bias));
}

// ConvTbc's [T, B, C] tensors as [B, C, T]; its weight [K, C_in, C_out] as [C_out, C_in, K].
Logical tbc_view(const aclTensor &t) {
  Logical l;
  l.dims[0] = t.dims[1];
  l.strides[0] = t.strides[1];
  l.dims[1] = t.dims[2];
  l.strides[1] = t.strides[2];
  l.dims[4] = t.dims[0];
  l.strides[4] = t.strides[0];
  return l;
}
Logical tbc_weight(const aclTensor &t) {
  Logical l;
  l.dims[0] = t.dims[2];
  l.strides[0] = t.strides[2];
  l.dims[1] = t.dims[1];
  l.strides[1] = t.strides[1];
  l.dims[4] = t.dims[0];
  l.strides[4] = t.strides[0];
  return l;
}

Problem tbc_problem(const aclTensor *input, const char *in_name, const aclTensor *weight, const char *w_name,
                    int64_t pad) {
  check_rank(input, in_name, 3, 3);
  check_rank(weight, w_name, 3, 3);
  if (weight->dims[1] != input->dims[2])
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s must be [K, C_in, C_out] with C_in = %s's %lld channels", w_name,
                shape_string(*weight).c_str(), in_name, static_cast<long long>(input->dims[2]));
  if (weight->dims[0] <= 0 || weight->dims[1] <= 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s must have a positive kernel size and channel count", w_name,
                shape_string(*weight).c_str());
  if (pad < 0) throw_error(ACLNN_ERR_PARAM_INVALID, "pad must be non-negative, got %lld", static_cast<long long>(pad));
  Problem p;
  p.nsp = 1;
  p.g.k[2] = weight->dims[0];
  p.g.p[2] = pad;
  p.g.big[2] = input->dims[0];
  infer_small(p, in_name);
  return p;
}

void conv_tbc(core::OpBuilder &b, const ConvRule &rule, const ConvCall &c) {
  core::check_tensor(c.input, c.input_name);
  core::check_tensor(c.weight, c.weight_name);
  core::check_tensor(c.bias, c.bias_name);
  core::check_tensor(c.output, c.output_name);
  check_input_dtypes(rule, c.input, c.input_name, c.weight, c.weight_name);
  check_cube(c.cube_math_type);
  const Problem p = tbc_problem(c.input, c.input_name, c.weight, c.weight_name, c.pad);
  const int64_t c_out = c.weight->dims[2];
  check_bias(c.bias, c.bias_name, c_out, c.input->dtype);
  check_out(c.output, c.output_name, []( int64_t t, int64_t bb, int64_t co) {
    core::Shape s; s.ndim = 3; s.dims[0] = t; s.dims[1] = bb; s.dims[2] = co; return s; }(p.g.small[2], c.input->dims[1], c_out),
            rule);
  const int in = b.input(c.input), w = b.input(c.weight), bi = b.input(c.bias), out = b.output(c.output);
  record_forward(b, p, side_of(in, *c.input, tbc_view(*c.input)), side_of(out, *c.output, tbc_view(*c.output)),
                 weight_of(w, *c.weight, tbc_weight(*c.weight)), bias_of(bi, c.bias));
}

bool mask_at(const aclBoolArray *m, size_t i) { return m->values[i]; }

void convolution_backward(core::OpBuilder &b, const ConvRule &rule, const ConvCall &c) {
  core::check_tensor(c.grad_output, c.grad_output_name);
  core::check_tensor(c.input, c.input_name);
  core::check_tensor(c.weight, c.weight_name);
  core::check_not_null(c.stride, "stride");
  core::check_not_null(c.padding, "padding");
  core::check_not_null(c.dilation, "dilation");
  core::check_not_null(c.output_padding, "outputPadding");
  core::check_not_null(c.output_mask, "outputMask");
  if (c.output_mask->values.size() != 3)
    throw_error(ACLNN_ERR_PARAM_INVALID, "outputMask has %zu values; it must have 3 (gradInput, gradWeight, gradBias)",
                c.output_mask->values.size());
  const bool want_in = mask_at(c.output_mask, 0), want_w = mask_at(c.output_mask, 1), want_b = mask_at(c.output_mask, 2);
  if (want_b) core::check_not_null(c.bias_sizes, "biasSizes");
  if (want_in) core::check_tensor(c.grad_input, "gradInput");
  if (want_w) core::check_tensor(c.grad_weight, "gradWeight");
  if (want_b) core::check_tensor(c.grad_bias, "gradBias");
  check_input_dtypes(rule, c.input, c.input_name, c.weight, c.weight_name);
  check_dtype_like(c.grad_output, c.grad_output_name, c.input->dtype, c.input_name);
  check_cube(c.cube_math_type);
  const ConvShapes s = conv_shapes(c.input, c.input_name, c.weight, c.weight_name, c.stride, c.padding, c.dilation,
                                   c.transposed, c.output_padding, c.groups);
  core::check_shape_equals(*c.grad_output, c.grad_output_name, s.out_shape);
  if (want_in) check_out(c.grad_input, "gradInput", core::Shape::of(*c.input), rule);
  if (want_w) check_out(c.grad_weight, "gradWeight", core::Shape::of(*c.weight), rule);
  if (want_b) {
    core::Shape bs;
    bs.ndim = 1;
    bs.dims[0] = s.c_out;
    const auto &v = c.bias_sizes->values;
    if (v.size() != 1 || v[0] != s.c_out)
      throw_error(ACLNN_ERR_PARAM_INVALID, "biasSizes %s must be [%lld] (the output channels)",
                  shape_string(v.data(), static_cast<int>(v.size())).c_str(), static_cast<long long>(s.c_out));
    check_out(c.grad_bias, "gradBias", bs, rule);
  }
  const int go = b.input(c.grad_output), in = b.input(c.input), w = b.input(c.weight);
  const int gi = want_in ? b.output(c.grad_input) : b.output(nullptr);
  const int gw = want_w ? b.output(c.grad_weight) : b.output(nullptr);
  const int gb = want_b ? b.output(c.grad_bias) : b.output(nullptr);
  const Side dy = side_of(go, *c.grad_output, logical(*c.grad_output));
  const Side x = side_of(in, *c.input, logical(*c.input));
  const Weight wt = weight_of(w, *c.weight, logical(*c.weight));
  const Bias none;
  if (want_in) {
    const Side dx = side_of(gi, *c.grad_input, logical(*c.grad_input));
    if (!c.transposed)
      record_data(b, s.p, dx, dy, wt, none);
    else
      record_forward(b, s.p, dy, dx, wt, none);
  }
  if (want_w) {
    const Weight dw = weight_of(gw, *c.grad_weight, logical(*c.grad_weight));
    if (!c.transposed)
      record_wgrad(b, s.p, x, dy, dw);
    else
      record_wgrad(b, s.p, dy, x, dw);
  }
  if (want_b) {
    BiasGradStep st;
    st.go = dy;
    st.out = core::OperandRef::of_slot(gb, *c.grad_bias);
    st.out_dt = c.grad_bias->dtype;
    st.out_stride = c.grad_bias->strides[0];
    b.add_step<BiasGradStep>(std::move(st));
  }
}

void conv_tbc_backward(core::OpBuilder &b, const ConvRule &rule, const ConvCall &c) {
  core::check_tensor(c.grad_output, c.grad_output_name);
  core::check_tensor(c.input, c.input_name);
  core::check_tensor(c.weight, c.weight_name);
  core::check_tensor(c.bias, c.bias_name);
  core::check_tensor(c.grad_input, "gradInput");
  core::check_tensor(c.grad_weight, "gradWeight");
  core::check_tensor(c.grad_bias, "gradBias");
  check_input_dtypes(rule, c.input, c.input_name, c.weight, c.weight_name);
  check_dtype_like(c.grad_output, c.grad_output_name, c.input->dtype, c.input_name);
  check_cube(c.cube_math_type);
  const Problem p = tbc_problem(c.input, c.input_name, c.weight, c.weight_name, c.pad);
  const int64_t c_out = c.weight->dims[2];
  check_bias(c.bias, c.bias_name, c_out, c.input->dtype);
  core::Shape gos;
  gos.ndim = 3;
  gos.dims[0] = p.g.small[2];
  gos.dims[1] = c.input->dims[1];
  gos.dims[2] = c_out;
  core::check_shape_equals(*c.grad_output, c.grad_output_name, gos);
  check_out(c.grad_input, "gradInput", core::Shape::of(*c.input), rule);
  check_out(c.grad_weight, "gradWeight", core::Shape::of(*c.weight), rule);
  check_out(c.grad_bias, "gradBias", core::Shape::of(*c.bias), rule);
  const int go = b.input(c.grad_output), in = b.input(c.input), w = b.input(c.weight);
  b.input(c.bias);
  const int gi = b.output(c.grad_input), gw = b.output(c.grad_weight), gb = b.output(c.grad_bias);
  const Side dy = side_of(go, *c.grad_output, tbc_view(*c.grad_output));
  record_data(b, p, side_of(gi, *c.grad_input, tbc_view(*c.grad_input)), dy,
              weight_of(w, *c.weight, tbc_weight(*c.weight)), Bias{});
  record_wgrad(b, p, side_of(in, *c.input, tbc_view(*c.input)), dy,
               weight_of(gw, *c.grad_weight, tbc_weight(*c.grad_weight)));
  BiasGradStep st;
  st.go = dy;
  st.out = core::OperandRef::of_slot(gb, *c.grad_bias);
  st.out_dt = c.grad_bias->dtype;
  st.out_stride = c.grad_bias->strides[0];
  b.add_step<BiasGradStep>(std::move(st));
}

void im2col(core::OpBuilder &b, const ConvRule &rule, const ConvCall &c) {
  core::check_tensor(c.input, c.input_name);
  core::check_not_null(c.kernel_size, "kernelSize");
  core::check_not_null(c.dilation, "dilation");
  core::check_not_null(c.padding, "padding");
  core::check_not_null(c.stride, "stride");
  core::check_tensor(c.output, c.output_name);
  core::check_dtype_in(c.input, c.input_name, rule.dtypes);
  check_rank(c.input, c.input_name, 3, 4);
  const bool batched = c.input->ndim == 4;
  const std::vector<int64_t> ks = int_array(c.kernel_size, "kernelSize", 2, true);
  if (ks[0] <= 0 || ks[1] <= 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "kernelSize must be positive, got %s", shape_string(ks.data(), 2).c_str());
  Problem p;
  set_params(p, 2, ks, int_array(c.stride, "stride", 2, true), int_array(c.padding, "padding", 2, true),
             int_array(c.dilation, "dilation", 2, true));
  Logical l;
  const int o = batched ? 0 : -1;
  l.dims[0] = batched ? c.input->dims[0] : 1;
  l.strides[0] = batched ? c.input->strides[0] : 0;
  l.dims[1] = c.input->dims[1 + o];
  l.strides[1] = c.input->strides[1 + o];
  for (int i = 0; i < 2; ++i) {
    l.dims[3 + i] = c.input->dims[2 + o + i];
    l.strides[3 + i] = c.input->strides[2 + o + i];
    p.g.big[1 + i] = l.dims[3 + i];
  }
  infer_small(p, c.input_name);
  const int64_t kc = l.dims[1] * p.g.kprod(), L = p.g.small_n();
  core::Shape os;
  if (batched) os.dims[os.ndim++] = l.dims[0];
  os.dims[os.ndim++] = kc;
  os.dims[os.ndim++] = L;
  check_dtype_like(c.output, c.output_name, c.input->dtype, c.input_name);
  core::check_shape_equals(*c.output, c.output_name, os);
  core::check_no_internal_overlap(*c.output, c.output_name);
  const int in = b.input(c.input), out = b.output(c.output);
  if (c.output->numel() == 0) return;
  record("im2col", "copy", nullptr);
  Im2colStep st;
  st.g = p.g;
  st.in = side_of(in, *c.input, l);
  st.out = core::OperandRef::of_slot(out, *c.output);
  const int ob = batched ? 1 : 0;
  st.out_sn = batched ? c.output->strides[0] : 0;
  st.out_rs = c.output->strides[ob];
  st.out_cs = c.output->strides[ob + 1];
  if (st.out_cs != 1)  // written through a dense buffer, then scattered
    st.col = b.book("im2col.columns", static_cast<uint64_t>(kc * L * esz(c.input->dtype)));
  b.add_step<Im2colStep>(std::move(st));
}

// ---- DeformableConv2d (+Backward): deformable im2col / its adjoint around the GEMMs ----

// The per-image strided planes of a 4-D NCHW tensor.
kernels::DeformPlanes planes(const char *base, const aclTensor &t, int64_t n) {
  kernels::DeformPlanes p;
  p.base = base + esz(t.dtype) * n * t.strides[0];
  p.dt = t.dtype;
  p.sc = t.strides[1];
  p.sh = t.strides[2];
  p.sw = t.strides[3];
  return p;
}

struct DeformTensor {
  core::OperandRef ref;  // slot -1: none
  const aclTensor *t = nullptr;
  bool present() const { return t != nullptr; }
  kernels::DeformPlanes at(const core::LaunchArgs &args, int64_t n) const {
    return planes(ref.address(args), *t, n);
  }
};

DeformTensor deform_tensor(int slot, const aclTensor *t) {
  DeformTensor d;
  if (t == nullptr) return d;
  d.ref = core::OperandRef::of_slot(slot, *t);
  d.t = t;
  return d;
}

// Column tiles over the output positions: flattened when the tensor's (oH, oW) nest, else within a row.
struct DeformTiles {
  bool flat = true;
  int64_t fs = 1, lt = 1, tail = 0, span = 1, rows = 1;
};

DeformTiles deform_tiles(const aclTensor &t, int64_t oh, int64_t ow, int64_t kc) {
  DeformTiles d;
  const int64_t sh = t.strides[2], sw = t.strides[3];
  d.flat = oh == 1 || ow == 1 || sh == sw * ow;
  d.fs = !d.flat ? 0 : (ow == 1 && oh > 1 ? sh : sw);
  d.span = d.flat ? oh * ow : ow;
  d.rows = d.flat ? 1 : oh;
  const int64_t budget = column_budget();
  int64_t cap = budget / (std::max<int64_t>(1, kc) * 4);
  if (cap < d.span) cap = budget >= (int64_t{1} << 20) ? std::max<int64_t>(16, cap / 16 * 16) : std::max<int64_t>(1, cap);
  d.lt = std::max<int64_t>(1, std::min(d.span, cap));
  d.tail = d.span % d.lt;
  return d;
}

struct DeformShapes {
  kernels::DeformGeom g;
  int64_t n = 0, c_out = 0, groups = 1;
  core::Shape out, offset, deform_out;
};

DeformShapes deform_shapes(const aclTensor *x, const char *x_name, const aclTensor *weight, const aclTensor *offset,
                           const aclIntArray *kernel_size, const aclIntArray *stride, const aclIntArray *padding,
                           const aclIntArray *dilation, int64_t groups, int64_t dg) {
  check_rank(x, x_name, 4, 4);
  check_rank(weight, "weight", 4, 4);
  check_rank(offset, "offset", 4, 4);
  const std::vector<int64_t> ks = int_array(kernel_size, "kernelSize", 2, false);
  if (ks[0] <= 0 || ks[1] <= 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "kernelSize must be positive, got %s", shape_string(ks.data(), 2).c_str());
  if (ks[0] != weight->dims[2] || ks[1] != weight->dims[3])
    throw_error(ACLNN_ERR_PARAM_INVALID, "kernelSize %s does not match weight's kernel dims %s",
                shape_string(ks.data(), 2).c_str(), shape_string(*weight).c_str());
  const std::vector<int64_t> st = int_array(stride, "stride", 4, false), pd = int_array(padding, "padding", 4, false),
                             dl = int_array(dilation, "dilation", 4, false);
  // stride / dilation [_, _, h, w], padding [top, bottom, left, right]
  Problem p;
  set_params(p, 2, ks, {st[2], st[3]}, {pd[0], pd[2]}, {dl[2], dl[3]});
  set_params(p, 2, ks, {st[2], st[3]}, {pd[1], pd[3]}, {dl[2], dl[3]});
  if (groups <= 0) throw_error(ACLNN_ERR_PARAM_INVALID, "groups must be positive, got %lld", static_cast<long long>(groups));
  if (dg <= 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "deformableGroups must be positive, got %lld", static_cast<long long>(dg));
  DeformShapes r;
  kernels::DeformGeom &g = r.g;
  r.n = x->dims[0];
  g.C = x->dims[1];
  g.H = x->dims[2];
  g.W = x->dims[3];
  r.c_out = weight->dims[0];
  r.groups = groups;
  if (g.C <= 0 || r.c_out <= 0 || weight->dims[1] <= 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s and weight %s must have positive channel counts", x_name,
                shape_string(*x).c_str(), shape_string(*weight).c_str());
  if (weight->dims[1] * groups != g.C || r.c_out % groups != 0)
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "weight %s and groups = %lld do not fit %s %s: weight must be [C_out, C_in / groups, kH, kW] with "
                "C_in and C_out divisible by groups",
                shape_string(*weight).c_str(), static_cast<long long>(groups), x_name, shape_string(*x).c_str());
  if (g.C % dg != 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "deformableGroups = %lld does not divide %s's %lld channels",
                static_cast<long long>(dg), x_name, static_cast<long long>(g.C));
  g.dg = dg;
  g.kh = ks[0];
  g.kw = ks[1];
  g.sh = st[2];
  g.sw = st[3];
  g.ph = pd[0];
  g.pw = pd[2];
  g.dh = dl[2];
  g.dw = dl[3];
  const int64_t ext[2] = {g.H + pd[0] + pd[1] - ((g.kh - 1) * g.dh + 1), g.W + pd[2] + pd[3] - ((g.kw - 1) * g.dw + 1)};
  if (ext[0] < 0 || ext[1] < 0)
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "the kernel %s (dilation %s) is larger than %s's padded plane: the output size would not be positive",
                shape_string(ks.data(), 2).c_str(), shape_string(dl.data(), 4).c_str(), x_name);
  g.oh = ext[0] / g.sh + 1;
  g.ow = ext[1] / g.sw + 1;
  const int64_t K = g.taps();
  r.out.ndim = 4;
  r.out.dims[0] = r.n; r.out.dims[1] = r.c_out; r.out.dims[2] = g.oh; r.out.dims[3] = g.ow;
  r.offset.ndim = 4;
  r.offset.dims[0] = r.n; r.offset.dims[1] = 3 * dg * K; r.offset.dims[2] = g.oh; r.offset.dims[3] = g.ow;
  r.deform_out.ndim = 4;
  r.deform_out.dims[0] = r.n; r.deform_out.dims[1] = g.C; r.deform_out.dims[2] = g.oh * g.kh;
  r.deform_out.dims[3] = g.ow * g.kw;
  core::check_shape_equals(*offset, "offset", r.offset);
  return r;
}

// A weight [C_out, C_in / groups, kH, kW]: strides of its [C_out, j] view, or packed to fp32.
struct DeformWeight {
  core::OperandRef ref;
  const aclTensor *t = nullptr;
  bool pack = false;
  int64_t row = 0, j = 1;
  aclDataType dt = ACL_FLOAT;
  core::WsKey packed;
};

DeformWeight deform_weight(core::OpBuilder &b, int slot, const aclTensor *w) {
  DeformWeight d;
  d.ref = core::OperandRef::of_slot(slot, *w);
  d.t = w;
  // The flattened (c, kh, kw) index j: one stride when dims 1..3 nest.
  int64_t fs = -1, inner = 1;
  bool nest = true;
  for (int i = 3; i >= 1; --i) {
    if (w->dims[i] == 1) continue;
    if (fs < 0) fs = w->strides[i];
    else if (w->strides[i] != fs * inner) nest = false;
    inner *= w->dims[i];
  }
  const int64_t kc = w->dims[1] * w->dims[2] * w->dims[3];
  if (nest) {
    d.row = w->strides[0];
    d.j = fs < 0 ? 1 : fs;
    d.dt = w->dtype;
  } else {
    d.pack = true;
    d.row = kc;
    d.j = 1;
    d.dt = ACL_FLOAT;
    d.packed = b.book("deform.weight", static_cast<uint64_t>(w->dims[0] * kc * 4));
  }
  return d;
}

class DeformForwardStep final : public core::Step {
 public:
  kernels::DeformGeom g;
  int64_t batch = 0, groups = 1, csg = 1, cbg = 1, kc = 1;  // kc = cbg * K
  DeformTensor x, off, out, dout;
  DeformWeight w;
  Bias bias;
  bool modulated = true;
  DeformTiles tiles;
  kernels::GemmPlan full, part;
  core::WsKey col, scratch;

  int run(const core::LaunchArgs &args) const override {
    const char *wbase = w.ref.address(args);
    if (w.pack) {
      float *p = reinterpret_cast<float *>(args.get(w.packed));
      kernels::conv_to_float(wbase, w.t->dtype, 4, w.t->dims, w.t->strides, p);
      wbase = reinterpret_cast<const char *>(p);
    }
    float *colp = reinterpret_cast<float *>(args.get(col));
    char *sc = args.get(scratch);
    const char *biasp = bias.present() ? bias.ref.address(args) : nullptr;
    char *outp = out.ref.address(args);
    const int64_t oes = esz(out.t->dtype), wes = esz(w.dt), lt = tiles.lt;
    for (int64_t n = 0; n < batch; ++n) {
      const kernels::DeformPlanes xp = x.at(args, n), op = off.at(args, n);
      for (int64_t r = 0; r < tiles.rows; ++r) {
        for (int64_t c0 = 0; c0 < tiles.span; c0 += lt) {
          const int64_t len = std::min(lt, tiles.span - c0), l0 = r * tiles.span + c0;
          kernels::deform_im2col(g, xp, op, modulated, l0, len, colp, lt);
          if (dout.present()) kernels::deform_store_columns(g, colp, lt, l0, len, dout.at(args, n));
          const kernels::GemmPlan &plan = len == lt ? full : part;
          const int64_t off_l = tiles.flat ? c0 * tiles.fs : r * out.t->strides[2] + c0 * out.t->strides[3];
          for (int64_t gi = 0; gi < groups; ++gi) {
            char *tile = outp + oes * (n * out.t->strides[0] + gi * csg * out.t->strides[1] + off_l);
            const char *d = biasp != nullptr ? biasp + esz(bias.dt) * gi * csg * bias.stride : nullptr;
            kernels::gemm_run(plan, wbase + wes * gi * csg * w.row, colp + gi * kc * lt, tile, sc, d);
          }
        }
      }
    }
    return 0;
  }
};

class DeformBackwardStep final : public core::Step {
 public:
  kernels::DeformGeom g;
  int64_t batch = 0, groups = 1, csg = 1, cbg = 1, kc = 1;
  DeformTensor x, dy, offset_out, off, gx, gw, goff;
  DeformWeight w;
  bool modulated = true;
  DeformTiles tiles;
  kernels::GemmPlan data_full, data_part, wg_full, wg_part;
  core::WsKey col, acc, wacc, scratch;

  int run(const core::LaunchArgs &args) const override {
    const char *wbase = w.ref.address(args);
    if (w.pack) {
      float *p = reinterpret_cast<float *>(args.get(w.packed));
      kernels::conv_to_float(wbase, w.t->dtype, 4, w.t->dims, w.t->strides, p);
      wbase = reinterpret_cast<const char *>(p);
    }
    float *colp = reinterpret_cast<float *>(args.get(col));
    float *accp = reinterpret_cast<float *>(args.get(acc));
    float *waccp = reinterpret_cast<float *>(args.get(wacc));
    char *sc = args.get(scratch);
    const char *dyp = dy.ref.address(args);
    const int64_t des = esz(dy.t->dtype), wes = esz(w.dt), lt = tiles.lt, C = g.C, HW = g.H * g.W;
    const int64_t cout = groups * csg;
    std::fill(waccp, waccp + cout * kc, 0.0f);
    for (int64_t n = 0; n < batch; ++n) {
      const kernels::DeformPlanes xp = x.at(args, n), op = off.at(args, n);
      std::fill(accp, accp + C * HW, 0.0f);
      for (int64_t r = 0; r < tiles.rows; ++r) {
        for (int64_t c0 = 0; c0 < tiles.span; c0 += lt) {
          const int64_t len = std::min(lt, tiles.span - c0), l0 = r * tiles.span + c0;
          const bool whole = len == lt;
          const int64_t off_l = tiles.flat ? c0 * tiles.fs : r * dy.t->strides[2] + c0 * dy.t->strides[3];
          // Column gradient: col_g = W_g^T @ dy_g.
          for (int64_t gi = 0; gi < groups; ++gi) {
            const char *dyt = dyp + des * (n * dy.t->strides[0] + gi * csg * dy.t->strides[1] + off_l);
            kernels::gemm_run(whole ? data_full : data_part, wbase + wes * gi * csg * w.row, dyt, colp + gi * kc * lt,
                              sc);
          }
          kernels::deform_col2im(g, xp, op, modulated, colp, lt, l0, len, accp, goff.at(args, n));
          // Weight gradient from the forward's deformed columns: dW_g += dy_g @ cols_g^T.
          kernels::deform_load_columns(g, offset_out.at(args, n), l0, len, colp, lt);
          for (int64_t gi = 0; gi < groups; ++gi) {
            const char *dyt = dyp + des * (n * dy.t->strides[0] + gi * csg * dy.t->strides[1] + off_l);
            kernels::gemm_run(whole ? wg_full : wg_part, dyt, colp + gi * kc * lt, waccp + gi * csg * kc, sc);
          }
        }
      }
      const kernels::DeformPlanes gp = gx.at(args, n);
      kernels::ConvImage img;
      img.base = gp.base;
      img.dtype = gp.dt;
      img.sc = gp.sc;
      img.ss[1] = gp.sh;
      img.ss[2] = gp.sw;
      const int64_t dims[3] = {1, g.H, g.W};
      kernels::conv_store(accp, C, dims, img, nullptr, ACL_FLOAT, 0);
    }
    kernels::conv_from_float(waccp, 4, gw.t->dims, gw.t->strides, gw.t->dtype, gw.ref.address(args));
    return 0;
  }
};

void deformable_conv2d(core::OpBuilder &b, const ConvRule &rule, const ConvCall &c) {
  core::check_tensor(c.input, c.input_name);
  core::check_tensor(c.weight, c.weight_name);
  core::check_tensor(c.offset, "offset");
  if (c.bias != nullptr) core::check_tensor(c.bias, c.bias_name);
  core::check_not_null(c.kernel_size, "kernelSize");
  core::check_not_null(c.stride, "stride");
  core::check_not_null(c.padding, "padding");
  core::check_not_null(c.dilation, "dilation");
  core::check_tensor(c.output, c.output_name);
  check_input_dtypes(rule, c.input, c.input_name, c.weight, c.weight_name);
  check_dtype_like(c.offset, "offset", c.input->dtype, c.input_name);
  const DeformShapes s = deform_shapes(c.input, c.input_name, c.weight, c.offset, c.kernel_size, c.stride, c.padding,
                                       c.dilation, c.groups, c.deformable_groups);
  check_bias(c.bias, c.bias_name, s.c_out, c.input->dtype);
  check_out(c.output, c.output_name, s.out, rule);
  check_dtype_like(c.output, c.output_name, c.input->dtype, c.input_name);
  if (c.deform_out != nullptr) {
    check_out(c.deform_out, "deformOutOptional", s.deform_out, rule);
    check_dtype_like(c.deform_out, "deformOutOptional", c.input->dtype, c.input_name);
  }
  const int in = b.input(c.input), w = b.input(c.weight), of = b.input(c.offset), bi = b.input(c.bias);
  const int out = b.output(c.output), dout = b.output(c.deform_out);
  if (s.n == 0 || s.g.L() == 0) return;
  record("deformable", "im2col_gemm", nullptr);
  auto st = std::make_unique<DeformForwardStep>();
  st->g = s.g;
  st->batch = s.n;
  st->groups = s.groups;
  st->csg = s.c_out / s.groups;
  st->cbg = s.g.C / s.groups;
  st->kc = st->cbg * s.g.taps();
  st->x = deform_tensor(in, c.input);
  st->off = deform_tensor(of, c.offset);
  st->out = deform_tensor(out, c.output);
  st->dout = deform_tensor(dout, c.deform_out);
  st->w = deform_weight(b, w, c.weight);
  st->bias = bias_of(bi, c.bias);
  st->modulated = c.modulated;
  st->tiles = deform_tiles(*c.output, s.g.oh, s.g.ow, s.g.C * s.g.taps());
  auto desc = [&](int64_t len) {
    kernels::GemmDesc d;
    d.m = st->csg;
    d.n = len;
    d.k = st->kc;
    d.a = {st->w.dt, st->w.row, st->w.j, 0};
    d.b = {ACL_FLOAT, st->tiles.lt, 1, 0};
    d.c = {c.output->dtype, c.output->strides[1], st->tiles.flat ? st->tiles.fs : c.output->strides[3], 0};
    if (st->bias.present()) {
      d.beta = 1.0f;
      d.has_d = true;
      d.d = {st->bias.dt, st->bias.stride, 0, 0};
    }
    return d;
  };
  st->full = plan_gemm(desc(st->tiles.lt));
  size_t ws = st->full.workspace_bytes;
  if (st->tiles.tail > 0) {
    st->part = plan_gemm(desc(st->tiles.tail));
    ws = std::max(ws, st->part.workspace_bytes);
  }
  st->col = b.book("deform.columns", static_cast<uint64_t>(s.g.C * s.g.taps() * st->tiles.lt * 4));
  st->scratch = b.book("gemm.scratch", ws);
  b.add_step<DeformForwardStep>(std::move(*st));
}

void deformable_conv2d_backward(core::OpBuilder &b, const ConvRule &rule, const ConvCall &c) {
  core::check_tensor(c.input, c.input_name);
  core::check_tensor(c.grad_output, c.grad_output_name);
  core::check_tensor(c.offset_out, "offsetOut");
  core::check_tensor(c.weight, c.weight_name);
  core::check_tensor(c.offset, "offset");
  core::check_not_null(c.kernel_size, "kernelSize");
  core::check_not_null(c.stride, "stride");
  core::check_not_null(c.padding, "padding");
  core::check_not_null(c.dilation, "dilation");
  core::check_tensor(c.grad_input, "gradInput");
  core::check_tensor(c.grad_weight, "gradWeight");
  core::check_tensor(c.grad_offset, "gradOffset");
  core::check_tensor(c.grad_bias, "gradBias");
  check_input_dtypes(rule, c.input, c.input_name, c.weight, c.weight_name);
  check_dtype_like(c.grad_output, c.grad_output_name, c.input->dtype, c.input_name);
  check_dtype_like(c.offset_out, "offsetOut", c.input->dtype, c.input_name);
  check_dtype_like(c.offset, "offset", c.input->dtype, c.input_name);
  const DeformShapes s = deform_shapes(c.input, c.input_name, c.weight, c.offset, c.kernel_size, c.stride, c.padding,
                                       c.dilation, c.groups, c.deformable_groups);
  core::check_shape_equals(*c.grad_output, c.grad_output_name, s.out);
  core::check_shape_equals(*c.offset_out, "offsetOut", s.deform_out);
  for (auto [t, name, shape] : {std::tuple{c.grad_input, "gradInput", core::Shape::of(*c.input)},
                                std::tuple{c.grad_weight, "gradWeight", core::Shape::of(*c.weight)},
                                std::tuple{c.grad_offset, "gradOffset", s.offset}}) {
    check_out(t, name, shape, rule);
    check_dtype_like(t, name, c.input->dtype, c.input_name);
  }
  core::Shape bs;
  bs.ndim = 1;
  bs.dims[0] = s.c_out;
  check_out(c.grad_bias, "gradBias", bs, rule);
  const int in = b.input(c.input), go = b.input(c.grad_output), oo = b.input(c.offset_out), w = b.input(c.weight);
  const int of = b.input(c.offset);
  const int gi = b.output(c.grad_input), gw = b.output(c.grad_weight), gof = b.output(c.grad_offset);
  const int gb = b.output(c.grad_bias);
  const Side dy = side_of(go, *c.grad_output, logical(*c.grad_output));
  {
    BiasGradStep st;
    st.go = dy;
    st.out = core::OperandRef::of_slot(gb, *c.grad_bias);
    st.out_dt = c.grad_bias->dtype;
    st.out_stride = c.grad_bias->strides[0];
    b.add_step<BiasGradStep>(std::move(st));
  }
  record("deformable_backward", "gemm_col2im", nullptr);
  auto st = std::make_unique<DeformBackwardStep>();
  st->g = s.g;
  st->batch = s.g.L() == 0 ? 0 : s.n;
  st->groups = s.groups;
  st->csg = s.c_out / s.groups;
  st->cbg = s.g.C / s.groups;
  st->kc = st->cbg * s.g.taps();
  st->x = deform_tensor(in, c.input);
  st->dy = deform_tensor(go, c.grad_output);
  st->offset_out = deform_tensor(oo, c.offset_out);
  st->off = deform_tensor(of, c.offset);
  st->gx = deform_tensor(gi, c.grad_input);
  st->gw = deform_tensor(gw, c.grad_weight);
  st->goff = deform_tensor(gof, c.grad_offset);
  st->w = deform_weight(b, w, c.weight);
  st->modulated = c.modulated;
  st->tiles = deform_tiles(*c.grad_output, s.g.oh, s.g.ow, s.g.C * s.g.taps());
  const int64_t fstride = st->tiles.flat ? st->tiles.fs : c.grad_output->strides[3];
  auto data_desc = [&](int64_t len) {
    kernels::GemmDesc d;
    d.m = st->kc;
    d.n = len;
    d.k = st->csg;
    d.a = {st->w.dt, st->w.j, st->w.row, 0};
    d.b = {c.grad_output->dtype, c.grad_output->strides[1], fstride, 0};
    d.c = {ACL_FLOAT, st->tiles.lt, 1, 0};
    return d;
  };
  auto wg_desc = [&](int64_t len) {
    kernels::GemmDesc d;
    d.m = st->csg;
    d.n = st->kc;
    d.k = len;
    d.a = {c.grad_output->dtype, c.grad_output->strides[1], fstride, 0};
    d.b = {ACL_FLOAT, 1, st->tiles.lt, 0};
    d.c = {ACL_FLOAT, st->kc, 1, 0};
    d.beta = 1.0f;
    return d;
  };
  st->data_full = plan_gemm(data_desc(st->tiles.lt));
  st->wg_full = plan_gemm(wg_desc(st->tiles.lt));
  size_t ws = std::max(st->data_full.workspace_bytes, st->wg_full.workspace_bytes);
  if (st->tiles.tail > 0) {
    st->data_part = plan_gemm(data_desc(st->tiles.tail));
    st->wg_part = plan_gemm(wg_desc(st->tiles.tail));
    ws = std::max({ws, st->data_part.workspace_bytes, st->wg_part.workspace_bytes});
  }
  st->col = b.book("deform.columns", static_cast<uint64_t>(s.g.C * s.g.taps() * st->tiles.lt * 4));
  st->acc = b.book("deform.input_grad", static_cast<uint64_t>(s.g.C * s.g.H * s.g.W * 4));
  st->wacc = b.book("deform.weight_grad", static_cast<uint64_t>(s.c_out * st->kc * 4));
  st->scratch = b.book("gemm.scratch", ws);
  b.add_step<DeformBackwardStep>(std::move(*st));
}

// ---- QuantConvolution: int8 im2col + the int8 GEMM engine + the quantised-matmul epilogue ----

// Per group, per column tile: acc[len, csg] = col_g^T @ W_g^T (exact int32), rows = output positions,
// columns = output channels, so the epilogue's per-column scale / bias are per channel.
class QuantConvStep final : public core::Step {
 public:
  ConvGeom g;
  int64_t batch = 0, groups = 1, csg = 1, cbg = 1, kc = 1, c_out = 1;
  Side big, small;
  Weight w;
  bool pack_w = false;
  int64_t w_row = 0, w_j = 1;
  int8_t pad = 0;
  core::OperandRef scale, bias;  // bias slot -1: none
  aclDataType scale_dt = ACL_FLOAT, bias_dt = ACL_INT32;
  int64_t scale_count = 1, scale_stride = 0, bias_stride = 0;
  bool flat = true;
  int64_t fs = 1, lt = 1, tail = 0;
  kernels::IgemmPlan full, part;
  core::WsKey col, wpack, scratch, ws_scale, ws_bias;

  struct Ctx {
    kernels::QmmEpilogue e;
    char *tile = nullptr;  // the output element of (position 0 of the tile, channel 0 of the group)
    int64_t pos_stride = 0, ch_stride = 0, es = 2;
  };
  static void block(void *vctx, int64_t, int64_t i0, int64_t j0, int64_t rows, int64_t cols, const int32_t *acc,
                    int64_t ldacc) {
    const Ctx &c = *static_cast<const Ctx *>(vctx);
    for (int64_t r = 0; r < rows; ++r)
      kernels::qmm_epilogue_row(c.e, acc + r * ldacc, j0, cols, 1.0f,
                                c.tile + c.es * ((i0 + r) * c.pos_stride + j0 * c.ch_stride), c.ch_stride);
  }

  int run(const core::LaunchArgs &args) const override {
    const int8_t *wbase = reinterpret_cast<const int8_t *>(w.ref.address(args));
    if (pack_w) {  // gather the weight to dense [C_out, kc]
      int8_t *p = reinterpret_cast<int8_t *>(args.get(wpack));
      int64_t q = 0;
      for (int64_t o = 0; o < w.dims[0]; ++o)
        for (int64_t i = 0; i < w.dims[1]; ++i)
          for (int64_t a = 0; a < w.dims[2]; ++a)
            for (int64_t bb = 0; bb < w.dims[3]; ++bb)
              for (int64_t cc = 0; cc < w.dims[4]; ++cc)
                p[q++] = wbase[o * w.strides[0] + i * w.strides[1] + a * w.strides[2] + bb * w.strides[3] +
                               cc * w.strides[4]];
      wbase = p;
    }
    float *sv = reinterpret_cast<float *>(args.get(ws_scale));
    kernels::qmm_decode_floats(scale.address(args), scale_dt, scale_count, scale_stride, c_out, sv);
    const void *bv = nullptr;
    if (bias.slot >= 0) {
      char *dst = args.get(ws_bias);
      if (bias_dt == ACL_INT32)
        kernels::qmm_decode_int32(reinterpret_cast<const int32_t *>(bias.address(args)), bias_stride, c_out,
                                  reinterpret_cast<int32_t *>(dst));
      else
        kernels::qmm_decode_floats(bias.address(args), bias_dt, c_out, bias_stride, c_out, reinterpret_cast<float *>(dst));
      bv = dst;
    }
    int8_t *colp = reinterpret_cast<int8_t *>(args.get(col));
    char *sc = args.get(scratch);
    char *bigp = big.ref.address(args), *smallp = small.ref.address(args);
    const int64_t ses = esz(small.dt);
    for (int64_t n = 0; n < batch; ++n) {
      const kernels::ConvImage img = big.image(bigp, n, 0);
      const int64_t rows = flat ? 1 : g.small[0] * g.small[1];
      const int64_t span = flat ? g.small_n() : g.small[2];
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c0 = 0; c0 < span; c0 += lt) {
          const int64_t len = std::min(lt, span - c0), l0 = r * span + c0;
          kernels::conv_im2col_i8(g, img, big.c, l0, len, colp, lt, pad);
          const int64_t off = flat ? c0 * fs
                                   : (r / g.small[1]) * small.ss[0] + (r % g.small[1]) * small.ss[1] + c0 * small.ss[2];
          for (int64_t gi = 0; gi < groups; ++gi) {
            Ctx ctx;
            ctx.e.scale = sv + gi * csg;
            ctx.e.out_dtype = small.dt;
            if (bv != nullptr) {
              if (bias_dt == ACL_INT32) ctx.e.bias_i32 = reinterpret_cast<const int32_t *>(bv) + gi * csg;
              else ctx.e.bias_f = reinterpret_cast<const float *>(bv) + gi * csg;
            }
            ctx.tile = smallp + ses * (n * small.sn + gi * csg * small.sc + off);
            ctx.pos_stride = flat ? fs : small.ss[2];
            ctx.ch_stride = small.sc;
            ctx.es = ses;
            kernels::igemm_run(len == lt ? full : part, colp + gi * kc * lt, wbase + gi * csg * w_row, sc, &QuantConvStep::block,
                               &ctx);
          }
        }
      }
    }
    return 0;
  }
};

void quant_convolution(core::OpBuilder &b, const ConvRule &rule, const ConvCall &c) {
  core::check_tensor(c.input, c.input_name);
  core::check_tensor(c.weight, c.weight_name);
  if (c.bias != nullptr) core::check_tensor(c.bias, c.bias_name);
  core::check_tensor(c.scale, "scale");
  core::check_not_null(c.stride, "stride");
  core::check_not_null(c.padding, "padding");
  core::check_not_null(c.dilation, "dilation");
  core::check_tensor(c.output, c.output_name);
  core::check_dtype_in(c.input, c.input_name, rule.dtypes);
  check_dtype_like(c.weight, c.weight_name, c.input->dtype, c.input_name);
  if (c.offset != nullptr)
    throw_error(ACLNN_ERR_PARAM_INVALID, "offset is a reserved parameter and must be null");
  if (c.transposed)
    throw_error(ACLNN_ERR_PARAM_INVALID, "transposed must be false: QuantConvolution has no transposed form");
  if (c.round_mode != nullptr && std::string(c.round_mode) != "rint")
    throw_error(ACLNN_ERR_PARAM_INVALID, "roundMode is \"%s\"; only \"rint\" is supported", c.round_mode);
  if (c.offsetx < -128 || c.offsetx > 127)
    throw_error(ACLNN_ERR_PARAM_INVALID, "offsetx is %lld; it is the int8 padding value, in [-128, 127]",
                static_cast<long long>(c.offsetx));
  check_rank(c.input, c.input_name, 4, 5);
  aclIntArray zero;
  zero.values = std::vector<int64_t>(static_cast<size_t>(c.input->ndim - 2), 0);
  const ConvShapes s = conv_shapes(c.input, c.input_name, c.weight, c.weight_name, c.stride, c.padding, c.dilation,
                                   false, c.output_padding != nullptr ? c.output_padding : &zero, c.groups);
  core::check_dtype_in(c.scale, "scale", {ACL_FLOAT, ACL_INT64, ACL_UINT64});
  if (!(c.scale->ndim == 1 && (c.scale->dims[0] == s.c_out || c.scale->dims[0] == 1)))
    throw_error(ACLNN_ERR_PARAM_INVALID, "scale has shape %s; it must be [%lld] (one per output channel) or [1]",
                shape_string(*c.scale).c_str(), static_cast<long long>(s.c_out));
  if (c.bias != nullptr) {
    core::check_dtype_in(c.bias, c.bias_name, {ACL_INT32, ACL_FLOAT, ACL_FLOAT16, ACL_BF16});
    core::Shape bs;
    bs.ndim = 1;
    bs.dims[0] = s.c_out;
    core::check_shape_equals(*c.bias, c.bias_name, bs);
  }
  core::check_dtype_in(c.output, c.output_name, {ACL_FLOAT16, ACL_BF16});
  core::check_shape_equals(*c.output, c.output_name, s.out_shape);
  core::check_no_internal_overlap(*c.output, c.output_name);
  const int64_t cbg = s.c_in / s.p.groups, kc = cbg * s.p.g.kprod();
  if (kc > kernels::kIgemmMaxK)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s: C_in / groups x kernel = %lld exceeds %lld (the int32 sums' bound)",
                c.weight_name, shape_string(*c.weight).c_str(), static_cast<long long>(kc),
                static_cast<long long>(kernels::kIgemmMaxK));
  const int in = b.input(c.input), w = b.input(c.weight), bi = b.input(c.bias), scl = b.input(c.scale);
  b.input(c.offset);
  const int out = b.output(c.output);
  const Side x = side_of(in, *c.input, logical(*c.input)), y = side_of(out, *c.output, logical(*c.output));
  if (y.n == 0 || s.p.g.small_n() == 0) return;
  record("quant", "im2col_igemm", nullptr);
  auto st = std::make_unique<QuantConvStep>();
  st->g = s.p.g;
  st->batch = y.n;
  st->groups = s.p.groups;
  st->c_out = s.c_out;
  st->csg = s.c_out / s.p.groups;
  st->cbg = cbg;
  st->kc = kc;
  st->big = x;
  st->small = y;
  st->w = weight_of(w, *c.weight, logical(*c.weight));
  st->pad = static_cast<int8_t>(c.offsetx);
  const int64_t j = st->w.j_stride();
  st->pack_w = j < 0;
  st->w_row = st->pack_w ? kc : st->w.strides[0];
  st->w_j = st->pack_w ? 1 : j;
  if (st->pack_w) st->wpack = b.book("qconv.weight", static_cast<uint64_t>(s.c_out * kc));
  st->scale = core::OperandRef::of_slot(scl, *c.scale);
  st->scale_dt = c.scale->dtype;
  st->scale_count = c.scale->dims[0];
  st->scale_stride = c.scale->strides[0];
  if (c.bias != nullptr) {
    st->bias = core::OperandRef::of_slot(bi, *c.bias);
    st->bias_dt = c.bias->dtype;
    st->bias_stride = c.bias->strides[0];
  }
  // Column tiles (int8 columns: a quarter of the fp32 budget's bytes per element).
  const int64_t f = y.flat_stride();
  st->flat = f >= 0;
  st->fs = st->flat ? f : 0;
  const int64_t span = st->flat ? st->g.small_n() : st->g.small[2];
  const int64_t budget = column_budget();
  int64_t cap = budget / kc;
  if (cap < span) cap = budget >= (int64_t{1} << 20) ? std::max<int64_t>(16, cap / 16 * 16) : std::max<int64_t>(1, cap);
  st->lt = std::max<int64_t>(1, std::min(span, cap));
  st->tail = span % st->lt;
  auto desc = [&](int64_t len) {
    kernels::IgemmDesc d;
    d.m = len;
    d.n = st->csg;
    d.k = kc;
    d.a_row = 1;
    d.a_col = st->lt;
    d.b_row = st->w_j;
    d.b_col = st->w_row;
    return d;
  };
  auto plan = [&](int64_t len) {
    kernels::IgemmPlan p;
    if (!kernels::igemm_plan(desc(len), &p))
      throw_error(ACLNN_ERR_INNER_TILING_ERROR, "int8 GEMM planning failed: %s", last_error_message());
    return p;
  };
  st->full = plan(st->lt);
  size_t ws = st->full.workspace_bytes;
  if (st->tail > 0) {
    st->part = plan(st->tail);
    ws = std::max(ws, st->part.workspace_bytes);
  }
  st->col = b.book("qconv.columns", static_cast<uint64_t>(s.c_in * s.p.g.kprod() * st->lt));
  st->scratch = b.book("igemm.scratch", ws);
  st->ws_scale = b.book("qconv.scale_fp32", static_cast<uint64_t>(s.c_out * 4));
  if (c.bias != nullptr) st->ws_bias = b.book("qconv.bias", static_cast<uint64_t>(s.c_out * 4));
  b.add_step<QuantConvStep>(std::move(*st));
}

}  // namespace

void conv_phase1(core::OpBuilder &b, const ConvRule &rule, const ConvCall &c) {
  switch (rule.kind) {
    case ConvKind::kConvolution: convolution(b, rule, c); break;
    case ConvKind::kConvDepthwise2d: conv_depthwise2d(b, rule, c); break;
    case ConvKind::kConvTbc: conv_tbc(b, rule, c); break;
    case ConvKind::kConvolutionBackward: convolution_backward(b, rule, c); break;
    case ConvKind::kConvTbcBackward: conv_tbc_backward(b, rule, c); break;
    case ConvKind::kIm2col: im2col(b, rule, c); break;
    case ConvKind::kDeformableConv2d: deformable_conv2d(b, rule, c); break;
    case ConvKind::kDeformableConv2dBackward: deformable_conv2d_backward(b, rule, c); break;
    case ConvKind::kQuantConvolution: quant_convolution(b, rule, c); break;
  }
}

}  // namespace opsnn::ops
