// The phase 1 of the quantised matmuls (ops/matmul/qmm_phase1.h): the checks of each scheme in
// prototype order (dtypes, then shapes; 161002 naming the argument), the tensors registered in
// prototype order, and the recorded step (ops/matmul/qmm_steps.h) with its kernel plan. The kernels'
// ordered candidate lists (igemm_plan, wq_choose) log their choices in verbose mode.
#include "ops/matmul/qmm_phase1.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "common/error.h"
#include "core/dtype.h"
#include "core/op_checks.h"
#include "core/thread_pool.h"
#include "core/verbose.h"
#include "kernels/quant/quant_token.h"
#include "kernels/matmul/gemm.h"
#include "kernels/matmul/qmm_epilogue.h"
#include "ops/matmul/matmul_common.h"
#include "ops/matmul/qmm_steps.h"
#include "ops/matmul/sparse4to2_weight.h"
#include "ops/matmul/weight_nz.h"

namespace opsnn::ops {

namespace {

constexpr int64_t kQmmMaxK = 65535;  // the vendor's documented limit of the int8 x int8 ops

using core::shape_string;

long long ll(int64_t v) { return static_cast<long long>(v); }

// A per-tensor ((1,) / (1, 1); 0-d too when min_ndim is 0) or per-channel ((n,) / (1, n)) vector:
// its element count and stride along n.
void vector_shape(const aclTensor *t, const char *name, int64_t n, int min_ndim, int64_t *count, int64_t *stride) {
  const bool one = t->numel() == 1 && t->ndim >= min_ndim && t->ndim <= 2;
  const bool per_channel = (t->ndim == 1 && t->dims[0] == n) || (t->ndim == 2 && t->dims[0] == 1 && t->dims[1] == n);
  if (!one && !per_channel)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected (1,), (%lld,) or (1, %lld)", name,
                shape_string(*t).c_str(), ll(n), ll(n));
  *count = one ? 1 : n;
  *stride = one ? 0 : t->strides[t->ndim - 1];
}

void reject_empty(int64_t batch, int64_t m, int64_t k, int64_t n) {
  if (m == 0 || n == 0 || k == 0 || batch == 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "empty tensors are not supported (batch %lld, m %lld, k %lld, n %lld)",
                ll(batch), ll(m), ll(k), ll(n));
}

// Registers the call's tensors in prototype order into each role's operand view.
// out_inplace: out is read too (yRef).
void register_tensors(core::OpBuilder &b, const QmmCall &c, QmmOperand *ops, bool out_inplace = false) {
  for (int i = 0; i < c.count; ++i) {
    const int r = c.order[i];
    const aclTensor *t = c.t[r];
    ops[r].slot = r != kQmmOut ? b.input(t) : out_inplace ? b.inout(t) : b.output(t);
    if (t == nullptr) continue;
    // INT4: two elements a byte (the checks put a view's start on a byte).
    ops[r].offset_bytes = t->dtype == ACL_INT4 ? t->offset / 2 : t->offset * static_cast<int64_t>(core::dtype_size(t->dtype));
  }
}

// ---- kInt8Dequant

// FusedQuantMatmul's fusedOpType as the epilogue's activation; x3Optional has no use without add / mul.
kernels::GemmActivation fused_activation(const QmmCall &c) {
  const std::string f = c.fused;
  if (c.t[kQmmX3] != nullptr)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is not supported (fusedOpType add / mul are not implemented); pass null",
                c.name[kQmmX3]);
  if (f.empty()) return kernels::GemmActivation::kNone;
  if (f == "relu") return kernels::GemmActivation::kRelu;
  if (f == "gelu_tanh") return kernels::GemmActivation::kGeluTanh;
  if (f == "gelu_erf") return kernels::GemmActivation::kGeluErf;
  throw_error(ACLNN_ERR_PARAM_INVALID, "fusedOpType \"%s\" is not supported (\"\", relu, gelu_tanh, gelu_erf)",
              c.fused);
}

// TransposeQuantBatchMatMul's dtype enum (1 FLOAT16, 27 BF16): out must have it.
void check_out_dtype_enum(const QmmCall &c) {
  const aclTensor *out = c.t[kQmmOut];
  const aclDataType want = c.out_dtype == 1 ? ACL_FLOAT16 : c.out_dtype == 27 ? ACL_BF16 : ACL_DT_UNDEFINED;
  if (want == ACL_DT_UNDEFINED)
    throw_error(ACLNN_ERR_PARAM_INVALID, "dtype is %lld; expected 1 (FLOAT16) or 27 (BF16)", ll(c.out_dtype));
  if (out->dtype != want)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; dtype %lld asks for %s", c.name[kQmmOut],
                core::dtype_name(out->dtype), ll(c.out_dtype), core::dtype_name(want));
}

// What a caller of the int8 scheme's planning replaces.
struct Int8Override {
  // QuantMatmulDequant's quantised x (a contiguous INT8 [m, k] the previous step writes; its dtype
  // checks were made by the caller); null: x1 as given.
  const aclTensor *x1_q = nullptr;
  // QuantMatmulReduceSumWeightNz: every batch's dequantised product is added, batch after batch, into
  // the FLOAT [m, n] workspace block acc (out stays the caller's), and x1Scale is per batch and row.
  bool sum_batches = false;
  core::WsKey acc;
  // Sparse4to2QuantMatmulWeightNz: x2 is this dense view (shapes, planning), read at launch from
  // the source make_x2_source returns (given the registered operands).
  const aclTensor *x2_dense = nullptr;
  std::function<std::shared_ptr<const OperandSource>(const QmmOperand *)> make_x2_source;
};

// Returns the recorded step.
QmmInt8Step &int8_dequant(core::OpBuilder &b, const QmmRule &rule, const QmmCall &c, const Int8Override &ov = {}) {
  const aclTensor *x1_q = ov.x1_q;
  const aclTensor *x1 = x1_q != nullptr ? x1_q : c.t[kQmmA], *x2 = ov.x2_dense != nullptr ? ov.x2_dense : c.t[kQmmB], *scale = c.t[kQmmScale],
                  *offset = c.t[kQmmOffset], *pertoken = c.t[kQmmPertoken], *bias = c.t[kQmmBias],
                  *out = c.t[kQmmOut];
  const char *const *nm = c.name;
  core::check_dtype_in(x1, nm[kQmmA], {ACL_INT8});
  bool x2_nz = false;
  if (rule.weight_nz)
    x2_nz = check_weight_nz(x2, nm[kQmmB], {ACL_INT8});
  else
    core::check_dtype_in(x2, nm[kQmmB], {ACL_INT8});
  for (QmmRole r : {kQmmYScale, kQmmAOffset, kQmmYOffset})
    if (c.t[r] != nullptr && c.t[r]->numel() != 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s is reserved: pass null or an empty tensor", nm[r]);
  if (c.group != 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "groupSize is %lld; only 0 (no groups) is supported", ll(c.group));
  const kernels::GemmActivation act = c.fused != nullptr ? fused_activation(c) : kernels::GemmActivation::kNone;
  if (!c.has_scale_value) core::check_dtype_in(scale, nm[kQmmScale], {ACL_UINT64, ACL_INT64, ACL_FLOAT, ACL_BF16});
  if (offset != nullptr) core::check_dtype_in(offset, nm[kQmmOffset], {ACL_FLOAT});
  if (pertoken != nullptr) core::check_dtype_in(pertoken, nm[kQmmPertoken], {ACL_FLOAT});
  if (bias != nullptr) core::check_dtype_in(bias, nm[kQmmBias], {ACL_INT32, ACL_FLOAT, ACL_FLOAT16, ACL_BF16});
  if (ov.sum_batches)
    core::check_dtype_in(out, nm[kQmmOut], {ACL_BF16, ACL_FLOAT16});
  else if (c.accumulate)
    core::check_dtype_in(out, nm[kQmmOut], {ACL_FLOAT});
  else
    core::check_dtype_in(out, nm[kQmmOut], {ACL_INT8, ACL_FLOAT16, ACL_BF16});
  if (c.has_out_dtype) check_out_dtype_enum(c);
  if (c.has_perm) {  // TransposeQuantBatchMatMul: both scales required, bias reserved
    core::check_not_null(pertoken, nm[kQmmPertoken]);
    if (bias != nullptr) throw_error(ACLNN_ERR_PARAM_INVALID, "%s is reserved: pass null", nm[kQmmBias]);
  }
  if (offset != nullptr && out->dtype != ACL_INT8)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is only allowed with an INT8 %s; %s has dtype %s", nm[kQmmOffset],
                nm[kQmmOut], nm[kQmmOut], core::dtype_name(out->dtype));
  if (offset != nullptr && bias != nullptr && bias->dtype != ACL_INT32)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s cannot be combined with a %s %s (only an INT32 %s)", nm[kQmmOffset],
                core::dtype_name(bias->dtype), nm[kQmmBias], nm[kQmmBias]);

  // Shapes.
  aclTensor x1_perm, x2_perm, out_view;
  std::vector<int> p2;
  if (c.has_perm) {  // the GEMM reads the permuted views in place
    require_rank(x1, nm[kQmmA], 3, 3);
    require_rank(x2, nm[kQmmB], 3, 3);
    x1_perm = permuted(*x1, checked_perm(c.perm[0], c.perm_name[0], 3));
    p2 = checked_perm(c.perm[1], c.perm_name[1], 3);
    x2_perm = permuted(*x2, p2);
    x1 = &x1_perm;
    x2 = &x2_perm;
  }
  require_rank(x1, nm[kQmmA], 2, c.accumulate || x1_q != nullptr ? 2 : 6);
  require_rank(x2, nm[kQmmB], 2, c.accumulate || x1_q != nullptr ? 2 : 6);
  const int n1 = x1->ndim, n2 = x2->ndim;
  const int64_t m = c.trans_a ? x1->dims[n1 - 1] : x1->dims[n1 - 2];
  const int64_t k = c.trans_a ? x1->dims[n1 - 2] : x1->dims[n1 - 1];
  const int64_t k2 = c.trans_b ? x2->dims[n2 - 1] : x2->dims[n2 - 2];
  const int64_t n = c.trans_b ? x2->dims[n2 - 2] : x2->dims[n2 - 1];
  check_inner_dims(x1, nm[kQmmA], k, x2, nm[kQmmB], k2);
  if (k > kQmmMaxK)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s / %s: k is %lld; at most %lld is supported", nm[kQmmA], nm[kQmmB], ll(k),
                ll(kQmmMaxK));
  core::Shape b1, b2;
  b1.ndim = n1 - 2;
  b2.ndim = n2 - 2;
  for (int i = 0; i < b1.ndim; ++i) b1.dims[i] = x1->dims[i];
  for (int i = 0; i < b2.ndim; ++i) b2.dims[i] = x2->dims[i];
  const std::string bn1 = std::string(nm[kQmmA]) + " (batch dims)", bn2 = std::string(nm[kQmmB]) + " (batch dims)";
  const core::Shape bshape = core::broadcast_shapes(b1, bn1.c_str(), b2, bn2.c_str());
  core::Shape oshape = bshape;
  oshape.dims[oshape.ndim++] = m;
  oshape.dims[oshape.ndim++] = n;
  if (ov.sum_batches) {  // out [m, n] (keepDims: [1, m, n]); the GEMMs write the FLOAT block acc
    core::Shape want;
    want.ndim = c.keep_dims ? 3 : 2;
    want.dims[0] = 1;
    want.dims[want.ndim - 2] = m;
    want.dims[want.ndim - 1] = n;
    core::check_shape_equals(*out, nm[kQmmOut], want);
    core::check_no_internal_overlap(*out, nm[kQmmOut]);
    out_view = *out;
    out_view.dtype = ACL_FLOAT;
    out_view.ndim = oshape.ndim;
    for (int i = 0; i < oshape.ndim; ++i) out_view.dims[i] = oshape.dims[i];
    core::set_contiguous(out_view, oshape);
    for (int i = 0; i + 2 < oshape.ndim; ++i) out_view.strides[i] = 0;  // every batch adds into the one block
    out = &out_view;
  } else if (c.has_perm) {
    out_view = permuted_out_view(c.perm[2], c.perm_name[2], c.split, "batchSplitFactor", *out, nm[kQmmOut], oshape);
    out = &out_view;
  } else {
    core::check_shape_equals(*out, nm[kQmmOut], oshape);
  }
  if (!ov.sum_batches) core::check_no_internal_overlap(*out, nm[kQmmOut]);
  int64_t batch = 1;
  for (int i = 0; i < bshape.ndim; ++i) batch *= bshape.dims[i];
  reject_empty(batch, m, k, n);

  QmmInt8Step &st = b.add_step<QmmInt8Step>();
  register_tensors(b, c, st.op, c.accumulate);
  st.act = act;
  st.accumulate = c.accumulate || ov.sum_batches;
  if (ov.sum_batches) {
    st.out_to_ws = true;
    st.ws_out = ov.acc;
  }
  // A FRACTAL_NZ x2 is read from its dense copy (made at the first launch and kept), planned as
  // the contiguous x2 it holds.
  if (ov.make_x2_source) st.x2_source = ov.make_x2_source(st.op);
  aclTensor x2_dense;
  if (x2_nz) {
    st.x2_source = std::make_shared<WeightNzCopy>(st.op[kQmmB].slot, *c.t[kQmmB]);
    x2_dense = weight_nz_logical(*c.t[kQmmB]);
    x2_dense.offset = 0;
    if (c.has_perm) x2_dense = permuted(x2_dense, p2);
    x2 = &x2_dense;
  }
  st.m0 = m;
  st.n = n;
  if (c.has_scale_value) {  // QuantMatmul's float deqScale: a per-tensor scale held by the step
    st.has_scale_value = true;
    st.scale_value = c.scale_value;
  } else {
    vector_shape(scale, nm[kQmmScale], n, 1, &st.scale_count, &st.scale_stride);
    st.scale_dtype = scale->dtype;
  }
  if (offset != nullptr) vector_shape(offset, nm[kQmmOffset], n, 1, &st.offset_count, &st.offset_stride);
  if (pertoken != nullptr && ov.sum_batches) {  // (batch, m): one row of scales per batch
    if (pertoken->ndim != 2 || pertoken->dims[0] != batch || pertoken->dims[1] != m)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected (%lld, %lld) (batch, m)", nm[kQmmPertoken],
                  shape_string(*pertoken).c_str(), ll(batch), ll(m));
    st.pertoken_stride = pertoken->strides[1];
    st.pertoken_bstride = pertoken->strides[0];
  } else if (pertoken != nullptr) {
    if (pertoken->ndim != 1 || pertoken->dims[0] != m)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected (%lld,) (m)", nm[kQmmPertoken],
                  shape_string(*pertoken).c_str(), ll(m));
    st.pertoken_stride = pertoken->strides[0];
  }
  if (bias != nullptr) {
    const bool flat = bias->ndim == 1 && bias->dims[0] == n;
    const bool batched = bias->ndim == 3 && bias->dims[0] == batch && bias->dims[1] == 1 && bias->dims[2] == n;
    if (!flat && !batched)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected (%lld,) or (%lld, 1, %lld)", nm[kQmmBias],
                  shape_string(*bias).c_str(), ll(n), ll(batch), ll(n));
    st.bias_dtype = bias->dtype;
    st.bias_batches = flat ? 1 : batch;
    st.bias_col = bias->strides[bias->ndim - 1];
    st.bias_bstride = flat ? 0 : bias->strides[0];
  }

  // out's batch dims and element strides.
  const int no = out->ndim;
  st.out_dtype = out->dtype;
  st.out_row = out->strides[no - 2];
  st.out_col = out->strides[no - 1];
  st.out_bdims = no - 2;
  for (int i = 0; i < no - 2; ++i) {
    st.out_bshape[i] = out->dims[i];
    st.out_bstride[i] = out->strides[i];
  }

  // Batch dims of x1 and x2 over the broadcast shape: drop size 1, merge neighbours that nest.
  int64_t bstrides[2][core::kMaxDims];
  core::broadcast_strides(*x1, oshape, bstrides[0]);
  core::broadcast_strides(*x2, oshape, bstrides[1]);
  const MergedBatch mb = merge_batch_dims(bshape, bstrides, {0, 1});
  const int nd = mb.ndim;
  const int64_t *dd = mb.dims, *da = mb.strides[0], *db = mb.strides[1];
  kernels::IgemmDesc d;
  d.m = m;
  d.n = n;
  d.k = k;
  d.a_row = c.trans_a ? x1->strides[n1 - 1] : x1->strides[n1 - 2];
  d.a_col = c.trans_a ? x1->strides[n1 - 2] : x1->strides[n1 - 1];
  d.b_row = c.trans_b ? x2->strides[n2 - 1] : x2->strides[n2 - 2];
  d.b_col = c.trans_b ? x2->strides[n2 - 2] : x2->strides[n2 - 1];
  if (nd > 0) {
    st.inner = dd[nd - 1];
    d.batch = dd[nd - 1];
    d.a_batch = da[nd - 1];
    d.b_batch = db[nd - 1];
    st.outer_ndim = nd - 1;
    for (int i = 0; i + 1 < nd; ++i) {
      st.outer_dims[i] = dd[i];
      st.outer_a[i] = da[i];
      st.outer_b[i] = db[i];
    }
    if (ov.sum_batches) {  // batches one after another: each adds into the same block
      st.outer_ndim = nd;
      st.outer_dims[nd - 1] = dd[nd - 1];
      st.outer_a[nd - 1] = da[nd - 1];
      st.outer_b[nd - 1] = db[nd - 1];
      st.inner = 1;
      d.batch = 1;
      d.a_batch = d.b_batch = 0;
    }
    // One x2 for every batch and x1's rows evenly spaced across the batch: a single taller GEMM.
    else if (nd == 1 && d.b_batch == 0 && (m == 1 || d.a_batch == m * d.a_row)) {
      d.m = m * d.batch;
      if (m == 1) d.a_row = d.a_batch;
      d.batch = 1;
      d.a_batch = 0;
      st.inner = 1;
    }
  }
  if (!kernels::igemm_plan(d, &st.plan))
    throw_error(ACLNN_ERR_INNER_TILING_ERROR, "int8 GEMM planning failed: %s", last_error_message());
  st.ws_gemm = b.book("igemm.scratch", st.plan.workspace_bytes);
  st.ws_scale = b.book("qmm.scale_fp32", static_cast<uint64_t>(n) * sizeof(float));
  if (offset != nullptr) st.ws_offset = b.book("qmm.offset_fp32", static_cast<uint64_t>(n) * sizeof(float));
  if (bias != nullptr) st.ws_bias = b.book("qmm.bias", static_cast<uint64_t>(st.bias_batches * n) * 4);
  return st;
}

// ---- kDynamicDequant

// One value of a static xScale: (1,) per tensor, or (m,) per token; its element stride (0: one).
int64_t x_scale_stride(const aclTensor *xs, const char *name, bool per_token, int64_t m) {
  const int64_t want = per_token ? m : 1;
  if (xs->ndim != 1 || xs->dims[0] != want)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected (%lld,) (xQuantMode %s)", name,
                shape_string(*xs).c_str(), ll(want), per_token ? "pertoken" : "pertensor");
  return per_token ? xs->strides[0] : 0;
}

void dynamic_dequant(core::OpBuilder &b, const QmmRule &rule, const QmmCall &c) {
  const aclTensor *x = c.t[kQmmA], *w = c.t[kQmmB], *ws = c.t[kQmmScale], *bias = c.t[kQmmBias],
                  *xs = c.t[kQmmXScale], *smooth = c.t[kQmmSmooth], *out = c.t[kQmmOut];
  const char *const *nm = c.name;
  core::check_dtype_in(x, nm[kQmmA], {ACL_FLOAT16, ACL_BF16});
  if (rule.weight_nz) check_weight_nz(w, nm[kQmmB], {ACL_INT8});
  else core::check_dtype_in(w, nm[kQmmB], {ACL_INT8});
  core::check_dtype_in(ws, nm[kQmmScale], {ACL_FLOAT, ACL_INT64});
  if (bias != nullptr) core::check_dtype_in(bias, nm[kQmmBias], {ACL_INT32});
  if (xs != nullptr) core::check_dtype_in(xs, nm[kQmmXScale], {ACL_FLOAT, ACL_FLOAT16});
  if (c.t[kQmmAOffset] != nullptr)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is reserved: pass null", nm[kQmmAOffset]);
  if (smooth != nullptr) core::check_dtype_in(smooth, nm[kQmmSmooth], {x->dtype});
  core::check_dtype_in(out, nm[kQmmOut], {x->dtype});
  const std::string mode = c.x_quant_mode;
  if (mode != "pertoken" && mode != "pertensor")
    throw_error(ACLNN_ERR_PARAM_INVALID, "xQuantMode \"%s\" is not supported (pertoken, pertensor)", c.x_quant_mode);
  const bool per_token = mode == "pertoken";
  if (xs == nullptr && !per_token)
    throw_error(ACLNN_ERR_PARAM_INVALID, "xQuantMode pertensor needs %s (dynamic quantisation is per token)",
                nm[kQmmXScale]);
  // An INT64 weightScale already holds weightScale * xScale (per tensor): xScale FLOAT16 quantises x.
  const bool premultiplied = ws->dtype == ACL_INT64;
  if (premultiplied != (xs != nullptr && xs->dtype == ACL_FLOAT16))
    throw_error(ACLNN_ERR_PARAM_INVALID, "an INT64 %s goes with a FLOAT16 %s (and a FLOAT16 %s with an INT64 %s)",
                nm[kQmmScale], nm[kQmmXScale], nm[kQmmXScale], nm[kQmmScale]);
  if (premultiplied && per_token)
    throw_error(ACLNN_ERR_PARAM_INVALID, "an INT64 %s needs xQuantMode pertensor", nm[kQmmScale]);

  // Shapes: x [m, k]; the rest through the int8 scheme, x1 being the quantised x.
  require_rank(x, nm[kQmmA], 2, 2);
  const int64_t m = x->dims[0], k = x->dims[1];
  if (ws->ndim != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected (n,)", nm[kQmmScale], shape_string(*ws).c_str());
  if (smooth != nullptr && (smooth->ndim != 1 || smooth->dims[0] != k))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected (%lld,) (k)", nm[kQmmSmooth],
                shape_string(*smooth).c_str(), ll(k));
  const int64_t xs_stride = xs != nullptr ? x_scale_stride(xs, nm[kQmmXScale], per_token, m) : 0;
  QmmXQuantStep &q = b.add_step<QmmXQuantStep>();
  aclTensor xq = *x;
  xq.dtype = ACL_INT8;
  xq.offset = 0;
  xq.strides[0] = k;
  xq.strides[1] = 1;
  Int8Override ov;
  ov.x1_q = &xq;
  QmmInt8Step &st = int8_dequant(b, rule, c, ov);
  std::copy(st.op, st.op + kQmmRoles, q.op);
  q.m = m;
  q.k = k;
  q.x_dtype = x->dtype;
  q.x_row = x->strides[0];
  q.x_col = x->strides[1];
  if (smooth != nullptr) {
    q.smooth_dtype = smooth->dtype;
    q.smooth_stride = smooth->strides[0];
  }
  q.dynamic = xs == nullptr;
  if (xs != nullptr) {
    q.xscale_dtype = xs->dtype;
    q.xscale_stride = xs_stride;
  }
  core::ImplTrace trace;
  const bool traced = core::current_phase1_trace() != nullptr;
  const char *tier = kernels::choose_quant_token_tier(&q.token, traced ? &trace : nullptr);
  q.rows_fast = (q.x_col == 1 || k == 1) && (smooth == nullptr || q.smooth_stride == 1 || k == 1);
  if (traced && !q.rows_fast) trace.add("rows", "x or smoothScaleOptional not contiguous along k");
  q.tasks = std::max<int64_t>(1, std::min<int64_t>(core::num_threads(), m));
  if (traced)
    core::record_choice(std::string("qmm:x_quant/") + tier + (q.rows_fast ? "" : "/strided") + "/tasks=" +
                        std::to_string(q.tasks), &trace);
  q.ws_xq = b.book("qmm.x_int8", static_cast<uint64_t>(m * k));
  q.ws_sx = b.book("qmm.x_scale", static_cast<uint64_t>(m) * sizeof(float));
  q.ws_rows = b.book("qmm.x_rows", static_cast<uint64_t>(q.tasks * 2 * k) * sizeof(float));
  st.a_from_ws = true;
  st.ws_a = q.ws_xq;
  if (!premultiplied) {  // the epilogue's per-token factor is sx
    st.pertoken_from_ws = true;
    st.ws_pertoken = q.ws_sx;
    st.pertoken_stride = 1;
  }
}

// ---- kInt4Pack

void int4_pack(core::OpBuilder &b, const QmmCall &c) {
  const aclTensor *w = c.t[kQmmB], *out = c.t[kQmmOut];
  const char *const *nm = c.name;
  core::check_dtype_in(w, nm[kQmmB], {ACL_INT32});
  core::check_dtype_in(out, nm[kQmmOut], {ACL_INT4, ACL_INT32});
  if (!core::is_plain_format(out->format))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be in ND format (FRACTAL_NZ INT4 weights are not supported)",
                nm[kQmmOut]);
  require_rank(w, nm[kQmmB], 2, 2);
  const int64_t d0 = w->dims[0], d1 = w->dims[1], per = out->dtype == ACL_INT4 ? 2 : 8;
  if (d1 % per != 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s's last dim %lld must be a multiple of %lld for a %s %s", nm[kQmmB],
                ll(d1), ll(per), core::dtype_name(out->dtype), nm[kQmmOut]);
  core::Shape want = core::Shape::of(*w);
  if (out->dtype == ACL_INT32) want.dims[1] = d1 / 8;
  core::check_shape_equals(*out, nm[kQmmOut], want);
  if (!w->is_contiguous() || !out->is_contiguous() || (out->dtype == ACL_INT4 && out->offset % 2 != 0))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s and %s must be contiguous (non-contiguous tensors are not supported)",
                nm[kQmmB], nm[kQmmOut]);
  reject_empty(1, d0, d1, 1);
  QmmInt4PackStep &st = b.add_step<QmmInt4PackStep>();
  register_tensors(b, c, st.op);
  st.rows = d0;
  st.cols = d1;
}

// ---- kReduceSum

void reduce_sum(core::OpBuilder &b, const QmmRule &rule, const QmmCall &c) {
  const char *const *nm = c.name;
  for (QmmRole r : {kQmmOffset, kQmmBias})
    if (c.t[r] != nullptr) throw_error(ACLNN_ERR_PARAM_INVALID, "%s is reserved: pass null", nm[r]);
  core::check_not_null(c.t[kQmmPertoken], nm[kQmmPertoken]);
  core::check_dtype_in(c.t[kQmmScale], nm[kQmmScale], {ACL_BF16, ACL_FLOAT});
  core::require_not_null(c.reduce_dims, "dims");
  const aclTensor *x1 = c.t[kQmmA];
  require_rank(x1, nm[kQmmA], 3, 3);
  require_rank(c.t[kQmmB], nm[kQmmB], 3, 3);
  if (c.reduce_dims->values.size() != 1 || (c.reduce_dims->values[0] != 0 && c.reduce_dims->values[0] != -3))
    throw_error(ACLNN_ERR_PARAM_INVALID, "dims must be [0] (the batch dim); other reductions are not supported");
  const int64_t m = c.trans_a ? x1->dims[2] : x1->dims[1], n = c.t[kQmmB]->dims[c.trans_b ? 1 : 2];
  QmmSumStep &zero = b.add_step<QmmSumStep>();
  Int8Override ov;
  ov.sum_batches = true;
  ov.acc = b.book("qmm.batch_sum", static_cast<uint64_t>(m * n) * sizeof(float));
  QmmInt8Step &st = int8_dequant(b, rule, c, ov);
  QmmSumStep &store = b.add_step<QmmSumStep>();
  std::copy(st.op, st.op + kQmmRoles, zero.op);
  std::copy(st.op, st.op + kQmmRoles, store.op);
  const aclTensor *out = c.t[kQmmOut];
  for (QmmSumStep *q : {&zero, &store}) {
    q->m = m;
    q->n = n;
    q->acc = ov.acc;
    q->out_dtype = out->dtype;
    q->out_row = out->strides[out->ndim - 2];
    q->out_col = out->strides[out->ndim - 1];
  }
  store.store = true;
}

// ---- kWeightAntiquant

// Element strides (row: along the groups of k, col: along n) of an antiquant scale / offset.
void antiquant_strides(const aclTensor *t, int64_t *row, int64_t *col) {
  if (t->numel() == 1 && t->ndim <= 2) {
    *row = *col = 0;
  } else if (t->ndim == 1) {
    *row = 0;
    *col = t->strides[0];
  } else {
    *row = t->dims[0] == 1 ? 0 : t->strides[0];
    *col = t->strides[1];
  }
}

// Rows evenly spaced across the batch dims (they fold into m).
bool rows_nest(const aclTensor *t) {
  for (int i = t->ndim - 3; i >= 0; --i)
    if (t->dims[i] > 1 && t->strides[i] != t->strides[i + 1] * t->dims[i + 1]) return false;
  return true;
}

void weight_antiquant(core::OpBuilder &b, const QmmRule &rule, const QmmCall &c) {
  const aclTensor *x = c.t[kQmmA], *weight = c.t[kQmmB], *s = c.t[kQmmScale], *aoff = c.t[kQmmOffset],
                  *qscale = c.t[kQmmQScale], *qoffset = c.t[kQmmQOffset], *bias = c.t[kQmmBias], *y = c.t[kQmmOut];
  const char *const *nm = c.name;
  core::check_dtype_in(x, nm[kQmmA], {ACL_FLOAT16, ACL_BF16});
  aclTensor w_t;
  if (c.legacy_v1) {  // WeightQuantBatchMatmul: the mulScale / addOffset form only (qmm_phase1.h)
    if (c.t[kQmmDiag] != nullptr) core::check_dtype_in(c.t[kQmmDiag], nm[kQmmDiag], {ACL_INT8});
    if (c.t[kQmmDeqOffset] != nullptr) core::check_dtype_in(c.t[kQmmDeqOffset], nm[kQmmDeqOffset], {ACL_INT32});
    if (c.t[kQmmDeqScale] != nullptr) core::check_dtype_in(c.t[kQmmDeqScale], nm[kQmmDeqScale], {ACL_UINT64, ACL_INT64});
    if (s == nullptr || aoff == nullptr)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s and %s are required: the diagonalMatrix / deqOffset / deqScale form "
                  "alone is not implemented", nm[kQmmScale], nm[kQmmOffset]);
    if (c.trans_a) throw_error(ACLNN_ERR_PARAM_INVALID, "transposeX1 is not supported (pass false)");
    require_rank(weight, nm[kQmmB], 2, 2);
    if (c.trans_b) {  // x2 given [n, k]: its transposed view
      w_t = *weight;
      std::swap(w_t.dims[0], w_t.dims[1]);
      std::swap(w_t.strides[0], w_t.strides[1]);
      weight = &w_t;
    }
  }
  if (c.inner_precise != 0 && c.inner_precise != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "innerPrecise is %lld; expected 0 (high precision) or 1 (high performance)",
                ll(c.inner_precise));
  // WeightQuantBatchMatmulNz: INT8 blocks (read through a dense copy kept across launches), or ND.
  bool w_nz = false;
  aclTensor w_dense;
  if (rule.weight_nz) {
    w_nz = check_weight_nz(weight, nm[kQmmB], {ACL_INT8});
    if (w_nz) {
      w_dense = weight_nz_logical(*weight);
      w_dense.offset = 0;
      weight = &w_dense;
    }
  } else {
    if (weight->dtype != ACL_INT8 && weight->dtype != ACL_INT4 && weight->dtype != ACL_INT32)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; expected INT8, INT4 or INT32 (eight packed INT4)",
                  nm[kQmmB], core::dtype_name(weight->dtype));
    if (!core::is_plain_format(weight->format))
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be in ND format (FRACTAL_NZ weights are not supported)", nm[kQmmB]);
  }
  if (qoffset != nullptr && qscale == nullptr)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is given without %s", nm[kQmmQOffset], nm[kQmmQScale]);
  const bool quant = qscale != nullptr;
  if (quant) {
    core::check_dtype_in(qscale, nm[kQmmQScale], {ACL_FLOAT, ACL_UINT64, ACL_INT64});
    if (qoffset != nullptr) core::check_dtype_in(qoffset, nm[kQmmQOffset], {ACL_FLOAT});
  }
  core::check_dtype_in(s, nm[kQmmScale], {x->dtype});
  if (aoff != nullptr) core::check_dtype_in(aoff, nm[kQmmOffset], {x->dtype});
  if (c.legacy_v1 && y->dtype == ACL_INT8)
    throw_error(ACLNN_ERR_PARAM_INVALID, "an INT8 %s is not supported (FLOAT16 only)", nm[kQmmOut]);
  core::check_dtype_in(y, nm[kQmmOut], {quant ? ACL_INT8 : x->dtype});
  if (bias != nullptr) {
    if (x->dtype == ACL_FLOAT16) core::check_dtype_in(bias, nm[kQmmBias], {ACL_FLOAT16, ACL_FLOAT});
    else core::check_dtype_in(bias, nm[kQmmBias], {ACL_FLOAT, ACL_BF16});
  }

  // Shapes.
  require_rank(x, nm[kQmmA], 2, 6);
  require_rank(weight, nm[kQmmB], 2, 2);
  const int64_t m0 = x->dims[x->ndim - 2], k = x->dims[x->ndim - 1];
  const bool packed32 = weight->dtype == ACL_INT32;
  const int64_t n = packed32 ? weight->dims[1] * 8 : weight->dims[1];
  check_inner_dims(x, nm[kQmmA], k, weight, nm[kQmmB], weight->dims[0]);
  int64_t batch = 1;
  for (int i = 0; i + 2 < x->ndim; ++i) batch *= x->dims[i];
  const int64_t m = batch * m0;
  reject_empty(batch, m0, k, n);
  core::Shape y_shape = core::Shape::of(*x);
  y_shape.dims[y_shape.ndim - 1] = n;
  core::check_shape_equals(*y, nm[kQmmOut], y_shape);
  core::check_no_internal_overlap(*y, nm[kQmmOut]);
  if (!rows_nest(x) || !rows_nest(y) || y->strides[y->ndim - 1] != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s and %s must have rows evenly spaced across their batch dims, and %s a "
                "unit last stride", nm[kQmmA], nm[kQmmOut], nm[kQmmOut]);

  kernels::WqDesc wq;
  wq.m = m;
  wq.n = n;
  wq.k = k;
  wq.w_dtype = weight->dtype == ACL_INT8 ? ACL_INT8 : ACL_INT4;
  int64_t w_offset_elems = weight->offset;
  if (packed32) {
    if (weight->strides[1] != 1 || weight->strides[0] != weight->dims[1])
      throw_error(ACLNN_ERR_PARAM_INVALID, "an INT32 (packed INT4) %s must be contiguous [k, n/8]", nm[kQmmB]);
    wq.w_row = n;
    wq.w_col = 1;
    w_offset_elems = weight->offset * 8;
  } else {
    wq.w_row = weight->strides[0];
    wq.w_col = weight->strides[1];
  }
  if (wq.w_dtype == ACL_INT4) {
    if (n % 2 != 0 && wq.w_col == 1)
      throw_error(ACLNN_ERR_PARAM_INVALID, "an INT4 %s [k, n] needs an even n; n is %lld", nm[kQmmB], ll(n));
    if (w_offset_elems % 2 != 0 || (wq.w_col != 1 && wq.w_row != 1))
      throw_error(ACLNN_ERR_PARAM_INVALID, "an INT4 %s must be [k, n] contiguous or the transposed view of a "
                  "contiguous [n, k] starting on a byte", nm[kQmmB]);
    if (wq.w_row == 1 && wq.w_col % 2 != 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "a transposed INT4 %s needs an even k; k is %lld", nm[kQmmB], ll(k));
  }

  // Quantisation mode from antiquantGroupSize and the scale's shape.
  if (c.group == 0) {
    int64_t count = 0, stride = 0;
    vector_shape(s, nm[kQmmScale], n, 0, &count, &stride);
    wq.group = k;
  } else {
    if (c.group < 32 || c.group % 32 != 0 || c.group > k - 1)
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "antiquantGroupSize is %lld; expected 0, or a multiple of 32 in [32, k - 1] (k is %lld)", ll(c.group),
                  ll(k));
    wq.group = c.group;
    const int64_t groups = (k + wq.group - 1) / wq.group;
    if (s->ndim != 2 || s->dims[0] != groups || s->dims[1] != n)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s: per-group scales (antiquantGroupSize %lld) must have shape (%lld, %lld)",
                  nm[kQmmScale], shape_string(*s).c_str(), ll(c.group), ll(groups), ll(n));
  }
  wq.s_dtype = s->dtype;
  antiquant_strides(s, &wq.s_row, &wq.s_col);
  if (aoff != nullptr) {
    core::check_shape_equals(*aoff, nm[kQmmOffset], core::Shape::of(*s));
    wq.has_offset = true;
    wq.o_dtype = aoff->dtype;
    antiquant_strides(aoff, &wq.o_row, &wq.o_col);
  }
  int64_t bias_stride = 0;
  if (bias != nullptr) {
    const bool ok = (bias->ndim == 1 && bias->dims[0] == n) || (bias->ndim == 2 && bias->dims[0] == 1 && bias->dims[1] == n);
    if (!ok)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected (%lld,) or (1, %lld)", nm[kQmmBias],
                  shape_string(*bias).c_str(), ll(n), ll(n));
    bias_stride = bias->strides[bias->ndim - 1];
  }
  // Output quantisation parameters: per-tensor or per-channel.
  int64_t count = 0, qscale_stride = 0, qoffset_stride = 0;
  if (quant) vector_shape(qscale, nm[kQmmQScale], n, 0, &count, &qscale_stride);
  if (qoffset != nullptr) vector_shape(qoffset, nm[kQmmQOffset], n, 0, &count, &qoffset_stride);

  QmmWeightStep &st = b.add_step<QmmWeightStep>();
  register_tensors(b, c, st.op);
  if (w_nz) st.w_source = std::make_shared<WeightNzCopy>(st.op[kQmmB].slot, *c.t[kQmmB]);
  if (quant) {
    st.qscale_dtype = qscale->dtype;
    st.qscale_stride = qscale_stride;
    st.qoffset_stride = qoffset_stride;
  }
  st.wq = wq;
  st.x_dtype = x->dtype;
  st.y_dtype = y->dtype;
  st.bias_dtype = bias ? bias->dtype : ACL_FLOAT;
  st.x_row = x->strides[x->ndim - 2];
  st.x_col = x->strides[x->ndim - 1];
  st.y_row = y->strides[y->ndim - 2];
  st.bias_stride = bias_stride;
  const kernels::WqChoice choice = kernels::wq_choose(wq);
  st.path = choice.path;
  st.simd = choice.simd;
  if (st.path == kernels::WqPath::kStream) {
    st.ws_a = b.book("wq.small_m_scratch", kernels::wq_small_m_workspace(wq));
    st.ws_b = b.book("wq.y_fp32", static_cast<uint64_t>(m * n) * sizeof(float));
  } else if (st.path == kernels::WqPath::kFused) {
    if (!kernels::wq_fused_plan(wq, &st.fplan))
      throw_error(ACLNN_ERR_INNER_TILING_ERROR, "weight-quant planning failed: %s", last_error_message());
    st.ws_a = b.book("wq.fused_scratch", st.fplan.workspace_bytes);
  } else {
    kernels::GemmDesc d;
    d.m = m;
    d.n = n;
    d.k = k;
    d.a = {x->dtype, st.x_row, st.x_col, 0};
    d.b = {ACL_FLOAT, 0, 0, 0};
    d.b_prepacked = true;
    d.c = {y->dtype, st.y_row, 1, 0};
    if (quant) d.c = {ACL_FLOAT, n, 1, 0};  // fp32 rows in the workspace; bias and quantisation after
    if (bias != nullptr && !quant) {
      d.has_d = true;
      d.d = {bias->dtype, 0, bias_stride, 0};
      d.beta = 1.0f;
    }
    kernels::GemmOptions opt;
    opt.detect_prepacked_b = false;
    if (!kernels::gemm_plan(d, &st.plan, opt))
      throw_error(ACLNN_ERR_INNER_TILING_ERROR, "GEMM planning failed: %s", last_error_message());
    st.ws_a = b.book("wq.weight_fp32", static_cast<uint64_t>(kernels::gemm_prepacked_b_elems(k, n)) * sizeof(float));
    st.ws_b = b.book("gemm.scratch", st.plan.workspace_bytes);
    if (quant) st.ws_c = b.book("wq.y_fp32", static_cast<uint64_t>(m * n) * sizeof(float));
  }
}

// ---- kEncodeParam

// (t,) or (1, t): t and the element stride along t.
void param_shape(const aclTensor *t, const char *name, int64_t *count, int64_t *stride) {
  const bool ok = t->ndim == 1 || (t->ndim == 2 && t->dims[0] == 1);
  if (!ok || t->numel() == 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected (t,) or (1, t) with t >= 1", name,
                shape_string(*t).c_str());
  *count = t->dims[t->ndim - 1];
  *stride = *count == 1 ? 0 : t->strides[t->ndim - 1];
}

void encode_param(core::OpBuilder &b, const QmmCall &c) {
  const aclTensor *scale = c.t[kQmmScale], *offset = c.t[kQmmOffset], *out = c.t[kQmmOut];
  const char *const *nm = c.name;
  core::check_dtype_in(scale, nm[kQmmScale], {ACL_FLOAT});
  if (offset != nullptr) core::check_dtype_in(offset, nm[kQmmOffset], {ACL_FLOAT});
  core::check_dtype_in(out, nm[kQmmOut], {ACL_UINT64, ACL_INT64});
  if (c.round_mode != 0 && c.round_mode != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "roundMode must be 0 (truncate the scale to 19 bits) or 1 (round to them), got %lld",
                static_cast<long long>(c.round_mode));
  QmmEncodeParamStep &st = b.add_step<QmmEncodeParamStep>();
  st.round_mode = static_cast<int>(c.round_mode);
  int64_t ns = 0, no = 1;
  param_shape(scale, nm[kQmmScale], &ns, &st.scale_stride);
  if (offset != nullptr) param_shape(offset, nm[kQmmOffset], &no, &st.offset_stride);
  if (ns != no && ns != 1 && no != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s and %s %s: their lengths must be equal, or one of them 1",
                nm[kQmmScale], shape_string(*scale).c_str(), nm[kQmmOffset], shape_string(*offset).c_str());
  st.count = std::max(ns, no);
  if (scale->ndim == 2 && st.count != ns)
    throw_error(ACLNN_ERR_PARAM_INVALID, "a 2-D %s %s gives %s its shape; %s %s is longer", nm[kQmmScale],
                shape_string(*scale).c_str(), nm[kQmmOut], nm[kQmmOffset], shape_string(*offset).c_str());
  core::Shape want;
  want.ndim = scale->ndim;
  want.dims[0] = scale->ndim == 2 ? 1 : st.count;
  want.dims[1] = st.count;
  core::check_shape_equals(*out, nm[kQmmOut], want);
  core::check_no_internal_overlap(*out, nm[kQmmOut]);
  st.out_stride = out->strides[out->ndim - 1];
  register_tensors(b, c, st.op);
}

// ---- kPrepackWeight

int64_t align_up(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

void prepack_weight(core::OpBuilder &b, const QmmCall &c) {
  const aclTensor *w = c.t[kQmmB];
  const char *name = c.name[kQmmB];
  core::check_dtype_in(w, name, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_INT8});
  require_rank(w, name, 2, 6);
  const int slot = b.inout(w);
  if (w->dtype == ACL_INT8 || w->ndim > 2 || w->numel() == 0) return;  // stays ND: our kernels read it as it is
  kernels::gemm_prepacked_b_mark_in_use();  // matmuls planned from now on also plan for packed B
  QmmPrepackStep &s = b.add_step<QmmPrepackStep>();
  s.op[kQmmB].slot = slot;
  s.op[kQmmB].offset_bytes = w->offset * static_cast<int64_t>(core::dtype_size(w->dtype));
  s.k = w->dims[0];
  s.n = w->dims[1];
  s.src = {w->dtype, w->strides[0], w->strides[1], 0};
  s.copy_ws = b.book("trans_weight.copy", static_cast<uint64_t>(s.k * s.n) * core::dtype_size(w->dtype));
  // The packed layout covers K * align(N, 16) elements from the view's first element: the described
  // storage (and the device allocation, checked below) must hold them.
  const __int128 packed_end = static_cast<__int128>(w->offset) + static_cast<__int128>(s.k) * align_up(s.n, 16);
  // The storage dims are only recorded (never bounded), so their product saturates: kCap is more
  // than any packed_end, and storage * dim stays in range.
  constexpr __int128 kCap = static_cast<__int128>(1) << 126;
  __int128 storage = 1;
  for (int i = 0; i < w->storage_ndim; ++i) {
    const int64_t d = w->storage_dims[i];  // >= 0 (aclCreateTensor)
    storage = d != 0 && storage > kCap / d ? kCap : storage * d;
  }
  if (storage < packed_end)
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "%s's storage %s holds %lld elements; the packed weight [%lld, %lld] needs %lld from the storage "
                "start (offset %lld + K * align(N, 16); aclnnCalculateMatmulWeightSizeV2 gives the size to allocate)",
                name, core::shape_string(w->storage_dims, w->storage_ndim).c_str(), ll(static_cast<int64_t>(storage)),
                ll(s.k), ll(s.n), ll(static_cast<int64_t>(packed_end)), ll(w->offset));
  aclTensor packed = *w;  // the packed extent as a flat view, against the allocation
  packed.ndim = 1;
  packed.dims[0] = static_cast<int64_t>(packed_end - w->offset);
  packed.strides[0] = 1;
  const std::string what = std::string(name) + " (packed extent)";
  core::check_view_within_allocation(packed, what.c_str());
  b.checks_memory_beyond_views();  // a cached plan would not repeat the check above
}

}  // namespace

void qmm_encode_array(const float *scale, uint64_t scale_size, const float *offset, uint64_t offset_size,
                      uint64_t **param, uint64_t *param_size) {
  core::check_not_null(scale, "scaleArray");
  core::check_not_null(param, "quantParam");
  core::check_not_null(param_size, "quantParamSize");
  if (scale_size == 0) throw_error(ACLNN_ERR_PARAM_INVALID, "scaleSize must be at least 1");
  const uint64_t no = offset == nullptr ? 1 : offset_size;
  if (no == 0) throw_error(ACLNN_ERR_PARAM_INVALID, "offsetSize must be at least 1 when offsetArray is given");
  if (scale_size != no && scale_size != 1 && no != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "scaleSize %llu and offsetSize %llu: they must be equal, or one of them 1",
                static_cast<unsigned long long>(scale_size), static_cast<unsigned long long>(no));
  const uint64_t count = std::max(scale_size, no);
  if (count > (uint64_t{1} << 40)) throw_error(ACLNN_ERR_PARAM_INVALID, "scaleSize / offsetSize is too large");
  auto *words = static_cast<uint64_t *>(std::malloc(count * sizeof(uint64_t)));
  if (words == nullptr) throw_error(ACLNN_ERR_INNER, "cannot allocate %llu words", static_cast<unsigned long long>(count));
  kernels::qmm_encode_params(scale, scale_size == 1 ? 0 : 1, offset, no == 1 ? 0 : 1, static_cast<int64_t>(count),
                             words, 1);
  *param = words;
  *param_size = count;
}

uint64_t qmm_weight_size(const aclIntArray *shape, const char *shape_name, aclDataType dtype, const char *dtype_name) {
  core::require_not_null(shape, shape_name);
  const size_t nd = shape->values.size();
  if (nd < 2 || nd > 6) throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have 2 to 6 dims; it has %zu", shape_name, nd);
  for (size_t i = 0; i < nd; ++i)
    if (shape->values[i] < 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s[%zu] is %lld; dims must be >= 0", shape_name, i, ll(shape->values[i]));
  int64_t inner_align;
  switch (dtype) {
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_FLOAT: inner_align = 16; break;  // FLOAT: OpsNN extension, same formula
    case ACL_INT8: inner_align = 32; break;
    default:
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s is not supported; expected FLOAT16, BF16 or INT8 (or FLOAT)",
                  dtype_name, core::dtype_name(dtype));
  }
  // Checked: a size of 2^62 elements or more is an error, never a wrapped (e.g. 0) answer.
  __int128 elems = 1;
  for (size_t i = 0; i + 2 < nd; ++i) elems = std::min<__int128>(elems * shape->values[i], __int128{1} << 62);
  const int64_t d0 = shape->values[nd - 2], d1 = shape->values[nd - 1];
  elems = std::min<__int128>(elems * align_up(std::min<int64_t>(d0, int64_t{1} << 62), 16), __int128{1} << 62);
  elems = std::min<__int128>(elems * align_up(std::min<int64_t>(d1, int64_t{1} << 62), inner_align), __int128{1} << 62);
  if (elems >= (__int128{1} << 62))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s holds 2^62 elements or more once aligned", shape_name);
  return static_cast<uint64_t>(elems);
}

namespace {

// ---- kSparse4to2: the int8 scheme over the dense weight the 2:4 pair decodes to, transposed ([n, k]).
void sparse4to2_dequant(core::OpBuilder &b, const QmmRule &rule, const QmmCall &c) {
  const aclTensor *x = c.t[kQmmA];
  const char *const *nm = c.name;
  core::check_dtype_in(x, nm[kQmmA], {ACL_INT8});
  require_rank(x, nm[kQmmA], 2, 2);
  const int64_t k = x->dims[1];
  const int64_t n = check_sparse4to2_weight(c.t[kQmmB], nm[kQmmB], c.t[kQmmIndex], nm[kQmmIndex], k);
  core::check_dtype_in(c.t[kQmmScale], nm[kQmmScale], {ACL_FLOAT});
  core::check_dtype_in(c.t[kQmmPertoken], nm[kQmmPertoken], {ACL_FLOAT});
  if (c.t[kQmmBias] != nullptr) {
    core::check_dtype_in(c.t[kQmmBias], nm[kQmmBias], {ACL_BF16});
    require_rank(c.t[kQmmBias], nm[kQmmBias], 1, 1);
  }
  core::check_dtype_in(c.t[kQmmOut], nm[kQmmOut], {ACL_BF16});
  const aclTensor dense = sparse4to2_dense_view(*c.t[kQmmB], n, k);
  QmmCall ct = c;
  ct.trans_b = true;
  Int8Override ov;
  ov.x2_dense = &dense;
  ov.make_x2_source = [&](const QmmOperand *op) {
    return std::make_shared<Sparse4to2Dense>(op[kQmmB].slot, *c.t[kQmmB], op[kQmmIndex].slot, *c.t[kQmmIndex], n, k);
  };
  core::record_choice("qmm:sparse4to2_dense_copy", nullptr);  // the igemm plan records its own tile choice
  b.checks_memory_beyond_views();  // the storage blocks' check above: a cached plan would not repeat it
  int8_dequant(b, rule, ct, ov);
}

// ---- kCompressDequant: the int8 scheme over x2's stored form, W [n, k] read in place (transposed).
void compress_dequant(core::OpBuilder &b, const QmmRule &rule, const QmmCall &c) {
  const aclTensor *x1 = c.t[kQmmA], *w = c.t[kQmmB], *out = c.t[kQmmOut], *bias = c.t[kQmmBias];
  const char *const *nm = c.name;
  core::check_dtype_in(x1, nm[kQmmA], {ACL_INT8});
  require_rank(x1, nm[kQmmA], 2, 2);
  core::check_dtype_in(out, nm[kQmmOut], {ACL_FLOAT16});
  require_rank(out, nm[kQmmOut], 2, 2);
  const int64_t k = x1->dims[1], n = out->dims[1];
  core::check_not_null(c.compress_info, "compressInfo");
  const std::vector<int64_t> &info = c.compress_info->values;
  if (info.size() != 5)
    throw_error(ACLNN_ERR_PARAM_INVALID, "compressInfo has %zu values; expected 5 (tilingN, tilingK, k, n, direction)",
                info.size());
  if (info[0] < 1 || info[1] < 1 || (info[4] != 0 && info[4] != 1))
    throw_error(ACLNN_ERR_PARAM_INVALID, "compressInfo is {%lld, %lld, ..., %lld}; the tiles must be >= 1, the direction 0 or 1",
                ll(info[0]), ll(info[1]), ll(info[4]));
  if (info[2] != k || info[3] != n)
    throw_error(ACLNN_ERR_PARAM_INVALID, "compressInfo gives (k, n) = (%lld, %lld); %s has k %lld and %s n %lld",
                ll(info[2]), ll(info[3]), nm[kQmmA], ll(k), nm[kQmmOut], ll(n));
  core::check_dtype_in(w, nm[kQmmB], {ACL_INT8});
  const aclTensor w_t = stored_compressed_weight(w, nm[kQmmB], n, k);  // W^T [k, n]
  core::check_dtype_in(c.t[kQmmIndex], nm[kQmmIndex], {ACL_INT8});
  require_rank(c.t[kQmmIndex], nm[kQmmIndex], 1, 1);
  if (c.t[kQmmWOffset] != nullptr)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is reserved: pass null", nm[kQmmWOffset]);
  if (c.offset_x != 0) throw_error(ACLNN_ERR_PARAM_INVALID, "offsetX is %lld; only 0 is supported", ll(c.offset_x));
  core::check_not_null(c.t[kQmmScale], nm[kQmmScale]);
  if (bias != nullptr) core::check_dtype_in(bias, nm[kQmmBias], {ACL_INT32});
  QmmCall ct = c;  // x2 = W^T as given (not transposed)
  aclTensor bias_flat;
  if (bias != nullptr && bias->ndim == 2 && bias->dims[0] == 1) {  // (1, n): the (n,) view
    bias_flat = *bias;
    bias_flat.ndim = 1;
    bias_flat.dims[0] = bias->dims[1];
    bias_flat.strides[0] = bias->strides[1];
    ct.t[kQmmBias] = &bias_flat;
  }
  Int8Override ov;
  ov.x2_dense = &w_t;
  core::record_choice("qmm:compress_stored_form", nullptr);
  int8_dequant(b, rule, ct, ov);
}

}  // namespace

void qmm_phase1(core::OpBuilder &b, const QmmRule &rule, const QmmCall &c) {
  switch (rule.scheme) {
    case QmmScheme::kInt8Dequant: int8_dequant(b, rule, c); return;
    case QmmScheme::kDynamicDequant: return dynamic_dequant(b, rule, c);
    case QmmScheme::kInt4Pack: return int4_pack(b, c);
    case QmmScheme::kReduceSum: return reduce_sum(b, rule, c);
    case QmmScheme::kWeightAntiquant: return weight_antiquant(b, rule, c);
    case QmmScheme::kEncodeParam: return encode_param(b, c);
    case QmmScheme::kPrepackWeight: return prepack_weight(b, c);
    case QmmScheme::kFloatRequant: return qmm_float_requant(b, c);
    case QmmScheme::kSparse4to2: return sparse4to2_dequant(b, rule, c);
    case QmmScheme::kCompressDequant: return compress_dequant(b, rule, c);
  }
}

}  // namespace opsnn::ops
