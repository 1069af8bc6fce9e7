#include "core/op_builder.h"

namespace opsnn::core {

// The elements of a tensor list, each registered by `add_one`, and the list's prototype position
// (aclSetDynamic*TensorAddr addresses the elements by it).
template <class AddOne>
std::vector<int> OpBuilder::add_list(size_t ir_index, const aclTensorList *l, AddOne &&add_one) {
  std::vector<int> slots;
  if (l == nullptr) return slots;
  for (size_t i = 0; i < l->tensors.size(); ++i) {
    if (l->tensors[i] == nullptr) throw_error(ACLNN_ERR_PARAM_NULLPTR, "tensor list element %zu is null", i);
    slots.push_back(add_one(l->tensors[i]));
  }
  ex_->lists.emplace_back(ir_index, slots);
  return slots;
}

std::vector<int> OpBuilder::input_list(size_t ir_index, const aclTensorList *l) {
  return add_list(ir_index, l, [&](const aclTensor *t) { return add(t, &ex_->input_index, kRead); });
}

std::vector<int> OpBuilder::output_list(size_t ir_index, const aclTensorList *l) {
  return add_list(ir_index, l, [&](const aclTensor *t) { return add(t, &ex_->output_index, kWrite); });
}

std::vector<int> OpBuilder::inout_list(size_t ir_index, const aclTensorList *l) {
  return add_list(ir_index, l, [&](const aclTensor *t) { return inout(t); });
}

}  // namespace opsnn::core
