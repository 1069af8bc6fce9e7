// A step that is a wait the stream does (aclnnSleep): an executor whose only step is one is always
// queued for the stream's worker, never run inline on the launching thread of an idle stream
// (core/executor.cpp), so the launch returns at once and a synchronisation waits.
#pragma once

#include "core/executor.h"

namespace opsnn::core {

class StreamWaitStep : public Step {};

// The executor's steps are all stream waits (and there is at least one).
bool only_stream_waits(const aclOpExecutor &ex);

}  // namespace opsnn::core
