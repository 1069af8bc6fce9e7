#include "ops/linalg/inverse_phase1.h"

#include "common/error.h"
#include "core/outputs_apart.h"
#include "kernels/linalg/inverse.h"

namespace opsnn::ops {
namespace {

struct InverseStep final : core::Step {
  kernels::InversePlan plan;
  core::OperandRef x, out;
  core::WsKey work;
  int run(const core::LaunchArgs &args) const override {
    if (plan.batch == 0 || plan.n == 0) return 0;
    return kernels::inverse_run(plan, x.address(args), out.address(args), reinterpret_cast<double *>(args.get(work)));
  }
};

}  // namespace

void inverse_phase1(core::OpBuilder &b, const InverseRule &rule, const InverseCall &c) {
  core::check_not_null(c.x.t, c.x.name);
  core::check_not_null(c.out.t, c.out.name);
  core::check_dtype_in(c.x.t, c.x.name, rule.dtypes);
  core::check_dtype_in(c.out.t, c.out.name, {c.x.t->dtype});
  const aclTensor &x = *c.x.t;
  if (x.ndim < 2 || x.dims[x.ndim - 1] != x.dims[x.ndim - 2])
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be a batch of square matrices [..., n, n], got shape %s", c.x.name,
                core::shape_string(x).c_str());
  if (x.ndim - 2 > kernels::kInverseMaxBatchDims)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d batch dims; at most %d are supported", c.x.name, x.ndim - 2,
                kernels::kInverseMaxBatchDims);
  core::check_shape_equals(*c.out.t, c.out.name, core::Shape::of(x));
  core::check_outputs_apart<InverseArg>({&c.out}, {&c.x, &c.out});
  auto &st = b.add_step<InverseStep>();
  const int sx = b.input(c.x.t), so = b.output(c.out.t);
  const aclTensor &xv = b.tensor(sx), &ov = b.tensor(so);
  st.x = core::OperandRef::of_slot(sx, xv);
  st.out = core::OperandRef::of_slot(so, ov);
  kernels::InversePlan &P = st.plan;
  P.dtype = xv.dtype;
  P.n = xv.dims[xv.ndim - 1];
  P.batch_ndim = xv.ndim - 2;
  P.batch = 1;
  for (int d = 0; d < P.batch_ndim; ++d) {
    P.batch_dims[d] = xv.dims[d];
    P.batch *= xv.dims[d];
    P.x_batch[d] = xv.strides[d];
    P.out_batch[d] = ov.strides[d];
  }
  P.x_row = xv.strides[xv.ndim - 2];
  P.x_col = xv.strides[xv.ndim - 1];
  P.out_row = ov.strides[ov.ndim - 2];
  P.out_col = ov.strides[ov.ndim - 1];
  const uint64_t bytes = static_cast<uint64_t>(P.batch * P.n * P.n) * sizeof(double);
  if (bytes > 0) st.work = b.book("inverse", bytes);
}

}  // namespace opsnn::ops
