// The test harness of the stream-control table (src/ops/control/sleep.ops), cases registered from the table by
// tools/gen_ops.py --tests (control_table_cases.inc): aclnnSleep waits on its stream (the launch returns before
// the wait ends, a synchronisation waits for it; two queued sleeps wait one after the other; a repeatable
// executor waits at every launch) for cycles / 1.65 GHz, and every phase-1 error by name.
#include <chrono>
#include <ostream>
#include <string>
#include <vector>

#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct ControlArgs {
  const aclIntArray *cycles = nullptr;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct ControlTableCase {
  std::string name, api;
  std::vector<aclDataType> dtypes;
  int (*phase1)(const ControlArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
};
void PrintTo(const ControlTableCase &c, std::ostream *os) { *os << c.name; }

#include "control_table_cases.inc"

const std::vector<ControlTableCase> &all_cases() {
  static const std::vector<ControlTableCase> c = harness::sampled(control_table_cases());
  return c;
}

using Clock = std::chrono::steady_clock;
constexpr double kGHz = 1.65;  // the documented NPU clock the cycles count

int64_t cycles_of_ms(int64_t ms) { return static_cast<int64_t>(static_cast<double>(ms) * 1e6 * kGHz); }
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// One owned cycles array.
struct Cycles {
  int64_t none = 0;  // a non-null pointer for the empty array
  aclIntArray *a;
  explicit Cycles(std::vector<int64_t> v) : a(aclCreateIntArray(v.empty() ? &none : v.data(), v.size())) {}
  ~Cycles() { aclDestroyIntArray(a); }
};

class OpTableControl : public ::testing::TestWithParam<ControlTableCase> {};

TEST_P(OpTableControl, LaunchReturnsAndSynchronizeWaits) {
  const ControlTableCase &tc = GetParam();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), 0);
  const int64_t ms = 150;
  Cycles c({cycles_of_ms(ms)});
  std::vector<aclOpExecutor *> ex(2, nullptr);
  for (auto &e : ex) {
    uint64_t ws = 1;
    ASSERT_EQ(tc.phase1({c.a}, &ws, &e), 0) << aclGetRecentErrMsg();
    EXPECT_EQ(ws, 0u);
  }
  const Clock::time_point t0 = Clock::now();
  for (auto *e : ex) ASSERT_EQ(tc.launch(nullptr, 0, e, stream), 0) << aclGetRecentErrMsg();
  const double launched = ms_since(t0);
  EXPECT_LT(launched, ms / 2) << "the launches waited instead of the stream";
  ASSERT_EQ(aclrtSynchronizeStream(stream), 0);
  const double done = ms_since(t0);
  EXPECT_GE(done, 2.0 * ms * 0.999) << "two queued sleeps wait one after the other";
  EXPECT_LT(done, 2.0 * ms + 2000) << "waited far too long";
  ASSERT_EQ(aclrtDestroyStream(stream), 0);
}

TEST_P(OpTableControl, RepeatableExecutorWaitsAtEveryLaunch) {
  const ControlTableCase &tc = GetParam();
  const int64_t ms = 40;
  Cycles c({cycles_of_ms(ms)});
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(tc.phase1({c.a}, &ws, &ex), 0) << aclGetRecentErrMsg();
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  const Clock::time_point t0 = Clock::now();
  for (int i = 0; i < 3; ++i) ASSERT_EQ(tc.launch(nullptr, 0, ex, nullptr), 0);
  ASSERT_EQ(aclrtSynchronizeDevice(), 0);
  EXPECT_GE(ms_since(t0), 3.0 * ms * 0.999);
  aclDestroyAclOpExecutor(ex);
}

TEST_P(OpTableControl, OneCycleAndSmallWaits) {
  const ControlTableCase &tc = GetParam();
  for (int64_t cycles : {int64_t{1}, int64_t{1650}, cycles_of_ms(2)}) {
    Cycles c({cycles});
    const Clock::time_point t0 = Clock::now();
    ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) { return tc.phase1({c.a}, ws, ex); }, tc.launch), 0)
        << aclGetRecentErrMsg();
    EXPECT_GE(ms_since(t0), static_cast<double>(cycles) / kGHz * 1e-6 * 0.999);
  }
}

TEST_P(OpTableControl, ErrorsNameTheArgument) {
  const ControlTableCase &tc = GetParam();
  auto call = [&](const aclIntArray *a) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    return tc.phase1({a}, &ws, &ex);
  };
  EXPECT_TRUE(fails_with(call(nullptr), 161001, {"cycles"}));
  Cycles empty({}), two({10, 10}), zero({0}), negative({-5}), too_many({1782000000001});
  EXPECT_TRUE(fails_with(call(empty.a), 161002, {"cycles", "0 values"}));
  EXPECT_TRUE(fails_with(call(two.a), 161002, {"cycles", "2 values"}));
  EXPECT_TRUE(fails_with(call(zero.a), 161002, {"cycles[0]", "0"}));
  EXPECT_TRUE(fails_with(call(negative.a), 161002, {"cycles[0]", "-5"}));
  EXPECT_TRUE(fails_with(call(too_many.a), 161002, {"cycles[0]", "1782000000001"}));
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableControl, ::testing::ValuesIn(all_cases()), harness::case_name<ControlTableCase>);

}  // namespace
}  // namespace opsnn::test
