// Phase-1 check shared by the families whose ops write several outputs: every written tensor holds
// no element twice and shares no memory with any other argument. Arg is any named-tensor struct
// with `const aclTensor *t` and `const char *name` (core::NamedTensor or a family's own).
#pragma once

#include <initializer_list>

#include "common/error.h"
#include "core/op_checks.h"

namespace opsnn::core {

template <class Arg>
void check_outputs_apart(std::initializer_list<const Arg *> outs, std::initializer_list<const Arg *> all) {
  for (const Arg *w : outs) {
    if (w->t == nullptr) continue;
    check_no_internal_overlap(*w->t, w->name);
    for (const Arg *a : all)
      if (a != w && a->t != nullptr && memory_overlap(*w->t, *a->t) != Overlap::kNone)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s overlaps %s in memory", w->name, a->name);
  }
}

}  // namespace opsnn::core
