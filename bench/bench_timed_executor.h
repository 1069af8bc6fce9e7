// The timing loop the single-op benchmarks share: a phase-1 status checked, the executor made repeatable, the
// workspace allocated, then phase 2 + synchronize per iteration, and everything released.
#pragma once

#include <benchmark/benchmark.h>

#include "acl/acl.h"
#include "bench_env.h"

namespace opsnn::bench {

// `status` and (ws, ex) are what the op's GetWorkspaceSize returned; launch(workspace, size, executor, stream) is
// its phase 2.
template <class Launch>
void time_executor(benchmark::State &state, int status, uint64_t ws, aclOpExecutor *ex, Launch launch) {
  if (status != 0) {
    state.SkipWithError(aclGetRecentErrMsg());
    return;
  }
  aclSetAclOpExecutorRepeatable(ex);
  void *wsp = nullptr;
  if (ws > 0) aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST);
  for (auto _ : state) {
    launch(wsp, ws, ex, env().stream);
    aclrtSynchronizeStream(env().stream);
  }
  aclDestroyAclOpExecutor(ex);
  if (wsp != nullptr) aclrtFree(wsp);
}

}  // namespace opsnn::bench
