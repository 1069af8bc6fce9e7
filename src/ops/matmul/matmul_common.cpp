#include "ops/matmul/matmul_common.h"

#include <algorithm>
#include <memory>

#include "common/error.h"
#include "core/op_checks.h"
#include "kernels/matmul/gemm.h"

namespace opsnn::ops {
namespace {

using core::dtype_name;
using core::kMaxDims;
using core::Shape;

// Runs planned GEMMs in order, each once per combination of its outer loop (batch dims the GEMM's
// own batch dimension could not absorb, or sequential accumulation steps).
class GemmStep final : public core::Step {
 public:
  struct Call {
    kernels::GemmPlan plan;
    GemmOperandRef ref[4];
    int outer_ndim = 0;
    int64_t outer_shape[kMaxDims] = {};
    int64_t outer_stride[4][kMaxDims] = {};  // bytes
  };
  std::vector<Call> calls;
  core::WsKey scratch;  // the GEMM's packing buffers
  std::shared_ptr<const OperandSource> b_source;  // null: B from its ref

  int run(const core::LaunchArgs &args) const override {
    if (b_source != nullptr) {
      b_source->with(args, [&](const char *b) { run_calls(args, b); });
      return 0;
    }
    run_calls(args, nullptr);
    return 0;
  }

 private:
  void run_calls(const core::LaunchArgs &args, const char *b_override) const {
    for (const Call &c : calls) {
      char *base[4] = {};
      for (int i = 0; i < 4; ++i) {
        if (i == kGemmD && !c.plan.desc.has_d) continue;
        base[i] = i == kGemmB && b_override != nullptr ? const_cast<char *>(b_override) + c.ref[i].offset_bytes
                                                       : c.ref[i].address(args);
      }
      int64_t outer = 1;
      for (int d = 0; d < c.outer_ndim; ++d) outer *= c.outer_shape[d];
      for (int64_t o = 0; o < outer; ++o) {
        char *p[4] = {base[0], base[1], base[2], base[3]};
        int64_t rem = o;
        for (int d = c.outer_ndim - 1; d >= 0; --d) {
          const int64_t idx = rem % c.outer_shape[d];
          rem /= c.outer_shape[d];
          for (int i = 0; i < 4; ++i)
            if (p[i] != nullptr) p[i] += idx * c.outer_stride[i][d];
        }
        kernels::gemm_run(c.plan, p[0], p[1], p[2], args.get(scratch), p[3]);
      }
    }
  }
};

kernels::GemmOperand &operand(kernels::GemmDesc &d, int which) {
  switch (which) {
    case kGemmA: return d.a;
    case kGemmB: return d.b;
    case kGemmC: return d.c;
    default: return d.d;
  }
}

}  // namespace

void check_matmul_dtype(const aclTensor *t, const char *name) {
  core::check_dtype_in(t, name, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16});
}

void check_cube_math_type(int8_t cube) {
  if (cube < 0 || cube > 4)
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "cubeMathType is %d; expected 0 (KEEP_DTYPE), 1 (ALLOW_FP32_DOWN_PRECISION), 2 (USE_FP16), "
                "3 (USE_HF32) or 4 (USE_FP32_ADD)",
                static_cast<int>(cube));
  // Every mode is a permission to compute less precisely, never a requirement: USE_FP16 with a BF16
  // operand runs BF16 products with FP32 accumulation (at least as precise as FP16 products, and
  // without FP16's range loss), as the clients' BF16 matmuls expect (gemm_input_rounding).
}

aclDataType gemm_input_rounding(int8_t cube, aclDataType a, aclDataType b) {
  return (cube == 2 && a == ACL_FLOAT && b == ACL_FLOAT) ? ACL_FLOAT16 : ACL_FLOAT;
}

aclTensor stored_compressed_weight(const aclTensor *w, const char *name, int64_t n, int64_t k) {
  require_rank(w, name, 1, 1);
  if (w->dims[0] != n * k || (n * k > 1 && w->strides[0] != 1))
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "%s holds %lld values (stride %lld); OpsNN reads only the stored (uncompressed) form, the n * k = %lld "
                "contiguous values of W [n, k] (msModelSlim's codec is not public)",
                name, static_cast<long long>(w->dims[0]), static_cast<long long>(w->strides[0]),
                static_cast<long long>(n * k));
  aclTensor v = *w;
  v.ndim = 2;
  v.dims[0] = k;
  v.dims[1] = n;
  v.strides[0] = 1;
  v.strides[1] = k;
  return v;
}

void require_rank(const aclTensor *t, const char *name, int lo, int hi) {
  if (t->ndim >= lo && t->ndim <= hi) return;
  if (lo == hi)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be %d-D; it has shape %s", name, lo, core::shape_string(*t).c_str());
  throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have %d to %d dims; it has shape %s", name, lo, hi,
              core::shape_string(*t).c_str());
}

void check_inner_dims(const aclTensor *a, const char *a_name, int64_t ka, const aclTensor *b, const char *b_name,
                      int64_t kb) {
  if (ka != kb)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s and %s %s cannot be multiplied: inner dims %lld and %lld differ",
                a_name, core::shape_string(*a).c_str(), b_name, core::shape_string(*b).c_str(),
                static_cast<long long>(ka), static_cast<long long>(kb));
}

void check_broadcasts_to(const aclTensor *t, const char *name, const Shape &shape) {
  const Shape ts = Shape::of(*t);
  bool ok = ts.ndim <= shape.ndim;
  for (int i = 0; ok && i < ts.ndim; ++i) {
    const int64_t d = ts.dims[i], want = shape.dims[shape.ndim - ts.ndim + i];
    ok = d == want || d == 1;
  }
  if (!ok)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s of shape %s cannot be broadcast to the product's shape %s", name,
                ts.str().c_str(), shape.str().c_str());
}

float scalar_value(const aclScalar *s, const char *name) {
  core::check_scalar(s, name);
  return static_cast<float>(s->to_double());
}

void bind_tensor(GemmCall &call, int which, int slot, const aclTensor *t) {
  call.ref[which].slot = slot;
  call.ref[which].offset_bytes = t->offset * static_cast<int64_t>(core::dtype_size(t->dtype));
  operand(call.desc, which).dtype = t->dtype;
  if (which == kGemmD) call.desc.has_d = true;
}

void bind_scratch(GemmCall &call, int which, core::WsKey ws) {
  call.ref[which].slot = -1;
  call.ref[which].ws = ws;
  call.ref[which].offset_bytes = 0;
  operand(call.desc, which).dtype = ACL_FLOAT;
  if (which == kGemmD) call.desc.has_d = true;
}

MergedBatch merge_batch_dims(const Shape &shape, const int64_t (*strides)[kMaxDims], std::initializer_list<int> used) {
  MergedBatch m;
  for (int d = 0; d < shape.ndim; ++d) {
    if (shape.dims[d] == 1) continue;
    if (m.ndim > 0) {
      bool nest = true;
      for (int i : used) nest &= m.strides[i][m.ndim - 1] == strides[i][d] * shape.dims[d];
      if (nest) {
        m.dims[m.ndim - 1] *= shape.dims[d];
        for (int i : used) m.strides[i][m.ndim - 1] = strides[i][d];
        continue;
      }
    }
    m.dims[m.ndim] = shape.dims[d];
    for (int i : used) m.strides[i][m.ndim] = strides[i][d];
    ++m.ndim;
  }
  return m;
}

void set_batch(GemmCall &call, const Shape &shape, const int64_t (*strides)[kMaxDims], std::initializer_list<int> used) {
  const MergedBatch mb = merge_batch_dims(shape, strides, used);
  const int nb = mb.ndim;
  call.desc.batch = nb > 0 ? mb.dims[nb - 1] : 1;
  for (int i : used) operand(call.desc, i).batch_stride = nb > 0 ? mb.strides[i][nb - 1] : 0;
  call.outer_ndim = nb > 0 ? nb - 1 : 0;
  for (int d = 0; d + 1 < nb; ++d) {
    call.outer_shape[d] = mb.dims[d];
    for (int i : used)
      call.outer_stride[i][d] = mb.strides[i][d] * static_cast<int64_t>(core::dtype_size(operand(call.desc, i).dtype));
  }
}

void record_gemms(core::OpBuilder &b, std::vector<GemmCall> calls, std::shared_ptr<const OperandSource> b_source) {
  auto step = std::make_unique<GemmStep>();
  step->b_source = std::move(b_source);
  size_t ws = 0;
  for (GemmCall &c : calls) {
    GemmStep::Call sc;
    if (!(c.b_packed ? kernels::gemm_plan_prepacked_b(c.desc, &sc.plan) : kernels::gemm_plan(c.desc, &sc.plan)))
      throw_error(ACLNN_ERR_INNER_TILING_ERROR, "GEMM planning failed: %s", last_error_message());
    ws = std::max(ws, sc.plan.workspace_bytes);
    for (int i = 0; i < 4; ++i) sc.ref[i] = c.ref[i];
    sc.outer_ndim = c.outer_ndim;
    for (int d = 0; d < c.outer_ndim; ++d) {
      sc.outer_shape[d] = c.outer_shape[d];
      for (int i = 0; i < 4; ++i) sc.outer_stride[i][d] = c.outer_stride[i][d];
    }
    step->calls.push_back(sc);
  }
  step->scratch = b.book("gemm.scratch", ws);
  b.add_step<GemmStep>(std::move(*step));
}

// The permutation `perm` of t's dims (negative entries count from the end), checked.
std::vector<int> checked_perm(const aclIntArray *perm, const char *name, int ndim) {
  core::check_not_null(perm, name);
  std::vector<int> p;
  bool seen[kMaxDims] = {};
  for (int64_t v : perm->values) {
    const int64_t i = v < 0 ? v + ndim : v;
    if (static_cast<int>(perm->values.size()) != ndim || i < 0 || i >= ndim || seen[i])
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be a permutation of the %d dims", name, ndim);
    seen[i] = true;
    p.push_back(static_cast<int>(i));
  }
  if (static_cast<int>(p.size()) != ndim)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be a permutation of the %d dims", name, ndim);
  return p;
}

// t.permute(p): the same storage, dims and strides in p's order.
aclTensor permuted(const aclTensor &t, const std::vector<int> &p) {
  aclTensor v = t;
  for (size_t i = 0; i < p.size(); ++i) {
    v.dims[i] = t.dims[p[i]];
    v.strides[i] = t.strides[p[i]];
  }
  return v;
}

// The view y of out = y.permute(p) (the inverse permutation).
aclTensor unpermuted(const aclTensor &out, const std::vector<int> &p) {
  aclTensor v = out;
  for (size_t i = 0; i < p.size(); ++i) {
    v.dims[p[i]] = out.dims[i];
    v.strides[p[i]] = out.strides[i];
  }
  return v;
}

// The GEMM's view of out for the Transpose*BatchMatMul rows: out = Y.permute(permY), or with a batch split
// s > 1, the contiguous bytes of that permuted result regrouped as [d0, s, d1 * d2 / s].
aclTensor permuted_out_view(const aclIntArray *perm, const char *perm_name, int64_t split, const char *split_name,
                            const aclTensor &out, const char *out_name, const Shape &res) {
  const std::vector<int> py = checked_perm(perm, perm_name, res.ndim);
  Shape e;
  e.ndim = res.ndim;
  for (int i = 0; i < res.ndim; ++i) e.dims[i] = res.dims[py[i]];
  if (split < 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is %lld; it must be at least 1", split_name, static_cast<long long>(split));
  if (split == 1) {
    core::check_shape_equals(out, out_name, e);
    return unpermuted(out, py);
  }
  const int64_t tail = e.dims[1] * e.dims[2];
  if (tail % split != 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s %lld does not divide %lld (the permuted result's last two dims)",
                split_name, static_cast<long long>(split), static_cast<long long>(tail));
  Shape regrouped;
  regrouped.ndim = 3;
  regrouped.dims[0] = e.dims[0];
  regrouped.dims[1] = split;
  regrouped.dims[2] = tail / split;
  core::check_shape_equals(out, out_name, regrouped);
  if (!out.is_contiguous())
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be contiguous when %s > 1", out_name, split_name);
  aclTensor dense = out;
  core::set_contiguous(dense, e);
  return unpermuted(dense, py);
}

}  // namespace opsnn::ops
