// ApplyAdamWQuant's phase 1 (the optim table's kAdamWQuant rule; semantics at the top of
// src/ops/optim/optim.ops) over kernels/optim/adamw_quant.
#include <cstring>

#include "common/error.h"
#include "core/op_checks.h"
#include "core/outputs_apart.h"
#include "kernels/optim/adamw_quant.h"
#include "ops/optim/optim_phase1.h"

namespace opsnn::ops {
namespace {

struct AdamWQuantStep final : core::Step {
  kernels::AdamWQuantPlan plan;
  core::OperandRef var, grad, m, v, qmap_m, qmap_v, absmax_m, absmax_v, step;
  int run(const core::LaunchArgs &args) const override {
    kernels::AdamWQuantArgs a;
    a.var = var.address(args);
    a.grad = grad.address(args);
    a.m = m.address(args);
    a.v = v.address(args);
    a.qmap_m = qmap_m.address(args);
    a.qmap_v = qmap_v.address(args);
    a.absmax_m = absmax_m.address(args);
    a.absmax_v = absmax_v.address(args);
    a.step = step.address(args);
    return kernels::adamw_quant_run(plan, a);
  }
};

// A 1-D FLOAT tensor of n elements.
void check_float_vector(const aclTensor *t, const char *name, int64_t n) {
  core::check_dtype_in(t, name, {ACL_FLOAT});
  if (t->ndim != 1 || t->dims[0] != n)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be [%lld]", name, core::shape_string(*t).c_str(),
                static_cast<long long>(n));
}

}  // namespace

void adamw_quant_phase1(core::OpBuilder &b, const OptimRule &rule, const OptimCall &c) {
  const core::NamedTensor all[9] = {{c.var, c.var_name},       {c.grad, c.grad_name},         {c.m, c.m_name},
                                    {c.v, c.v_name},           {c.qmap_m, c.qmap_m_name},     {c.qmap_v, c.qmap_v_name},
                                    {c.absmax_m, c.absmax_m_name}, {c.absmax_v, c.absmax_v_name}, {c.step, c.step_name}};
  for (const auto &a : all) core::check_not_null(a.t, a.name);
  core::check_dtype_in(c.var, c.var_name, rule.dtypes);
  core::check_dtype_in(c.grad, c.grad_name, {c.var->dtype});
  core::check_dtype_in(c.m, c.m_name, {ACL_UINT8});
  core::check_dtype_in(c.v, c.v_name, {ACL_UINT8});
  if (c.var->ndim > kernels::kOptimMaxDims)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; at most %d are supported", c.var_name, c.var->ndim,
                kernels::kOptimMaxDims);
  const core::Shape shape = core::Shape::of(*c.var);
  for (const auto *a : {&all[1], &all[2], &all[3]}) core::check_shape_equals(*a->t, a->name, shape);
  if (c.block_size <= 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "blockSize must be > 0, got %lld", static_cast<long long>(c.block_size));
  if (c.quant_mode != nullptr && std::strcmp(c.quant_mode, "BLOCKWISE") != 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "quantModeOptional must be null or \"BLOCKWISE\", got \"%s\"", c.quant_mode);
  check_float_vector(c.qmap_m, c.qmap_m_name, 256);
  check_float_vector(c.qmap_v, c.qmap_v_name, 256);
  const int64_t numel = c.var->numel();
  const int64_t blocks = numel / c.block_size + (numel % c.block_size != 0 ? 1 : 0);  // blockSize may be huge
  check_float_vector(c.absmax_m, c.absmax_m_name, blocks);
  check_float_vector(c.absmax_v, c.absmax_v_name, blocks);
  core::check_dtype_in(c.step, c.step_name, {ACL_INT64});
  if (c.step->numel() != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must hold one element, got shape %s", c.step_name,
                core::shape_string(*c.step).c_str());
  core::check_outputs_apart<core::NamedTensor>({&all[0], &all[2], &all[3], &all[6], &all[7]},
                                               {&all[0], &all[1], &all[2], &all[3], &all[4], &all[5], &all[6],
                                                &all[7], &all[8]});
  auto &st = b.add_step<AdamWQuantStep>();
  kernels::AdamWQuantPlan &P = st.plan;
  // Registration in prototype order.
  const int slots[9] = {b.inout(c.var),    b.input(c.grad),   b.inout(c.m),        b.inout(c.v),       b.input(c.qmap_m),
                        b.input(c.qmap_v), b.inout(c.absmax_m), b.inout(c.absmax_v), b.input(c.step)};
  core::OperandRef *refs[9] = {&st.var, &st.grad, &st.m, &st.v, &st.qmap_m, &st.qmap_v, &st.absmax_m, &st.absmax_v, &st.step};
  for (int k = 0; k < 9; ++k) *refs[k] = core::OperandRef::of_slot(slots[k], b.tensor(slots[k]));
  P.ndim = c.var->ndim;
  P.numel = numel;
  P.block = c.block_size;
  P.dtype = c.var->dtype;
  for (int d = 0; d < P.ndim; ++d) {
    P.dims[d] = c.var->dims[d];
    for (int k = 0; k < 4; ++k) P.strides[k][d] = b.tensor(slots[k]).strides[d];
  }
  P.qmap_stride[0] = b.tensor(slots[4]).strides[0];
  P.qmap_stride[1] = b.tensor(slots[5]).strides[0];
  P.absmax_stride[0] = b.tensor(slots[6]).strides[0];
  P.absmax_stride[1] = b.tensor(slots[7]).strides[0];
  P.lr = c.lr_f;
  P.b1 = c.b1_f;
  P.b2 = c.b2_f;
  P.wd = c.wd_f;
  P.eps = c.eps_f;
  P.gnorm_scale = c.gnorm_f;
}

}  // namespace opsnn::ops
