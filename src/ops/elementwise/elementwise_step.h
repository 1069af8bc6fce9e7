// Records an element-wise kernel call: the shared phase-1 plan for every element-wise op
// (arithmetic, cast, copy, fill, activations). Operands are tensor slots or scalar constants
// (stored in the step, broadcast with stride 0), all broadcast to the output's shape.
#pragma once

#include <vector>

#include "core/op_builder.h"
#include "core/op_checks.h"
#include "kernels/elementwise/ops.h"

namespace opsnn::ops {

struct EwInput {
  int slot = -1;                // tensor input, or
  const aclScalar *scalar = nullptr;  // a scalar value converted to the compute type
  // Optional explicit view of the slot's tensor (dims, element strides, element offset from the
  // slot's storage start), read instead of the registered descriptor: e.g. one half of a GLU input.
  bool has_view = false;
  aclTensor view{};
  static EwInput tensor(int s) {
    EwInput in;
    in.slot = s;
    return in;
  }
  static EwInput constant(const aclScalar *v) {
    EwInput in;
    in.scalar = v;
    return in;
  }
  static EwInput tensor_view(int s, const aclTensor &v) {
    EwInput in = tensor(s);
    in.has_view = true;
    in.view = v;
    return in;
  }
  // A scratch operand in the workspace block `key` (booked with b.book), described by `v` (dtype,
  // dims, element strides; v.offset is added).
  core::WsKey ws;
  static EwInput workspace(core::WsKey key, const aclTensor &v) {
    EwInput in = tensor_view(-1, v);
    in.ws = key;
    return in;
  }
  // A contiguous scratch tensor of `shape` in `dt`, booked in the workspace as `name`.
  static EwInput scratch(core::OpBuilder &b, const char *name, const core::Shape &shape, aclDataType dt);
  bool is_tensor() const { return slot >= 0 || ws.booked(); }
};

// Where the operand `e` (described by `view`) is at run time.
core::OperandRef operand_ref(const EwInput &e, const aclTensor &view);

// The sub-view t[..., start : start + length * step : step, ...] along `dim` (0 <= dim < t.ndim).
aclTensor narrow_view(const aclTensor &t, int dim, int64_t start, int64_t length, int64_t step = 1);

// A functor parameter kept on the device (a foreach op's alpha tensor): read from element
// `elem` (storage element offset) of `slot` when the launch runs, so a repeatable executor sees
// the caller's current value.
struct EwLaunchScalar {
  int slot = -1;
  int64_t elem = 0;
  aclDataType dtype = ACL_FLOAT;
};

struct EwSpec {
  kernels::EwOp op = kernels::EwOp::kIdentity;
  aclDataType compute_dtype = ACL_FLOAT;  // the promoted dtype; computation in its compute type
  kernels::OpScalars scalars;             // op parameters (alpha, ...), filled by set_scalar
  EwLaunchScalar launch_s0;               // when its slot is set: s0 read at launch instead
  void set_scalar(int k, const aclScalar *s);
  void set_scalar(int k, double v);
};

// Validates the output for writing, plans the loop over `out_slot` and `inputs`, and adds the step.
// Throws 561003 when no kernel exists for the op in that compute type.
void record_elementwise(core::OpBuilder &b, const EwSpec &spec, int out_slot, const std::vector<EwInput> &inputs);
// The same, writing a view of a slot (EwInput::tensor_view) or a workspace operand.
void record_elementwise(core::OpBuilder &b, const EwSpec &spec, const EwInput &out, const std::vector<EwInput> &inputs);

// out = 0 (an empty sum: einsum over an empty index, a gradient over no rows).
void record_zero_fill(core::OpBuilder &b, const EwInput &out);

}  // namespace opsnn::ops
