// Phase 1 of ChamferDistanceBackward (class_losses.ops, loss kChamferBackward), over
// kernels/loss/chamfer_grad: point sets xyz1 [B, N, 2] and xyz2 [B, M, 2], INT32 indices idx1
// [B, N] (into xyz2) and idx2 [B, M] (into xyz1), gradients gradDist1 [B, N] / gradDist2 [B, M];
// gradXyz1 / gradXyz2 shaped like the point sets. Every floating operand has xyz1's dtype.
#include <algorithm>

#include "common/error.h"
#include "core/op_checks.h"
#include "core/thread_pool.h"
#include "kernels/loss/chamfer_grad.h"
#include "ops/loss/class_loss_phase1.h"

namespace opsnn::ops {
namespace {

struct ChamferGradStep final : core::Step {
  kernels::ChamferGradPlan plan;
  core::OperandRef ref[kernels::kChRoleCount];
  core::WsKey ws;
  int run(const core::LaunchArgs &args) const override {
    kernels::ChamferGradArgs a;
    for (int k = 0; k < kernels::kChRoleCount; ++k) a.p[k] = ref[k].address(args);
    a.workspace = args.get(ws);
    return kernels::chamfer_grad_run(plan, a);
  }
};

core::Shape shape_of(int64_t b, int64_t points, bool coords) {
  core::Shape s;
  s.dims[s.ndim++] = b;
  s.dims[s.ndim++] = points;
  if (coords) s.dims[s.ndim++] = 2;
  return s;
}

}  // namespace

void chamfer_grad_phase1(core::OpBuilder &b, const ClassLossRule &rule, const ClassLossCall &c) {
  struct Arg {
    const aclTensor *t;
    const char *name;
    bool index, coords, first_set;  // INT32 indices; [B, P, 2]; P = N (else M)
  };
  const Arg args[] = {{c.xyz1, c.xyz1_name, false, true, true},        {c.xyz2, c.xyz2_name, false, true, false},
                      {c.idx1, c.idx1_name, true, false, true},        {c.idx2, c.idx2_name, true, false, false},
                      {c.grad_dist1, c.grad_dist1_name, false, false, true},
                      {c.grad_dist2, c.grad_dist2_name, false, false, false},
                      {c.grad_xyz1, c.grad_xyz1_name, false, true, true},
                      {c.grad_xyz2, c.grad_xyz2_name, false, true, false}};
  for (const Arg &a : args) core::check_dtype_in(a.t, a.name, a.index ? rule.target_dtypes : rule.dtypes);
  const aclTensor &x1 = *c.xyz1, &x2 = *c.xyz2;
  for (const aclTensor *x : {&x1, &x2})
    if (x->ndim != 3 || x->dims[2] != 2)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be [B, points, 2] (2-d points), got shape %s",
                  x == &x1 ? c.xyz1_name : c.xyz2_name, core::shape_string(*x).c_str());
  const int64_t B = x1.dims[0], N = x1.dims[1], M = x2.dims[1];
  for (const Arg &a : args) {
    if (!a.index && a.t->dtype != x1.dtype)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have %s's dtype %s, got %s", a.name, c.xyz1_name,
                  core::dtype_name(x1.dtype), core::dtype_name(a.t->dtype));
    core::check_shape_equals(*a.t, a.name, shape_of(B, a.first_set ? N : M, a.coords));
  }
  core::check_no_internal_overlap(*c.grad_xyz1, c.grad_xyz1_name);
  core::check_no_internal_overlap(*c.grad_xyz2, c.grad_xyz2_name);

  int slot[kernels::kChRoleCount];
  for (int k = 0; k < kernels::kChRoleCount; ++k)
    slot[k] = k < kernels::kChOut1 ? b.input(args[k].t) : b.output(args[k].t);
  auto &st = b.add_step<ChamferGradStep>();
  kernels::ChamferGradPlan &P = st.plan;
  P.batches = B;
  P.n = N;
  P.m = M;
  for (int k = 0; k < kernels::kChRoleCount; ++k) {
    const aclTensor &t = b.tensor(slot[k]);
    kernels::ChamferOperand &o = P.op[k];
    o.dtype = t.dtype;
    o.batch = t.strides[0];
    o.point = t.strides[1];
    o.coord = t.ndim == 3 ? t.strides[2] : 0;
    st.ref[k] = core::OperandRef::of_slot(slot[k], t);
  }
  const bool big = B * (N + M) >= 16384;
  P.tasks = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(B, big ? core::num_threads() : 1)));
  st.ws = b.book("chamfer_grad.sums", P.workspace_bytes());
}

}  // namespace opsnn::ops
