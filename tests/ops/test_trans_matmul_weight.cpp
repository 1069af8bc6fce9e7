// aclnnCalculateMatmulWeightSize(V2) and aclnnTransMatmulWeight: the documented sizes, and matmuls
// on a re-laid weight give bit-identical results to the plain weight (small-M and blocked paths,
// both weight layouts, FLOAT / FLOAT16 / BF16), including repeatable executors re-pointed between a
// plain and a pre-packed weight; a runtime copy or memset into a pre-packed buffer, or an op's
// output written over it, makes it plain data again, in stream order.
#include <cstdint>
#include <cstring>
#include <vector>

#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_fill_scalar.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mm.h"
#include "aclnnop/aclnn_trans_matmul_weight.h"
#include "kernels/matmul/gemm.h"
#include "runtime/runtime.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

uint64_t size_v2(std::vector<int64_t> shape, aclDataType dt, int *status = nullptr) {
  aclIntArray *a = aclCreateIntArray(shape.data(), shape.size());
  uint64_t n = 0;
  const int st = aclnnCalculateMatmulWeightSizeV2(a, dt, &n);
  if (status) *status = st;
  aclDestroyIntArray(a);
  return n;
}

// Mm(x, b) -> out, queued on `st` (nullptr: the default stream, synchronised by run_op).
int run_mm(DeviceTensor &x, DeviceTensor &b, DeviceTensor &out, aclrtStream st = nullptr) {
  return run_op([&](uint64_t *sz, aclOpExecutor **e) { return aclnnMmGetWorkspaceSize(x, b, out, 0, sz, e); },
                aclnnMm, st);
}

int trans_weight(DeviceTensor &w) {
  return run_op([&](uint64_t *sz, aclOpExecutor **e) { return aclnnTransMatmulWeightGetWorkspaceSize(w, sz, e); },
                aclnnTransMatmulWeight);
}

// Bit-identical values (compared as the doubles DeviceTensor::values returns).
bool same_bits(const DeviceTensor &a, const DeviceTensor &b) {
  const auto va = a.values(), vb = b.values();
  return va.size() == vb.size() && std::memcmp(va.data(), vb.data(), va.size() * sizeof(double)) == 0;
}

TEST(CalculateMatmulWeightSize, DocumentedFormula) {
  EXPECT_EQ(size_v2({510, 510}, ACL_FLOAT16), 262144u);
  EXPECT_EQ(size_v2({100, 40}, ACL_FLOAT16), 112u * 48u);
  EXPECT_EQ(size_v2({100, 40}, ACL_BF16), 112u * 48u);
  EXPECT_EQ(size_v2({100, 40}, ACL_INT8), 112u * 64u);
  EXPECT_EQ(size_v2({3, 100, 40}, ACL_FLOAT16), 3u * 112u * 48u);
  const int64_t dims[2] = {17, 33};
  aclIntArray *a = aclCreateIntArray(dims, 2);
  uint64_t n = 0;
  EXPECT_EQ(aclnnCalculateMatmulWeightSize(a, &n), 0);
  EXPECT_EQ(n, 32u * 48u);
  EXPECT_EQ(aclnnCalculateMatmulWeightSize(a, nullptr), 161001);
  EXPECT_EQ(aclnnCalculateMatmulWeightSize(nullptr, &n), 161001);
  aclDestroyIntArray(a);
  int st = 0;
  size_v2({5}, ACL_FLOAT16, &st);
  EXPECT_TRUE(fails_with(st, 161002, {"tensorShape", "2 to 6"}));
  size_v2({5, 5}, ACL_INT32, &st);
  EXPECT_TRUE(fails_with(st, 161002, {"dataType"}));
  size_v2({5, -1}, ACL_FLOAT16, &st);
  EXPECT_TRUE(fails_with(st, 161002, {"tensorShape[1]"}));
}

// out = x @ w via Mm, where w is [k, n] (or the transposed view of [n, k]) in a buffer of the
// documented size; once plain, once after TransMatmulWeight. Bits must match.
void check_case(int64_t m, int64_t k, int64_t n, aclDataType dt, bool trans) {
  SCOPED_TRACE(::testing::Message() << "m " << m << " k " << k << " n " << n << " dt " << dt << " trans " << trans);
  const int64_t cap = static_cast<int64_t>(size_v2({k, n}, dt == ACL_FLOAT ? ACL_FLOAT16 : dt));
  DeviceTensor x({m, k}, dt);
  x.fill_random(-1, 1);
  std::vector<int64_t> ws = trans ? std::vector<int64_t>{1, k} : std::vector<int64_t>{n, 1};
  DeviceTensor w({k, n}, dt, ws, 0, cap);
  w.fill_random(-1, 1);
  DeviceTensor out1({m, n}, dt), out2({m, n}, dt);
  auto mm = [&](DeviceTensor &o) {
    return run_op([&](uint64_t *s, aclOpExecutor **e) { return aclnnMmGetWorkspaceSize(x, w, o, 0, s, e); }, aclnnMm);
  };
  ASSERT_EQ(mm(out1), 0) << aclGetRecentErrMsg();
  ASSERT_EQ(run_op([&](uint64_t *s, aclOpExecutor **e) { return aclnnTransMatmulWeightGetWorkspaceSize(w, s, e); },
                   aclnnTransMatmulWeight),
            0)
      << aclGetRecentErrMsg();
  ASSERT_EQ(mm(out2), 0) << aclGetRecentErrMsg();
  const auto a = out1.values(), b = out2.values();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(std::memcmp(&a[i], &b[i], sizeof(double)), 0) << "element " << i;
}

TEST(TransMatmulWeight, MatmulsBitIdenticalToPlainWeight) {
  reseed_for_current_test();
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
    for (bool trans : {false, true})
      for (int64_t m : {1, 3, 4, 7, 64})
        for (auto kn : {std::pair<int64_t, int64_t>{16, 16}, {33, 50}, {300, 17}, {520, 100}}) check_case(m, kn.first, kn.second, dt, trans);
}

// A weight in host memory (not an aclrtMalloc block) is left plain: the runtime cannot hear when it
// is freed and its address reused, so it is never registered as pre-packed (a stale entry would make
// the next plain weight at that address read as packed).
TEST(TransMatmulWeight, HostMemoryWeightStaysPlain) {
  reseed_for_current_test();
  // Host pointers are refused at launch in the checked mode (OPSNN_CHECKED=1); this is the normal mode's rule.
  struct NormalMode {
    bool was = rt::checked_mode();
    NormalMode() { rt::set_checked_mode_for_testing(false); }
    ~NormalMode() { rt::set_checked_mode_for_testing(was); }
  } normal_mode;
  const int64_t m = 3, k = 40, n = 24;
  const int64_t cap = static_cast<int64_t>(size_v2({k, n}, ACL_FLOAT16));
  std::vector<float> host(static_cast<size_t>(cap));
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(((i * 2654435761u) % 2001) / 1000.0 - 1.0);
  const std::vector<float> before = host;
  int64_t shape[2] = {k, n}, strides[2] = {n, 1}, storage = cap;
  aclTensor *w = aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, &storage, 1, host.data());
  ASSERT_EQ(run_op([&](uint64_t *s, aclOpExecutor **e) { return aclnnTransMatmulWeightGetWorkspaceSize(w, s, e); },
                   aclnnTransMatmulWeight),
            0)
      << aclGetRecentErrMsg();
  EXPECT_EQ(host, before) << "the host weight was re-laid";
  EXPECT_FALSE(kernels::gemm_prepacked_b_registered(host.data(), k, n, ACL_FLOAT, n, 1));
  // Mm over it equals Mm over the same values in device memory.
  DeviceTensor x({m, k}, ACL_FLOAT), dev({k, n}, ACL_FLOAT), o1({m, n}, ACL_FLOAT), o2({m, n}, ACL_FLOAT);
  x.fill_random(-1, 1);
  std::vector<double> plain(host.begin(), host.begin() + k * n);
  dev.set_values(plain);
  ASSERT_EQ(run_op([&](uint64_t *s, aclOpExecutor **e) { return aclnnMmGetWorkspaceSize(x, w, o1, 0, s, e); }, aclnnMm), 0);
  ASSERT_EQ(run_op([&](uint64_t *s, aclOpExecutor **e) { return aclnnMmGetWorkspaceSize(x, dev, o2, 0, s, e); }, aclnnMm), 0);
  EXPECT_EQ(o1.values(), o2.values());
  aclDestroyTensor(w);
}

TEST(TransMatmulWeight, RepeatableExecutorRepointedBetweenPlainAndPacked) {
  reseed_for_current_test();
  const int64_t m = 2, k = 64, n = 40;
  DeviceTensor x({m, k}, ACL_FLOAT), plain({k, n}, ACL_FLOAT);
  DeviceTensor packed({k, n}, ACL_FLOAT, {n, 1}, 0, static_cast<int64_t>(size_v2({k, n}, ACL_FLOAT16)));
  x.fill_random(-1, 1);
  plain.fill_random(-1, 1);
  packed.set_values(plain.values());
  ASSERT_EQ(run_op([&](uint64_t *s, aclOpExecutor **e) { return aclnnTransMatmulWeightGetWorkspaceSize(packed, s, e); },
                   aclnnTransMatmulWeight),
            0);
  DeviceTensor o1({m, n}, ACL_FLOAT), o2({m, n}, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(aclnnMmGetWorkspaceSize(x, plain, o1, 0, &ws, &ex), 0);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  void *wsp = nullptr;
  if (ws > 0) ASSERT_EQ(aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST), 0);
  ASSERT_EQ(aclnnMm(wsp, ws, ex, nullptr), 0);
  ASSERT_EQ(aclSetInputTensorAddr(ex, 1, packed, packed.data()), 0);
  ASSERT_EQ(aclSetOutputTensorAddr(ex, 0, o2, o2.data()), 0);
  ASSERT_EQ(aclnnMm(wsp, ws, ex, nullptr), 0);
  ASSERT_EQ(aclrtSynchronizeDevice(), 0);
  const auto a = o1.values(), b = o2.values();
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]) << i;
  aclDestroyAclOpExecutor(ex);
  if (wsp) aclrtFree(wsp);
}

// A weight re-laid by TransMatmulWeight and then overwritten through the runtime (new plain values
// copied in, whole or in part) is read as plain again, and matmuls queued before the copy still see
// the packed weight. `fresh` holds the same plain values in an ordinary buffer: bits must match it.
TEST(TransMatmulWeight, RuntimeCopiesIntoAPackedWeightMakeItPlain) {
  reseed_for_current_test();
  const int64_t m = 3, k = 48, n = 40;
  const int64_t cap = static_cast<int64_t>(size_v2({k, n}, ACL_FLOAT16));
  DeviceTensor x({m, k}, ACL_FLOAT), w({k, n}, ACL_FLOAT, {n, 1}, 0, cap), fresh({k, n}, ACL_FLOAT);
  x.fill_random(-1, 1);
  auto mm = [&](DeviceTensor &b, DeviceTensor &o, aclrtStream st = nullptr) { return run_mm(x, b, o, st); };
  auto pack = [&] { return trans_weight(w); };
  auto same = same_bits;
  std::vector<float> host(static_cast<size_t>(cap), 0.0f);
  auto new_values = [&](uint32_t seed) {  // plain row-major k x n into host[] and into fresh
    std::vector<double> v(static_cast<size_t>(k * n));
    for (size_t i = 0; i < v.size(); ++i) v[i] = host[i] = static_cast<float>(((i * 2654435761u + seed) % 2001) / 1000.0 - 1.0);
    fresh.set_values(v);
  };
  DeviceTensor got({m, n}, ACL_FLOAT), want({m, n}, ACL_FLOAT);

  // 1. aclrtMemcpy of the whole buffer.
  new_values(1);
  ASSERT_EQ(aclrtMemcpy(w.data(), cap * 4, host.data(), cap * 4, ACL_MEMCPY_HOST_TO_DEVICE), 0);
  ASSERT_EQ(pack(), 0) << aclGetRecentErrMsg();
  new_values(2);
  ASSERT_EQ(aclrtMemcpy(w.data(), cap * 4, host.data(), cap * 4, ACL_MEMCPY_HOST_TO_DEVICE), 0);
  ASSERT_EQ(mm(w, got), 0);
  ASSERT_EQ(mm(fresh, want), 0);
  EXPECT_TRUE(same(got, want)) << "after aclrtMemcpy";

  // 2. One copy into the middle of the buffer (not at its start): from then on the buffer is read
  // plain, whatever it holds (here half packed layout, half new values).
  ASSERT_EQ(pack(), 0);
  new_values(5);
  const size_t off = static_cast<size_t>(k / 2 * n);
  ASSERT_EQ(aclrtMemcpy(static_cast<float *>(w.data()) + off, (cap - off) * 4, host.data() + off, 4 * n,
                        ACL_MEMCPY_HOST_TO_DEVICE), 0);
  fresh.set_values(w.values());  // the plain reading of w's bytes
  ASSERT_EQ(mm(w, got), 0);
  ASSERT_EQ(mm(fresh, want), 0);
  EXPECT_TRUE(same(got, want)) << "after a partial aclrtMemcpy";
  new_values(2);
  ASSERT_EQ(aclrtMemcpy(w.data(), cap * 4, host.data(), cap * 4, ACL_MEMCPY_HOST_TO_DEVICE), 0);

  // 3. Stream order: Mm on the packed weight, then aclrtMemcpyAsync of new plain values, then Mm,
  // all queued on one stream before anything runs.
  ASSERT_EQ(pack(), 0);
  DeviceTensor before({m, n}, ACL_FLOAT), before_want({m, n}, ACL_FLOAT);
  ASSERT_EQ(mm(fresh, before_want), 0);  // the packed weight holds seed 2's values
  aclrtStream st = nullptr;
  ASSERT_EQ(aclrtCreateStream(&st), 0);
  ASSERT_EQ(mm(w, before, st), 0);
  new_values(3);
  ASSERT_EQ(aclrtMemcpyAsync(w.data(), cap * 4, host.data(), cap * 4, ACL_MEMCPY_HOST_TO_DEVICE, st), 0);
  ASSERT_EQ(mm(w, got, st), 0);
  ASSERT_EQ(aclrtSynchronizeStream(st), 0);
  ASSERT_EQ(aclrtDestroyStream(st), 0);
  ASSERT_EQ(mm(fresh, want), 0);
  EXPECT_TRUE(same(before, before_want)) << "the matmul queued before the copy";
  EXPECT_TRUE(same(got, want)) << "after aclrtMemcpyAsync";

  // 4. aclrtMemcpy2d over the weight's rows.
  ASSERT_EQ(pack(), 0);
  new_values(4);
  ASSERT_EQ(aclrtMemcpy2d(w.data(), n * 4, host.data(), n * 4, n * 4, k, ACL_MEMCPY_HOST_TO_DEVICE), 0);
  ASSERT_EQ(mm(w, got), 0);
  ASSERT_EQ(mm(fresh, want), 0);
  EXPECT_TRUE(same(got, want)) << "after aclrtMemcpy2d";

  // 5. aclrtMemsetAsync over a few rows in the middle (the rest keeps the packed layout's bytes).
  ASSERT_EQ(pack(), 0);
  ASSERT_EQ(aclrtCreateStream(&st), 0);
  ASSERT_EQ(aclrtMemsetAsync(static_cast<float *>(w.data()) + 5 * n, (cap - 5 * n) * 4, 0, 3 * n * 4, st), 0);
  ASSERT_EQ(aclrtSynchronizeStream(st), 0);
  ASSERT_EQ(aclrtDestroyStream(st), 0);
  fresh.set_values(w.values());
  ASSERT_EQ(mm(w, got), 0);
  ASSERT_EQ(mm(fresh, want), 0);
  EXPECT_TRUE(same(got, want)) << "after aclrtMemsetAsync";

  // 6. A 2-D copy writes only its rows: a weight lying in the pitch padding between two rows stays
  // packed (rows of 16 floats at storage elements [0, 16) and [16 + cap, 32 + cap); the weight's
  // packed extent is [16, 16 + cap)).
  DeviceTensor wv({k, n}, ACL_FLOAT, {n, 1}, 16, 32 + cap);
  new_values(6);
  wv.set_values(fresh.values());
  ASSERT_EQ(trans_weight(wv), 0);
  std::vector<float> rows(32, 0.5f);
  ASSERT_EQ(aclrtMemcpy2d(wv.data(), (16 + cap) * 4, rows.data(), 64, 64, 2, ACL_MEMCPY_HOST_TO_DEVICE), 0);
  ASSERT_EQ(mm(wv, got), 0);
  ASSERT_EQ(mm(fresh, want), 0);
  EXPECT_TRUE(same(got, want)) << "a weight between the rows of an aclrtMemcpy2d";
}

// An op whose output is written over a pre-packed weight (aclnnInplaceCopy of new plain values,
// aclnnInplaceFillScalar over a few of its rows) makes it plain again, when the op runs: a matmul
// queued before it still sees the packed weight. An output view whose bounding range covers the
// packed extent without any of its elements touching it leaves the weight packed.
TEST(TransMatmulWeight, OpOutputsOverAPackedWeightMakeItPlain) {
  reseed_for_current_test();
  const int64_t m = 3, k = 40, n = 24;
  const int64_t cap = static_cast<int64_t>(size_v2({k, n}, ACL_FLOAT16));
  DeviceTensor x({m, k}, ACL_FLOAT), w({k, n}, ACL_FLOAT, {n, 1}, 0, cap), fresh({k, n}, ACL_FLOAT),
      src({k, n}, ACL_FLOAT);
  x.fill_random(-1, 1);
  auto mm = [&](DeviceTensor &b, DeviceTensor &o, aclrtStream st = nullptr) { return run_mm(x, b, o, st); };
  auto pack = trans_weight;
  auto same = same_bits;
  DeviceTensor got({m, n}, ACL_FLOAT), want({m, n}, ACL_FLOAT), before({m, n}, ACL_FLOAT),
      before_want({m, n}, ACL_FLOAT);

  // 1. aclnnInplaceCopy of new plain values over the whole packed weight, queued on one stream after
  //    a matmul that must still read the packed layout.
  fresh.fill_random(-1, 1);
  w.set_values(fresh.values());
  ASSERT_EQ(pack(w), 0) << aclGetRecentErrMsg();
  ASSERT_EQ(mm(fresh, before_want), 0);
  src.fill_random(-1, 1);
  aclrtStream st = nullptr;
  ASSERT_EQ(aclrtCreateStream(&st), 0);
  ASSERT_EQ(mm(w, before, st), 0);
  ASSERT_EQ(run_op([&](uint64_t *sz, aclOpExecutor **e) { return aclnnInplaceCopyGetWorkspaceSize(w, src, sz, e); },
                   aclnnInplaceCopy, st),
            0)
      << aclGetRecentErrMsg();
  ASSERT_EQ(mm(w, got, st), 0);
  ASSERT_EQ(aclrtSynchronizeStream(st), 0);
  ASSERT_EQ(aclrtDestroyStream(st), 0);
  ASSERT_EQ(mm(src, want), 0);
  EXPECT_TRUE(same(before, before_want)) << "the matmul queued before the copy op";
  EXPECT_TRUE(same(got, want)) << "after aclnnInplaceCopy";

  // 2. aclnnInplaceFillScalar over rows 5..7 of the buffer (a [3, n] view into it): the rest keeps
  //    the packed layout's bytes, and the buffer is read plain from then on.
  w.set_values(fresh.values());
  ASSERT_EQ(pack(w), 0);
  float half_value = 0.5f;
  aclScalar *half = aclCreateScalar(&half_value, ACL_FLOAT);
  auto fill = [&](std::vector<int64_t> dims, std::vector<int64_t> strides, int64_t offset, void *base,
                  int64_t storage) {
    aclTensor *t = aclCreateTensor(dims.data(), dims.size(), ACL_FLOAT, strides.data(), offset, ACL_FORMAT_ND,
                                   &storage, 1, base);
    const int rc = run_op(
        [&](uint64_t *sz, aclOpExecutor **e) { return aclnnInplaceFillScalarGetWorkspaceSize(t, half, sz, e); },
        aclnnInplaceFillScalar);
    aclDestroyTensor(t);
    return rc;
  };
  ASSERT_EQ(fill({3, n}, {n, 1}, 5 * n, w.data(), cap), 0) << aclGetRecentErrMsg();
  fresh.set_values(w.values());  // the plain reading of w's bytes
  ASSERT_EQ(mm(w, got), 0);
  ASSERT_EQ(mm(fresh, want), 0);
  EXPECT_TRUE(same(got, want)) << "after aclnnInplaceFillScalar over three rows";

  // 3. Two elements written just before and just after the packed extent (storage elements
  //    [16, 16 + k * align(n, 16))): the weight between them stays packed.
  const int64_t extent = k * ((n + 15) / 16 * 16), storage = 32 + cap;
  DeviceTensor wv({k, n}, ACL_FLOAT, {n, 1}, 16, storage);
  fresh.fill_random(-1, 1);
  wv.set_values(fresh.values());
  ASSERT_EQ(pack(wv), 0);
  ASSERT_EQ(fill({2}, {extent + 1}, 15, wv.data(), storage), 0) << aclGetRecentErrMsg();
  ASSERT_EQ(mm(wv, got), 0);
  ASSERT_EQ(mm(fresh, want), 0);
  EXPECT_TRUE(same(got, want)) << "an output view around the packed extent, touching none of it";

  // 4. TransMatmulWeight on a 3-D [1, k, n] view of the packed buffer leaves it as it is (no step
  //    runs, so nothing is written and the weight stays packed).
  const int64_t dims3[3] = {1, k, n}, strides3[3] = {k * n, n, 1};
  aclTensor *w3 = aclCreateTensor(dims3, 3, ACL_FLOAT, strides3, 16, ACL_FORMAT_ND, &storage, 1, wv.data());
  ASSERT_EQ(run_op([&](uint64_t *sz, aclOpExecutor **e) { return aclnnTransMatmulWeightGetWorkspaceSize(w3, sz, e); },
                   aclnnTransMatmulWeight),
            0)
      << aclGetRecentErrMsg();
  aclDestroyTensor(w3);
  ASSERT_EQ(mm(wv, got), 0);
  EXPECT_TRUE(same(got, want)) << "after a no-op TransMatmulWeight on a 3-D view of the packed buffer";
  aclDestroyScalar(half);
}

TEST(TransMatmulWeight, NoOpForInt8AndErrors) {
  DeviceTensor w8({32, 32}, ACL_INT8);
  w8.fill_random(-100, 100);
  const auto before = w8.values();
  ASSERT_EQ(run_op([&](uint64_t *s, aclOpExecutor **e) { return aclnnTransMatmulWeightGetWorkspaceSize(w8, s, e); },
                   aclnnTransMatmulWeight),
            0);
  EXPECT_EQ(before, w8.values());
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_TRUE(fails_with(aclnnTransMatmulWeightGetWorkspaceSize(nullptr, &ws, &ex), 161001, {"mmWeightRef"}));
  DeviceTensor v({32}, ACL_FLOAT), i32({4, 4}, ACL_INT32);
  EXPECT_TRUE(fails_with(aclnnTransMatmulWeightGetWorkspaceSize(v, &ws, &ex), 161002, {"mmWeightRef", "2 to 6"}));
  EXPECT_TRUE(fails_with(aclnnTransMatmulWeightGetWorkspaceSize(i32, &ws, &ex), 161002, {"mmWeightRef"}));
  // Hardening #18 B.4: a storage of the view's size cannot hold the packed layout (K * align(N, 16)):
  // a 161002 giving the size needed, not a heap overflow.
  DeviceTensor h({33, 65}, ACL_FLOAT16);
  EXPECT_TRUE(fails_with(aclnnTransMatmulWeightGetWorkspaceSize(h, &ws, &ex), 161002,
                         {"mmWeightRef", "2145", "2640", "aclnnCalculateMatmulWeightSizeV2"}));
  // ... nor a storage described large enough over a device allocation that is not.
  void *small = nullptr;
  ASSERT_EQ(aclrtMalloc(&small, 33 * 65 * 2, ACL_MEM_MALLOC_HUGE_FIRST), 0);
  const int64_t dims[2] = {33, 65}, storage = 33 * 80;
  aclTensor *t = aclCreateTensor(dims, 2, ACL_FLOAT16, nullptr, 0, ACL_FORMAT_ND, &storage, 1, small);
  EXPECT_TRUE(fails_with(aclnnTransMatmulWeightGetWorkspaceSize(t, &ws, &ex), 161002, {"packed extent", "allocation"}));
  aclDestroyTensor(t);
  ASSERT_EQ(aclrtFree(small), 0);
  // Storage dims whose product overflows even 128 bits (they are recorded, not bounded): large
  // enough, never an overflow in the check (found by tests/fuzz under UBSan).
  std::vector<float> host(16 * 16);
  const int64_t wdims[2] = {16, 16}, huge[3] = {INT64_MAX, INT64_MAX, INT64_MAX};
  aclTensor *hw = aclCreateTensor(wdims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, huge, 3, host.data());
  ASSERT_NE(hw, nullptr) << aclGetRecentErrMsg();
  ASSERT_EQ(aclnnTransMatmulWeightGetWorkspaceSize(hw, &ws, &ex), 0) << aclGetRecentErrMsg();
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
  aclDestroyTensor(hw);
}

// Hardening #18 B.5: sizes that wrap are errors, never a wrapped answer.
TEST(CalculateMatmulWeightSize, HugeShapesAreErrors) {
  int st = 0;
  size_v2({int64_t{1} << 40, int64_t{1} << 40}, ACL_FLOAT16, &st);
  EXPECT_TRUE(fails_with(st, 161002, {"tensorShape", "2^62"}));
  size_v2({int64_t{1} << 62, int64_t{1} << 62, 4, 4}, ACL_INT8, &st);
  EXPECT_TRUE(fails_with(st, 161002, {"tensorShape", "2^62"}));
  EXPECT_EQ(size_v2({int64_t{1} << 20, 16}, ACL_FLOAT16, &st), (uint64_t{1} << 20) * 16u);
  EXPECT_EQ(st, 0);
}

}  // namespace
}  // namespace opsnn::test
