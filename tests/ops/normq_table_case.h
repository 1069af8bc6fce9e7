// The registered case of the fused norm + quantisation table (src/ops/norm/norm_quant.ops) and the arguments
// of its calls, shared by its suites (test_op_table_normq.cpp, test_op_table_normq_mx.cpp); the cases
// themselves come from tools/gen_ops.py --tests (normq_table_cases.inc, included after this header).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "acl/acl_base.h"
#include "test_util.h"

namespace opsnn::test {

struct NormQuantArgs {
  aclTensor *x = nullptr, *x2 = nullptr, *gamma = nullptr, *beta = nullptr, *bias = nullptr, *scale1 = nullptr;
  aclTensor *scale2 = nullptr, *mod_scale = nullptr, *mod_shift = nullptr, *offset_out = nullptr;
  aclTensor *offset1 = nullptr, *offset2 = nullptr, *smooth1 = nullptr, *smooth2 = nullptr, *y1 = nullptr;
  aclTensor *y2 = nullptr, *xsum = nullptr, *rstd = nullptr, *norm_out = nullptr, *scale_out1 = nullptr;
  aclTensor *scale_out2 = nullptr;
  aclTensor *mean = nullptr, *mx_scale = nullptr;
  double eps = 1e-6;
  int64_t group = 1;
  bool activate = true;
  bool div_mode = false, output_rstd = true, additional_output = true;
  int64_t axis = -1, dst_type = 2, scale_alg = 0;
  char *round_mode = nullptr;
  int quant_mode = 0;
  const char *quant_mode_name = "static";
  aclBoolArray *output_mask = nullptr;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct NormQuantTableCase {
  std::string name, api;
  bool rms = true, grouped = false, dynamic = false, by_attr = false, divides = false, norm_out_before_beta = false;
  bool mx = false;  // the DynamicMxQuant rows
  std::vector<aclDataType> dtypes;
  std::vector<std::string> roles, names;
  int (*phase1)(const NormQuantArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
  bool has(const char *role) const { return std::find(roles.begin(), roles.end(), role) != roles.end(); }
  // The prototype names it without "Optional": it must be given.
  bool required(const char *role) const {
    const std::string n = name_of(role);
    return has(role) && (n.size() < 8 || n.compare(n.size() - 8, 8, "Optional") != 0);
  }
  std::string name_of(const char *role) const {
    for (size_t i = 0; i < roles.size(); ++i)
      if (roles[i] == role) return names[i];
    return "";
  }
};
inline void PrintTo(const NormQuantTableCase &c, std::ostream *os) { *os << c.name; }

// Phase 1 of `a` after `edit` fails with `code` and a message holding every word.
inline ::testing::AssertionResult rejects(const NormQuantTableCase &c, NormQuantArgs a,
                                          const std::function<void(NormQuantArgs &)> &edit, int code,
                                          std::initializer_list<const char *> words) {
  edit(a);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  return fails_with(c.phase1(a, &ws, &ex), code, words);
}

}  // namespace opsnn::test
