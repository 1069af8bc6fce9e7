// DeformableConv2d (+Backward): deformable im2col / its adjoint around the GEMMs (conv_parts.h).
#include "ops/conv/conv_parts.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "core/op_checks.h"
#include "core/thread_pool.h"
#include "kernels/conv/deform.h"

namespace opsnn::ops::conv_parts {
namespace {

using core::shape_string;

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

}  // namespace

void deformable_conv2d(core::OpBuilder &b, const ConvRule &rule, const ConvCall &c) {
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
    record_bias_grad(b, dy, gb, *c.grad_bias);
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

}  // namespace opsnn::ops::conv_parts
