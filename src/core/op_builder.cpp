#include "core/op_builder.h"

namespace opsnn::core {

std::vector<int> OpBuilder::input_list(size_t ir_index, const aclTensorList *l) {
  std::vector<int> slots;
  if (l == nullptr) return slots;
  for (size_t i = 0; i < l->tensors.size(); ++i) {
    if (l->tensors[i] == nullptr) throw_error(ACLNN_ERR_PARAM_NULLPTR, "tensor list element %zu is null", i);
    slots.push_back(add(l->tensors[i], &ex_->input_index, kRead));
  }
  ex_->lists.emplace_back(ir_index, slots);
  return slots;
}

std::vector<int> OpBuilder::output_list(size_t ir_index, const aclTensorList *l) {
  std::vector<int> slots;
  if (l == nullptr) return slots;
  for (size_t i = 0; i < l->tensors.size(); ++i) {
    if (l->tensors[i] == nullptr) throw_error(ACLNN_ERR_PARAM_NULLPTR, "tensor list element %zu is null", i);
    slots.push_back(add(l->tensors[i], &ex_->output_index, kWrite));
  }
  ex_->lists.emplace_back(ir_index, slots);
  return slots;
}

}  // namespace opsnn::core
