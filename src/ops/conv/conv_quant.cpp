// QuantConvolution (+WeightNz): int8 im2col + the int8 GEMM engine + the quantised-matmul epilogue
// (conv_parts.h).
#include "ops/conv/conv_parts.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "core/fractal_layout.h"
#include "core/op_checks.h"
#include "kernels/matmul/igemm.h"
#include "kernels/matmul/qmm_epilogue.h"

namespace opsnn::ops::conv_parts {
namespace {

using core::shape_string;

// ---- QuantConvolution: int8 im2col + the int8 GEMM engine + the quantised-matmul epilogue ----

// Per group, per column tile: acc[len, csg] = col_g^T @ W_g^T (exact int32), rows = output positions,
// columns = output channels, so the epilogue's per-column scale / bias are per channel.
class QuantConvStep final : public core::Step {
 public:
  ConvGeom g;
  int64_t batch = 0, groups = 1, csg = 1, cbg = 1, kc = 1, c_out = 1;
  Side big, small;
  Weight w;
  bool pack_w = false;  // gather the weight to dense [C_out, kc] in the workspace first
  // WeightNz: the weight in FRACTAL_Z_3D blocks (fractal_bytes of storage), gathered to dense
  // [C_out, kc] once and kept (kernels::PackedWeight; copies of the step share it).
  bool fractal_w = false;
  int64_t fractal_bytes = 0;
  std::shared_ptr<kernels::PackedWeight> fractal_copy;
  int64_t w_row = 0, w_j = 1;
  int8_t pad = 0;
  core::OperandRef scale, bias;  // bias slot -1: none
  aclDataType scale_dt = ACL_FLOAT, bias_dt = ACL_INT32;
  int64_t scale_count = 1, scale_stride = 0, bias_stride = 0;
  bool flat = true;
  int64_t fs = 1, lt = 1, tail = 0;
  // Channels-first output (a channel's pixels contiguous): the GEMM runs W @ col, its rows the output
  // channels, so the epilogue writes rows of pixels. in_place: a 1x1 stride-1 unpadded kernel over an
  // input whose pixels nest (flat stride in_fs) reads that input as the GEMM's operand (no im2col): B
  // [C_in, pixels] in W @ col, A [pixels, C_in] in col^T @ W^T (channels-last).
  bool chan_rows = false, in_place = false;
  int64_t in_fs = 1;
  kernels::IgemmPlan full, part;
  core::WsKey col, wpack, scratch, ws_scale, ws_bias;

  struct Ctx {
    kernels::QmmEpilogue e;
    char *tile = nullptr;  // the output element of (position 0 of the tile, channel 0 of the group)
    int64_t pos_stride = 0, ch_stride = 0, es = 2;
    bool chan_rows = false;
  };
  static void block(void *vctx, int64_t, int64_t i0, int64_t j0, int64_t rows, int64_t cols, const int32_t *acc,
                    int64_t ldacc) {
    const Ctx &c = *static_cast<const Ctx *>(vctx);
    if (c.chan_rows) {  // rows: output channels, columns: pixels (contiguous in the output)
      for (int64_t r = 0; r < rows; ++r)
        kernels::qmm_epilogue_col(c.e, acc + r * ldacc, 1, i0 + r, cols,
                                  c.tile + c.es * ((i0 + r) * c.ch_stride + j0 * c.pos_stride));
      return;
    }
    for (int64_t r = 0; r < rows; ++r)
      kernels::qmm_epilogue_row(c.e, acc + r * ldacc, j0, cols, 1.0f,
                                c.tile + c.es * ((i0 + r) * c.pos_stride + j0 * c.ch_stride), c.ch_stride);
  }

  int run(const core::LaunchArgs &args) const override {
    const int8_t *wbase = reinterpret_cast<const int8_t *>(w.ref.address(args));
    if (fractal_w) {  // the dense weight from the blocks, made at the first launch and kept
      int rc = 0;
      const size_t dense = static_cast<size_t>(c_out * kc);
      fractal_copy->with(
          wbase, static_cast<size_t>(fractal_bytes), (dense + 3) / 4,
          [&](float *dst) {
            core::fractal_z3d_to_dense(reinterpret_cast<const char *>(wbase), 1, w.dims, reinterpret_cast<char *>(dst));
          },
          [&](const float *copy) { rc = run_with(args, reinterpret_cast<const int8_t *>(copy)); });
      return rc;
    }
    if (pack_w) {
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
    return run_with(args, wbase);
  }

 private:
  int run_with(const core::LaunchArgs &args, const int8_t *wbase) const {
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
    int8_t *colp = in_place ? nullptr : reinterpret_cast<int8_t *>(args.get(col));  // in_place: not booked
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
          if (!in_place) kernels::conv_im2col_i8(g, img, big.c, l0, len, colp, lt, pad);
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
            ctx.chan_rows = chan_rows;
            const int8_t *cols = in_place ? reinterpret_cast<const int8_t *>(img.base) + gi * cbg * big.sc + l0 * in_fs
                                          : colp + gi * kc * lt;
            const int8_t *wg = wbase + gi * csg * w_row;
            const kernels::IgemmPlan &plan = len == lt ? full : part;
            if (chan_rows) kernels::igemm_run(plan, wg, cols, sc, &QuantConvStep::block, &ctx);
            else kernels::igemm_run(plan, cols, wg, sc, &QuantConvStep::block, &ctx);
          }
        }
      }
    }
    return 0;
  }
};

}  // namespace

void quant_convolution(core::OpBuilder &b, const ConvRule &rule, const ConvCall &c) {
  const bool fractal = rule.kind == ConvKind::kQuantConvolutionWeightNz;
  core::check_dtype_in(c.input, c.input_name, rule.dtypes);
  check_dtype_like(c.weight, c.weight_name, c.input->dtype, c.input_name);
  if (fractal) {  // as documented: 3-D, groups 1, the weight in FRACTAL_Z_3D
    check_rank(c.input, c.input_name, 5, 5);
    core::check_fractal_z3d(c.weight, c.weight_name);
    if (c.groups != 1)
      throw_error(ACLNN_ERR_PARAM_INVALID, "groups is %lld; with a FRACTAL_Z_3D weight it must be 1",
                  static_cast<long long>(c.groups));
  }
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
  // (the orientation and the in-place read are recorded below, once known)
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
  const int64_t j = fractal ? -1 : st->w.j_stride();
  st->fractal_w = fractal;
  if (fractal) {
    int64_t storage = 1;  // check_fractal_z3d made the storage dims the blocked shape
    for (int i = 0; i < c.weight->storage_ndim; ++i) storage *= c.weight->storage_dims[i];
    st->fractal_bytes = storage;  // INT8
    st->fractal_copy = std::make_shared<kernels::PackedWeight>();
  }
  st->pack_w = j < 0 && !fractal;
  st->w_row = st->pack_w || fractal ? kc : st->w.strides[0];
  st->w_j = st->pack_w || fractal ? 1 : j;
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
  st->chan_rows = st->flat && st->fs == 1 && y.sc != 1;
  const ConvGeom &gg = st->g;
  bool unit = true;
  for (int i = 0; i < 3; ++i)
    unit = unit && gg.k[i] == 1 && gg.s[i] == 1 && gg.p[i] == 0 && gg.big[i] == gg.small[i];
  st->in_fs = x.flat_stride();
  st->in_place = unit && st->in_fs >= 1;
  record("quant", st->in_place ? "igemm_in_place" : st->chan_rows ? "im2col_igemm_channel_rows" : "im2col_igemm",
         nullptr);
  st->lt = st->in_place ? span : std::max<int64_t>(1, std::min(span, cap));
  st->tail = span % st->lt;
  auto desc = [&](int64_t len) {
    kernels::IgemmDesc d;
    d.k = kc;
    if (st->chan_rows) {  // W [csg, kc] @ columns [kc, len]
      d.m = st->csg;
      d.n = len;
      d.a_row = st->w_row;
      d.a_col = st->w_j;
      d.b_row = st->in_place ? x.sc : st->lt;
      d.b_col = st->in_place ? st->in_fs : 1;
    } else {  // columns^T [len, kc] @ W^T [kc, csg]
      d.m = len;
      d.n = st->csg;
      d.a_row = st->in_place ? st->in_fs : 1;
      d.a_col = st->in_place ? x.sc : st->lt;
      d.b_row = st->w_j;
      d.b_col = st->w_row;
    }
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
  if (!st->in_place) st->col = b.book("qconv.columns", static_cast<uint64_t>(s.c_in * s.p.g.kprod() * st->lt));
  st->scratch = b.book("igemm.scratch", ws);
  st->ws_scale = b.book("qconv.scale_fp32", static_cast<uint64_t>(s.c_out * 4));
  if (c.bias != nullptr) st->ws_bias = b.book("qconv.bias", static_cast<uint64_t>(s.c_out * 4));
  b.add_step<QuantConvStep>(std::move(*st));
}

}  // namespace opsnn::ops::conv_parts
