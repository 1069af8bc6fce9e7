// The case and argument structs of the data-dependent-size table's harnesses (test_op_table_dyn.cpp and
// test_op_table_quant_scatter.cpp), which both include the generated dyn_table_cases.inc after this.
#pragma once

#include <algorithm>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "aclnn/aclnn_base.h"

namespace opsnn::test {

inline constexpr int64_t kNoDim = 1000;  // torch_npu's "no dim" for aclnnUniqueConsecutive

struct DynArgs {
  aclTensor *self = nullptr, *out = nullptr, *inverse = nullptr, *counts = nullptr, *mask = nullptr,
            *source = nullptr, *index = nullptr;
  aclTensorList *list = nullptr;  // ScatterList's varRef
  char *reduce = nullptr;         // ScatterList's reduceOptional
  aclTensor *quant_scales = nullptr, *quant_zero_points = nullptr;  // InplaceQuantScatter's
  int64_t quant_axis = -1, reduction = 1;
  const char *round_mode = "rint";  // InplaceQuantScatterV2's roundMode
  bool sorted = true, return_inverse = false, return_counts = false;
  int64_t dim = kNoDim;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct DynTableCase {
  std::string name, api, kind;
  std::vector<aclDataType> dtypes;
  std::map<std::string, std::string> names;  // tensor role -> parameter name
  std::vector<std::string> params;           // attribute roles the prototype has
  int (*phase1)(const DynArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
  bool has(const char *p) const { return std::find(params.begin(), params.end(), p) != params.end(); }
};
inline void PrintTo(const DynTableCase &c, std::ostream *os) { *os << c.name; }

}  // namespace opsnn::test
