// Multi-scale deformable attention (Deformable DETR's MSDeformAttn) and its gradient over strided views
// (formulas: src/ops/vfusion/msda.ops). Double arithmetic, each written element rounded once. The forward
// runs one (batch, query) row per task; the gradient one (batch, head) pair per task, which owns
// gradValue[b, :, h, :] (accumulated in double in the task, in query / level / point order), so results never
// depend on the thread count.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"

namespace opsnn::kernels {

struct MsdaPlan {
  int64_t bs = 0, keys = 0, heads = 0, channels = 0, queries = 0, levels = 0, points = 0;
  aclDataType dtype = ACL_FLOAT;                                      // value, location, weights, outputs
  aclDataType shape_dtype = ACL_INT32, start_dtype = ACL_INT32;      // spatialShape, levelStartIndex
  // Element strides: value [bs, keys, heads, C]; location [bs, nq, nh, nl, np, 2]; weight [bs, nq, nh, nl, np];
  // out (the forward's output or gradOutput) [bs, nq, nh * C]; spatialShape [nl, 2]; levelStartIndex [nl].
  int64_t value[4] = {}, loc[6] = {}, attn[5] = {}, out[3] = {}, shape[2] = {}, start = 0;
  int64_t dvalue[4] = {}, dloc[6] = {}, dattn[5] = {};  // the gradient's outputs
  bool backward = false;
};

struct MsdaArgs {
  const char *value = nullptr, *shape = nullptr, *start = nullptr, *loc = nullptr, *attn = nullptr;
  const char *dy = nullptr;  // gradOutput (backward)
  char *out = nullptr;       // forward output
  char *dvalue = nullptr, *dloc = nullptr, *dattn = nullptr;
};

// Reads and checks the level table first (161002 naming spatialShape / levelStartIndex when a level has a
// negative size or does not fit in value's keys; nothing written then), then computes. Returns 0 or the status.
int msda_run(const MsdaPlan &plan, const MsdaArgs &args);

}  // namespace opsnn::kernels
