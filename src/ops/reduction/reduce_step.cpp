#include "ops/reduction/reduce_step.h"

#include <string>

#include "common/error.h"
#include "core/impl_list.h"
#include "core/verbose.h"

namespace opsnn::ops {
namespace {

using core::OperandRef;

class ReduceStep final : public core::Step {
 public:
  kernels::ReduceLoop loop;
  OperandRef in, in2, out[2];
  bool mapped = false;
  core::WsKey partials;

  int run(const core::LaunchArgs &args) const override {
    char *outs[2] = {out[0].address(args), loop.nout > 1 ? out[1].address(args) : nullptr};
    kernels::run_reduction(loop, in.address(args), outs, partials.booked() ? args.get(partials) : nullptr,
                           mapped ? in2.address(args) : nullptr);
    return 0;
  }
};

// The loop's variants, as an ordered implementation list: column mode (vectorised across
// neighbouring outputs) needs the input's fastest dim to be a kept one, its wide form (whole input
// rows read in place, kernels::kReduceWideTile) FLOAT rows of a reducer with a FLOAT column kernel;
// row mode takes the rest.
const core::Impl<kernels::ReduceLoop> kReduceModes[] = {
    {"wide_column", core::kNoIsa,
     [](const kernels::ReduceLoop &l, const core::Why &why) {
       return l.wide || why("not unit-stride FLOAT rows of a sum / mean / extremum / arg-extremum along a kept dim");
     }},
    {"column", core::kNoIsa,
     [](const kernels::ReduceLoop &l, const core::Why &why) {
       return l.column || why("the input's fastest dim is reduced");
     }},
    {"row", core::kNoIsa, nullptr},
};

void record(core::OpBuilder &b, const ReduceSpec &spec, const EwInput &in_operand, kernels::ReduceMap map,
            const EwInput *in2_operand, uint32_t mask, bool keepdim, const std::vector<EwInput> &outs) {
  const aclTensor &in = in_operand.has_view ? in_operand.view : b.tensor(in_operand.slot);
  const int nout = static_cast<int>(outs.size());
  int64_t out_strides[2][kernels::kMaxLoopDims] = {};
  aclDataType out_dtypes[2] = {ACL_FLOAT, ACL_FLOAT};
  auto step = std::make_unique<ReduceStep>();
  for (int k = 0; k < nout; ++k) {
    const aclTensor &o = outs[k].has_view ? outs[k].view : b.tensor(outs[k].slot);
    core::check_no_internal_overlap(o, k == 0 ? "the output" : "the second output");
    out_dtypes[k] = o.dtype;
    step->out[k] = operand_ref(outs[k], o);
    // Output strides over the input's dims: kept dims in order; reduced dims (removed, or of size
    // 1 with keepdim) never move the output.
    int od = 0;
    for (int d = 0; d < in.ndim; ++d) {
      const bool reduced = mask >> d & 1u;
      if (!reduced) out_strides[k][d] = o.ndim > 0 ? o.strides[od] : 0;
      if (!reduced || keepdim) ++od;
    }
  }
  step->in = operand_ref(in_operand, in);
  kernels::ReduceMapInput second;
  if (in2_operand != nullptr) {
    const aclTensor &in2 = in2_operand->has_view ? in2_operand->view : b.tensor(in2_operand->slot);
    step->in2 = operand_ref(*in2_operand, in2);
    step->mapped = true;
    second = {map, in2.dtype, in2.strides};
  }
  step->loop = kernels::plan_reduction(spec.op, spec.params, in.ndim, in.dims, in.strides, in.dtype, mask, nout,
                                       out_strides, out_dtypes, spec.compute, second);
  core::ImplTrace tier_trace;
  const bool traced = core::current_phase1_trace() != nullptr;
  const char *tier = kernels::choose_reduce_tier(step->loop, traced ? &tier_trace : nullptr);
  if (traced) {  // verbose mode: the tier and the mode taken, and why not the others
    core::ImplTrace trace;
    const int mode = core::choose(kReduceModes, step->loop, &trace);
    if (!tier_trace.rejected.empty()) trace.rejected = tier_trace.rejected + (trace.rejected.empty() ? "" : "; ") + trace.rejected;
    core::record_choice(std::string("reduce:") + tier + "/" + kReduceModes[mode].name + "/" +
                            kernels::reduce_op_name(spec.op) + (step->mapped ? "/mapped" : "") +
                            (spec.compute == core::ComputeType::kInt64 ? "/int64" : "/double") +
                            "/blocks=" + std::to_string(step->loop.nblocks),
                        &trace);
  }
  if (const uint64_t bytes = step->loop.partial_bytes()) step->partials = b.book("reduce.partials", bytes);
  if (step->loop.out_numel == 0) return;
  b.add_step<ReduceStep>(std::move(*step));
}

}  // namespace

void record_reduction(core::OpBuilder &b, const ReduceSpec &spec, const EwInput &in, uint32_t mask, bool keepdim,
                      const std::vector<EwInput> &outs) {
  record(b, spec, in, kernels::ReduceMap::kNone, nullptr, mask, keepdim, outs);
}

void record_mapped_reduction(core::OpBuilder &b, const ReduceSpec &spec, kernels::ReduceMap map, const EwInput &in,
                             const EwInput &in2, uint32_t mask, bool keepdim, const std::vector<EwInput> &outs) {
  record(b, spec, in, map, &in2, mask, keepdim, outs);
}

}  // namespace opsnn::ops
