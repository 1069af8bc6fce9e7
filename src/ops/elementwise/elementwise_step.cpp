#include "ops/elementwise/elementwise_step.h"

#include <cstring>
#include <string>

#include "common/error.h"
#include "core/impl_list.h"
#include "core/verbose.h"
#include "kernels/elementwise/convert.h"
#include "kernels/elementwise/ops.h"
#include "kernels/elementwise/stream_copy.h"

namespace opsnn::ops {
namespace {

using kernels::kMaxOperands;

class ElementwiseStep final : public core::Step {
 public:
  kernels::ElementwiseLoop loop;
  kernels::ContigKernel kernel = nullptr;
  kernels::OpScalars scalars;
  EwLaunchScalar launch_s0;
  core::OperandRef ref[kMaxOperands];  // neither a slot nor a workspace block: a constant
  alignas(8) unsigned char constant[kMaxOperands][8] = {};  // scalar operands, in the compute type

  int run(const core::LaunchArgs &args) const override {
    kernels::OpScalars s = scalars;
    if (launch_s0.slot >= 0) {
      const double v = kernels::load_one(launch_s0.dtype, static_cast<const char *>(args.addrs[launch_s0.slot]),
                                         launch_s0.elem);
      s.f[0] = v;
      s.i[0] = core::saturate_to_int64(v);
    }
    char *base[kMaxOperands];
    for (int op = 0; op < loop.nops; ++op) {
      base[op] = ref[op].slot >= 0 || ref[op].ws.booked()
                     ? ref[op].address(args)
                     : const_cast<char *>(reinterpret_cast<const char *>(constant[op]));
    }
    if (kernels::run_elementwise(loop, base, kernel, s)) {
      // PyTorch raises ZeroDivisionError for an integer division by zero; a kernel cannot stop
      // halfway, so every element was computed (x / 0 gives 0) and the launch reports the error
      // at the next synchronisation (the executor prefixes the op's name).
      return fail(ACLNN_ERR_INNER, "ZeroDivisionError: integer division by zero (%s with a zero divisor)",
                  kernels::ew_op_name(op));
    }
    return 0;
  }
  kernels::EwOp op = kernels::EwOp::kIdentity;
};

// Integer divisions: the divisor (the functor's second operand) is checked for zeros at run time.
bool is_integer_division(kernels::EwOp op) {
  using kernels::EwOp;
  return op == EwOp::kRemainder || op == EwOp::kFmod || op == EwOp::kDivTrunc || op == EwOp::kDivFloor;
}

aclDataType compute_storage_dtype(core::ComputeType ct) {
  switch (ct) {
    case core::ComputeType::kFloat: return ACL_FLOAT;
    case core::ComputeType::kDouble: return ACL_DOUBLE;
    default: return ACL_INT64;
  }
}

void store_constant(unsigned char *dst, core::ComputeType ct, const aclScalar *s) {
  switch (ct) {
    case core::ComputeType::kFloat: { float v = static_cast<float>(s->to_double()); std::memcpy(dst, &v, 4); break; }
    case core::ComputeType::kDouble: { double v = s->to_double(); std::memcpy(dst, &v, 8); break; }
    default: { int64_t v = s->to_int64(); std::memcpy(dst, &v, 8); break; }
  }
}

// A copy's paths, best first: rows moved as bytes with streaming stores (a destination beyond
// the cache), rows moved as bytes, the converting loop (kernels/elementwise/elementwise.h).
const core::Impl<kernels::ElementwiseLoop> kCopyPaths[] = {
    {"stream_rows", core::kNoIsa,
     [](const kernels::ElementwiseLoop &l, const core::Why &why) {
       return (l.copy_rows && l.streaming) ||
              why("not same-dtype unit-stride rows of at least %llu bytes",
                  static_cast<unsigned long long>(kernels::stream_copy_min_bytes()));
     }},
    {"rows", core::kNoIsa,
     [](const kernels::ElementwiseLoop &l, const core::Why &why) {
       return l.copy_rows || why("the dtypes differ or an innermost stride is not 1");
     }},
    {"convert", core::kNoIsa, nullptr},
};

void choose_copy_path(kernels::ElementwiseLoop &loop) {
  kernels::plan_copy_rows(loop);
  if (core::current_phase1_trace() == nullptr) return;
  core::ImplTrace trace;
  const int path = core::choose(kCopyPaths, loop, &trace);
  core::record_choice(std::string("copy:") + kCopyPaths[path].name, &trace);
}

}  // namespace

core::OperandRef operand_ref(const EwInput &e, const aclTensor &view) {
  core::OperandRef r = core::OperandRef::of_slot(e.slot, view);
  r.ws = e.ws;
  return r;
}

void EwSpec::set_scalar(int k, const aclScalar *s) {
  scalars.f[k] = s->to_double();
  scalars.i[k] = s->to_int64();
}
void EwSpec::set_scalar(int k, double v) {
  scalars.f[k] = v;
  scalars.i[k] = core::saturate_to_int64(v);
}

EwInput EwInput::scratch(core::OpBuilder &b, const char *name, const core::Shape &shape, aclDataType dt) {
  aclTensor v{};
  v.dtype = dt;
  v.offset = 0;
  core::set_contiguous(v, shape);
  int64_t n = 1;
  for (int d = 0; d < shape.ndim; ++d) n *= shape.dims[d];
  return workspace(b.book(name, static_cast<uint64_t>(n) * core::dtype_size(dt)), v);
}

aclTensor narrow_view(const aclTensor &t, int dim, int64_t start, int64_t length, int64_t step) {
  aclTensor v = t;
  v.offset = t.offset + start * t.strides[dim];
  v.dims[dim] = length;
  v.strides[dim] = t.strides[dim] * step;
  return v;
}

void record_elementwise(core::OpBuilder &b, const EwSpec &spec, int out_slot, const std::vector<EwInput> &inputs) {
  record_elementwise(b, spec, EwInput::tensor(out_slot), inputs);
}

void record_zero_fill(core::OpBuilder &b, const EwInput &out) {
  EwSpec zero;
  zero.op = kernels::EwOp::kFill;
  zero.compute_dtype = ACL_FLOAT;
  zero.set_scalar(0, 0.0);
  record_elementwise(b, zero, out, {});
}

void record_elementwise(core::OpBuilder &b, const EwSpec &spec, const EwInput &out_operand,
                        const std::vector<EwInput> &inputs) {
  const aclTensor &out = out_operand.has_view ? out_operand.view : b.tensor(out_operand.slot);
  core::check_no_internal_overlap(out, "the output");
  const core::ComputeType ct = core::compute_type_of(spec.compute_dtype);
  auto step = std::make_unique<ElementwiseStep>();
  step->kernel = kernels::ew_kernel(spec.op, ct);
  if (step->kernel == nullptr)
    throw_error(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, "no %s kernel computes in %s", kernels::ew_op_name(spec.op),
                core::dtype_name(spec.compute_dtype));
  step->scalars = spec.scalars;
  step->launch_s0 = spec.launch_s0;

  const core::Shape shape = core::Shape::of(out);
  const int nops = 1 + static_cast<int>(inputs.size());
  int64_t strides[kMaxOperands][kernels::kMaxLoopDims] = {};
  aclDataType dtypes[kMaxOperands];
  for (int d = 0; d < shape.ndim; ++d) strides[0][d] = out.strides[d];
  dtypes[0] = out.dtype;
  step->ref[0] = operand_ref(out_operand, out);
  for (int i = 0; i < static_cast<int>(inputs.size()); ++i) {
    const EwInput &in = inputs[static_cast<size_t>(i)];
    if (in.is_tensor()) {
      const aclTensor &t = in.has_view ? in.view : b.tensor(in.slot);
      core::broadcast_strides(t, shape, strides[i + 1]);
      dtypes[i + 1] = t.dtype;
      step->ref[i + 1] = operand_ref(in, t);
    } else {
      dtypes[i + 1] = compute_storage_dtype(ct);  // strides stay 0: broadcast constant
      store_constant(step->constant[i + 1], ct, in.scalar);
    }
  }
  step->loop = kernels::plan_elementwise_loop(shape.ndim, shape.dims, nops, strides, dtypes, ct);
  step->op = spec.op;
  if (ct == core::ComputeType::kInt64 && is_integer_division(spec.op) && nops >= 3) step->loop.zero_check = 2;
  // A result whose dtype is narrower than its compute type, written to an output of another dtype,
  // first takes the result dtype's value (half rounding, integer wrap, bool), as in PyTorch.
  if (out.dtype != spec.compute_dtype && spec.compute_dtype != compute_storage_dtype(ct))
    step->loop.round_through = spec.compute_dtype;
  if (spec.op == kernels::EwOp::kIdentity) choose_copy_path(step->loop);
  if (out.numel() == 0) return;  // nothing to run
  b.add_step<ElementwiseStep>(std::move(*step));
}

}  // namespace opsnn::ops
