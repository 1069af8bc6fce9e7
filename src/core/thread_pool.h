// The one compute thread pool shared by every kernel (size: OPSNN_NUM_THREADS, default the
// cores this process may use). Never nested: a parallel_for called from inside a pool task, or
// while another stream's kernel holds the pool, runs on the calling thread alone.
#pragma once

#include <cstdint>
#include <functional>

namespace opsnn::core {

// Number of threads kernels may use (>= 1).
int num_threads();

// Calls fn(begin, end) on disjoint chunks covering [0, n). Chunks are whole multiples of `grain`
// (except the last). The partition into chunks affects only scheduling: kernels must make their
// results independent of it (split work by blocks fixed in phase 1).
void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)> &fn);

// Calls fn(task) for every task in [0, tasks): the tasks a kernel fixed in phase 1 (each with its
// own scratch and its own share of the work), spread over the pool.
inline void parallel_tasks(int64_t tasks, const std::function<void(int64_t)> &fn) {
  parallel_for(tasks, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) fn(t);
  });
}

}  // namespace opsnn::core
