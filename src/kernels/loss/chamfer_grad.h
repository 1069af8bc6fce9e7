// The chamfer distance's gradient through the forward's nearest-point indices. Over raw pointers
// and element strides; knows nothing of aclTensor. With p1 = xyz1[b, i], q1 = xyz2[b, idx1[b, i]],
// p2 = xyz2[b, j], q2 = xyz1[b, idx2[b, j]] (2-d points):
//   gradXyz1[b, i] += 2 gradDist1[b, i] (p1 - q1);   gradXyz2[b, idx1[b, i]] -= the same
//   gradXyz2[b, j] += 2 gradDist2[b, j] (p2 - q2);   gradXyz1[b, idx2[b, j]] -= the same
// Each batch is loaded into double arrays and summed by one task in that order, so results never
// depend on the thread count. Every index is checked first: one outside the other set fails the launch (161002, the
// index named) before anything is written.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"

namespace opsnn::kernels {

// A [B, P] or [B, P, 2] operand: element strides along the batch, the points and the coordinate.
struct ChamferOperand {
  aclDataType dtype = ACL_FLOAT;
  int64_t batch = 0, point = 0, coord = 0;
};

enum ChamferRole : int { kChXyz1, kChXyz2, kChIdx1, kChIdx2, kChGrad1, kChGrad2, kChOut1, kChOut2, kChRoleCount };

struct ChamferGradPlan {
  int64_t batches = 0, n = 0, m = 0;  // xyz1 has n points, xyz2 m
  ChamferOperand op[kChRoleCount];
  int tasks = 1;
  // Per task: each set's coordinates, accumulators, gradients and indices (6 words per point).
  uint64_t workspace_bytes() const;
};

struct ChamferGradArgs {
  char *p[kChRoleCount] = {};  // inputs are read through these too
  void *workspace = nullptr;
};

// Phase 2. Returns 0, or 161002 after opsnn::set_last_error for an index out of range.
int chamfer_grad_run(const ChamferGradPlan &plan, const ChamferGradArgs &args);

}  // namespace opsnn::kernels
