// The two-phase contract: single-use and repeatable executors, address re-binding (snapshotted at
// launch), phase-2 validation, deep copies of descriptors, concurrent phase 1, several streams.
#include <atomic>
#include <chrono>
#include <memory>
#include <random>
#include <thread>

#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_mm.h"
#include "aclnnop/aclnn_split_tensor.h"
#include "runtime/runtime.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

std::string last_msg() {
  const char *m = aclGetRecentErrMsg();
  return m ? m : "";
}

struct AddFixture : ::testing::Test {
  DeviceTensor a{{16}, ACL_FLOAT}, b{{16}, ACL_FLOAT}, out{{16}, ACL_FLOAT};
  float one_f = 1;
  aclScalar *one = aclCreateScalar(&one_f, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  void SetUp() override {
    a.fill_random(-1, 1);
    b.fill_random(-1, 1);
  }
  ~AddFixture() override { aclDestroyScalar(one); }
  void expect_sum(const DeviceTensor &x, const DeviceTensor &y, const DeviceTensor &o) {
    auto xv = x.values(), yv = y.values(), ov = o.values();
    for (size_t i = 0; i < ov.size(); ++i) ASSERT_EQ(ov[i], static_cast<double>(static_cast<float>(xv[i] + yv[i]))) << i;
  }
};

TEST_F(AddFixture, SingleUseExecutorIsConsumedByItsLaunch) {
  ASSERT_EQ(aclnnAddGetWorkspaceSize(a, b, one, out, &ws, &ex), 0);
  EXPECT_EQ(ws, 0u);
  ASSERT_EQ(aclnnAdd(nullptr, 0, ex, nullptr), 0);
  ASSERT_EQ(aclrtSynchronizeDevice(), 0);
  expect_sum(a, b, out);
  // Launching the consumed executor again is rejected with a message, not a crash.
  EXPECT_TRUE(fails_with(aclnnAdd(nullptr, 0, ex, nullptr), ACLNN_ERR_PARAM_INVALID, {"aclnnAdd", "not live"}));
  EXPECT_TRUE(fails_with(aclDestroyAclOpExecutor(ex), ACLNN_ERR_PARAM_INVALID, {"not live"}));
  EXPECT_TRUE(fails_with(aclSetInputTensorAddr(ex, 0, a, a.data()), ACLNN_ERR_PARAM_INVALID, {"not live"}));
}

// Hardening #18 C.9: an executor launched through another op's launch function is rejected (and
// stays usable by its own launch).
TEST_F(AddFixture, ExecutorOfAnotherOpIsRejected) {
  ASSERT_EQ(aclnnAddGetWorkspaceSize(a, b, one, out, &ws, &ex), 0);
  EXPECT_TRUE(fails_with(aclnnMm(nullptr, 0, ex, nullptr), ACLNN_ERR_PARAM_INVALID,
                         {"aclnnMm", "aclnnAddGetWorkspaceSize"}));
  ASSERT_EQ(aclnnAdd(nullptr, 0, ex, nullptr), 0) << "the refused launch consumed nothing";
  ASSERT_EQ(aclrtSynchronizeDevice(), 0);
  expect_sum(a, b, out);
  DeviceTensor x({8, 8}, ACL_FLOAT), y({8, 8}, ACL_FLOAT), z({8, 8}, ACL_FLOAT);
  aclOpExecutor *mm = nullptr;
  ASSERT_EQ(aclnnMmGetWorkspaceSize(x, y, z, 0, &ws, &mm), 0);
  std::vector<char> w(ws + 64);
  EXPECT_TRUE(fails_with(aclnnAdd(w.data(), ws, mm, nullptr), ACLNN_ERR_PARAM_INVALID, {"aclnnAdd", "aclnnMm"}));
  EXPECT_EQ(aclDestroyAclOpExecutor(mm), 0);
}

// Hardening #18 C.11: a destroyed (or consumed) executor's handle stays dead even when the next
// executor is allocated at the same address; handles are generation-tagged, not addresses.
TEST_F(AddFixture, StaleExecutorHandlesNeverMatchALaterExecutor) {
  std::vector<aclOpExecutor *> stale;
  for (int i = 0; i < 50; ++i) {
    aclOpExecutor *e = nullptr;
    ASSERT_EQ(aclnnAddGetWorkspaceSize(a, b, one, out, &ws, &e), 0);
    for (aclOpExecutor *old : stale) ASSERT_NE(old, e) << "a handle was issued twice";
    if (i % 2 == 0) {
      ASSERT_EQ(aclDestroyAclOpExecutor(e), 0);
    } else {
      ASSERT_EQ(aclnnAdd(nullptr, 0, e, nullptr), 0);  // a single-use executor: consumed by its launch
    }
    stale.push_back(e);
  }
  ASSERT_EQ(aclrtSynchronizeDevice(), 0);
  aclOpExecutor *live = nullptr;
  ASSERT_EQ(aclnnAddGetWorkspaceSize(a, b, one, out, &ws, &live), 0);
  for (aclOpExecutor *old : stale) {
    EXPECT_TRUE(fails_with(aclnnAdd(nullptr, 0, old, nullptr), ACLNN_ERR_PARAM_INVALID, {"not live"}));
    EXPECT_TRUE(fails_with(aclSetInputTensorAddr(old, 0, nullptr, a.data()), ACLNN_ERR_PARAM_INVALID, {"not live"}));
    EXPECT_TRUE(fails_with(aclSetAclOpExecutorRepeatable(old), ACLNN_ERR_PARAM_INVALID, {"not live"}));
    EXPECT_TRUE(fails_with(aclDestroyAclOpExecutor(old), ACLNN_ERR_PARAM_INVALID, {"not live"}));
  }
  // Values that were never handles.
  int local = 0;
  EXPECT_TRUE(fails_with(aclnnAdd(nullptr, 0, reinterpret_cast<aclOpExecutor *>(&local), nullptr),
                         ACLNN_ERR_PARAM_INVALID, {"not live"}));
  EXPECT_TRUE(fails_with(aclDestroyAclOpExecutor(reinterpret_cast<aclOpExecutor *>(uintptr_t{0xFFFFFFFFFFFFFFFF})),
                         ACLNN_ERR_PARAM_INVALID, {"not live"}));
  ASSERT_EQ(aclnnAdd(nullptr, 0, live, nullptr), 0) << "the live executor still runs";
  ASSERT_EQ(aclrtSynchronizeDevice(), 0);
  expect_sum(a, b, out);
}

TEST_F(AddFixture, NullExecutorAndBadWorkspace) {
  EXPECT_TRUE(fails_with(aclnnAdd(nullptr, 0, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR, {"aclnnAdd", "executor"}));
  EXPECT_TRUE(fails_with(aclSetAclOpExecutorRepeatable(nullptr), ACLNN_ERR_INNER_NULLPTR, {"executor"}));
  EXPECT_TRUE(fails_with(aclDestroyAclOpExecutor(nullptr), ACLNN_ERR_INNER_NULLPTR, {"executor"}));
  EXPECT_TRUE(fails_with(aclSetInputTensorAddr(nullptr, 0, a, nullptr), ACLNN_ERR_INNER_NULLPTR, {"executor"}));
  EXPECT_TRUE(fails_with(AclSetOutputTensorAddr(nullptr, 0, a, nullptr), ACLNN_ERR_INNER_NULLPTR, {"executor"}));
  EXPECT_TRUE(fails_with(aclSetDynamicInputTensorAddr(nullptr, 0, 0, nullptr, nullptr), ACLNN_ERR_INNER_NULLPTR, {"executor"}));

  DeviceTensor x({128, 128}, ACL_FLOAT), y({128, 128}, ACL_FLOAT), z({128, 128}, ACL_FLOAT);
  ASSERT_EQ(aclnnMmGetWorkspaceSize(x, y, z, 0, &ws, &ex), 0);
  ASSERT_GT(ws, 0u) << "a 128^3 matmul packs its operands in the workspace";
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  EXPECT_TRUE(fails_with(aclnnMm(nullptr, ws, ex, nullptr), ACLNN_ERR_PARAM_NULLPTR, {"aclnnMm", "workspace"}));
  void *w = nullptr;
  ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), 0);
  EXPECT_TRUE(fails_with(aclnnMm(w, ws - 1, ex, nullptr), ACLNN_ERR_PARAM_INVALID, {"workspaceSize", "smaller"}));
  EXPECT_EQ(aclnnMm(w, ws, ex, nullptr), 0);
  EXPECT_EQ(aclrtSynchronizeDevice(), 0);
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
  EXPECT_TRUE(fails_with(aclDestroyAclOpExecutor(ex), ACLNN_ERR_PARAM_INVALID, {"not live"}));
  aclrtFree(w);
}

// Clients may carve the workspace out of a larger block at any offset: the launch must not depend on
// the pointer's alignment (our kernels use aligned vector loads on their packing buffers).
TEST(Executor, WorkspaceAtAnyAlignmentGivesTheSameBits) {
  DeviceTensor x({130, 257}, ACL_FLOAT), y({257, 96}, ACL_FLOAT), z({130, 96}, ACL_FLOAT);
  x.fill_random(-1, 1);
  y.fill_random(-1, 1);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(aclnnMmGetWorkspaceSize(x, y, z, 0, &ws, &ex), 0);
  ASSERT_GT(ws, 0u);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  std::vector<double> first;
  for (size_t offset : {0, 4, 8, 12, 32, 60, 64, 100}) {
    SCOPED_TRACE(offset);
    // Exactly ws bytes after the pointer, so a write past them shows under AddressSanitizer.
    std::unique_ptr<char[]> block(new char[offset + ws]);
    ASSERT_EQ(aclnnMm(block.get() + offset, ws, ex, nullptr), 0) << last_msg();
    ASSERT_EQ(aclrtSynchronizeDevice(), 0) << last_msg();
    if (first.empty()) first = z.values();
    else EXPECT_EQ(z.values(), first);
  }
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
}

TEST_F(AddFixture, AddressIndicesFollowThePrototype) {
  ASSERT_EQ(aclnnAddGetWorkspaceSize(a, b, one, out, &ws, &ex), 0);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  EXPECT_TRUE(fails_with(aclSetInputTensorAddr(ex, 2, a, a.data()), ACLNN_ERR_PARAM_INVALID, {"index 2", "out of range"}));
  EXPECT_TRUE(fails_with(aclSetOutputTensorAddr(ex, 1, out, out.data()), ACLNN_ERR_PARAM_INVALID, {"index 1"}));
  EXPECT_TRUE(fails_with(aclSetTensorAddr(ex, 3, out, out.data()), ACLNN_ERR_PARAM_INVALID, {"index 3"}));
  EXPECT_TRUE(fails_with(aclSetDynamicInputTensorAddr(ex, 0, 0, nullptr, nullptr), ACLNN_ERR_PARAM_INVALID, {"irIndex 0"}));
  // aclSetTensorAddr counts inputs then outputs; the capital-A aliases behave the same.
  DeviceTensor out2({16}, ACL_FLOAT);
  out2.poison();
  EXPECT_EQ(aclSetTensorAddr(ex, 2, out2, out2.data()), 0);
  EXPECT_EQ(AclSetInputTensorAddr(ex, 0, b, b.data()), 0);  // self := b
  EXPECT_EQ(aclnnAdd(nullptr, 0, ex, nullptr), 0);
  EXPECT_EQ(aclrtSynchronizeDevice(), 0);
  expect_sum(b, b, out2);
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
}

// An output tensor list (aclnnSplitTensor's out): aclSetDynamicOutputTensorAddr re-points one of
// its elements by (irIndex 0, relativeIndex); an index past the list is refused.
TEST(Executor, DynamicOutputAddressOfASplitChunk) {
  DeviceTensor x({5, 3}, ACL_FLOAT), a({2, 3}, ACL_FLOAT), b({2, 3}, ACL_FLOAT), c({1, 3}, ACL_FLOAT),
      b2({2, 3}, ACL_FLOAT);
  x.fill_random(-1, 1);
  b2.poison();
  // The list owns its elements: descriptors of their own over the chunks' buffers.
  auto desc = [](const DeviceTensor &t, int64_t rows) {
    const int64_t dims[2] = {rows, 3}, strides[2] = {3, 1};
    return aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 2, t.data());
  };
  aclTensor *outs[3] = {desc(a, 2), desc(b, 2), desc(c, 1)};
  aclTensorList *list = aclCreateTensorList(outs, 3);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(aclnnSplitTensorGetWorkspaceSize(x, 2, 0, list, &ws, &ex), 0) << last_msg();
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  EXPECT_TRUE(fails_with(aclSetDynamicOutputTensorAddr(ex, 0, 3, list, b2.data()), ACLNN_ERR_PARAM_INVALID,
                         {"relativeIndex 3"}));
  ASSERT_EQ(aclSetDynamicOutputTensorAddr(ex, 0, 1, list, b2.data()), 0) << last_msg();
  ASSERT_EQ(aclnnSplitTensor(nullptr, ws, ex, nullptr), 0) << last_msg();
  ASSERT_EQ(aclrtSynchronizeDevice(), 0);
  const std::vector<double> xv = x.values();
  EXPECT_EQ(b2.values(), std::vector<double>(xv.begin() + 6, xv.begin() + 12)) << "rows 2..3 in the new buffer";
  EXPECT_EQ(c.values(), std::vector<double>(xv.begin() + 12, xv.end()));
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
  aclDestroyTensorList(list);
}

TEST_F(AddFixture, RepeatableExecutorThousandLaunchesOverDifferentBuffers) {
  // Each launch writes its own output buffer and reads one of several input buffers; all are queued
  // before a single synchronisation, so the addresses must be captured at launch time.
  constexpr int kLaunches = 1000, kInputs = 7;
  std::vector<std::unique_ptr<DeviceTensor>> ins, outs;
  for (int i = 0; i < kInputs; ++i) {
    ins.push_back(std::make_unique<DeviceTensor>(std::vector<int64_t>{16}, ACL_FLOAT));
    ins.back()->fill_random(-10, 10);
  }
  for (int i = 0; i < kLaunches; ++i) {
    outs.push_back(std::make_unique<DeviceTensor>(std::vector<int64_t>{16}, ACL_FLOAT));
    outs.back()->poison();
  }
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), 0);
  ASSERT_EQ(aclnnAddGetWorkspaceSize(a, b, one, out, &ws, &ex), 0);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  for (int i = 0; i < kLaunches; ++i) {
    ASSERT_EQ(aclSetInputTensorAddr(ex, 0, nullptr, ins[i % kInputs]->data()), 0);
    ASSERT_EQ(aclSetInputTensorAddr(ex, 1, nullptr, ins[(i / kInputs) % kInputs]->data()), 0);
    ASSERT_EQ(aclSetOutputTensorAddr(ex, 0, nullptr, outs[i]->data()), 0);
    ASSERT_EQ(aclnnAdd(nullptr, 0, ex, stream), 0);
  }
  ASSERT_EQ(aclrtSynchronizeStream(stream), 0);
  for (int i = 0; i < kLaunches; ++i) {
    expect_sum(*ins[i % kInputs], *ins[(i / kInputs) % kInputs], *outs[i]);
    if (HasFatalFailure()) return;
  }
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
  EXPECT_EQ(aclrtDestroyStream(stream), 0);
}

TEST_F(AddFixture, NullDataAtCreationAddressSetLater) {
  int64_t dims[] = {16};
  aclTensor *ta = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, nullptr);
  aclTensor *tb = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, nullptr);
  aclTensor *to = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, nullptr);
  ASSERT_EQ(aclnnAddGetWorkspaceSize(ta, tb, one, to, &ws, &ex), 0);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  EXPECT_TRUE(fails_with(aclnnAdd(nullptr, 0, ex, nullptr), ACLNN_ERR_PARAM_INVALID, {"no device address"}));
  aclDestroyTensor(ta);  // the executor owns deep copies
  aclDestroyTensor(tb);
  aclDestroyTensor(to);
  ASSERT_EQ(aclSetInputTensorAddr(ex, 0, nullptr, a.data()), 0);
  ASSERT_EQ(aclSetInputTensorAddr(ex, 1, nullptr, b.data()), 0);
  ASSERT_EQ(aclSetOutputTensorAddr(ex, 0, nullptr, out.data()), 0);
  ASSERT_EQ(aclnnAdd(nullptr, 0, ex, nullptr), 0);
  ASSERT_EQ(aclrtSynchronizeDevice(), 0);
  expect_sum(a, b, out);
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
}

// Hardening #18 A.2: a view may reach past its storageDims (the client describes the storage as
// the view's extent and adds an offset); the real bound is the device allocation the data lies
// in, checked in phase 1 and again when an address is bound later. Host memory is not checked.
TEST(Executor, ViewsMayReachPastStorageDimsButNotPastTheirAllocation) {
  constexpr int64_t kN = 16, kOffset = 5;
  void *buf = nullptr;
  ASSERT_EQ(aclrtMalloc(&buf, (kN + kOffset) * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST), 0);
  std::vector<float> host(kN + kOffset);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i);
  ASSERT_EQ(aclrtMemcpy(buf, host.size() * 4, host.data(), host.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE), 0);
  int64_t dims[] = {kN}, strides[] = {1}, storage[] = {kN};
  // The client's pattern: storageDims = the view's extent, non-zero offset.
  aclTensor *x = aclCreateTensor(dims, 1, ACL_FLOAT, strides, kOffset, ACL_FORMAT_ND, storage, 1, buf);
  ASSERT_NE(x, nullptr) << last_msg();
  int64_t *sd = nullptr;
  uint64_t sn = 0;
  ASSERT_EQ(aclGetStorageShape(x, &sd, &sn), 0);
  ASSERT_EQ(sn, 1u);
  EXPECT_EQ(sd[0], kN);  // reported as given
  delete[] sd;
  DeviceTensor out({kN}, ACL_FLOAT);
  float one_f = 1;
  aclScalar *one = aclCreateScalar(&one_f, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnAddGetWorkspaceSize(x, x, one, out, w, e); },
                   [&](void *w, uint64_t n, aclOpExecutor *e, aclrtStream st) { return aclnnAdd(w, n, e, st); }),
            0)
      << last_msg();
  const auto got = out.values();
  for (int64_t i = 0; i < kN; ++i) ASSERT_EQ(got[static_cast<size_t>(i)], 2.0 * static_cast<double>(i + kOffset)) << i;

  // One element more than the allocation holds (its usable bytes include the API's 32-byte
  // rounding and padding): a 161002 naming the tensor and the allocation.
  void *small = nullptr;
  ASSERT_EQ(aclrtMalloc(&small, 64, ACL_MEM_MALLOC_HUGE_FIRST), 0);
  int64_t big_dims[] = {1024};
  aclTensor *over = aclCreateTensor(big_dims, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, big_dims, 1, small);
  ASSERT_NE(over, nullptr) << last_msg();
  DeviceTensor big_in({1024}, ACL_FLOAT), big_out({1024}, ACL_FLOAT);
  EXPECT_TRUE(fails_with(aclnnAddGetWorkspaceSize(over, big_in, one, big_out, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"aclnnAdd", "input tensor 0", "device allocation", "[1024]"}));
  EXPECT_TRUE(fails_with(aclnnAddGetWorkspaceSize(big_in, big_in, one, over, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"output tensor 0", "device allocation"}));
  // An offset into the middle of an allocation counts from the allocation's start.
  aclTensor *shifted = aclCreateTensor(dims, 1, ACL_FLOAT, strides, kOffset + 100, ACL_FORMAT_ND, storage, 1, buf);
  EXPECT_TRUE(fails_with(aclnnAddGetWorkspaceSize(shifted, x, one, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"input tensor 0", "device allocation"}))
      << "the view ends 100 floats past the 21 of the allocation (+ API padding)";

  // An address bound later is checked when it is set; a refused address leaves the old one.
  ASSERT_EQ(aclnnAddGetWorkspaceSize(x, x, one, out, &ws, &ex), 0);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  aclTensor *wide = aclCreateTensor(big_dims, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, big_dims, 1, nullptr);
  DeviceTensor wa({1024}, ACL_FLOAT), wb({1024}, ACL_FLOAT);
  aclOpExecutor *ex2 = nullptr;
  ASSERT_EQ(aclnnAddGetWorkspaceSize(wide, wide, one, wb, &ws, &ex2), 0) << last_msg();
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex2), 0);
  EXPECT_TRUE(fails_with(aclSetInputTensorAddr(ex2, 0, nullptr, small), ACLNN_ERR_PARAM_INVALID,
                         {"aclSetInputTensorAddr", "device allocation"}));
  EXPECT_TRUE(fails_with(aclSetTensorAddr(ex2, 2, nullptr, small), ACLNN_ERR_PARAM_INVALID, {"device allocation"}));
  EXPECT_TRUE(fails_with(aclnnAdd(nullptr, 0, ex2, nullptr), ACLNN_ERR_PARAM_INVALID, {"no device address"}))
      << "the refused address was not bound";
  EXPECT_EQ(aclSetInputTensorAddr(ex2, 0, nullptr, wa.data()), 0) << last_msg();
  // Host memory is outside every device allocation: not checked (documented).
  std::vector<float> host_big(1024, 1.0f);
  EXPECT_EQ(aclSetInputTensorAddr(ex2, 1, nullptr, host_big.data()), 0) << last_msg();
  EXPECT_EQ(aclDestroyAclOpExecutor(ex2), 0);
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
  aclDestroyTensor(wide);
  aclDestroyTensor(shifted);
  aclDestroyTensor(over);
  aclDestroyTensor(x);
  aclDestroyScalar(one);
  ASSERT_EQ(aclrtFree(small), 0);
  ASSERT_EQ(aclrtFree(buf), 0);
}

// Hardening #18 D: in the checked mode every launch checks its tensors against live device
// allocations: host memory and freed blocks are reported with the op and the slot.
TEST(Executor, CheckedModeReportsHostAndFreedMemoryAtLaunch) {
  const bool was = opsnn::rt::checked_mode();
  opsnn::rt::set_checked_mode_for_testing(true);
  DeviceTensor a({16}, ACL_FLOAT), out({16}, ACL_FLOAT);
  a.fill_random(-1, 1);
  float one_f = 1;
  aclScalar *one = aclCreateScalar(&one_f, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(aclnnAddGetWorkspaceSize(a, a, one, out, &ws, &ex), 0);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  ASSERT_EQ(aclnnAdd(nullptr, 0, ex, nullptr), 0) << last_msg();
  std::vector<float> host(16, 1.0f);
  ASSERT_EQ(aclSetInputTensorAddr(ex, 1, nullptr, host.data()), 0);
  EXPECT_TRUE(fails_with(aclnnAdd(nullptr, 0, ex, nullptr), ACLNN_ERR_PARAM_INVALID,
                         {"aclnnAdd", "checked mode", "slot 1", "not in a live device allocation"}));
  void *gone = nullptr;
  ASSERT_EQ(aclrtMalloc(&gone, 64, ACL_MEM_MALLOC_HUGE_FIRST), 0);
  ASSERT_EQ(aclSetInputTensorAddr(ex, 1, nullptr, gone), 0);
  ASSERT_EQ(aclrtSynchronizeDevice(), 0);
  ASSERT_EQ(aclrtFree(gone), 0);
  EXPECT_TRUE(fails_with(aclnnAdd(nullptr, 0, ex, nullptr), ACLNN_ERR_PARAM_INVALID,
                         {"aclnnAdd", "checked mode", "already freed"}));
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
  aclDestroyScalar(one);
  opsnn::rt::set_checked_mode_for_testing(was);
}

TEST(Executor, ClientFreesWorkspaceAndDescriptorsRightAfterLaunch) {
  // The pattern of client memory pools: everything is handed back as soon as the launch returns.
  constexpr int64_t n = 96;
  DeviceTensor x({n, n}, ACL_FLOAT), y({n, n}, ACL_FLOAT), z({n, n}, ACL_FLOAT);
  x.fill_random(-1, 1);
  y.fill_random(-1, 1);
  z.poison();
  for (int rep = 0; rep < 20; ++rep) {
    int64_t dims[] = {n, n};
    aclTensor *tx = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, x.data());
    aclTensor *ty = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, y.data());
    aclTensor *tz = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, z.data());
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    ASSERT_EQ(aclnnMmGetWorkspaceSize(tx, ty, tz, 0, &ws, &ex), 0);
    aclDestroyTensor(tx);
    aclDestroyTensor(ty);
    aclDestroyTensor(tz);
    void *w = nullptr;
    if (ws) ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), 0);
    ASSERT_EQ(aclnnMm(w, ws, ex, nullptr), 0);
    if (w) ASSERT_EQ(aclrtFree(w), 0);  // queued work still uses it: the runtime defers the release
  }
  ASSERT_EQ(aclrtSynchronizeDevice(), 0);
  auto xv = x.values(), yv = y.values(), zv = z.values();
  for (int64_t i = 0; i < n; i += 17)
    for (int64_t j = 0; j < n; j += 13) {
      double s = 0;
      for (int64_t k = 0; k < n; ++k) s += xv[i * n + k] * yv[k * n + j];
      EXPECT_NEAR(zv[i * n + j], s, 1e-4);
    }
}

TEST(Executor, PhaseOneFromSeveralThreadsOnSeveralStreams) {
  constexpr int kThreads = 4, kIters = 150;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures] {
      aclrtStream stream = nullptr;
      if (aclrtCreateStream(&stream) != 0) { ++failures; return; }
      DeviceTensor a({33}, ACL_FLOAT), b({33}, ACL_FLOAT), out({33}, ACL_FLOAT);
      std::vector<double> av(33), bv(33);
      for (int i = 0; i < 33; ++i) { av[i] = t * 100 + i; bv[i] = i * 0.5; }
      a.set_values(av);
      b.set_values(bv);
      float alpha_f = static_cast<float>(t + 1);
      for (int it = 0; it < kIters; ++it) {
        aclScalar *alpha = aclCreateScalar(&alpha_f, ACL_FLOAT);
        uint64_t ws = 0;
        aclOpExecutor *ex = nullptr;
        if (aclnnAddGetWorkspaceSize(a, b, alpha, out, &ws, &ex) != 0 || aclnnAdd(nullptr, 0, ex, stream) != 0) ++failures;
        aclDestroyScalar(alpha);
      }
      if (aclrtSynchronizeStream(stream) != 0) ++failures;
      auto ov = out.values();
      for (int i = 0; i < 33; ++i)
        if (ov[i] != static_cast<double>(static_cast<float>(av[i] + alpha_f * bv[i]))) ++failures;
      aclrtDestroyStream(stream);
    });
  }
  for (auto &th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(Executor, LaunchOnInvalidStreamIsReportedAndNothingConsumed) {
  DeviceTensor a({4}, ACL_FLOAT), out({4}, ACL_FLOAT);
  float one = 1;
  aclScalar *s = aclCreateScalar(&one, ACL_FLOAT);
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnAddsGetWorkspaceSize(a, s, s, out, &ws, &ex), 0);
  int bogus = 0;
  EXPECT_TRUE(fails_with(aclnnAdds(nullptr, 0, ex, &bogus), ACLNN_ERR_RUNTIME_ERROR, {"aclnnAdds", "stream"}));
  // The executor was not consumed by the failed launch.
  EXPECT_EQ(aclnnAdds(nullptr, 0, ex, nullptr), 0);
  EXPECT_EQ(aclrtSynchronizeDevice(), 0);
  aclDestroyScalar(s);
}

}  // namespace
}  // namespace opsnn::test

namespace opsnn::test {
namespace {

TEST(Executor, CapturedLaunchesReplay) {
  // A single-use launch captured into a graph can be replayed many times (the graph owns it).
  DeviceTensor a({8}, ACL_FLOAT), out({8}, ACL_FLOAT);
  a.set_values({1, 2, 3, 4, 5, 6, 7, 8});
  out.set_values(std::vector<double>(8, 0.0));
  float one_f = 1;
  aclScalar *one = aclCreateScalar(&one_f, ACL_FLOAT);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), 0);
  ASSERT_EQ(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_RELAXED), 0);
  uint64_t ws;
  aclOpExecutor *ex;
  // out += a, captured once
  ASSERT_EQ(aclnnInplaceAddGetWorkspaceSize(out, a, one, &ws, &ex), 0);
  ASSERT_EQ(aclnnInplaceAdd(nullptr, 0, ex, stream), 0);
  aclmdlRI model = nullptr;
  ASSERT_EQ(aclmdlRICaptureEnd(stream, &model), 0);
  ASSERT_EQ(aclrtSynchronizeStream(stream), 0);
  EXPECT_EQ(out.values(), std::vector<double>(8, 0.0)) << "captured work must not run at capture time";
  for (int i = 0; i < 3; ++i) ASSERT_EQ(aclmdlRIExecuteAsync(model, stream), 0);
  ASSERT_EQ(aclrtSynchronizeStream(stream), 0);
  EXPECT_EQ(out.values(), (std::vector<double>{3, 6, 9, 12, 15, 18, 21, 24}));
  EXPECT_EQ(aclmdlRIDestroy(model), 0);
  EXPECT_EQ(aclrtDestroyStream(stream), 0);
  aclDestroyScalar(one);
}

// Two streams ping-pong through events (A: x += 1, record; B: wait, y += x, record; A waits for B
// before its next add), with one-shot executors and random host delays, under both launch
// policies: a launch that finds its stream idle runs inline, one behind a delay or an event wait
// is queued; y = 1 + 2 + ... + N only if every launch kept stream and event order.
TEST(Executor, InlineAndQueuedLaunchesKeepEventOrderAcrossStreams) {
  for (int mode : {1, 0}) {
    opsnn::rt::set_inline_launch_for_testing(mode);
    DeviceTensor ones({8}, ACL_FLOAT), x({8}, ACL_FLOAT), y({8}, ACL_FLOAT);
    ones.set_values(std::vector<double>(8, 1.0));
    x.set_values(std::vector<double>(8, 0.0));
    y.set_values(std::vector<double>(8, 0.0));
    float one_f = 1;
    aclrtStream sa, sb;
    ASSERT_EQ(aclrtCreateStream(&sa), 0);
    ASSERT_EQ(aclrtCreateStream(&sb), 0);
    aclrtEvent ea, eb;
    ASSERT_EQ(aclrtCreateEvent(&ea), 0);
    ASSERT_EQ(aclrtCreateEvent(&eb), 0);
    static std::atomic<unsigned> delay_us{0};
    auto delay = [](void *) { std::this_thread::sleep_for(std::chrono::microseconds(delay_us.load() % 300)); };
    auto inplace_add = [&](DeviceTensor &self, DeviceTensor &other, aclrtStream st) {
      aclScalar *alpha = aclCreateScalar(&one_f, ACL_FLOAT);  // the client pattern: all made per call
      const int64_t dims[1] = {8};
      auto desc = [&](DeviceTensor &t) {
        return aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, t.data());
      };
      aclTensor *t0 = desc(self), *t1 = desc(other);
      uint64_t ws = 0;
      aclOpExecutor *ex = nullptr;
      int rc = aclnnInplaceAddGetWorkspaceSize(t0, t1, alpha, &ws, &ex);
      aclDestroyTensor(t0);
      aclDestroyTensor(t1);
      aclDestroyScalar(alpha);
      return rc ? rc : aclnnInplaceAdd(nullptr, 0, ex, st);
    };
    constexpr int kRounds = 60;
    std::mt19937 rng(5);
    for (int k = 0; k < kRounds; ++k) {
      if (k > 0) ASSERT_EQ(aclrtStreamWaitEvent(sa, eb), 0);
      if (rng() % 3 == 0) {
        delay_us = rng();
        ASSERT_EQ(aclrtLaunchHostFunc(sa, delay, nullptr), 0);
      }
      ASSERT_EQ(inplace_add(x, ones, sa), 0) << last_msg();
      ASSERT_EQ(aclrtRecordEvent(ea, sa), 0);
      ASSERT_EQ(aclrtStreamWaitEvent(sb, ea), 0);
      if (rng() % 3 == 0) ASSERT_EQ(aclrtLaunchHostFunc(sb, delay, nullptr), 0);
      ASSERT_EQ(inplace_add(y, x, sb), 0) << last_msg();
      ASSERT_EQ(aclrtRecordEvent(eb, sb), 0);
      if (rng() % 8 == 0) ASSERT_EQ(aclrtSynchronizeStream(sa), 0);
    }
    ASSERT_EQ(aclrtSynchronizeStream(sb), 0);
    ASSERT_EQ(aclrtSynchronizeStream(sa), 0);
    EXPECT_EQ(x.values(), std::vector<double>(8, kRounds)) << "policy " << mode;
    EXPECT_EQ(y.values(), std::vector<double>(8, kRounds * (kRounds + 1) / 2)) << "policy " << mode;
    for (aclrtEvent e : {ea, eb}) EXPECT_EQ(aclrtDestroyEvent(e), 0);
    for (aclrtStream st : {sa, sb}) EXPECT_EQ(aclrtDestroyStream(st), 0);
  }
  opsnn::rt::set_inline_launch_for_testing(-1);
}

}  // namespace
}  // namespace opsnn::test
