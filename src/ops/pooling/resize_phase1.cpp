#include "ops/pooling/resize_phase1.h"

#include <string>
#include <vector>

#include "common/error.h"
#include "core/impl_list.h"
#include "core/op_checks.h"
#include "core/verbose.h"
#include "kernels/pooling/pool.h"
#include "ops/pooling/pool_phase1.h"

namespace opsnn::ops {
namespace {

int64_t numel5(const int64_t *d) { return d[0] * d[1] * d[2] * d[3] * d[4]; }

struct ResizeStep final : core::Step {
  bool backward = false;
  kernels::ResizePlan plan;
  PoolOperand src, dst;
  int run(const core::LaunchArgs &a) const override {
    float *in = src.buffer<float>(a);
    const bool cl = plan.inner > 1;
    if (!src.direct) kernels::pool_load(src.v, src.base(a), cl, in);
    float *out = dst.buffer<float>(a);
    if (backward) kernels::resize_backward(plan, in, out);
    else kernels::resize_forward(plan, in, out);
    if (!dst.direct) kernels::pool_store(dst.v, out, cl, dst.base(a));
    return 0;
  }
};

// An int array of exactly `n` values, each > 0 (from index `first` on; earlier ones >= 0).
std::vector<int64_t> sizes(const aclIntArray *a, const char *name, size_t n, size_t first, const char *what) {
  if (a->values.size() != n)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %zu values; it must have %zu (%s)", name, a->values.size(), n, what);
  for (size_t i = 0; i < n; ++i)
    if (a->values[i] < 0 || (i >= first && a->values[i] == 0))
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be positive, got %s", name,
                  core::shape_string(a->values.data(), static_cast<int>(n)).c_str());
  return a->values;
}

const char *mode_name(kernels::ResizeMode m) {
  switch (m) {
    case kernels::ResizeMode::kNearest: return "nearest";
    case kernels::ResizeMode::kNearestExact: return "nearest_exact";
    case kernels::ResizeMode::kLinear: return "linear";
    default: return "cubic";
  }
}

}  // namespace

void resize_phase1(core::OpBuilder &b, const ResizeRule &rule, const ResizeCall &c) {
  const int nsp = rule.spatial;
  core::check_tensor(c.self, c.self_name);
  core::check_not_null(c.output_size, c.output_size_name);
  if (rule.backward) core::check_not_null(c.input_size, c.input_size_name);
  core::check_tensor(c.out, c.out_name);
  core::check_dtype_in(c.self, c.self_name, rule.dtypes);
  if (c.out->dtype != c.self->dtype)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", c.out_name,
                core::dtype_name(c.out->dtype), c.self_name, core::dtype_name(c.self->dtype));

  const std::vector<int64_t> os = sizes(c.output_size, c.output_size_name, static_cast<size_t>(nsp), 0,
                                        nsp == 1 ? "L" : nsp == 2 ? "H, W" : "D, H, W");
  // The forward's input (in5) and output (out5) logical dims.
  int64_t in5[5] = {1, 1, 1, 1, 1}, out5[5] = {1, 1, 1, 1, 1};
  PoolLogical ls;
  if (rule.backward) {
    const std::vector<int64_t> is = sizes(c.input_size, c.input_size_name, static_cast<size_t>(nsp + 2), 2,
                                          nsp == 1 ? "N, C, L" : nsp == 2 ? "N, C, H, W" : "N, C, D, H, W");
    if (c.self->ndim != nsp + 2)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have %d dims, got shape %s", c.self_name, nsp + 2,
                  core::shape_string(*c.self).c_str());
    ls = pool_logical(*c.self, c.self_name, nsp);
    in5[0] = out5[0] = is[0];
    in5[1] = out5[1] = is[1];
    for (int i = 0; i < nsp; ++i) {
      in5[2 + 3 - nsp + i] = is[static_cast<size_t>(2 + i)];
      out5[2 + 3 - nsp + i] = os[static_cast<size_t>(i)];
    }
    for (int i = 0; i < 5; ++i)
      if (ls.v.dims[i] != out5[i]) {
        const std::vector<int64_t> want = pool_physical_dims(ls, out5, nsp);
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected %s from %s and %s", c.self_name,
                    core::shape_string(*c.self).c_str(),
                    core::shape_string(want.data(), static_cast<int>(want.size())).c_str(), c.input_size_name,
                    c.output_size_name);
      }
    pool_check_dims(*c.out, c.out_name, ls, in5, nsp);
  } else {
    if (c.self->ndim != nsp + 2)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have %d dims, got shape %s", c.self_name, nsp + 2,
                  core::shape_string(*c.self).c_str());
    ls = pool_logical(*c.self, c.self_name, nsp);
    for (int i = 0; i < 5; ++i) in5[i] = out5[i] = ls.v.dims[i];
    for (int i = 0; i < nsp; ++i) {
      const int ax = 2 + 3 - nsp + i;
      if (in5[ax] <= 0)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; its spatial dims must not be empty", c.self_name,
                    core::shape_string(*c.self).c_str());
      out5[ax] = os[static_cast<size_t>(i)];
    }
    pool_check_dims(*c.out, c.out_name, ls, out5, nsp);
  }
  core::check_no_internal_overlap(*c.out, c.out_name);

  const int src_slot = b.input(c.self);
  const int out_slot = b.output(c.out);
  if (numel5(in5) == 0 || numel5(out5) == 0) return;  // an empty batch: nothing to compute

  auto &s = b.add_step<ResizeStep>();
  s.backward = rule.backward;
  // Layout: channels-last (passes over C-vectors) when the input's channels are its unit-stride
  // dim (NHWC / NDHWC format or a channels-last view); else planar (N * C planes).
  const bool cl = in5[1] > 1 && ls.v.st[1] == 1 && in5[2] * in5[3] * in5[4] > 1;
  s.plan.planes = cl ? in5[0] : in5[0] * in5[1];
  s.plan.inner = cl ? in5[1] : 1;
  for (int ax = 0; ax < 3; ++ax) {
    const int i = ax - (3 - nsp);  // the op's spatial dim of this axis
    s.plan.ax[ax] = i < 0 ? kernels::resize_axis(kernels::ResizeMode::kNearest, 1, 1, false, 0)
                          : kernels::resize_axis(rule.mode, in5[2 + ax], out5[2 + ax], c.align_corners,
                                                 c.scales[i]);
  }
  s.src = pool_float_operand(b, src_slot, ls, cl, rule.backward ? "resize.grad" : "resize.in", true);
  s.dst = pool_float_operand(b, out_slot, pool_logical(*c.out, c.out_name, nsp), cl, "resize.out", true);
  core::ImplTrace trace;
  const bool traced = core::current_phase1_trace() != nullptr;
  const char *tier = kernels::choose_resize_kernel(s.plan, traced ? &trace : nullptr);
  if (traced)
    core::record_choice(std::string("resize:") + tier + (cl ? "/nhwc_separable/" : "/nchw_separable/") +
                            mode_name(rule.mode),
                        &trace);
}

}  // namespace opsnn::ops
