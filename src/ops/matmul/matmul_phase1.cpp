#include "ops/matmul/matmul_phase1.h"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "core/op_checks.h"
#include "core/verbose.h"
#include "ops/elementwise/elementwise_step.h"
#include "ops/matmul/matmul_common.h"
#include "ops/matmul/weight_nz.h"

namespace opsnn::ops {
namespace {

using core::kMaxDims;
using core::Shape;

// The shape of the problem: which dims of a / b hold M, K, N (-1: the dim is absent, a 1-D
// operand's implied size-1 dim, dropped from the result), and the batch shapes.
struct Dims {
  int a_m = -1, a_k = -1, b_k = -1, b_n = -1;
  int64_t M = 1, K = 1, N = 1;
  Shape a_batch, b_batch, batch, res;
};

Shape leading(const aclTensor *t, int n) {
  Shape s;
  s.ndim = n > 0 ? n : 0;
  for (int i = 0; i < s.ndim; ++i) s.dims[i] = t->dims[i];
  return s;
}

Dims work_out_dims(const MatmulRule &rule, const MatmulCall &c) {
  Dims d;
  const aclTensor *a = c.a, *b = c.b;
  if (a->ndim == 1) {
    (rule.outer ? d.a_m : d.a_k) = 0;  // outer: a column [n, 1]; torch: a row [1, K]
  } else {
    d.a_m = a->ndim - (c.trans_a ? 1 : 2);
    d.a_k = a->ndim - (c.trans_a ? 2 : 1);
  }
  if (b->ndim == 1) {
    (rule.outer ? d.b_n : d.b_k) = 0;  // outer: a row [1, m]; torch: a column [K, 1]
  } else {
    d.b_k = b->ndim - (c.trans_b ? 1 : 2);
    d.b_n = b->ndim - (c.trans_b ? 2 : 1);
  }
  if (d.a_m >= 0) d.M = a->dims[d.a_m];
  if (d.a_k >= 0) d.K = a->dims[d.a_k];
  if (d.b_n >= 0) d.N = b->dims[d.b_n];
  const int64_t kb = d.b_k >= 0 ? b->dims[d.b_k] : 1;
  if (a->ndim == 1 && b->ndim == 1 && !rule.outer && d.K != kb)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s and %s %s must have the same shape", c.a_name,
                core::shape_string(*a).c_str(), c.b_name, core::shape_string(*b).c_str());
  const std::string an = std::string(c.a_name) + (c.trans_a ? "^T" : ""), bn = std::string(c.b_name) + (c.trans_b ? "^T" : "");
  check_inner_dims(a, an.c_str(), d.K, b, bn.c_str(), kb);

  d.a_batch = leading(a, a->ndim - 2);
  d.b_batch = leading(b, b->ndim - 2);
  if (rule.batch != MmBatch::kBroadcast) {
    if (d.a_batch.ndim != d.b_batch.ndim || std::memcmp(d.a_batch.dims, d.b_batch.dims, sizeof(int64_t) * d.a_batch.ndim))
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s and %s %s must have the same batch size", c.a_name,
                  core::shape_string(*a).c_str(), c.b_name, core::shape_string(*b).c_str());
    d.batch = d.a_batch;
  } else {
    const std::string ab = std::string("the batch dims of ") + c.a_name, bb = std::string("the batch dims of ") + c.b_name;
    d.batch = core::broadcast_shapes(d.a_batch, ab.c_str(), d.b_batch, bb.c_str());
  }
  d.res = rule.batch == MmBatch::kSum ? Shape{} : d.batch;
  if (d.a_m >= 0) d.res.dims[d.res.ndim++] = d.M;
  if (d.b_n >= 0) d.res.dims[d.res.ndim++] = d.N;
  return d;
}

// An operand's GEMM view: the strides of its row and column dims (-1: an absent dim).
void set_view(kernels::GemmOperand &op, const int64_t *strides, int row, int col) {
  op.row_stride = row >= 0 ? strides[row] : 0;
  op.col_stride = col >= 0 ? strides[col] : 0;
}

// A GEMM of the torch-style problem: C[M, N] = A[M, K] @ B[K, N] (+ D[M, N]) over the batch.
// With b a vector and a matrix a, it runs transposed (C^T = B^T @ A^T, M = 1): a single output
// column costs no padding to the register tile and the streaming small-M kernels take it.
GemmCall plain_call(const MatmulRule &rule, const MatmulCall &c, const Dims &d, const int slot[4],
                    const aclTensor *cten) {
  GemmCall call;
  bind_tensor(call, kGemmA, slot[kGemmA], c.a);
  bind_tensor(call, kGemmB, slot[kGemmB], c.b);
  bind_tensor(call, kGemmC, slot[kGemmC], cten);
  const bool with_d = c.has_bias && !c.inplace;
  if (with_d) bind_tensor(call, kGemmD, slot[kGemmD], c.bias);
  kernels::GemmDesc &g = call.desc;
  const int nb = d.batch.ndim;
  const int c_m = d.a_m >= 0 ? nb : -1, c_n = d.b_n >= 0 ? d.res.ndim - 1 : -1;
  set_view(g.a, c.a->strides, d.a_m, d.a_k);
  set_view(g.b, c.b->strides, d.b_k, d.b_n);
  set_view(g.c, cten->strides, c_m, c_n);
  int64_t ds[kMaxDims] = {};
  if (with_d) {
    core::broadcast_strides(*c.bias, d.res, ds);
    set_view(g.d, ds, c_m, c_n);
  }
  if (rule.outer) {  // K = 1: the absent K dims, a unit stride
    g.a.col_stride = 1;
    g.b.row_stride = 1;
  }
  // Batch strides of each operand over the broadcast batch shape (elements; 0 = broadcast).
  int64_t bstride[4][kMaxDims] = {};
  aclTensor ab = *c.a, bb = *c.b, cb = *cten;
  ab.ndim = d.a_batch.ndim;
  bb.ndim = d.b_batch.ndim;
  cb.ndim = nb;
  core::broadcast_strides(ab, d.batch, bstride[kGemmA]);
  core::broadcast_strides(bb, d.batch, bstride[kGemmB]);
  core::broadcast_strides(cb, d.batch, bstride[kGemmC]);
  for (int i = 0; i < nb; ++i) bstride[kGemmD][i] = ds[i];
  if (with_d)
    set_batch(call, d.batch, bstride, {kGemmA, kGemmB, kGemmC, kGemmD});
  else
    set_batch(call, d.batch, bstride, {kGemmA, kGemmB, kGemmC});
  g.m = d.M;
  g.n = d.N;
  g.k = d.K;
  if (d.b_n < 0 && d.a_m >= 0) {  // run transposed
    std::swap(g.a, g.b);
    std::swap(call.ref[kGemmA], call.ref[kGemmB]);
    for (int i = 0; i < kMaxDims; ++i) std::swap(call.outer_stride[kGemmA][i], call.outer_stride[kGemmB][i]);
    for (kernels::GemmOperand *op : {&g.a, &g.b, &g.c, &g.d}) std::swap(op->row_stride, op->col_stride);
    std::swap(g.m, g.n);
  }
  // Two vectors (N absent): B is a single column read with a unit stride, which the streaming
  // kernel takes in place.
  if (d.a_m < 0 && d.b_n < 0) g.b.col_stride = g.c.col_stride = 1;
  return call;
}

// Addbmm: sum_s A[s] @ B[s] as GEMMs in sequence accumulating in fp32: into C itself when it is
// FLOAT, otherwise into an fp32 workspace matrix that the last GEMM's epilogue adds (rounding once).
std::vector<GemmCall> batch_sum_calls(core::OpBuilder &b, const MatmulCall &c, const Dims &d, const int slot[4],
                                      const aclTensor *cten, float alpha, float beta) {
  const aclTensor *a = c.a, *bm = c.b;
  const int64_t B = d.batch.ndim > 0 ? d.batch.dims[0] : 1, M = d.M, N = d.N, K = d.K;
  GemmCall base;  // one product a[s] @ b[s] into C
  kernels::GemmDesc &g = base.desc;
  bind_tensor(base, kGemmA, slot[kGemmA], a);
  bind_tensor(base, kGemmB, slot[kGemmB], bm);
  bind_tensor(base, kGemmC, slot[kGemmC], cten);
  g.m = M;
  g.n = N;
  g.k = B == 0 ? 0 : K;  // no batches: an empty sum
  set_view(g.a, a->strides, d.a_m, d.a_k);
  set_view(g.b, bm->strides, d.b_k, d.b_n);
  set_view(g.c, cten->strides, 0, 1);
  g.alpha = alpha;
  const int64_t a_step = a->strides[0] * static_cast<int64_t>(core::dtype_size(a->dtype));
  const int64_t b_step = bm->strides[0] * static_cast<int64_t>(core::dtype_size(bm->dtype));
  auto at_batch = [&](GemmCall call, int64_t s) {
    call.ref[kGemmA].offset_bytes += s * a_step;
    call.ref[kGemmB].offset_bytes += s * b_step;
    return call;
  };
  // The addend of the first term: beta * bias (broadcast; in place it is C itself, or the addend of
  // an fp32 accumulator).
  auto with_bias = [&](GemmCall call, bool bias_is_c) {
    call.desc.beta = beta;
    if (!bias_is_c) {
      bind_tensor(call, kGemmD, slot[kGemmD], c.bias);
      int64_t ds[kMaxDims];
      core::broadcast_strides(*c.bias, d.res, ds);
      set_view(call.desc.d, ds, 0, 1);
    }
    return call;
  };
  if (B <= 1 || K == 0) return {with_bias(base, c.inplace)};
  const bool direct = cten->dtype == ACL_FLOAT;
  GemmCall acc = base;  // the accumulator: C, or fp32 scratch [M, N]
  if (!direct) {
    bind_scratch(acc, kGemmC, b.book("addbmm.accumulator", static_cast<uint64_t>(M * N) * 4));
    acc.desc.c.row_stride = N;
    acc.desc.c.col_stride = 1;
  }
  std::vector<GemmCall> calls = {with_bias(acc, direct && c.inplace)};
  // Middle terms accumulate in order (beta = 1 on the accumulator; an outer loop over batches).
  const int64_t mid_end = direct ? B : B - 1;
  if (mid_end > 1) {
    GemmCall mid = at_batch(acc, 1);
    mid.desc.beta = 1.0f;
    mid.outer_ndim = 1;
    mid.outer_shape[0] = mid_end - 1;
    mid.outer_stride[kGemmA][0] = a_step;
    mid.outer_stride[kGemmB][0] = b_step;
    calls.push_back(mid);
  }
  if (!direct) {  // the last term adds the accumulator and rounds once into C
    GemmCall last = at_batch(base, B - 1);
    last.desc.beta = 1.0f;
    bind_scratch(last, kGemmD, acc.ref[kGemmC].ws);
    last.desc.d.row_stride = N;
    last.desc.d.col_stride = 1;
    calls.push_back(last);
  }
  return calls;
}

// ---- TransposeBatchMatMul's permutations and FusedMatmul's epilogue

enum class Fused { kNone, kAdd, kMul, kRelu, kGeluTanh, kGeluErf };

Fused parse_fused(const MatmulCall &c) {
  core::check_not_null(c.fused, c.fused_name);
  const std::string f = c.fused;
  if (f.empty()) return Fused::kNone;
  static const std::pair<const char *, Fused> kNames[] = {{"add", Fused::kAdd}, {"mul", Fused::kMul},
      {"relu", Fused::kRelu}, {"gelu_tanh", Fused::kGeluTanh}, {"gelu_erf", Fused::kGeluErf}};
  for (const auto &[name, kind] : kNames)
    if (f == name) return kind;
  throw_error(ACLNN_ERR_PARAM_INVALID, "%s \"%s\" is not supported (\"\", add, mul, relu, gelu_tanh, gelu_erf)",
              c.fused_name, c.fused);
}

kernels::GemmActivation fused_activation(Fused f) {
  switch (f) {
    case Fused::kRelu: return kernels::GemmActivation::kRelu;
    case Fused::kGeluTanh: return kernels::GemmActivation::kGeluTanh;
    case Fused::kGeluErf: return kernels::GemmActivation::kGeluErf;
    default: return kernels::GemmActivation::kNone;
  }
}

}  // namespace

namespace {

// MatmulCompress: the checks of the stored form (matmul_phase1.h) and b's view, W^T [k, n] over the
// 1-D weight (read in place).
aclTensor compressed_weight_view(const MatmulCall &c) {
  core::check_not_null(c.a, c.a_name);
  core::check_not_null(c.b, c.b_name);
  core::check_not_null(c.cindex, c.cindex_name);
  core::check_not_null(c.out, c.out_name);
  for (const aclTensor *t : {c.a, c.b, c.out})
    core::check_dtype_in(t, t == c.a ? c.a_name : t == c.b ? c.b_name : c.out_name, {ACL_FLOAT16});
  if (c.bias != nullptr) core::check_dtype_in(c.bias, c.bias_name, {ACL_FLOAT});
  core::check_dtype_in(c.cindex, c.cindex_name, {ACL_INT8});
  require_rank(c.cindex, c.cindex_name, 1, 1);
  require_rank(c.a, c.a_name, 2, 2);
  require_rank(c.out, c.out_name, 2, 2);
  return stored_compressed_weight(c.b, c.b_name, c.out->dims[1], c.a->dims[1]);
}

}  // namespace

void matmul_phase1(core::OpBuilder &b, const MatmulRule &rule, MatmulCall &c) {
  // Presence and dtypes, in prototype order.
  if (c.bias_optional && c.bias == nullptr) c.has_bias = false;
  const aclTensor *const b_as_given = c.b;  // MatmulCompress registers the 1-D weight as given
  aclTensor b_unzip;
  if (c.has_compress) {
    b_unzip = compressed_weight_view(c);
    c.b = &b_unzip;
    core::record_choice("matmul:compress_stored_form", nullptr);
  }
  // The tensors as given (registered so); a / b / out may be replaced by permuted views below.
  const aclTensor *const given[5] = {c.a, b_as_given, c.bias, c.out, c.x3};
  const char *const *name_of[5] = {&c.a_name, &c.b_name, &c.bias_name, &c.out_name, &c.x3_name};
  auto role = [](char r) { return r == 'a' ? 0 : r == 'b' ? 1 : r == 's' ? 2 : r == 'x' ? 4 : 3; };
  bool b_nz = false;  // b is FRACTAL_NZ: read through a dense copy in the workspace
  for (const char *r = c.order; *r; ++r) {
    const int i = role(*r);
    if (*r == 'c') continue;  // compressIndex: compressed_weight_view
    if ((i == 2 && !c.has_bias) || (i == 4 && given[4] == nullptr)) continue;  // optional, absent
    if (i == 1 && rule.weight_nz)  // 16-bit weights: the blocked layouts the vendor documents
      b_nz = check_weight_nz(c.b, c.b_name, {ACL_FLOAT16, ACL_BF16});
    else
      check_matmul_dtype(given[i], *name_of[i]);
  }
  const Fused fused = c.has_fused ? parse_fused(c) : Fused::kNone;
  const bool with_x3 = fused == Fused::kAdd || fused == Fused::kMul;
  if (with_x3) core::check_not_null(c.x3, c.x3_name);
  if (c.qscale != nullptr)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s (an INT8-quantised %s) is not supported; pass null", c.qscale_name,
                c.out_name);
  if (rule.same_dtype && (c.b->dtype != c.a->dtype || c.out->dtype != c.a->dtype))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s, %s and out must have the same dtype; they are %s, %s and %s", c.a_name,
                c.b_name, core::dtype_name(c.a->dtype), core::dtype_name(c.b->dtype), core::dtype_name(c.out->dtype));
  if (c.scalar_alpha_beta) {
    c.alpha = scalar_value(c.alpha_s, c.alpha_name);
    c.beta = scalar_value(c.beta_s, c.beta_name);
  }
  if (c.has_cube) check_cube_math_type(c.cube);

  // Shapes.
  require_rank(c.a, c.a_name, rule.a_min, rule.a_max);
  require_rank(c.b, c.b_name, rule.b_min, rule.b_max);
  aclTensor a_perm, b_perm, out_view;
  std::vector<int> p_b;  // TransposeBatchMatMul's permX2 (a FRACTAL_NZ b's blocks are of b as given)
  if (c.has_perm) {  // TransposeBatchMatMul: the GEMM reads the permuted views in place
    a_perm = permuted(*c.a, checked_perm(c.perm[0], c.perm_name[0], c.a->ndim));
    p_b = checked_perm(c.perm[1], c.perm_name[1], c.b->ndim);
    b_perm = permuted(*c.b, p_b);
    c.a = &a_perm;
    c.b = &b_perm;
  }
  const Dims d = work_out_dims(rule, c);
  if (d.res.ndim > kMaxDims) throw_error(ACLNN_ERR_PARAM_INVALID, "the result would have more than 8 dims");
  if (c.has_perm) {
    out_view = permuted_out_view(c.perm[2], c.perm_name[2], c.split, c.split_name, *c.out, c.out_name, d.res);
    c.out = &out_view;
  }
  const aclTensor *cten = c.inplace ? c.bias : c.out;
  const char *c_name = c.inplace ? c.bias_name : c.out_name;
  if (c.has_bias && !c.inplace) {
    require_rank(c.bias, c.bias_name, rule.bias_min, d.res.ndim);
    check_broadcasts_to(c.bias, c.bias_name, d.res);
  }
  if (d.res.ndim == 0) require_rank(cten, c_name, 0, 0);
  core::check_shape_equals(*cten, c_name, d.res);
  core::check_no_internal_overlap(*cten, c_name);
  if (with_x3) {
    require_rank(c.x3, c.x3_name, 0, d.res.ndim);
    check_broadcasts_to(c.x3, c.x3_name, d.res);
  }

  // Registration in prototype order (the tensors as given); an in-place bias is read and written.
  int slot[4] = {-1, -1, -1, -1}, x3_slot = -1;
  for (const char *r = c.order; *r; ++r) {
    const int i = role(*r);
    if (*r == 'c')
      b.input(c.cindex);
    else if (i == 2 && c.inplace)
      slot[kGemmD] = slot[kGemmC] = b.inout(c.bias);
    else if (i == 2)
      slot[kGemmD] = c.has_bias ? b.input(c.bias) : b.input(nullptr);
    else if (i == 3)
      slot[kGemmC] = b.output(given[3]);
    else if (i == 4)
      x3_slot = b.input(given[4]);
    else
      slot[i] = b.input(given[i]);
  }
  if (cten->numel() == 0) return;
  // FusedMatmul's add without a bias: x3 is the epilogue's addend.
  if (fused == Fused::kAdd && !c.has_bias) {
    c.bias = c.x3;
    c.has_bias = true;
    slot[kGemmD] = x3_slot;
  }
  // Add with a bias, and mul: the GEMM into fp32 scratch, then one element-wise pass with x3.
  const bool x3_pass = fused == Fused::kMul || (fused == Fused::kAdd && c.bias != c.x3);

  // A FRACTAL_NZ b, planned as the contiguous b it holds: read in place when its blocks are the
  // engine's pre-packed layout and M > 4 (the tiles read packed panels as fast as plain ones; the
  // small-M kernels would widen every panel first), else from its dense copy, made at the first
  // launch and kept (WeightNzCopy).
  const aclTensor *b_given = given[1];
  const bool b_packed = b_nz && weight_nz_is_prepacked_layout(*b_given) && d.M > 4;
  aclTensor dense;
  std::shared_ptr<const OperandSource> b_copy;
  MatmulCall cv = c;
  if (b_nz) {
    dense = weight_nz_logical(*b_given);
    if (!b_packed) {
      dense.offset = 0;
      b_copy = std::make_shared<WeightNzCopy>(slot[kGemmB], *b_given);
    }
    if (c.has_perm) dense = permuted(dense, p_b);
    cv.b = &dense;
  }
  const float beta = c.has_bias ? c.beta : 0.0f;
  std::vector<GemmCall> calls;
  if (rule.batch == MmBatch::kSum) {
    calls = batch_sum_calls(b, cv, d, slot, cten, c.alpha, beta);
  } else {
    calls.push_back(plain_call(rule, cv, d, slot, cten));
    calls[0].desc.alpha = c.alpha;
    calls[0].desc.beta = beta;
  }
  for (GemmCall &call : calls) call.b_packed = b_packed;
  for (GemmCall &call : calls) call.desc.input_rounding = gemm_input_rounding(c.cube, c.a->dtype, c.b->dtype);
  calls.back().desc.activation = fused_activation(fused);
  if (!x3_pass) {
    record_gemms(b, std::move(calls), std::move(b_copy));
    return;
  }
  const EwInput acc = EwInput::scratch(b, "fused_matmul.product", d.res, ACL_FLOAT);
  GemmCall &g = calls[0];  // 2-D: one GEMM, no batch
  bind_scratch(g, kGemmC, acc.ws);
  g.desc.c.dtype = ACL_FLOAT;
  g.desc.c.row_stride = d.N;
  g.desc.c.col_stride = 1;
  g.desc.c.batch_stride = 0;
  record_gemms(b, std::move(calls), std::move(b_copy));
  EwSpec spec;
  spec.op = fused == Fused::kMul ? kernels::EwOp::kMul : kernels::EwOp::kAdd;
  spec.compute_dtype = ACL_FLOAT;
  spec.set_scalar(0, 1.0);
  record_elementwise(b, spec, slot[kGemmC], {acc, EwInput::tensor(x3_slot)});
}

}  // namespace opsnn::ops
