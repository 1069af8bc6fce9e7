// aclnnWeightQuantBatchMatmulV2 (aclnnop/aclnn_weight_quant_batch_matmul_v2.h):
//   y = x @ ((weight + antiquantOffset) * antiquantScale) + bias
// x FLOAT16/BF16 [..., m, k] (batch dims folded into m; they must nest like a contiguous tensor),
// weight INT8 / INT4 [k, n] (or its transposed view of a [n, k] buffer), or INT32 [k, n/8] packing
// eight INT4 along n (low nibble first); antiquantScale (and the optional offset, same shape and
// dtype as x): per-tensor (1,) / (1, 1), per-channel (n,) / (1, n), or per-group
// (ceil(k / antiquantGroupSize), n) with antiquantGroupSize a multiple of 32 in [32, k - 1].
// bias (n,) / (1, n): FLOAT16 or FLOAT with FLOAT16 x, FLOAT or BF16 with BF16 x.
// Phase 1 chooses the path (wq_choose, wq_gemm.h): small m streams the quantised weight
// (wq_small_m_run; m <= 4, or up to 16 for a [k, n] weight on AVX2); larger m runs the fused
// dequantise-a-block-then-multiply loop (wq_fused_run), and the reference (OPSNN_KERNELS=reference)
// dequantises the whole weight into the workspace and calls the GEMM engine.
// Output re-quantisation: with quantScaleOptional, y is INT8 and
//   y = saturate_int8(round_half_even((x @ ANTIQUANT(weight) + bias) * quantScale + quantOffset))
// quantScaleOptional FLOAT, or UINT64 / INT64 as aclnnTransQuantParam encodes it (the float's bits,
// low 13 mantissa bits cleared, in the low 32 bits; bit 46 set); quantOffsetOptional FLOAT; both
// per-tensor (1,) or per-channel (n,) / (1, n). The rounding (half to even, NaN -> 0) and the
// saturation are OpsNN's choice where the vendor documentation is silent.
#include <algorithm>
#include <memory>

#include "aclnnop/aclnn_weight_quant_batch_matmul_v2.h"
#include "common/error.h"
#include "core/dtype.h"
#include "core/op_builder.h"
#include "core/op_checks.h"
#include "kernels/matmul/gemm.h"
#include "kernels/matmul/gemm_elem.h"
#include "kernels/matmul/wq_gemm.h"

using namespace opsnn;

namespace {

struct Operand {
  int slot = -1;
  int64_t offset_bytes = 0;  // INT4: offset in nibbles / 2 (the view starts on a byte)
};

class WqStep final : public core::Step {
 public:
  kernels::WqDesc wq;
  Operand x, w, scale, offset, bias, y, qscale, qoffset;
  aclDataType qscale_dtype = ACL_FLOAT;
  int64_t qscale_stride = 0, qoffset_stride = 0;
  aclDataType x_dtype = ACL_FLOAT16, y_dtype = ACL_FLOAT16, bias_dtype = ACL_FLOAT16;
  int64_t x_row = 0, x_col = 1, y_row = 0, bias_stride = 0;
  bool small = true;
  bool fused = false;
  kernels::WqSimd simd = kernels::WqSimd::kNone;  // chosen in phase 1 (wq_choose)
  kernels::WqFusedPlan fplan;     // larger M: dequantise blocks and multiply (see wq_gemm.h)
  kernels::GemmPlan plan;         // fallback: x @ dequantised weight (+ bias as the addend)
  core::WsKey ws_a, ws_b;         // workspace blocks: small: x fp32 + sums / y fp32; large: weight / GEMM
  core::WsKey ws_c;               // fallback with re-quantisation: fp32 results

  static const char *ptr(const core::LaunchArgs &args, const Operand &o) {
    return o.slot < 0 ? nullptr : static_cast<const char *>(args.addrs[o.slot]) + o.offset_bytes;
  }

  kernels::WqOutput output(const core::LaunchArgs &args) const {
    kernels::WqOutput out;
    out.y = const_cast<char *>(ptr(args, y));
    out.y_dtype = y_dtype;
    out.y_row = y_row;
    out.bias = ptr(args, bias);
    out.bias_dtype = bias_dtype;
    out.bias_stride = bias_stride;
    out.quant.scale = ptr(args, qscale);
    out.quant.scale_dtype = qscale_dtype;
    out.quant.scale_stride = qscale_stride;
    out.quant.offset = ptr(args, qoffset);
    out.quant.offset_stride = qoffset_stride;
    return out;
  }

  int run(const core::LaunchArgs &args) const override {
    const char *xp = ptr(args, x), *wp = ptr(args, w), *sp = ptr(args, scale), *op = ptr(args, offset),
               *bp = ptr(args, bias);
    char *yp = const_cast<char *>(ptr(args, y));
    const kernels::WqOutput out = output(args);
    if (small) {
      float *y32 = reinterpret_cast<float *>(args.get(ws_b));
      kernels::wq_small_m_run(wq, x_dtype, xp, x_row, x_col, wp, sp, op, y32, wq.n, args.get(ws_a), simd);
      for (int64_t i = 0; i < wq.m; ++i) kernels::wq_store_row(out, i, 0, wq.n, y32 + i * wq.n);
      return 0;
    }
    if (fused) {
      kernels::wq_fused_run(fplan, wq, x_dtype, xp, x_row, x_col, wp, sp, op, out, args.get(ws_a));
      return 0;
    }
    float *wf = reinterpret_cast<float *>(args.get(ws_a));
    kernels::wq_dequant_prepacked(wq, wp, sp, op, wf, simd);
    if (out.quant.scale == nullptr) {
      kernels::gemm_run(plan, xp, wf, yp, args.get(ws_b), bp);
      return 0;
    }
    // Re-quantised output: the GEMM writes fp32 rows into the workspace, then bias and quantisation.
    float *y32 = reinterpret_cast<float *>(args.get(ws_c));
    kernels::gemm_run(plan, xp, wf, y32, args.get(ws_b));
    for (int64_t i = 0; i < wq.m; ++i) kernels::wq_store_row(out, i, 0, wq.n, y32 + i * wq.n);
    return 0;
  }
};

bool is_per_tensor(const aclTensor *t) { return t->numel() == 1 && t->ndim <= 2; }

}  // namespace

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(
    const aclTensor *x, const aclTensor *weight, const aclTensor *antiquantScale,
    const aclTensor *antiquantOffsetOptional, const aclTensor *quantScaleOptional,
    const aclTensor *quantOffsetOptional, const aclTensor *biasOptional, int antiquantGroupSize, const aclTensor *y,
    uint64_t *workspaceSize, aclOpExecutor **executor) {
  return core::phase1("aclnnWeightQuantBatchMatmulV2", workspaceSize, executor, [&](core::OpBuilder &b) {
    core::check_dtype_in(x, "x", {ACL_FLOAT16, ACL_BF16});
    core::check_not_null(weight, "weight");
    core::check_not_null(antiquantScale, "antiquantScale");
    core::check_not_null(y, "y");
    if (weight->dtype != ACL_INT8 && weight->dtype != ACL_INT4 && weight->dtype != ACL_INT32)
      throw_error(ACLNN_ERR_PARAM_INVALID, "weight has dtype %s; expected INT8, INT4 or INT32 (eight packed INT4)",
                  core::dtype_name(weight->dtype));
    if (!core::is_plain_format(weight->format))
      throw_error(ACLNN_ERR_PARAM_INVALID, "weight must be in ND format (FRACTAL_NZ weights are not supported)");
    if (quantOffsetOptional != nullptr && quantScaleOptional == nullptr)
      throw_error(ACLNN_ERR_PARAM_INVALID, "quantOffsetOptional is given without quantScaleOptional");
    const bool quant = quantScaleOptional != nullptr;
    if (quant) {
      core::check_dtype_in(quantScaleOptional, "quantScaleOptional", {ACL_FLOAT, ACL_UINT64, ACL_INT64});
      if (quantOffsetOptional != nullptr) core::check_dtype_in(quantOffsetOptional, "quantOffsetOptional", {ACL_FLOAT});
    }
    core::check_dtype_in(antiquantScale, "antiquantScale", {x->dtype});
    if (antiquantOffsetOptional != nullptr) core::check_dtype_in(antiquantOffsetOptional, "antiquantOffsetOptional", {x->dtype});
    core::check_dtype_in(y, "y", {quant ? ACL_INT8 : x->dtype});
    if (biasOptional != nullptr) {
      if (x->dtype == ACL_FLOAT16) core::check_dtype_in(biasOptional, "biasOptional", {ACL_FLOAT16, ACL_FLOAT});
      else core::check_dtype_in(biasOptional, "biasOptional", {ACL_FLOAT, ACL_BF16});
    }

    // Shapes.
    if (x->ndim < 2 || x->ndim > 6)
      throw_error(ACLNN_ERR_PARAM_INVALID, "x must have 2 to 6 dims [..., m, k]; it has shape %s",
                  core::shape_string(*x).c_str());
    if (weight->ndim != 2)
      throw_error(ACLNN_ERR_PARAM_INVALID, "weight must be 2-D [k, n]; it has shape %s", core::shape_string(*weight).c_str());
    const int64_t m0 = x->dims[x->ndim - 2], k = x->dims[x->ndim - 1];
    const bool packed32 = weight->dtype == ACL_INT32;
    const int64_t n = packed32 ? weight->dims[1] * 8 : weight->dims[1];
    if (weight->dims[0] != k)
      throw_error(ACLNN_ERR_PARAM_INVALID, "x %s and weight %s: the reduce dims (k) differ",
                  core::shape_string(*x).c_str(), core::shape_string(*weight).c_str());
    int64_t batch = 1;
    for (int i = 0; i + 2 < x->ndim; ++i) batch *= x->dims[i];
    const int64_t m = batch * m0;
    if (m == 0 || k == 0 || n == 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "empty tensors are not supported (m %lld, k %lld, n %lld)",
                  static_cast<long long>(m), static_cast<long long>(k), static_cast<long long>(n));
    core::Shape y_shape = core::Shape::of(*x);
    y_shape.dims[y_shape.ndim - 1] = n;
    core::check_shape_equals(*y, "y", y_shape);
    core::check_no_internal_overlap(*y, "y");
    // Batch dims fold into m: x and y rows must be evenly spaced across them.
    auto rows_nest = [](const aclTensor *t) {
      for (int i = t->ndim - 3; i >= 0; --i)
        if (t->dims[i] > 1 && t->strides[i] != t->strides[i + 1] * t->dims[i + 1]) return false;
      return true;
    };
    if (!rows_nest(x) || !rows_nest(y) || y->strides[y->ndim - 1] != 1)
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "x and y must have rows evenly spaced across their batch dims, and y a unit last stride");

    kernels::WqDesc wq;
    wq.m = m;
    wq.n = n;
    wq.k = k;
    wq.w_dtype = weight->dtype == ACL_INT8 ? ACL_INT8 : ACL_INT4;
    int64_t w_offset_elems = weight->offset;
    if (packed32) {
      if (weight->strides[1] != 1 || weight->strides[0] != weight->dims[1])
        throw_error(ACLNN_ERR_PARAM_INVALID, "an INT32 (packed INT4) weight must be contiguous [k, n/8]");
      wq.w_row = n;
      wq.w_col = 1;
      w_offset_elems = weight->offset * 8;
    } else {
      wq.w_row = weight->strides[0];
      wq.w_col = weight->strides[1];
    }
    if (wq.w_dtype == ACL_INT4) {
      if (n % 2 != 0 && wq.w_col == 1)
        throw_error(ACLNN_ERR_PARAM_INVALID, "an INT4 weight [k, n] needs an even n; n is %lld", static_cast<long long>(n));
      if (w_offset_elems % 2 != 0 || (wq.w_col != 1 && wq.w_row != 1))
        throw_error(ACLNN_ERR_PARAM_INVALID, "an INT4 weight must be [k, n] contiguous or the transposed view of a "
                                             "contiguous [n, k] starting on a byte");
      if (wq.w_row == 1 && wq.w_col % 2 != 0)
        throw_error(ACLNN_ERR_PARAM_INVALID, "a transposed INT4 weight needs an even k; k is %lld", static_cast<long long>(k));
    }

    // Quantisation mode from antiquantGroupSize and the scale's shape.
    const aclTensor *s = antiquantScale;
    auto scale_strides = [&](const aclTensor *t, int64_t *row, int64_t *col) {
      if (is_per_tensor(t)) {
        *row = *col = 0;
      } else if (t->ndim == 1) {
        *row = 0;
        *col = t->strides[0];
      } else {
        *row = t->dims[0] == 1 ? 0 : t->strides[0];
        *col = t->strides[1];
      }
    };
    if (antiquantGroupSize == 0) {
      const bool per_channel = (s->ndim == 1 && s->dims[0] == n) || (s->ndim == 2 && s->dims[0] == 1 && s->dims[1] == n);
      if (!is_per_tensor(s) && !per_channel)
        throw_error(ACLNN_ERR_PARAM_INVALID,
                    "antiquantScale %s: with antiquantGroupSize 0 it must be per-tensor (1,) / (1, 1) or per-channel "
                    "(%lld,) / (1, %lld)",
                    core::shape_string(*s).c_str(), static_cast<long long>(n), static_cast<long long>(n));
      wq.group = k;
    } else {
      if (antiquantGroupSize < 32 || antiquantGroupSize % 32 != 0 || antiquantGroupSize > k - 1)
        throw_error(ACLNN_ERR_PARAM_INVALID,
                    "antiquantGroupSize is %d; expected 0, or a multiple of 32 in [32, k - 1] (k is %lld)",
                    antiquantGroupSize, static_cast<long long>(k));
      wq.group = antiquantGroupSize;
      const int64_t groups = (k + wq.group - 1) / wq.group;
      if (s->ndim != 2 || s->dims[0] != groups || s->dims[1] != n)
        throw_error(ACLNN_ERR_PARAM_INVALID, "antiquantScale %s: per-group scales must have shape (%lld, %lld)",
                    core::shape_string(*s).c_str(), static_cast<long long>(groups), static_cast<long long>(n));
    }
    wq.s_dtype = s->dtype;
    scale_strides(s, &wq.s_row, &wq.s_col);
    if (antiquantOffsetOptional != nullptr) {
      core::check_shape_equals(*antiquantOffsetOptional, "antiquantOffsetOptional", core::Shape::of(*s));
      wq.has_offset = true;
      wq.o_dtype = antiquantOffsetOptional->dtype;
      scale_strides(antiquantOffsetOptional, &wq.o_row, &wq.o_col);
    }
    int64_t bias_stride = 0;
    if (biasOptional != nullptr) {
      const aclTensor *bt = biasOptional;
      const bool ok = (bt->ndim == 1 && bt->dims[0] == n) || (bt->ndim == 2 && bt->dims[0] == 1 && bt->dims[1] == n);
      if (!ok)
        throw_error(ACLNN_ERR_PARAM_INVALID, "biasOptional %s must have shape (%lld,) or (1, %lld)",
                    core::shape_string(*bt).c_str(), static_cast<long long>(n), static_cast<long long>(n));
      bias_stride = bt->strides[bt->ndim - 1];
    }

    // Output quantisation parameters: per-tensor (1,) / (1, 1) or per-channel (n,) / (1, n).
    auto quant_stride = [&](const aclTensor *t, const char *name) -> int64_t {
      if (is_per_tensor(t)) return 0;
      const bool ok = (t->ndim == 1 && t->dims[0] == n) || (t->ndim == 2 && t->dims[0] == 1 && t->dims[1] == n);
      if (!ok)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s must have shape (1,), (%lld,) or (1, %lld)", name,
                    core::shape_string(*t).c_str(), static_cast<long long>(n), static_cast<long long>(n));
      return t->strides[t->ndim - 1];
    };
    int64_t qscale_stride = 0, qoffset_stride = 0;
    if (quant) qscale_stride = quant_stride(quantScaleOptional, "quantScaleOptional");
    if (quant && quantOffsetOptional != nullptr) qoffset_stride = quant_stride(quantOffsetOptional, "quantOffsetOptional");

    auto step = std::make_unique<WqStep>();
    WqStep &st = *step;
    auto reg = [&](const aclTensor *t, Operand *o, int64_t offset_elems) {
      o->slot = b.input(t);
      if (t != nullptr) o->offset_bytes = t->dtype == ACL_INT4 ? offset_elems / 2 : offset_elems * core::dtype_size(t->dtype);
    };
    reg(x, &st.x, x->offset);
    if (weight->dtype == ACL_INT32) {
      st.w.slot = b.input(weight);
      st.w.offset_bytes = weight->offset * 4;
    } else {
      reg(weight, &st.w, weight->offset);
    }
    reg(antiquantScale, &st.scale, s->offset);
    reg(antiquantOffsetOptional, &st.offset, antiquantOffsetOptional ? antiquantOffsetOptional->offset : 0);
    reg(quantScaleOptional, &st.qscale, quant ? quantScaleOptional->offset : 0);
    reg(quantOffsetOptional, &st.qoffset, quantOffsetOptional ? quantOffsetOptional->offset : 0);
    if (quant) {
      st.qscale_dtype = quantScaleOptional->dtype;
      st.qscale_stride = qscale_stride;
      st.qoffset_stride = qoffset_stride;
    }
    reg(biasOptional, &st.bias, biasOptional ? biasOptional->offset : 0);
    st.y.slot = b.output(y);
    st.y.offset_bytes = y->offset * core::dtype_size(y->dtype);

    st.wq = wq;
    st.x_dtype = x->dtype;
    st.y_dtype = y->dtype;
    st.bias_dtype = biasOptional ? biasOptional->dtype : ACL_FLOAT;
    st.x_row = x->strides[x->ndim - 2];
    st.x_col = x->strides[x->ndim - 1];
    st.y_row = y->strides[y->ndim - 2];
    st.bias_stride = bias_stride;
    const kernels::WqChoice choice = kernels::wq_choose(wq);
    st.small = choice.path == kernels::WqPath::kStream;
    st.simd = choice.simd;
    if (st.small) {
      st.ws_a = b.book("wq.small_m_scratch", kernels::wq_small_m_workspace(wq));
      st.ws_b = b.book("wq.y_fp32", static_cast<uint64_t>(m * n) * sizeof(float));
    } else if (choice.path == kernels::WqPath::kFused) {
      if (!kernels::wq_fused_plan(wq, &st.fplan))
        throw_error(ACLNN_ERR_INNER_TILING_ERROR, "weight-quant planning failed: %s", last_error_message());
      st.fused = true;
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
      if (biasOptional != nullptr && !quant) {
        d.has_d = true;
        d.d = {biasOptional->dtype, 0, bias_stride, 0};
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
    b.add_step<WqStep>(std::move(st));
  });
}
OPSNN_DEFINE_LAUNCH(WeightQuantBatchMatmulV2)
