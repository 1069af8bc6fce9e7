// OpsNN's log level at run time. At start it follows the vendor variables (docs/ARCHITECTURE.md,
// "Debug logging"): ASCEND_GLOBAL_LOG_LEVEL 0 debug, 1 info, 2 warning, 3 error, 4 null;
// ASCEND_SLOG_PRINT_TO_STDOUT=1 prints to stdout; OPSNN_LOG=debug|info|warning|error|off.
#ifndef OPSNN_LOG_H_
#define OPSNN_LOG_H_

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

// Sets the level (0 debug .. 3 error, 4 null); level 0 also turns on the verbose lines
// (opsnn_verbose,phase1/exec), any other level turns them off. Returns the previous level, or -1
// for a level outside 0..4 (nothing changed).
ACL_FUNC_VISIBILITY int opsnnSetLogLevel(int level);
ACL_FUNC_VISIBILITY int opsnnGetLogLevel(void);

#ifdef __cplusplus
}
#endif

#endif  // OPSNN_LOG_H_
