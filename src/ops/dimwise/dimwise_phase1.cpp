#include "ops/dimwise/dimwise_phase1.h"

#include <memory>
#include <string>

#include "common/error.h"
#include "core/impl_list.h"
#include "core/op_checks.h"
#include "core/thread_pool.h"
#include "core/verbose.h"

namespace opsnn::ops {
namespace {

using kernels::DimwiseOp;

using kernels::kDimwiseMaxIo;

class DimwiseStep final : public core::Step {
 public:
  kernels::DimwiseLoop loop;
  core::OperandRef in[kDimwiseMaxIo], out[kDimwiseMaxIo];
  core::WsKey scratch;

  int run(const core::LaunchArgs &args) const override {
    const char *ins[kDimwiseMaxIo] = {};
    char *outs[kDimwiseMaxIo] = {};
    for (int k = 0; k < loop.nin; ++k) ins[k] = in[k].address(args);
    for (int k = 0; k < loop.nout; ++k) outs[k] = out[k].address(args);
    kernels::run_dimwise(loop, ins, outs, args.get(scratch));
    return 0;
  }
};

bool integral_capable(DimwiseOp op) {
  return op == DimwiseOp::kCumsum || op == DimwiseOp::kCumprod || op == DimwiseOp::kCummax ||
         op == DimwiseOp::kCummin || op == DimwiseOp::kSort || op == DimwiseOp::kTopk ||
         op == DimwiseOp::kKthvalue || op == DimwiseOp::kMedian || op == DimwiseOp::kNanMedian;
}

void check_out_dtype(const DimwiseCall &c, int k, DimwiseResult r) {
  const aclDataType dt = c.out[k]->dtype;
  if (r == DimwiseResult::kIndex) {
    if (dt != ACL_INT64 && dt != ACL_INT32)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must be INT64 or INT32 (indices)", c.out_name[k],
                  core::dtype_name(dt));
    return;
  }
  const aclDataType want = r == DimwiseResult::kSame ? c.in[0]->dtype : r == DimwiseResult::kDtypeArg ? c.dtype : ACL_INT64;
  if (dt != want)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must be %s (%s)", c.out_name[k], core::dtype_name(dt),
                core::dtype_name(want),
                r == DimwiseResult::kSame ? "the input's dtype" : r == DimwiseResult::kDtypeArg ? "the dtype argument"
                                                                                                : "indices");
}

}  // namespace

int64_t dimwise_scalar_dim(const aclScalar *dim, const char *name) {
  core::check_scalar(dim, name);
  if (core::is_floating(dim->dtype) || dim->dtype == ACL_BOOL)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must be an integer", name, core::dtype_name(dim->dtype));
  const double v = dim->to_double();
  if (!(v >= -9.2e18 && v <= 9.2e18))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s = %g is out of range", name, v);
  return static_cast<int64_t>(v);
}

void record_dimwise(core::OpBuilder &b, kernels::DimwiseLoop loop, const DimwiseOperand *in,
                    const DimwiseOperand *out) {
  auto step = std::make_unique<DimwiseStep>();
  for (int k = 0; k < loop.nin; ++k) step->in[k] = in[k];
  for (int k = 0; k < loop.nout; ++k) step->out[k] = out[k];
  kernels::finish_dimwise_plan(loop, core::num_threads());
  core::ImplTrace trace;
  const bool traced = core::current_phase1_trace() != nullptr;
  const char *tier = kernels::choose_dimwise_tier(loop, traced ? &trace : nullptr);
  if (traced)
    core::record_choice(std::string("dimwise:") + tier + "/" + kernels::dimwise_op_name(loop.op) +
                            (loop.compute == core::ComputeType::kInt64   ? "/int64"
                             : loop.compute == core::ComputeType::kFloat ? "/float"
                                                                         : "/double") + "/tasks=" +
                            std::to_string(loop.tasks) + (loop.softmax_rows ? "/softmax_rows" : "") +
                            (loop.stream_out ? "/stream_stores" : ""),
                        &trace);
  int64_t written = 0;
  for (int k = 0; k < loop.nout; ++k) written += loop.out_len[k];
  if (loop.lines == 0 || written == 0) return;
  step->loop = loop;
  step->scratch = b.book("dimwise.scratch", loop.workspace_bytes());
  b.add_step<DimwiseStep>(std::move(*step));
}

void dimwise_phase1(core::OpBuilder &b, const DimwiseRule &rule, const DimwiseCall &c) {
  for (int k = 0; k < rule.nin; ++k) core::check_tensor(c.in[k], c.in_name[k]);
  if (!c.inplace)
    for (int k = 0; k < rule.nout; ++k) core::check_tensor(c.out[k], c.out_name[k]);
  const aclTensor &x = *c.in[0];
  for (int k = 0; k < rule.nin; ++k) core::check_dtype_in(c.in[k], c.in_name[k], rule.dtypes);
  if (rule.nin == 2) core::check_shape_equals(*c.in[1], c.in_name[1], core::Shape::of(x));
  if (rule.result[0] == DimwiseResult::kDtypeArg &&
      (!core::dtype_in(c.dtype, rule.dtypes) || !core::can_cast(x.dtype, c.dtype)))
    throw_error(ACLNN_ERR_PARAM_INVALID, "dtype %s is not a result dtype for %s of dtype %s", core::dtype_name(c.dtype),
                c.in_name[0], core::dtype_name(x.dtype));
  for (int k = 0; k < rule.nout; ++k) check_out_dtype(c, k, rule.result[k]);

  // The dim (a 0-d tensor is one line of one element along dim 0 or -1).
  const int nd = x.ndim;
  const int dim = rule.shape != DimwiseShape::kAll ? core::wrap_dim(c.dim, nd, "dim") : 0;
  const int64_t len = rule.shape == DimwiseShape::kAll ? x.numel() : nd == 0 ? 1 : x.dims[dim];
  const int64_t k = c.params.k;
  if (rule.shape == DimwiseShape::kTopk && (k < 0 || k > len))
    throw_error(ACLNN_ERR_PARAM_INVALID, "k = %lld is out of range [0, %lld] (the size of dim %d)",
                static_cast<long long>(k), static_cast<long long>(len), dim);
  if (rule.op == DimwiseOp::kKthvalue && (k < 1 || k > len))
    throw_error(ACLNN_ERR_PARAM_INVALID, "k = %lld is out of range [1, %lld] (the size of dim %d)",
                static_cast<long long>(k), static_cast<long long>(len), dim);
  const bool one_result = rule.shape == DimwiseShape::kReduced || rule.shape == DimwiseShape::kAll;
  int64_t lines = 1;  // every result needs a non-empty line
  for (int d = 0; d < nd; ++d)
    if (rule.shape != DimwiseShape::kAll && d != dim) lines *= x.dims[d];
  if (one_result && len == 0 && lines > 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s: cannot select from an empty dim (shape %s)", c.in_name[0],
                core::shape_string(x).c_str());

  // Output shape.
  core::Shape expect;
  if (rule.shape != DimwiseShape::kAll) {
    for (int d = 0; d < nd; ++d) {
      if (d != dim) expect.dims[expect.ndim++] = x.dims[d];
      else if (rule.shape == DimwiseShape::kFull) expect.dims[expect.ndim++] = x.dims[d];
      else if (rule.shape == DimwiseShape::kTopk) expect.dims[expect.ndim++] = k;
      else if (c.keepdim) expect.dims[expect.ndim++] = 1;
    }
  }
  for (int o = 0; o < rule.nout; ++o) {
    const aclTensor &t = *c.out[o];
    const bool scalar_as_1 = expect.ndim == 0 && t.ndim == 1 && t.dims[0] == 1;
    if (!scalar_as_1) core::check_shape_equals(t, c.out_name[o], expect);
    core::check_no_internal_overlap(t, c.out_name[o]);
  }


  // Registration in prototype order, then the loop.
  kernels::DimwiseLoop L;
  DimwiseOperand ins[kDimwiseMaxIo], outs[kDimwiseMaxIo];
  L.op = rule.op;
  L.params = c.params;
  L.nin = rule.nin;
  L.nout = rule.nout;
  for (int o = 0; o < rule.nout; ++o) L.out_src[o] = rule.out_first + o;
  const aclDataType value_dtype = rule.result[0] == DimwiseResult::kDtypeArg ? c.dtype : x.dtype;
  // Softmax of FLOAT / FLOAT16 / BF16 computes in float (DOUBLE in double); integers of cumsum,
  // sort and selection in int64; the rest in double (the gradients subtract nearly equal terms,
  // cumsum adds long prefixes: double keeps them within the precision standard).
  const bool float_natured = rule.op == DimwiseOp::kSoftmax || rule.op == DimwiseOp::kLogSoftmax;
  L.compute = integral_capable(rule.op) && !core::is_floating(value_dtype) && !core::is_floating(x.dtype)
                  ? core::ComputeType::kInt64
              : float_natured && x.dtype != ACL_DOUBLE ? core::ComputeType::kFloat
                                                       : core::ComputeType::kDouble;
  for (int i = 0; i < rule.nin; ++i) {
    const aclTensor &t = *c.in[i];
    ins[i] = core::OperandRef::of_slot(c.inplace && i == 0 ? b.inout(&t) : b.input(&t), t);
    L.in_dtype[i] = t.dtype;
  }
  for (int o = 0; o < rule.nout; ++o) {
    const aclTensor &t = *c.out[o];
    outs[o] = c.inplace && o == 0 ? ins[0] : core::OperandRef::of_slot(b.output(&t), t);
    L.out_dtype[o] = t.dtype;
  }
  for (int d = 0; d < nd; ++d) {
    const bool on_line = rule.shape == DimwiseShape::kAll || d == dim;
    if (on_line) {
      L.line_shape[L.nline] = x.dims[d];
      for (int i = 0; i < rule.nin; ++i)
        L.in_line[i][L.nline] = c.in[i]->strides[d] * static_cast<int64_t>(core::dtype_size(c.in[i]->dtype));
      ++L.nline;
      continue;
    }
    L.outer_shape[L.nouter] = x.dims[d];
    for (int i = 0; i < rule.nin; ++i)
      L.in_outer[i][L.nouter] = c.in[i]->strides[d] * static_cast<int64_t>(core::dtype_size(c.in[i]->dtype));
    // The output dim of input dim d: the same index unless the line dim was removed before it.
    const int od = (rule.shape == DimwiseShape::kReduced && !c.keepdim && d > dim) ? d - 1 : d;
    for (int o = 0; o < rule.nout; ++o)
      L.out_outer[o][L.nouter] = c.out[o]->strides[od] * static_cast<int64_t>(core::dtype_size(c.out[o]->dtype));
    ++L.nouter;
  }
  for (int o = 0; o < rule.nout; ++o) {
    L.out_len[o] = rule.shape == DimwiseShape::kFull ? len : rule.shape == DimwiseShape::kTopk ? k : 1;
    if (L.out_len[o] > 1 && nd > 0)  // one line dim
      L.out_line[o][0] = c.out[o]->strides[dim] * static_cast<int64_t>(core::dtype_size(c.out[o]->dtype));
  }
  record_dimwise(b, L, ins, outs);
}

}  // namespace opsnn::ops
