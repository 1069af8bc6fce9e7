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

  int run(const core::LaunchArgs &args) const override {
    for (const Call &c : calls) {
      char *base[4] = {};
      for (int i = 0; i < 4; ++i) {
        if (i == kGemmD && !c.plan.desc.has_d) continue;
        base[i] = c.ref[i].address(args);
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
    return 0;
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

Shape make_shape(std::initializer_list<int64_t> dims) {
  Shape s;
  for (int64_t d : dims) s.dims[s.ndim++] = d;
  return s;
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

void record_gemms(core::OpBuilder &b, std::vector<GemmCall> calls) {
  auto step = std::make_unique<GemmStep>();
  size_t ws = 0;
  for (GemmCall &c : calls) {
    GemmStep::Call sc;
    if (!kernels::gemm_plan(c.desc, &sc.plan))
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

void matmul_phase1(core::OpBuilder &b, MatmulKind kind, const aclTensor *self, const aclTensor *mat2,
                   const aclTensor *out, int8_t cube_math_type) {
  check_matmul_dtype(self, "self");
  check_matmul_dtype(mat2, "mat2");
  check_matmul_dtype(out, "out");
  check_cube_math_type(cube_math_type);

  switch (kind) {
    case MatmulKind::kMm: require_rank(self, "self", 2, 2); require_rank(mat2, "mat2", 2, 2); break;
    case MatmulKind::kBatchMatMul: require_rank(self, "self", 3, 3); require_rank(mat2, "mat2", 3, 3); break;
    // Documented for 1-D to 6-D operands (the batch dims of 8-D descriptors are not).
    case MatmulKind::kMatmul: require_rank(self, "self", 1, 6); require_rank(mat2, "mat2", 1, 6); break;
  }

  // torch.matmul shapes: a 1-D left operand is a row [1, K], a 1-D right operand a column [K, 1];
  // the temporary dimension is dropped from the result.
  const bool a_vec = self->ndim == 1, b_vec = mat2->ndim == 1;
  const int64_t M = a_vec ? 1 : self->dims[self->ndim - 2];
  const int64_t K = self->dims[self->ndim - 1];
  const int64_t K2 = b_vec ? mat2->dims[0] : mat2->dims[mat2->ndim - 2];
  const int64_t N = b_vec ? 1 : mat2->dims[mat2->ndim - 1];
  check_inner_dims(self, "self", K, mat2, "mat2", K2);
  Shape a_batch, b_batch;
  a_batch.ndim = a_vec ? 0 : self->ndim - 2;
  for (int i = 0; i < a_batch.ndim; ++i) a_batch.dims[i] = self->dims[i];
  b_batch.ndim = b_vec ? 0 : mat2->ndim - 2;
  for (int i = 0; i < b_batch.ndim; ++i) b_batch.dims[i] = mat2->dims[i];
  const Shape batch = core::broadcast_shapes(a_batch, "the batch dims of self", b_batch, "the batch dims of mat2");
  Shape out_shape = batch;
  if (!a_vec) out_shape.dims[out_shape.ndim++] = M;
  if (!b_vec) out_shape.dims[out_shape.ndim++] = N;
  if (out_shape.ndim > kMaxDims) throw_error(ACLNN_ERR_PARAM_INVALID, "the result would have more than 8 dims");
  core::check_shape_equals(*out, "out", out_shape);
  core::check_no_internal_overlap(*out, "out");

  const int a_slot = b.input(self), b_slot = b.input(mat2), c_slot = b.output(out);
  if (out->numel() == 0) return;

  GemmCall call;
  bind_tensor(call, kGemmA, a_slot, self);
  bind_tensor(call, kGemmB, b_slot, mat2);
  bind_tensor(call, kGemmC, c_slot, out);
  // Batch strides of each operand over the broadcast batch shape (elements; 0 = broadcast).
  int64_t bstride[4][kMaxDims] = {};
  {
    aclTensor a_b = *self, b_b = *mat2, c_b = *out;
    a_b.ndim = a_batch.ndim;
    b_b.ndim = b_batch.ndim;
    c_b.ndim = batch.ndim;
    core::broadcast_strides(a_b, batch, bstride[kGemmA]);
    core::broadcast_strides(b_b, batch, bstride[kGemmB]);
    core::broadcast_strides(c_b, batch, bstride[kGemmC]);
  }
  set_batch(call, batch, bstride, {kGemmA, kGemmB, kGemmC});

  kernels::GemmDesc &desc = call.desc;
  desc.m = M;
  desc.n = N;
  desc.k = K;
  desc.a.row_stride = a_vec ? 0 : self->strides[self->ndim - 2];
  desc.a.col_stride = self->strides[self->ndim - 1];
  desc.b.row_stride = b_vec ? mat2->strides[0] : mat2->strides[mat2->ndim - 2];
  desc.b.col_stride = b_vec ? 0 : mat2->strides[mat2->ndim - 1];
  const int c_m_dim = out->ndim - (b_vec ? 1 : 2);  // index of M in out (when present)
  desc.c.row_stride = a_vec ? 0 : out->strides[c_m_dim];
  desc.c.col_stride = b_vec ? 0 : out->strides[out->ndim - 1];
  desc.alpha = 1.0f;
  desc.beta = 0.0f;
  desc.input_rounding = gemm_input_rounding(cube_math_type, self->dtype, mat2->dtype);
  record_gemms(b, {call});
}

void addmm_phase1(core::OpBuilder &b, bool batched, const aclTensor *self, const aclTensor *mat1,
                  const aclTensor *mat2, const aclScalar *beta, const aclScalar *alpha, const aclTensor *out,
                  int8_t cube_math_type, const char *const names[3]) {
  const bool inplace = out == nullptr;
  check_matmul_dtype(self, names[0]);
  check_matmul_dtype(mat1, names[1]);
  check_matmul_dtype(mat2, names[2]);
  if (!inplace) check_matmul_dtype(out, "out");
  const float beta_v = scalar_value(beta, "beta"), alpha_v = scalar_value(alpha, "alpha");
  check_cube_math_type(cube_math_type);
  const int r = batched ? 3 : 2;
  require_rank(mat1, names[1], r, r);
  require_rank(mat2, names[2], r, r);
  if (batched && mat1->dims[0] != mat2->dims[0])
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s and %s %s must have the same batch size", names[1],
                core::shape_string(*mat1).c_str(), names[2], core::shape_string(*mat2).c_str());
  const int64_t M = mat1->dims[r - 2], K = mat1->dims[r - 1], N = mat2->dims[r - 1];
  check_inner_dims(mat1, names[1], K, mat2, names[2], mat2->dims[r - 2]);
  const Shape res = batched ? make_shape({mat1->dims[0], M, N}) : make_shape({M, N});
  if (inplace) {
    core::check_shape_equals(*self, names[0], res);
    core::check_no_internal_overlap(*self, names[0]);
  } else {
    require_rank(self, names[0], 0, r);
    check_broadcasts_to(self, names[0], res);
    core::check_shape_equals(*out, "out", res);
    core::check_no_internal_overlap(*out, "out");
  }

  // Registration in prototype order: (self | selfRef), mat1, mat2, [out].
  const int s_slot = inplace ? b.inout(self) : b.input(self);
  const int a_slot = b.input(mat1), b_slot = b.input(mat2);
  const int c_slot = inplace ? s_slot : b.output(out);
  const aclTensor *c = inplace ? self : out;
  if (c->numel() == 0) return;

  GemmCall call;
  kernels::GemmDesc &d = call.desc;
  bind_tensor(call, kGemmA, a_slot, mat1);
  bind_tensor(call, kGemmB, b_slot, mat2);
  bind_tensor(call, kGemmC, c_slot, c);
  d.batch = batched ? res.dims[0] : 1;
  d.m = M;
  d.n = N;
  d.k = K;
  d.a = {mat1->dtype, mat1->strides[r - 2], mat1->strides[r - 1], batched ? mat1->strides[0] : 0};
  d.b = {mat2->dtype, mat2->strides[r - 2], mat2->strides[r - 1], batched ? mat2->strides[0] : 0};
  d.c = {c->dtype, c->strides[r - 2], c->strides[r - 1], batched ? c->strides[0] : 0};
  if (!inplace) {
    // beta * self in the GEMM's epilogue, self read through its broadcast strides.
    bind_tensor(call, kGemmD, s_slot, self);
    int64_t ds[kMaxDims];
    core::broadcast_strides(*self, res, ds);
    d.d = {self->dtype, ds[r - 2], ds[r - 1], batched ? ds[0] : 0};
  }
  d.alpha = alpha_v;
  d.beta = beta_v;
  d.input_rounding = gemm_input_rounding(cube_math_type, mat1->dtype, mat2->dtype);
  record_gemms(b, {call});
}

}  // namespace opsnn::ops
