#include "ops/activation/activation_grad_common.h"

#include <string>

#include "common/error.h"
#include "core/op_checks.h"

namespace opsnn::ops {

void check_grad_tensor(const aclTensor *t, const char *name, const std::vector<aclDataType> &dtypes) {
  core::check_tensor(t, name);
  std::string list;
  for (aclDataType d : dtypes) {
    if (d == t->dtype) return;
    list += std::string(list.empty() ? "" : ", ") + core::dtype_name(d);
  }
  throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; expected one of %s", name, core::dtype_name(t->dtype),
              list.c_str());
}

}  // namespace opsnn::ops
