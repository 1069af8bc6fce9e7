// Misuse regression tests (hardening issue #18): one test per class of bad input found by the
// misuse catalogue and the fuzzer, each checking the code and the message, or that the result is
// defined. Run under ASan + UBSan (with float-cast-overflow) in CI's sanitizer stage.
#include <cmath>
#include <cstring>
#include <limits>

#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_exp.h"
#include "aclnnop/aclnn_hardtanh.h"
#include "aclnnop/aclnn_sign.h"
#include "aclnnop/aclnn_threshold.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

aclScalar *float_scalar(float v) { return aclCreateScalar(&v, ACL_FLOAT); }

// B.7: a BOOL tensor whose bytes are not 0 / 1 is defined: any non-zero byte is true.
TEST(Misuse, BoolBytesOtherThanZeroAndOneAreTrue) {
  DeviceTensor b({6}, ACL_BOOL), out({6}, ACL_BOOL), fout({6}, ACL_FLOAT);
  const unsigned char bytes[6] = {0, 1, 2, 0x80, 0xFF, 0};
  std::memcpy(b.data(), bytes, 6);
  out.poison();
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnSignGetWorkspaceSize(b, out, w, e); }, aclnnSign), 0)
      << aclGetRecentErrMsg();
  EXPECT_EQ(out.values(), (std::vector<double>{0, 1, 1, 1, 1, 0}));
  const auto *ob = static_cast<const unsigned char *>(out.data());
  for (int i = 0; i < 6; ++i) EXPECT_LE(ob[i], 1) << "a BOOL result is stored as 0 / 1, element " << i;
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnExpGetWorkspaceSize(b, fout, w, e); }, aclnnExp), 0)
      << aclGetRecentErrMsg();
  const double e1 = static_cast<float>(std::exp(1.0));
  EXPECT_EQ(fout.values(), (std::vector<double>{1, e1, e1, e1, e1, 1}));
}

// B.7: NaN / infinite scalar parameters of an op computing in integers saturate (NaN -> 0)
// instead of being converted with undefined behaviour.
TEST(Misuse, NonFiniteScalarsOnIntegerComputeSaturate) {
  DeviceTensor x({5}, ACL_INT32), out({5}, ACL_INT32);
  x.set_values({-7, -1, 0, 3, 2000000000});
  aclScalar *ninf = float_scalar(-INFINITY), *pinf = float_scalar(INFINITY), *nan = float_scalar(NAN),
            *five = float_scalar(5);
  out.poison();
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnHardtanhGetWorkspaceSize(x, ninf, pinf, out, w, e); },
                   aclnnHardtanh),
            0)
      << aclGetRecentErrMsg();
  EXPECT_EQ(out.values(), (std::vector<double>{-7, -1, 0, 3, 2000000000}));  // clamp to [INT64_MIN, INT64_MAX]
  out.poison();
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnThresholdGetWorkspaceSize(x, nan, five, out, w, e); },
                   aclnnThreshold),
            0)
      << aclGetRecentErrMsg();
  EXPECT_EQ(out.values(), (std::vector<double>{5, 5, 5, 3, 2000000000}));  // threshold NaN -> 0
  for (aclScalar *s : {ninf, pinf, nan, five}) aclDestroyScalar(s);
}

// B.7: float -> integer Cast of NaN / +-inf / out-of-range values is defined (no UB): NaN -> 0,
// saturation to int64, then wrap-around into the target width (docs/ARCHITECTURE.md).
TEST(Misuse, CastOfNonFiniteFloatsToIntegersIsDefined) {
  DeviceTensor x({5}, ACL_FLOAT), o32({5}, ACL_INT32), o64({5}, ACL_INT64);
  x.set_values({NAN, INFINITY, -INFINITY, 1e20, -3.75});
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnCastGetWorkspaceSize(x, ACL_INT64, o64, w, e); },
                   aclnnCast),
            0)
      << aclGetRecentErrMsg();
  const auto *v64 = static_cast<const int64_t *>(o64.data());
  EXPECT_EQ(v64[0], 0);
  EXPECT_EQ(v64[1], std::numeric_limits<int64_t>::max());
  EXPECT_EQ(v64[2], std::numeric_limits<int64_t>::min());
  EXPECT_EQ(v64[3], std::numeric_limits<int64_t>::max());
  EXPECT_EQ(v64[4], -3);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnCastGetWorkspaceSize(x, ACL_INT32, o32, w, e); },
                   aclnnCast),
            0)
      << aclGetRecentErrMsg();
  EXPECT_EQ(o32.values(), (std::vector<double>{0, -1, 0, -1, -3}));  // the low 32 bits of the int64
}

// C.8: an output that partially overlaps an input (out = self shifted by one element, InplaceCopy
// from a transposed view of itself) is a 161002 naming both tensors; the exact same view (in
// place) still runs, and so do interleaved views PyTorch also accepts (even / odd elements).
TEST(Misuse, PartialOverlapOfOutputAndInputIsRejected) {
  void *buf = nullptr;
  ASSERT_EQ(aclrtMalloc(&buf, 64 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST), 0);
  std::vector<float> host(64);
  for (int i = 0; i < 64; ++i) host[static_cast<size_t>(i)] = static_cast<float>(i);
  ASSERT_EQ(aclrtMemcpy(buf, 256, host.data(), 256, ACL_MEMCPY_HOST_TO_DEVICE), 0);
  const int64_t n[1] = {16}, one_stride[1] = {1}, st[1] = {64};
  aclTensor *a = aclCreateTensor(n, 1, ACL_FLOAT, one_stride, 0, ACL_FORMAT_ND, st, 1, buf);
  aclTensor *a1 = aclCreateTensor(n, 1, ACL_FLOAT, one_stride, 1, ACL_FORMAT_ND, st, 1, buf);
  aclScalar *alpha = float_scalar(1);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_TRUE(fails_with(aclnnAddGetWorkspaceSize(a, a, alpha, a1, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"aclnnAdd", "output tensor 0", "partially overlaps"}));
  EXPECT_TRUE(fails_with(aclnnInplaceAddGetWorkspaceSize(a1, a, alpha, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"aclnnInplaceAdd", "partially overlaps"}));
  // The same view as input and output: in place, runs.
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnAddGetWorkspaceSize(a, a, alpha, a, w, e); },
                   aclnnAdd),
            0)
      << aclGetRecentErrMsg();
  // A transposed view of itself as InplaceCopy's source.
  const int64_t sq[2] = {4, 4}, tr[2] = {1, 4};
  aclTensor *m = aclCreateTensor(sq, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, st, 1, buf);
  aclTensor *mt = aclCreateTensor(sq, 2, ACL_FLOAT, tr, 0, ACL_FORMAT_ND, st, 1, buf);
  EXPECT_TRUE(fails_with(aclnnInplaceCopyGetWorkspaceSize(m, mt, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"aclnnInplaceCopy", "partially overlaps"}));
  // Even elements written from odd ones: interleaved, no element shared (allowed).
  const int64_t half[1] = {8}, two[1] = {2};
  aclTensor *even = aclCreateTensor(half, 1, ACL_FLOAT, two, 32, ACL_FORMAT_ND, st, 1, buf);
  aclTensor *odd = aclCreateTensor(half, 1, ACL_FLOAT, two, 33, ACL_FORMAT_ND, st, 1, buf);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceCopyGetWorkspaceSize(even, odd, w, e); },
                   aclnnInplaceCopy),
            0)
      << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtMemcpy(host.data(), 256, buf, 256, ACL_MEMCPY_DEVICE_TO_HOST), 0);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(host[static_cast<size_t>(32 + 2 * i)], 33.0f + 2 * i) << i;
  for (aclTensor *t : {a, a1, m, mt, even, odd}) aclDestroyTensor(t);
  aclDestroyScalar(alpha);
  ASSERT_EQ(aclrtFree(buf), 0);
}

}  // namespace
}  // namespace opsnn::test
