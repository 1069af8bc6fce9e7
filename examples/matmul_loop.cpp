// OpsNN demo: the inference-loop pattern of aclnn clients.
//
// Phase 1 (aclnnMmGetWorkspaceSize) runs ONCE; the executor is made repeatable and then
// launched a thousand times (phase 2, aclnnMm), each time re-pointed at other buffers with
// aclSetInputTensorAddr / aclSetOutputTensorAddr. Every result is checked against a host
// reference. Then the cost per call of phase 1, of phase 2 and of the "one-shot" pattern
// (tensors + both phases on every call) is measured and printed.
//
// Uses only the public headers of the install tree and standard C++17.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_mm.h"

namespace {

constexpr int64_t kM = 128;
constexpr int64_t kK = 256;
constexpr int64_t kN = 64;
constexpr int kSets = 4;       // input buffer sets the loop rotates through
constexpr int kIters = 1000;   // phase-2 launches of the repeatable executor
constexpr int kTimed = 1000;   // calls per timing measurement
constexpr double kRelTol = 1e-4;

using Clock = std::chrono::steady_clock;

void fail(const char *what, long code) {
  const char *msg = aclGetRecentErrMsg();
  std::fprintf(stderr, "FAILED: %s returned %ld%s%s\n", what, code, msg ? ": " : "", msg ? msg : "");
  std::exit(1);
}

#define CHECK(expr)                                       \
  do {                                                    \
    const long check_rc_ = static_cast<long>(expr);       \
    if (check_rc_ != 0) fail(#expr, check_rc_);           \
  } while (0)

struct Stats {
  double median;
  double mean;
};

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Row-major contiguous FLOAT tensor whose storage is the view itself.
aclTensor *make_tensor(int64_t rows, int64_t cols, void *data) {
  const int64_t shape[2] = {rows, cols};
  const int64_t strides[2] = {cols, 1};
  aclTensor *t = aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 2, data);
  if (t == nullptr) fail("aclCreateTensor", -1);
  return t;
}

struct Lcg {
  uint64_t s;
  float next() {  // uniform in [-1, 1)
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<float>(static_cast<double>(s >> 40) / static_cast<double>(1ULL << 24) * 2.0 - 1.0);
  }
};

struct Reference {
  std::vector<double> value;   // exact-ish product (double accumulation)
  std::vector<double> absSum;  // sum of |a||b| per element: scale of the rounding error
};

Reference host_matmul(const std::vector<float> &a, const std::vector<float> &b) {
  Reference r{std::vector<double>(kM * kN, 0.0), std::vector<double>(kM * kN, 0.0)};
  for (int64_t i = 0; i < kM; ++i) {
    for (int64_t k = 0; k < kK; ++k) {
      const double av = a[i * kK + k];
      for (int64_t j = 0; j < kN; ++j) {
        const double bv = b[k * kN + j];
        r.value[i * kN + j] += av * bv;
        r.absSum[i * kN + j] += std::fabs(av * bv);
      }
    }
  }
  return r;
}

// Compares one produced M x N result with its reference; returns the number of mismatches.
int64_t check_result(const float *got, const Reference &ref, int call, double *maxRelErr) {
  int64_t bad = 0;
  for (int64_t e = 0; e < kM * kN; ++e) {
    const double want = ref.value[e];
    const double err = std::fabs(static_cast<double>(got[e]) - want);
    // Relative to the result, with the magnitude of the summed terms as floor (cancellation).
    const double scale = std::fmax(std::fabs(want), ref.absSum[e] / std::sqrt(static_cast<double>(kK)));
    const double rel = scale > 0 ? err / scale : err;
    if (!(rel <= kRelTol)) {  // also catches NaN (unwritten output)
      if (bad < 5) {
        std::fprintf(stderr, "mismatch in call %d at (%lld, %lld): got %.7g, want %.7g\n", call,
                     static_cast<long long>(e / kN), static_cast<long long>(e % kN),
                     static_cast<double>(got[e]), want);
      }
      ++bad;
    }
    if (rel > *maxRelErr) *maxRelErr = rel;
  }
  return bad;
}

}  // namespace

int main() {
  CHECK(aclInit(nullptr));
  CHECK(aclrtSetDevice(0));
  aclrtStream stream = nullptr;
  CHECK(aclrtCreateStream(&stream));

  const size_t aBytes = kM * kK * sizeof(float);
  const size_t bBytes = kK * kN * sizeof(float);
  const size_t cBytes = kM * kN * sizeof(float);

  // Inputs: kSets different (A, B) pairs on the device, and their host references.
  std::vector<void *> devA(kSets), devB(kSets);
  std::vector<Reference> refs;
  for (int s = 0; s < kSets; ++s) {
    Lcg rng{0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(s + 1)};
    std::vector<float> a(kM * kK), b(kK * kN);
    for (float &v : a) v = rng.next();
    for (float &v : b) v = rng.next();
    CHECK(aclrtMalloc(&devA[s], aBytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&devB[s], bBytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(devA[s], aBytes, a.data(), aBytes, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy(devB[s], bBytes, b.data(), bBytes, ACL_MEMCPY_HOST_TO_DEVICE));
    refs.push_back(host_matmul(a, b));
  }
  // Outputs: one slot per call, so every result of a run can be checked after one synchronize.
  // Slots are filled with NaN bytes first: a launch that wrote nothing cannot pass.
  const size_t outBytes = cBytes * kIters;
  void *devOut = nullptr;
  CHECK(aclrtMalloc(&devOut, outBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  auto out_slot = [&](int i) { return static_cast<char *>(devOut) + cBytes * static_cast<size_t>(i % kIters); };
  std::vector<float> hostOut(static_cast<size_t>(kM * kN) * kIters);

  int64_t totalBad = 0;
  double maxRelErr = 0.0;
  // Resets the output slots, and (after a run) copies them back and checks call i of the run
  // against the reference of the input set (i % kSets) it used.
  auto poison_outputs = [&]() { CHECK(aclrtMemset(devOut, outBytes, 0xFF, outBytes)); };
  auto check_run = [&](const char *name, int calls) {
    CHECK(aclrtMemcpy(hostOut.data(), outBytes, devOut, outBytes, ACL_MEMCPY_DEVICE_TO_HOST));
    int64_t bad = 0;
    for (int i = 0; i < calls && i < kIters; ++i) {
      bad += check_result(hostOut.data() + static_cast<size_t>(kM * kN) * i, refs[i % kSets], i, &maxRelErr);
    }
    std::printf("  %-34s %4d results checked, %lld mismatching elements\n", name,
                calls < kIters ? calls : kIters, static_cast<long long>(bad));
    totalBad += bad;
  };

  // ---- Phase 1, once. Tensors point at set 0; the addresses are re-set before each launch.
  aclTensor *self = make_tensor(kM, kK, devA[0]);
  aclTensor *mat2 = make_tensor(kK, kN, devB[0]);
  aclTensor *out = make_tensor(kM, kN, out_slot(0));
  uint64_t wsSize = 0;
  aclOpExecutor *exec = nullptr;
  CHECK(aclnnMmGetWorkspaceSize(self, mat2, out, /*cubeMathType=*/0, &wsSize, &exec));
  CHECK(aclSetAclOpExecutorRepeatable(exec));
  void *workspace = nullptr;
  if (wsSize > 0) CHECK(aclrtMalloc(&workspace, wsSize, ACL_MEM_MALLOC_HUGE_FIRST));

  auto launch_repeatable = [&](int i) {
    const int s = i % kSets;
    CHECK(aclSetInputTensorAddr(exec, 0, self, devA[s]));
    CHECK(aclSetInputTensorAddr(exec, 1, mat2, devB[s]));
    CHECK(aclSetOutputTensorAddr(exec, 0, out, out_slot(i)));
    CHECK(aclnnMm(workspace, wsSize, exec, stream));
  };

  std::printf("OpsNN matmul loop: Mm FLOAT [%lld x %lld] x [%lld x %lld], workspace %llu bytes\n",
              static_cast<long long>(kM), static_cast<long long>(kK), static_cast<long long>(kK),
              static_cast<long long>(kN), static_cast<unsigned long long>(wsSize));
  std::printf("correctness (every output vs. host double-precision reference, rel tol %.0e):\n", kRelTol);

  // ---- Phase 2, kIters times, rotating the input sets.
  poison_outputs();
  for (int i = 0; i < kIters; ++i) launch_repeatable(i);
  CHECK(aclrtSynchronizeStream(stream));
  check_run("repeatable executor, 1 x phase 1", kIters);

  // ---- Timing. Host-side costs are timed call by call and reported as median and mean: the
  // median is the cost of the call itself, the mean also carries the moments when the host
  // thread was preempted by the compute threads of earlier launches (few cores).
  std::vector<double> samples(kTimed);
  auto stats = [&]() {
    Stats st{0.0, 0.0};
    for (double v : samples) st.mean += v;
    st.mean /= kTimed;
    std::vector<double> sorted(samples);
    std::nth_element(sorted.begin(), sorted.begin() + kTimed / 2, sorted.end());
    st.median = sorted[kTimed / 2];
    return st;
  };

  // Phase 1 alone. Executors are kept and released after the timed loop.
  std::vector<aclOpExecutor *> execs(kTimed, nullptr);
  for (int i = 0; i < kTimed; ++i) {
    uint64_t ws = 0;
    const auto t = Clock::now();
    const aclnnStatus rc = aclnnMmGetWorkspaceSize(self, mat2, out, 0, &ws, &execs[i]);
    samples[i] = seconds_since(t);
    if (rc != 0) fail("aclnnMmGetWorkspaceSize (timed)", rc);
  }
  const Stats phase1 = stats();
  for (aclOpExecutor *e : execs) {
    CHECK(aclSetAclOpExecutorRepeatable(e));
    CHECK(aclDestroyAclOpExecutor(e));
  }

  // Phase 2 alone: launch cost (re-point + launch, asynchronous), and total per call including
  // the computation (N launches back to back, then synchronize).
  CHECK(aclrtSynchronizeStream(stream));
  poison_outputs();
  auto t0 = Clock::now();
  for (int i = 0; i < kTimed; ++i) {
    const auto t = Clock::now();
    launch_repeatable(i);
    samples[i] = seconds_since(t);
  }
  const Stats phase2Launch = stats();
  CHECK(aclrtSynchronizeStream(stream));
  const double phase2Total = seconds_since(t0) / kTimed;
  check_run("repeatable executor (timed run)", kTimed);

  // One-shot, as most clients call ops: tensors, phase 1 and phase 2 on every call; the
  // executor is not repeatable, so the launch consumes it.
  poison_outputs();
  t0 = Clock::now();
  for (int i = 0; i < kTimed; ++i) {
    const int s = i % kSets;
    const auto t = Clock::now();
    aclTensor *a = make_tensor(kM, kK, devA[s]);
    aclTensor *b = make_tensor(kK, kN, devB[s]);
    aclTensor *c = make_tensor(kM, kN, out_slot(i));
    uint64_t ws = 0;
    aclOpExecutor *e = nullptr;
    CHECK(aclnnMmGetWorkspaceSize(a, b, c, 0, &ws, &e));
    if (ws > wsSize) fail("one-shot workspace larger than the planned one", static_cast<long>(ws));
    CHECK(aclnnMm(ws > 0 ? workspace : nullptr, ws, e, stream));
    aclDestroyTensor(a);
    aclDestroyTensor(b);
    aclDestroyTensor(c);
    samples[i] = seconds_since(t);
  }
  const Stats oneShotLaunch = stats();
  CHECK(aclrtSynchronizeStream(stream));
  const double oneShotTotal = seconds_since(t0) / kTimed;
  check_run("one-shot (timed run)", kTimed);

  const double flops = 2.0 * kM * kN * kK;
  std::printf("\ncost per call, microseconds (%d calls each; host-side costs: median / mean):\n", kTimed);
  std::printf("  %-48s %9s %9s\n", "", "median", "mean");
  std::printf("  %-48s %9.3f %9.3f\n", "phase 1 only (aclnnMmGetWorkspaceSize)", phase1.median * 1e6,
              phase1.mean * 1e6);
  std::printf("  %-48s %9.3f %9.3f\n", "phase 2 launch (3 x re-point + aclnnMm, async)",
              phase2Launch.median * 1e6, phase2Launch.mean * 1e6);
  std::printf("  %-48s %9.3f %9.3f\n", "one-shot launch (3 tensors + phase 1 + phase 2)",
              oneShotLaunch.median * 1e6, oneShotLaunch.mean * 1e6);
  std::printf("  %-48s %9s %9.3f   %.1f GFLOP/s\n", "phase 2 total (launches + compute + sync)", "",
              phase2Total * 1e6, flops / phase2Total * 1e-9);
  std::printf("  %-48s %9s %9.3f   %.1f GFLOP/s\n", "one-shot total (launches + compute + sync)", "",
              oneShotTotal * 1e6, flops / oneShotTotal * 1e-9);
  std::printf("  (phase 2 saves %.3f us of host time per call over one-shot, by median)\n",
              (oneShotLaunch.median - phase2Launch.median) * 1e6);

  // ---- Tear down.
  CHECK(aclDestroyAclOpExecutor(exec));
  aclDestroyTensor(self);
  aclDestroyTensor(mat2);
  aclDestroyTensor(out);
  if (workspace != nullptr) CHECK(aclrtFree(workspace));
  CHECK(aclrtFree(devOut));
  for (int s = 0; s < kSets; ++s) {
    CHECK(aclrtFree(devA[s]));
    CHECK(aclrtFree(devB[s]));
  }
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());

  if (totalBad != 0) {
    std::printf("\nRESULT: FAILED (%lld mismatching elements, max rel. error %.3g)\n",
                static_cast<long long>(totalBad), maxRelErr);
    return 1;
  }
  std::printf("\nRESULT: OK (%d results checked, max rel. error %.3g)\n", kIters + 2 * kTimed, maxRelErr);
  return 0;
}
