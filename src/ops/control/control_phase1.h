// The phase 1 of the stream-control table (src/ops/control/sleep.ops).
//
// aclnnSleep: the stream waits `cycles` clock cycles. cycles: one value (161001 null, 161002 another
// count) in [1, 1782000000000] (the public page: positive, and 1.782e12 cycles, 18 minutes at the
// NPU's 1.65 GHz clock, the most its execution timeout allows; 161002 outside). On the CPU a cycle is
// 1 / 1.65 ns (kSleepClockGHz): the launch always goes to the stream's worker (a core::StreamWaitStep,
// never run inline on an idle stream), whose step sleeps until that much steady-clock
// time has passed since the step began (the last 100 us spun), so the launch returns at once and a
// synchronisation waits. No tensors, no workspace.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"

namespace opsnn::ops {

constexpr double kSleepClockGHz = 1.65;
constexpr int64_t kSleepMaxCycles = 1782000000000;

struct ControlRule {
  core::DtypeMask dtypes;  // the values' dtype (INT64)
};

struct ControlCall {
  const aclIntArray *cycles = nullptr;
};

void control_phase1(core::OpBuilder &b, const ControlRule &rule, const ControlCall &c);

}  // namespace opsnn::ops
