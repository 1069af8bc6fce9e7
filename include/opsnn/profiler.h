// The OpsNN profiler's C interface (docs/ARCHITECTURE.md, "Profiling"). Any aclnn program can also
// be profiled without code changes: OPSNN_PROFILE=<path.json> writes a Chrome trace (Perfetto,
// chrome://tracing) at exit and on aclFinalize.
//
// Events: "X" complete events with ts/dur in microseconds, cat one of phase1 (aclnnXxxGetWorkspaceSize),
// launch (aclnnXxx on the host), kernel (the op's steps on the stream worker or inline), sync
// (aclrtSynchronize*, and the wait of a synchronous copy) and copy (aclrtMemcpy*, args.bytes);
// args.op names the op, args.workspace_bytes / args.impl where known.
#ifndef OPSNN_PROFILER_H_
#define OPSNN_PROFILER_H_

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

// Opens a profiling session (profiling is on while any is open) and returns its id.
ACL_FUNC_VISIBILITY int opsnnProfilerStart(void);
// Closes a session and returns the events recorded since its start as a JSON array (metadata "M"
// events first), malloc'ed: release it with opsnnProfilerFree. An unknown id gives "[]".
ACL_FUNC_VISIBILITY char *opsnnProfilerStop(int session);
ACL_FUNC_VISIBILITY void opsnnProfilerFree(char *events);
// 1 while profiling is on (a session is open or OPSNN_PROFILE is set), else 0.
ACL_FUNC_VISIBILITY int opsnnProfilerEnabled(void);
// Writes {"traceEvents": <events>} to `path`; 0 on success.
ACL_FUNC_VISIBILITY int opsnnProfilerWriteTrace(const char *path, const char *events);

#ifdef __cplusplus
}
#endif

#endif  // OPSNN_PROFILER_H_
