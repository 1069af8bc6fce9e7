// aclnnQuantMatmulV3 (aclnnop/aclnn_quant_matmul_v3.h) and aclnnQuantMatmulV4
// (aclnnop/aclnn_quant_matmul_v4.h): int8 x int8 matmul with a dequantising epilogue.
//   acc = x1 @ x2                               exact int32 (kernels/matmul/igemm.h)
//   v   = float(acc + bias_int32) * scale[j] * pertokenScaleOptional[i] + bias_float[j]   (fp32)
//   out = INT8: saturate_int8(round_half_even(v + offset[j])) (NaN -> 0); FLOAT16 / BF16: v rounded
//         to nearest even (kernels/matmul/qmm_epilogue.h).
// V3 is V4 without pertokenScaleOptional; both share this phase 1.
//
// Arguments:
//  x1 INT8 [batch..., m, k] (transposeX1: the tensor given is [batch..., k, m] and its transpose is
//    used), x2 INT8 [batch..., k, n] (transposeX2: given as [batch..., n, k]); 2 to 6 dims, batch
//    dims broadcast as in torch.matmul; any strides (read in place); k <= 65535.
//  scale (1,), (n,) or (1, n): FLOAT, BF16, or UINT64 / INT64 as aclnnTransQuantParam(V2) encodes it
//    (the fp32 scale's bits in the low 32 bits). An offset packed into bits 37..45 of such a scale is
//    ignored: the `offset` argument is the only source of an offset.
//  offset: optional FLOAT (1,) / (n,) / (1, n); only with an INT8 out, and not with a floating bias.
//  pertokenScaleOptional (V4): optional FLOAT (m,); multiplies row i of every batch.
//  bias: optional (n,), or (batch, 1, n) with batch the product of out's batch dims. INT32 is added
//    to the int32 product before the scale; FLOAT / FLOAT16 / BF16 after the scale (and pertoken).
//  out: INT8, FLOAT16 or BF16 [broadcast batch..., m, n], any strides without internal overlap.
// OpsNN's choices where the vendor documentation is silent: the fp32 evaluation order above (one
// rounding per operation, then one to out's dtype), acc + bias_int32 summed exactly (no int32
// wrap-around), round half to even with saturation and NaN -> 0 for INT8, pertoken allowed with
// every out dtype, and empty tensors (m, n, k or a batch dim of 0) rejected.
//
// Plan: batch dims of size 1 are dropped and neighbours that nest for both x1 and x2 are merged; the
// innermost remaining dim becomes the int8 GEMM's batch (one stride per operand), outer ones an
// outer loop in the step. When x2 is the same matrix for every batch and x1's rows nest across the
// batch, the batch folds into m (one taller GEMM). Phase 2 decodes scale / offset / bias once into
// fp32 / int32 vectors in the workspace, then each finished int32 block of the GEMM goes through the
// epilogue straight into out.
#include <algorithm>

#include "aclnnop/aclnn_quant_matmul_v3.h"
#include "aclnnop/aclnn_quant_matmul_v4.h"
#include "common/error.h"
#include "core/dtype.h"
#include "core/op_builder.h"
#include "core/op_checks.h"
#include "kernels/matmul/igemm.h"
#include "kernels/matmul/qmm_epilogue.h"
#include "ops/matmul/matmul_common.h"

using namespace opsnn;

namespace {

constexpr int64_t kQmmMaxK = 65535;  // the vendor's documented limit
constexpr int kMaxBatchDims = 4;     // out has at most 6 dims

struct Operand {
  int slot = -1;
  int64_t offset_bytes = 0;
};

class QmmStep final : public core::Step {
 public:
  Operand x1, x2, scale, offset, pertoken, bias, out;
  kernels::IgemmPlan plan;
  int64_t m0 = 0, n = 0;  // rows of one batch of out, columns
  // Outer loop (batch dims the GEMM's single batch stride cannot cover), outermost first.
  int outer_ndim = 0;
  int64_t outer_dims[kMaxBatchDims] = {}, outer_a[kMaxBatchDims] = {}, outer_b[kMaxBatchDims] = {};
  int64_t inner = 1;  // flattened batches per igemm_run (1 when folded into m)
  // out: batch dims (row-major flattening = the order of the GEMM batches) and element strides.
  int out_bdims = 0;
  int64_t out_bshape[kMaxBatchDims] = {}, out_bstride[kMaxBatchDims] = {};
  int64_t out_row = 0, out_col = 1;
  aclDataType out_dtype = ACL_INT8;
  aclDataType scale_dtype = ACL_FLOAT, bias_dtype = ACL_FLOAT;
  int64_t scale_count = 1, scale_stride = 0, offset_count = 1, offset_stride = 0, pertoken_stride = 0;
  int64_t bias_batches = 0, bias_col = 0, bias_bstride = 0;  // bias_batches 0: no bias
  core::WsKey ws_gemm, ws_scale, ws_offset, ws_bias;

  struct Ctx {
    const QmmStep *st;
    char *out;
    const float *scale, *offset, *pertoken;
    const void *bias;  // decoded: int32 or fp32, [bias_batches][n]
    int64_t flat_base;
  };

  static const char *ptr(const core::LaunchArgs &args, const Operand &o) {
    return o.slot < 0 ? nullptr : static_cast<const char *>(args.addrs[o.slot]) + o.offset_bytes;
  }

  static void block(void *vctx, int64_t b, int64_t i0, int64_t j0, int64_t rows, int64_t cols, const int32_t *acc,
                    int64_t ldacc) {
    const Ctx &c = *static_cast<const Ctx *>(vctx);
    const QmmStep &st = *c.st;
    const int64_t esize = st.out_dtype == ACL_INT8 ? 1 : 2;
    kernels::QmmEpilogue e;
    e.scale = c.scale;
    e.offset = c.offset;
    e.out_dtype = st.out_dtype;
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t i = i0 + r;
      // Folded: the GEMM's row i is row i % m0 of batch i / m0 (b is 0); else i < m0.
      const int64_t flat = c.flat_base + b + i / st.m0, row = i % st.m0;
      int64_t off = row * st.out_row + j0 * st.out_col;
      for (int64_t d = st.out_bdims - 1, f = flat; d >= 0; --d) {
        off += (f % st.out_bshape[d]) * st.out_bstride[d];
        f /= st.out_bshape[d];
      }
      if (c.bias != nullptr) {
        const int64_t boff = (st.bias_batches > 1 ? flat : 0) * st.n;
        if (st.bias_dtype == ACL_INT32) e.bias_i32 = static_cast<const int32_t *>(c.bias) + boff;
        else e.bias_f = static_cast<const float *>(c.bias) + boff;
      }
      const float pt = c.pertoken != nullptr ? c.pertoken[row * st.pertoken_stride] : 1.0f;
      kernels::qmm_epilogue_row(e, acc + r * ldacc, j0, cols, pt, c.out + off * esize, st.out_col);
    }
  }

  int run(const core::LaunchArgs &args) const override {
    Ctx c{};
    c.st = this;
    c.out = const_cast<char *>(ptr(args, out));
    float *sv = reinterpret_cast<float *>(args.get(ws_scale));
    kernels::qmm_decode_floats(ptr(args, scale), scale_dtype, scale_count, scale_stride, n, sv);
    c.scale = sv;
    if (offset.slot >= 0) {
      float *ov = reinterpret_cast<float *>(args.get(ws_offset));
      kernels::qmm_decode_floats(ptr(args, offset), ACL_FLOAT, offset_count, offset_stride, n, ov);
      c.offset = ov;
    }
    c.pertoken = reinterpret_cast<const float *>(ptr(args, pertoken));
    if (bias.slot >= 0) {
      const char *bp = ptr(args, bias);
      const int64_t esize = static_cast<int64_t>(core::dtype_size(bias_dtype));
      for (int64_t g = 0; g < bias_batches; ++g) {
        const char *src = bp + g * bias_bstride * esize;
        if (bias_dtype == ACL_INT32)
          kernels::qmm_decode_int32(reinterpret_cast<const int32_t *>(src), bias_col, n,
                                    reinterpret_cast<int32_t *>(args.get(ws_bias)) + g * n);
        else
          kernels::qmm_decode_floats(src, bias_dtype, n, bias_col, n,
                                     reinterpret_cast<float *>(args.get(ws_bias)) + g * n);
      }
      c.bias = args.get(ws_bias);
    }
    const int8_t *a = reinterpret_cast<const int8_t *>(ptr(args, x1));
    const int8_t *b = reinterpret_cast<const int8_t *>(ptr(args, x2));
    int64_t outer = 1;
    for (int d = 0; d < outer_ndim; ++d) outer *= outer_dims[d];
    for (int64_t o = 0; o < outer; ++o) {
      int64_t aoff = 0, boff = 0;
      for (int64_t d = outer_ndim - 1, f = o; d >= 0; --d) {
        const int64_t idx = f % outer_dims[d];
        f /= outer_dims[d];
        aoff += idx * outer_a[d];
        boff += idx * outer_b[d];
      }
      c.flat_base = o * inner;
      kernels::igemm_run(plan, a + aoff, b + boff, args.get(ws_gemm), &QmmStep::block, &c);
    }
    return 0;
  }
};

// (1,) / (1, 1) per-tensor, or (n,) / (1, n) per-channel: the element count and stride along n.
void vector_shape(const aclTensor *t, const char *name, int64_t n, int64_t *count, int64_t *stride) {
  const bool one = t->numel() == 1 && t->ndim >= 1 && t->ndim <= 2;
  const bool per_channel = (t->ndim == 1 && t->dims[0] == n) || (t->ndim == 2 && t->dims[0] == 1 && t->dims[1] == n);
  if (!one && !per_channel)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected (1,), (%lld,) or (1, %lld)", name,
                core::shape_string(*t).c_str(), static_cast<long long>(n), static_cast<long long>(n));
  *count = one ? 1 : n;
  *stride = one ? 0 : t->strides[t->ndim - 1];
}

int quant_matmul_phase1(const char *api, const aclTensor *x1, const aclTensor *x2, const aclTensor *scale,
                        const aclTensor *offset, bool has_pertoken_arg, const aclTensor *pertoken,
                        const aclTensor *bias, bool transposeX1, bool transposeX2, const aclTensor *out,
                        uint64_t *workspaceSize, aclOpExecutor **executor) {
  return core::phase1(api, workspaceSize, executor, [&](core::OpBuilder &b) {
    // Null pointers first (prototype order), then dtypes and formats.
    core::check_not_null(x1, "x1");
    core::check_not_null(x2, "x2");
    core::check_not_null(scale, "scale");
    core::check_not_null(out, "out");
    core::check_dtype_in(x1, "x1", {ACL_INT8});
    core::check_dtype_in(x2, "x2", {ACL_INT8});
    core::check_dtype_in(scale, "scale", {ACL_UINT64, ACL_INT64, ACL_FLOAT, ACL_BF16});
    if (offset != nullptr) core::check_dtype_in(offset, "offset", {ACL_FLOAT});
    if (pertoken != nullptr) core::check_dtype_in(pertoken, "pertokenScaleOptional", {ACL_FLOAT});
    if (bias != nullptr) core::check_dtype_in(bias, "bias", {ACL_INT32, ACL_FLOAT, ACL_FLOAT16, ACL_BF16});
    core::check_dtype_in(out, "out", {ACL_INT8, ACL_FLOAT16, ACL_BF16});
    if (offset != nullptr && out->dtype != ACL_INT8)
      throw_error(ACLNN_ERR_PARAM_INVALID, "offset is only allowed with an INT8 out; out has dtype %s",
                  core::dtype_name(out->dtype));
    if (offset != nullptr && bias != nullptr && bias->dtype != ACL_INT32)
      throw_error(ACLNN_ERR_PARAM_INVALID, "offset cannot be combined with a %s bias (only an INT32 bias)",
                  core::dtype_name(bias->dtype));

    // Shapes.
    for (const aclTensor *t : {x1, x2})
      if (t->ndim < 2 || t->ndim > 6)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have 2 to 6 dims; it has shape %s", t == x1 ? "x1" : "x2",
                    core::shape_string(*t).c_str());
    const int n1 = x1->ndim, n2 = x2->ndim;
    const int64_t m = transposeX1 ? x1->dims[n1 - 1] : x1->dims[n1 - 2];
    const int64_t k = transposeX1 ? x1->dims[n1 - 2] : x1->dims[n1 - 1];
    const int64_t k2 = transposeX2 ? x2->dims[n2 - 1] : x2->dims[n2 - 2];
    const int64_t n = transposeX2 ? x2->dims[n2 - 2] : x2->dims[n2 - 1];
    if (k != k2)
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "x1 %s (transposeX1 %d) and x2 %s (transposeX2 %d): the reduce dims (k) differ, %lld vs %lld",
                  core::shape_string(*x1).c_str(), int(transposeX1), core::shape_string(*x2).c_str(),
                  int(transposeX2), static_cast<long long>(k), static_cast<long long>(k2));
    if (k > kQmmMaxK)
      throw_error(ACLNN_ERR_PARAM_INVALID, "x1 / x2: k is %lld; at most %lld is supported", static_cast<long long>(k),
                  static_cast<long long>(kQmmMaxK));
    core::Shape b1, b2;
    b1.ndim = n1 - 2;
    b2.ndim = n2 - 2;
    for (int i = 0; i < b1.ndim; ++i) b1.dims[i] = x1->dims[i];
    for (int i = 0; i < b2.ndim; ++i) b2.dims[i] = x2->dims[i];
    const core::Shape bshape = core::broadcast_shapes(b1, "x1 (batch dims)", b2, "x2 (batch dims)");
    core::Shape oshape = bshape;
    oshape.dims[oshape.ndim++] = m;
    oshape.dims[oshape.ndim++] = n;
    core::check_shape_equals(*out, "out", oshape);
    core::check_no_internal_overlap(*out, "out");
    int64_t batch = 1;
    for (int i = 0; i < bshape.ndim; ++i) batch *= bshape.dims[i];
    if (m == 0 || n == 0 || k == 0 || batch == 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "empty tensors are not supported (batch %lld, m %lld, k %lld, n %lld)",
                  static_cast<long long>(batch), static_cast<long long>(m), static_cast<long long>(k),
                  static_cast<long long>(n));

    QmmStep &st = b.add_step<QmmStep>();
    st.m0 = m;
    st.n = n;
    vector_shape(scale, "scale", n, &st.scale_count, &st.scale_stride);
    st.scale_dtype = scale->dtype;
    if (offset != nullptr) vector_shape(offset, "offset", n, &st.offset_count, &st.offset_stride);
    if (pertoken != nullptr) {
      if (pertoken->ndim != 1 || pertoken->dims[0] != m)
        throw_error(ACLNN_ERR_PARAM_INVALID, "pertokenScaleOptional has shape %s; expected (%lld,) (m)",
                    core::shape_string(*pertoken).c_str(), static_cast<long long>(m));
      st.pertoken_stride = pertoken->strides[0];
    }
    if (bias != nullptr) {
      const bool flat = bias->ndim == 1 && bias->dims[0] == n;
      const bool batched = bias->ndim == 3 && bias->dims[0] == batch && bias->dims[1] == 1 && bias->dims[2] == n;
      if (!flat && !batched)
        throw_error(ACLNN_ERR_PARAM_INVALID, "bias has shape %s; expected (%lld,) or (%lld, 1, %lld)",
                    core::shape_string(*bias).c_str(), static_cast<long long>(n), static_cast<long long>(batch),
                    static_cast<long long>(n));
      st.bias_dtype = bias->dtype;
      st.bias_batches = flat ? 1 : batch;
      st.bias_col = bias->strides[bias->ndim - 1];
      st.bias_bstride = flat ? 0 : bias->strides[0];
    }

    // Registration in prototype order: x1, x2, scale, offset, [pertokenScaleOptional], bias, out.
    auto reg = [&](const aclTensor *t, Operand *o) {
      o->slot = b.input(t);
      if (t != nullptr) o->offset_bytes = t->offset * static_cast<int64_t>(core::dtype_size(t->dtype));
    };
    reg(x1, &st.x1);
    reg(x2, &st.x2);
    reg(scale, &st.scale);
    reg(offset, &st.offset);
    if (has_pertoken_arg) reg(pertoken, &st.pertoken);
    reg(bias, &st.bias);
    st.out.slot = b.output(out);
    st.out.offset_bytes = out->offset * static_cast<int64_t>(core::dtype_size(out->dtype));

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
    const ops::MergedBatch mb = ops::merge_batch_dims(bshape, bstrides, {0, 1});
    const int nd = mb.ndim;
    const int64_t *dd = mb.dims, *da = mb.strides[0], *db = mb.strides[1];
    kernels::IgemmDesc d;
    d.m = m;
    d.n = n;
    d.k = k;
    d.a_row = transposeX1 ? x1->strides[n1 - 1] : x1->strides[n1 - 2];
    d.a_col = transposeX1 ? x1->strides[n1 - 2] : x1->strides[n1 - 1];
    d.b_row = transposeX2 ? x2->strides[n2 - 1] : x2->strides[n2 - 2];
    d.b_col = transposeX2 ? x2->strides[n2 - 2] : x2->strides[n2 - 1];
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
      // One x2 for every batch and x1's rows evenly spaced across the batch: a single taller GEMM.
      if (nd == 1 && d.b_batch == 0 && (m == 1 || d.a_batch == m * d.a_row)) {
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
  });
}

}  // namespace

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnQuantMatmulV4GetWorkspaceSize(
    const aclTensor *x1, const aclTensor *x2, const aclTensor *scale, const aclTensor *offset,
    const aclTensor *pertokenScaleOptional, const aclTensor *bias, bool transposeX1, bool transposeX2,
    const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
  return quant_matmul_phase1("aclnnQuantMatmulV4", x1, x2, scale, offset, true, pertokenScaleOptional, bias,
                             transposeX1, transposeX2, out, workspaceSize, executor);
}
OPSNN_DEFINE_LAUNCH(QuantMatmulV4)

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnQuantMatmulV3GetWorkspaceSize(
    const aclTensor *x1, const aclTensor *x2, const aclTensor *scale, const aclTensor *offset,
    const aclTensor *bias, bool transposeX1, bool transposeX2, const aclTensor *out, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  return quant_matmul_phase1("aclnnQuantMatmulV3", x1, x2, scale, offset, false, nullptr, bias, transposeX1,
                             transposeX2, out, workspaceSize, executor);
}
OPSNN_DEFINE_LAUNCH(QuantMatmulV3)
