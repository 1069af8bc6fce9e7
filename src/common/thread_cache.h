// A per-thread cache of heap objects of one type, so that objects created and destroyed once per
// call (tensor descriptors, scalars, executors: the one-shot client pattern) skip malloc / free
// and, for an object freed by another thread than its creator, the allocator's cross-thread path.
// Objects in the cache were allocated with `new T` and are freed with `delete` once the cache is
// full or its thread exits; a thread past its exit (static destructors) bypasses the cache.
#pragma once

#include <cstddef>

namespace opsnn {

template <class T, size_t kCapacity>
class ThreadCache {
 public:
  // A cached object (its state is whatever give() left), or nullptr when the cache is empty.
  static T *take() {
    List *l = list();
    return l && l->n > 0 ? l->items[--l->n] : nullptr;
  }
  // Keeps `p` for a later take(); false when the cache is full or gone (the caller deletes it).
  static bool give(T *p) {
    List *l = list();
    if (!l || l->n == kCapacity) return false;
    l->items[l->n++] = p;
    return true;
  }

 private:
  enum : int { kUnused = 0, kAlive = 1, kDead = 2 };
  struct List {
    T *items[kCapacity];
    size_t n = 0;
    List() { state() = kAlive; }
    ~List() {
      state() = kDead;
      while (n > 0) delete items[--n];
    }
  };
  static int &state() {
    static thread_local int s = kUnused;  // trivially destructible: readable during thread exit
    return s;
  }
  static List *list() {
    if (state() == kDead) return nullptr;
    static thread_local List l;
    return &l;
  }
};

}  // namespace opsnn
