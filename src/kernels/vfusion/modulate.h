// Modulate and its gradient over strided [B, L, D] views with per-(batch, feature) scale / shift
// (formulas: src/ops/vfusion/modulate.ops). Double arithmetic, each written element rounded once; the
// sums over L of the backward run per batch in one task, so results never depend on the thread count.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"

namespace opsnn::kernels {

struct ModulatePlan {
  int64_t B = 0, L = 0, D = 0;
  aclDataType dtype = ACL_FLOAT;
  // Element strides along (B, L, D) of x, out / dx, dy; along (B, D) of scale, shift, dscale, dshift.
  int64_t x[3] = {}, y[3] = {}, dy[3] = {};
  int64_t scale[2] = {}, shift[2] = {}, dscale[2] = {}, dshift[2] = {};
  bool backward = false;
};

struct ModulateArgs {
  const char *x = nullptr, *scale = nullptr, *shift = nullptr, *dy = nullptr;  // scale / shift: null counts as 0
  char *y = nullptr;                                                          // out, or grad_input
  char *dscale = nullptr, *dshift = nullptr;                                  // null: not computed
};

void modulate_run(const ModulatePlan &plan, const ModulateArgs &args);

}  // namespace opsnn::kernels
