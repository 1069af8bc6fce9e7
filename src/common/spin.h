// Bounded spin-waiting, shared by the stream workers, synchronising host threads and the compute
// pool: a wait that ends within microseconds must not pay a futex wake-up (tens of microseconds on
// a VM), but a spinning thread must not take the core from the thread it is waiting for.
#pragma once

#include <chrono>
#include <thread>

namespace opsnn {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

// Polls `ready` until it returns true (result true) or `limit` has passed (result: a last poll).
// The first polls only pause; later ones yield the core, so when there are more runnable threads
// than cores (a 2-thread kernel plus the host thread waiting for it) the waiter steps aside.
template <class Pred>
bool spin_until(Pred ready, std::chrono::microseconds limit) {
  constexpr int kPausePolls = 256;  // ~ a few microseconds
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (int i = 1;; ++i) {
    if (ready()) return true;
    if (i < kPausePolls) {
      cpu_relax();
      continue;
    }
    std::this_thread::yield();
    if (i % 16 == 0 && std::chrono::steady_clock::now() > deadline) return ready();
  }
}

}  // namespace opsnn
