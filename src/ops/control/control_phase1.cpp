// aclnnSleep's phase 1 and its step (ops/control/control_phase1.h).
#include "ops/control/control_phase1.h"

#include <chrono>
#include <cmath>
#include <string>
#include <thread>

#include "common/error.h"
#include "core/op_checks.h"
#include "core/stream_wait_step.h"
#include "core/verbose.h"

namespace opsnn::ops {
namespace {

// A stream wait (core/stream_wait_step.h): always queued for the stream's worker.
struct SleepStep final : core::StreamWaitStep {
  std::chrono::nanoseconds wait{0};
  int run(const core::LaunchArgs &) const override {
    using Clock = std::chrono::steady_clock;
    const Clock::time_point end = Clock::now() + wait;
    constexpr auto kSpin = std::chrono::microseconds(100);  // the OS wakes late: spin the tail
    for (Clock::time_point now = Clock::now(); now < end; now = Clock::now())
      if (end - now > kSpin) std::this_thread::sleep_for(end - now - kSpin);
    return 0;
  }
};

}  // namespace

void control_phase1(core::OpBuilder &b, const ControlRule &, const ControlCall &c) {
  core::check_not_null(c.cycles, "cycles");
  if (c.cycles->values.size() != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "cycles has %zu values; expected 1", c.cycles->values.size());
  const int64_t cycles = c.cycles->values[0];
  if (cycles < 1 || cycles > kSleepMaxCycles)
    throw_error(ACLNN_ERR_PARAM_INVALID, "cycles[0] is %lld; expected 1 to %lld", static_cast<long long>(cycles),
                static_cast<long long>(kSleepMaxCycles));
  auto &st = b.add_step<SleepStep>();
  st.wait = std::chrono::nanoseconds(static_cast<int64_t>(std::llround(static_cast<double>(cycles) / kSleepClockGHz)));
  core::record_choice("control:sleep/steady_clock", nullptr);
}

}  // namespace opsnn::ops
