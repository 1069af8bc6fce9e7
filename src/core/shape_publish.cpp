#include "core/shape_publish.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

namespace opsnn::core {
namespace {

struct Registry {
  std::mutex mu;
  std::vector<std::pair<const aclTensor *, const void *>> entries;
  std::atomic<size_t> size{0};
};

Registry &registry() {
  static Registry *r = new Registry;  // never destroyed: descriptors may be destroyed at exit
  return *r;
}

}  // namespace

void shape_target_register(const aclTensor *t, const void *owner) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.entries.emplace_back(t, owner);
  r.size.store(r.entries.size(), std::memory_order_relaxed);
}

void shape_target_unregister_owner(const void *owner) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.entries.erase(std::remove_if(r.entries.begin(), r.entries.end(), [&](const auto &e) { return e.second == owner; }),
                  r.entries.end());
  r.size.store(r.entries.size(), std::memory_order_relaxed);
}

void shape_target_forget(const aclTensor *t) {
  Registry &r = registry();
  // The owner's thread destroys the descriptor it registered (or synchronises with that thread
  // first), so a relaxed load sees its registration.
  if (r.size.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard<std::mutex> lock(r.mu);
  r.entries.erase(std::remove_if(r.entries.begin(), r.entries.end(), [&](const auto &e) { return e.first == t; }),
                  r.entries.end());
  r.size.store(r.entries.size(), std::memory_order_relaxed);
}

bool shape_target_publish(const aclTensor *t, const void *owner, const int64_t *dims, const int64_t *strides) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const auto &e : r.entries)
    if (e.first == t && e.second == owner) {
      aclTensor *w = const_cast<aclTensor *>(t);
      std::memcpy(w->dims, dims, sizeof(int64_t) * static_cast<size_t>(w->ndim));
      std::memcpy(w->strides, strides, sizeof(int64_t) * static_cast<size_t>(w->ndim));
      return true;
    }
  return false;
}

}  // namespace opsnn::core
