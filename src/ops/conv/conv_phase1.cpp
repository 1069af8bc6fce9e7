// The convolution ops without a file of their own (Convolution, ConvDepthwise2d, ConvTbc, their
// backwards, Im2col) and the dispatch of every conv.ops row; the pieces are in conv_parts.h.
#include "ops/conv/conv_phase1.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "common/error.h"
#include "core/op_checks.h"
#include "kernels/conv/conv.h"
#include "kernels/matmul/gemm.h"
#include "ops/conv/conv_parts.h"

namespace opsnn::ops {

using namespace conv_parts;

namespace {

using core::shape_string;

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

// col2im per image: the columns in FLOAT (in place when FLOAT and dense), summed into a FLOAT image,
// written once in the output's dtype.
class Col2imStep final : public core::Step {
 public:
  ConvGeom g;
  int64_t n = 1, c = 1;
  core::OperandRef grad;
  aclDataType dt = ACL_FLOAT;
  int64_t g_sn = 0, g_rs = 0, g_cs = 0;
  Side out;
  core::WsKey col, acc;
  int run(const core::LaunchArgs &args) const override {
    const int64_t kc = c * g.kprod(), L = g.small_n();
    const char *gp = grad.address(args);
    char *op = out.ref.address(args);
    float *cb = reinterpret_cast<float *>(args.get(col));
    float *ab = reinterpret_cast<float *>(args.get(acc));
    const int64_t dims[2] = {kc, L}, st[2] = {g_rs, g_cs};
    const int64_t sp[3] = {1, g.big[1], g.big[2]};
    for (int64_t i = 0; i < n; ++i) {
      kernels::conv_to_float(gp + esz(dt) * i * g_sn, dt, 2, dims, st, cb);
      std::fill(ab, ab + c * g.big_n(), 0.f);
      kernels::conv_col2im(g, cb, L, c, 0, L, ab);
      kernels::conv_store(ab, c, sp, out.image(op, i, 0), nullptr, ACL_FLOAT, 0);
    }
    return 0;
  }
};

// ---- The ops ----

void convolution(core::OpBuilder &b, const ConvRule &rule, const ConvCall &c) {
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
  if (c.output_mask->values.size() != 3)
    throw_error(ACLNN_ERR_PARAM_INVALID, "outputMask has %zu values; it must have 3 (gradInput, gradWeight, gradBias)",
                c.output_mask->values.size());
  const bool want_in = mask_at(c.output_mask, 0), want_w = mask_at(c.output_mask, 1), want_b = mask_at(c.output_mask, 2);
  if (want_b) core::check_not_null(c.bias_sizes, "biasSizes");
  // (the generated entry checked the ones given; a wanted one must be given)
  if (want_in) core::check_not_null(c.grad_input, "gradInput");
  if (want_w) core::check_not_null(c.grad_weight, "gradWeight");
  if (want_b) core::check_not_null(c.grad_bias, "gradBias");
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
    record_bias_grad(b, dy, gb, *c.grad_bias);
  }
}

void conv_tbc_backward(core::OpBuilder &b, const ConvRule &rule, const ConvCall &c) {
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
  record_bias_grad(b, dy, gb, *c.grad_bias);
}

// Im2col / Im2colBackward: the 2-D windows from kernelSize, stride, padding and dilation.
Problem window_problem(const ConvCall &c) {
  const std::vector<int64_t> ks = int_array(c.kernel_size, "kernelSize", 2, true);
  if (ks[0] <= 0 || ks[1] <= 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "kernelSize must be positive, got %s", shape_string(ks.data(), 2).c_str());
  Problem p;
  set_params(p, 2, ks, int_array(c.stride, "stride", 2, true), int_array(c.padding, "padding", 2, true),
             int_array(c.dilation, "dilation", 2, true));
  return p;
}

void im2col(core::OpBuilder &b, const ConvRule &rule, const ConvCall &c) {
  core::check_dtype_in(c.input, c.input_name, rule.dtypes);
  check_rank(c.input, c.input_name, 3, 4);
  const bool batched = c.input->ndim == 4;
  Problem p = window_problem(c);
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

void im2col_backward(core::OpBuilder &b, const ConvRule &rule, const ConvCall &c) {
  core::check_dtype_in(c.grad_output, c.grad_output_name, rule.dtypes);
  check_rank(c.grad_output, c.grad_output_name, 2, 3);
  const bool batched = c.grad_output->ndim == 3;
  const std::vector<int64_t> is = int_array(c.input_size, "inputSize", 2, false);
  if (is[0] <= 0 || is[1] <= 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "inputSize must be positive, got %s", shape_string(is.data(), 2).c_str());
  Problem p = window_problem(c);
  p.g.big[1] = is[0];
  p.g.big[2] = is[1];
  infer_small(p, "inputSize");
  const int o = batched ? 0 : -1;
  const int64_t kc = c.grad_output->dims[1 + o], L = c.grad_output->dims[2 + o], kk = p.g.kprod();
  if (kc % kk != 0 || L != p.g.small_n())
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "%s has shape %s; expected [N,] C * %lld (the kernel's positions), %lld (the windows of inputSize)",
                c.grad_output_name, shape_string(*c.grad_output).c_str(), static_cast<long long>(kk),
                static_cast<long long>(p.g.small_n()));
  const int64_t ch = kc / kk, n = batched ? c.grad_output->dims[0] : 1;
  core::Shape os;
  if (batched) os.dims[os.ndim++] = n;
  os.dims[os.ndim++] = ch;
  os.dims[os.ndim++] = is[0];
  os.dims[os.ndim++] = is[1];
  check_dtype_like(c.output, c.output_name, c.grad_output->dtype, c.grad_output_name);
  core::check_shape_equals(*c.output, c.output_name, os);
  core::check_no_internal_overlap(*c.output, c.output_name);
  const int gi = b.input(c.grad_output), out = b.output(c.output);
  if (c.output->numel() == 0) return;
  record("im2col_backward", "col2im", nullptr);
  Col2imStep st;
  st.g = p.g;
  st.n = n;
  st.c = ch;
  st.grad = core::OperandRef::of_slot(gi, *c.grad_output);
  st.dt = c.grad_output->dtype;
  st.g_sn = batched ? c.grad_output->strides[0] : 0;
  st.g_rs = c.grad_output->strides[1 + o];
  st.g_cs = c.grad_output->strides[2 + o];
  Logical l;
  l.dims[0] = n;
  l.strides[0] = batched ? c.output->strides[0] : 0;
  l.dims[1] = ch;
  l.strides[1] = c.output->strides[1 + o];
  for (int i = 0; i < 2; ++i) {
    l.dims[3 + i] = is[static_cast<size_t>(i)];
    l.strides[3 + i] = c.output->strides[2 + o + i];
  }
  st.out = side_of(out, *c.output, l);
  st.col = b.book("col2im.columns", static_cast<uint64_t>(kc * L) * sizeof(float));
  st.acc = b.book("col2im.image", static_cast<uint64_t>(ch * p.g.big_n()) * sizeof(float));
  b.add_step<Col2imStep>(std::move(st));
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
    case ConvKind::kIm2colBackward: im2col_backward(b, rule, c); break;
    case ConvKind::kDeformableConv2d: deformable_conv2d(b, rule, c); break;
    case ConvKind::kDeformableConv2dBackward: deformable_conv2d_backward(b, rule, c); break;
    case ConvKind::kQuantConvolution:
    case ConvKind::kQuantConvolutionWeightNz: quant_convolution(b, rule, c); break;
  }
}

}  // namespace opsnn::ops
