// aclnnClippedSwiglu (aclnnop/aclnn_clipped_swiglu.h): SwiGLU with clamped halves (GPT-OSS):
// A | B = halves of x along dim (front/back, or even/odd when interleaved);
// y = min(A, limit) sigmoid(alpha min(A, limit)) * (clamp(B, -limit, limit) + bias).
//
// groupIndexOptional (MoE): a 1-D INT64 tensor whose sum is the number of rows to process, a row
// being one index of the dims before `dim`. The sum is read when the op runs (it lives in device
// memory); a sum above the number of rows processes every row, a negative sum none, as
// aclnnClippedSwigluGrad does (the vendor page asks for elements >= 0; values are not checked). The vendor's aclnnClippedSwiglu page describes the filtering as
// x = x[:sum] but says nothing about the rows of y at and after the sum (y keeps the full shape);
// OpsNN writes them as zero, like the gradient of those rows, so y never holds stale memory.
#include "ops/activation/clipped_swiglu.h"

#include "aclnnop/aclnn_clipped_swiglu.h"
#include "common/error.h"
#include "core/executor.h"
#include "kernels/elementwise/elementwise.h"
#include "ops/activation/activation_common.h"
#include "ops/activation/activation_grad_common.h"

namespace opsnn::ops {

namespace {

// The grouped form: at run time, sum(groupIndex) = v rows (dims [0, row_dims) of every view, row-major)
// are computed, the others zeroed. The prefix of rows [0, v) and the rest are each a union of at most
// row_dims boxes (mixed-radix digits of v), each planned and run as one element-wise loop.
class GroupedClippedSwigluStep final : public core::Step {
 public:
  int group_slot = -1, x_slot = -1, out_slot = -1;
  aclTensor group{}, out{}, half[2]{};  // out and the halves of x: same dims, own strides
  int row_dims = 0;
  kernels::ContigKernel kernel = nullptr, fill = nullptr;
  kernels::OpScalars scalars;
  core::ComputeType ct = core::ComputeType::kFloat;
  aclDataType round_through = ACL_DT_UNDEFINED;

  int run(const core::LaunchArgs &args) const override {
    const int64_t valid = group_index_rows(args, group_slot, group, out, row_dims);
    int64_t rows = 1;
    for (int d = 0; d < row_dims; ++d) rows *= out.dims[d];
    if (valid <= 0) {
      run_box(args, nullptr, nullptr, 0, false);
      return 0;
    }
    if (valid >= rows) {
      run_box(args, nullptr, nullptr, 0, true);
      return 0;
    }
    int64_t digit[core::kMaxDims] = {}, start[core::kMaxDims] = {}, len[core::kMaxDims] = {};
    for (int64_t d = row_dims - 1, rem = valid; d >= 0; --d) {
      digit[d] = rem % out.dims[d];
      rem /= out.dims[d];
    }
    // Level i: dims before i fixed at the digits of v; dim i runs over [0, digit) (rows before v)
    // or [digit + 1, size) ([digit, size) at the last level, which holds row v itself).
    for (int i = 0; i < row_dims; ++i) {
      if (i > 0) {
        start[i - 1] = digit[i - 1];
        len[i - 1] = 1;
      }
      start[i] = 0;
      len[i] = digit[i];
      if (len[i] > 0) run_box(args, start, len, i + 1, true);
      start[i] = i == row_dims - 1 ? digit[i] : digit[i] + 1;
      len[i] = out.dims[i] - start[i];
      if (len[i] > 0) run_box(args, start, len, i + 1, false);
    }
    return 0;
  }

 private:
  // Runs the op (compute) or writes zeros over the box: dims k < nfix restricted to
  // [start[k], start[k] + len[k]), the others whole. (No allocation: this runs on the stream.)
  void run_box(const core::LaunchArgs &args, const int64_t *start, const int64_t *len, int nfix,
               bool compute) const {
    const aclTensor *views[3] = {&out, &half[0], &half[1]};
    const int nops = compute ? 3 : 1;
    int64_t shape[kernels::kMaxLoopDims];
    int64_t strides[kernels::kMaxOperands][kernels::kMaxLoopDims] = {};
    aclDataType dtypes[kernels::kMaxOperands];
    char *base[kernels::kMaxOperands];
    for (int d = 0; d < out.ndim; ++d) shape[d] = d < nfix ? len[d] : out.dims[d];
    for (int op = 0; op < nops; ++op) {
      const aclTensor &v = *views[op];
      int64_t off = v.offset;
      for (int d = 0; d < nfix; ++d) off += start[d] * v.strides[d];
      for (int d = 0; d < v.ndim; ++d) strides[op][d] = v.strides[d];
      dtypes[op] = v.dtype;
      const int slot = op == 0 ? out_slot : x_slot;
      base[op] = static_cast<char *>(args.addrs[slot]) + off * static_cast<int64_t>(core::dtype_size(v.dtype));
    }
    kernels::ElementwiseLoop loop = kernels::plan_elementwise_loop(out.ndim, shape, nops, strides, dtypes, ct);
    if (compute) {
      loop.round_through = round_through;
      kernels::run_elementwise(loop, base, kernel, scalars);
    } else {
      kernels::run_elementwise(loop, base, fill, kernels::OpScalars{});  // +0.0
    }
  }
};

}  // namespace

void clipped_swiglu_phase1(core::OpBuilder &b, const aclTensor *x, const aclTensor *group_index, int64_t dim,
                           double alpha, double limit, double bias, bool interleaved, int64_t clamp_mode,
                           const aclTensor *out) {
  core::check_dtype_in(x, "x", kActFloatDoubleTypes);
  if (group_index != nullptr && (group_index->dtype != ACL_INT64 || group_index->ndim != 1))
    throw_error(ACLNN_ERR_PARAM_INVALID, "groupIndexOptional must be a 1-D INT64 tensor (got %s of %d dims)",
                core::dtype_name(group_index->dtype), group_index->ndim);
  if (clamp_mode != 0 && clamp_mode != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "clampMode must be 0 or 1, got %lld", static_cast<long long>(clamp_mode));
  const GluHalves h = glu_halves(x, "x", dim, interleaved);
  // The documented even/odd split runs over the dims from `dim` on, merged; it equals the split
  // along `dim` only when `dim` is the last non-trivial dimension.
  int64_t after = 1;
  for (int d = h.dim + 1; d < x->ndim; ++d) after *= x->dims[d];
  if (interleaved && after != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "interleaved split along dim %d of x %s with trailing dims is not supported; use the last dim",
                h.dim, core::shape_string(*x).c_str());
  check_glu_out(out, "out", *x, h);
  const int xs = b.input(x);
  const int gs = b.input(group_index);
  const int o = b.output(out);
  EwSpec spec;
  spec.op = clamp_mode == 0 ? kernels::EwOp::kClippedSwiglu : kernels::EwOp::kClippedSwigluPost;
  spec.compute_dtype = x->dtype;
  spec.set_scalar(0, alpha);
  spec.set_scalar(1, limit);
  spec.set_scalar(2, bias);
  if (gs < 0) {
    record_elementwise(b, spec, o, {EwInput::tensor_view(xs, h.first), EwInput::tensor_view(xs, h.second)});
    return;
  }
  const aclTensor &y = b.tensor(o);
  core::check_no_internal_overlap(y, "out");
  if (y.numel() == 0) return;
  const core::ComputeType ct = core::compute_type_of(x->dtype);
  auto &s = b.add_step<GroupedClippedSwigluStep>();
  s.group_slot = gs;
  s.group = b.tensor(gs);
  s.x_slot = xs;
  s.out_slot = o;
  s.out = y;
  s.half[0] = h.first;
  s.half[1] = h.second;
  s.row_dims = h.dim;
  s.kernel = kernels::ew_kernel(spec.op, ct);
  s.fill = kernels::ew_kernel(kernels::EwOp::kFill, ct);
  if (s.kernel == nullptr || s.fill == nullptr)
    throw_error(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, "no %s kernel computes in %s", kernels::ew_op_name(spec.op),
                core::dtype_name(x->dtype));
  s.scalars = spec.scalars;
  s.ct = ct;
  // As record_elementwise: a FLOAT16 / BF16 result written to a wider out takes its dtype's value first.
  const bool narrow = x->dtype == ACL_FLOAT16 || x->dtype == ACL_BF16;
  if (y.dtype != x->dtype && narrow) s.round_through = x->dtype;
}

}  // namespace opsnn::ops

using namespace opsnn;

OPSNN_ACTIVATION_OP(ClippedSwiglu, (const aclTensor *x, const aclTensor *groupIndexOptional, int64_t dim,
                                    double alpha, double limit, double bias, bool interleaved, const aclTensor *out,
                                    uint64_t *workspaceSize, aclOpExecutor **executor), {
  ops::clipped_swiglu_phase1(b, x, groupIndexOptional, dim, alpha, limit, bias, interleaved, 0, out);
})
