// fbgemm's expand_into_jagged_permute over strided INT32 / INT64 vectors (formulas:
// src/ops/serving/jagged_permute.ops): every permute value and segment is checked before anything is written.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"

namespace opsnn::kernels {

struct JaggedPermutePlan {
  aclDataType dtype = ACL_INT64;
  int64_t t = 0, output_size = 0;
  int64_t permute = 1, in_offsets = 1, out_offsets = 1, out = 1;  // element strides
};

// Returns 0, or 161002 after opsnn::set_last_error (nothing written).
int jagged_permute_run(const JaggedPermutePlan &plan, const char *permute, const char *in_offsets,
                       const char *out_offsets, char *out);

}  // namespace opsnn::kernels
