#include "ops/copy/low_float_cast.h"

#include <algorithm>
#include <string>

#include "common/error.h"
#include "core/op_checks.h"
#include "core/thread_pool.h"
#include "core/verbose.h"
#include "kernels/quant/low_float_cast.h"

namespace opsnn::ops {
namespace {

struct LowFloatCastStep final : core::Step {
  kernels::LfCastPlan plan;
  core::OperandRef src, dst;
  core::WsKey ws;
  int run(const core::LaunchArgs &a) const override {
    kernels::low_float_cast_run(plan, src.address(a), dst.address(a), reinterpret_cast<float *>(a.get(ws)));
    return 0;
  }
};

bool low(aclDataType dt) { return kernels::low_float_of(dt); }
bool fp4(aclDataType dt) { return dt == ACL_FLOAT4_E2M1 || dt == ACL_FLOAT4_E1M2; }

void check_side(const aclTensor *t, const char *name) {
  core::check_dtype_in(t, name, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_FLOAT8_E4M3FN, ACL_FLOAT8_E5M2,
                                 ACL_FLOAT4_E2M1, ACL_FLOAT4_E1M2});
  if (fp4(t->dtype) && t->numel() > 0 && (!t->is_contiguous() || t->offset % 2 != 0))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s (%s, dims %s, strides %s, offset %lld) must be contiguous and start on a "
                "whole byte", name, core::dtype_name(t->dtype), core::shape_string(*t).c_str(),
                core::shape_string(t->strides, t->ndim).c_str(), static_cast<long long>(t->offset));
}

core::OperandRef ref_of(core::OpBuilder &b, int slot) {
  const aclTensor &t = b.tensor(slot);
  core::OperandRef r = core::OperandRef::of_slot(slot, t);
  if (fp4(t.dtype)) r.offset_bytes = t.offset / 2;  // nibbles (an even offset, checked)
  return r;
}

}  // namespace

bool is_low_float_cast(const CopyCall &c) {
  return c.has_dtype && (low(c.dtype) || (c.src != nullptr && low(c.src->dtype)) || (c.dst != nullptr && low(c.dst->dtype)));
}

void low_float_cast_phase1(core::OpBuilder &b, const CopyCall &c) {
  core::check_not_null(c.src, c.src_name);
  core::check_not_null(c.dst, c.dst_name);
  check_side(c.src, c.src_name);
  check_side(c.dst, c.dst_name);
  if (c.dst->dtype != c.dtype)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s but %s is %s; they must be equal", c.dst_name,
                core::dtype_name(c.dst->dtype), c.dtype_name, core::dtype_name(c.dtype));
  core::check_shape_equals(*c.dst, c.dst_name, core::Shape::of(*c.src));
  core::check_no_internal_overlap(*c.dst, c.dst_name);
  if (core::memory_overlap(*c.dst, *c.src) == core::Overlap::kPartial)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s partially overlaps %s in memory", c.dst_name, c.src_name);

  auto &st = b.add_step<LowFloatCastStep>();
  st.src = ref_of(b, b.input(c.src));
  st.dst = ref_of(b, b.output(c.dst));
  kernels::LfCastPlan &P = st.plan;
  P.src = kernels::mx_lines(*c.src, c.src->ndim - 1);
  P.dst = kernels::mx_lines(*c.dst, c.dst->ndim - 1);
  P.src_dtype = c.src->dtype;
  P.dst_dtype = c.dst->dtype;
  const bool shared_bytes = fp4(P.dst_dtype) && P.dst.n % 2 != 0;  // two rows meet inside a byte
  P.tasks = shared_bytes ? 1 : std::max<int64_t>(1, std::min<int64_t>(core::num_threads(), P.src.pre));
  st.ws = b.book("low_float_cast.rows", static_cast<uint64_t>(P.tasks * std::max<int64_t>(P.src.n, 1)) * sizeof(float));
  if (core::current_phase1_trace() != nullptr)
    core::record_choice("cast:low_float/rows/scalar/tasks=" + std::to_string(P.tasks), nullptr);
}

}  // namespace opsnn::ops
