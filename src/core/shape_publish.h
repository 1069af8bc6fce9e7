// Descriptors whose view shape a launch rewrites (the data-dependent-size ops, ops/layout/dyn_phase1):
// phase 1 registers the caller's output descriptor for its executor (the owner); the launch
// rewrites the shape only while that registration stands. aclDestroyTensor / aclInitTensor drop a
// descriptor's registrations (a destroyed or re-initialised descriptor is never written, even when
// its memory is recycled by the descriptor cache), and the owner drops its own when the executor
// is destroyed. Destroying a descriptor costs one relaxed load unless registrations exist.
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace opsnn::core {

void shape_target_register(const aclTensor *t, const void *owner);
void shape_target_unregister_owner(const void *owner);
// Called for every destroyed / re-initialised descriptor.
void shape_target_forget(const aclTensor *t);
// Writes dims / strides (ndim values each; ndim unchanged) into t if `owner` still holds t.
// Returns whether it wrote.
bool shape_target_publish(const aclTensor *t, const void *owner, const int64_t *dims, const int64_t *strides);

}  // namespace opsnn::core
