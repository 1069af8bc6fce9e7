// aclCreate*/aclDestroy*/aclGet* of aclnn/acl_meta.h: validation of every descriptor argument
// (status code and a message naming the argument) and the getters.
#include <cstring>

#include "aclnn/aclnn_base.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

std::string last_msg() {
  const char *m = aclGetRecentErrMsg();
  return m ? m : "";
}

TEST(TensorApi, CreateAndQueryEverything) {
  int64_t dims[] = {2, 3, 4}, strides[] = {1, 2, 6}, storage[] = {30};
  alignas(64) static float data[64];
  aclTensor *t = aclCreateTensor(dims, 3, ACL_FLOAT16, strides, 5, ACL_FORMAT_NCL, storage, 1, data);
  ASSERT_NE(t, nullptr) << last_msg();
  int64_t *v = nullptr;
  uint64_t n = 0;
  ASSERT_EQ(aclGetViewShape(t, &v, &n), ACLNN_SUCCESS);
  EXPECT_EQ(std::vector<int64_t>(v, v + n), (std::vector<int64_t>{2, 3, 4}));
  delete[] v;
  ASSERT_EQ(aclGetViewStrides(t, &v, &n), ACLNN_SUCCESS);
  EXPECT_EQ(std::vector<int64_t>(v, v + n), (std::vector<int64_t>{1, 2, 6}));
  delete[] v;
  ASSERT_EQ(aclGetStorageShape(t, &v, &n), ACLNN_SUCCESS);
  EXPECT_EQ(std::vector<int64_t>(v, v + n), (std::vector<int64_t>{30}));
  delete[] v;
  int64_t off = -1;
  EXPECT_EQ(aclGetViewOffset(t, &off), ACLNN_SUCCESS);
  EXPECT_EQ(off, 5);
  aclFormat f;
  EXPECT_EQ(aclGetFormat(t, &f), ACLNN_SUCCESS);
  EXPECT_EQ(f, ACL_FORMAT_NCL);
  aclDataType dt;
  EXPECT_EQ(aclGetDataType(t, &dt), ACLNN_SUCCESS);
  EXPECT_EQ(dt, ACL_FLOAT16);
  void *addr = nullptr;
  EXPECT_EQ(aclGetRawTensorAddr(t, &addr), ACLNN_SUCCESS);
  EXPECT_EQ(addr, data);
  EXPECT_EQ(aclSetRawTensorAddr(t, data + 16), ACLNN_SUCCESS);
  EXPECT_EQ(aclGetRawTensorAddr(t, &addr), ACLNN_SUCCESS);
  EXPECT_EQ(addr, data + 16);
  // aclInitTensor re-describes an existing tensor.
  int64_t d2[] = {7};
  EXPECT_EQ(aclInitTensor(t, d2, 1, ACL_INT32, nullptr, 0, ACL_FORMAT_ND, d2, 1, data), ACLNN_SUCCESS);
  EXPECT_EQ(aclGetDataType(t, &dt), ACLNN_SUCCESS);
  EXPECT_EQ(dt, ACL_INT32);
  EXPECT_EQ(aclDestroyTensor(t), ACLNN_SUCCESS);
  EXPECT_EQ(aclDataTypeSize(ACL_BF16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_INT64), 8u);
  EXPECT_EQ(aclDataTypeSize(ACL_DOUBLE), 8u);
  EXPECT_EQ(aclDataTypeSize(ACL_BOOL), 1u);
}

TEST(TensorApi, DefaultsNullStrideNullDataZeroDim) {
  int64_t dims[] = {2, 3};
  aclTensor *t = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, nullptr);
  ASSERT_NE(t, nullptr);
  int64_t *s;
  uint64_t n;
  ASSERT_EQ(aclGetViewStrides(t, &s, &n), ACLNN_SUCCESS);
  EXPECT_EQ(std::vector<int64_t>(s, s + n), (std::vector<int64_t>{3, 1}));  // contiguous
  delete[] s;
  aclDestroyTensor(t);
  aclTensor *scalar_t = aclCreateTensor(nullptr, 0, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, nullptr);
  EXPECT_NE(scalar_t, nullptr) << last_msg();
  aclDestroyTensor(scalar_t);
  // Zero strides (broadcast views) and zero-size dims are valid.
  int64_t bd[] = {4, 3}, bs[] = {0, 1}, st[] = {3};
  aclTensor *b = aclCreateTensor(bd, 2, ACL_FLOAT, bs, 0, ACL_FORMAT_ND, st, 1, nullptr);
  EXPECT_NE(b, nullptr) << last_msg();
  aclDestroyTensor(b);
  int64_t zd[] = {0, 5}, zs[] = {0};
  aclTensor *z = aclCreateTensor(zd, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, zs, 1, nullptr);
  EXPECT_NE(z, nullptr) << last_msg();
  aclDestroyTensor(z);
}

struct BadTensor {
  const char *what;
  std::vector<int64_t> dims, strides, storage;
  aclDataType dtype;
  aclFormat format;
  int64_t offset;
  const char *needle;
};

TEST(TensorApi, InvalidDescriptorsReturnNullWithMessage) {
  const BadTensor cases[] = {
      {"negative dim", {2, -1}, {}, {8}, ACL_FLOAT, ACL_FORMAT_ND, 0, "viewDims[1]"},
      {"nine dims", {1, 1, 1, 1, 1, 1, 1, 1, 1}, {}, {1}, ACL_FLOAT, ACL_FORMAT_ND, 0, "viewDimsNum"},
      {"view beyond 2^62 elements", {3, 3}, {int64_t{1} << 61, 1}, {6}, ACL_INT8, ACL_FORMAT_ND, 1 << 20, "2^62"},
      {"numel wraps", {int64_t{1} << 32, int64_t{1} << 32}, {}, {1}, ACL_FLOAT, ACL_FORMAT_ND, 0, "2^62 elements"},
      {"default strides overflow", {int64_t{1} << 21, 4, int64_t{1} << 21, int64_t{1} << 21}, {}, {1}, ACL_FLOAT,
       ACL_FORMAT_ND, 0, "2^62 elements"},
      // Empty views are checked as if their size-0 dims were 1 (their numel is 0, but the other
      // dims enter contiguous strides and loop plans): the contiguous stride of dim 0 here would be
      // (2^63 - 1) * 256; [0, 2^61] x 2 bytes with unit strides spans 2^62 bytes (the fuzzer's
      // [0, 2^62] made a loop plan merging the dims compute 2 * 2^62); [0, 2^40, 2^40] with zero strides merged to 2^80.
      {"default strides of an empty view overflow", {0, INT64_MAX, 256}, {}, {1}, ACL_FLOAT, ACL_FORMAT_ND, 0,
       "(size-0 dims counted as 1)"},
      {"empty view spanning 2^62 bytes", {0, int64_t{1} << 61}, {1, 1}, {1}, ACL_INT16, ACL_FORMAT_ND, 0,
       "2^62 bytes or more (size-0 dims counted as 1)"},
      {"empty view with 2^80 broadcast elements", {0, int64_t{1} << 40, int64_t{1} << 40}, {0, 0, 0}, {1}, ACL_FLOAT,
       ACL_FORMAT_ND, 0, "2^62 elements or more (size-0 dims counted as 1)"},
      {"view spanning 2^62 bytes of DOUBLE", {int64_t{1} << 59}, {1}, {1}, ACL_DOUBLE, ACL_FORMAT_ND, 0,
       "2^62 bytes or more"},
      {"huge offset on an empty view", {0, 3}, {}, {1}, ACL_FLOAT, ACL_FORMAT_ND, int64_t{1980000000000000000}, "offset"},
      {"huge stride on a size-1 dim", {1, 3}, {int64_t{1} << 61, 1}, {3}, ACL_FLOAT, ACL_FORMAT_ND, 0, "stride[0]"},
      {"unknown dtype", {2}, {}, {2}, static_cast<aclDataType>(5), ACL_FORMAT_ND, 0, "dataType 5"},
      {"unknown format", {2}, {}, {2}, ACL_FLOAT, static_cast<aclFormat>(77), ACL_FORMAT_ND == 2 ? 0 : 0, "format 77"},
      {"negative offset", {2}, {}, {2}, ACL_FLOAT, ACL_FORMAT_ND, -1, "offset"},
      {"negative stride", {2, 2}, {-1, 1}, {8}, ACL_FLOAT, ACL_FORMAT_ND, 2, "stride[0]"},
      {"negative storage dim", {2}, {}, {-2}, ACL_FLOAT, ACL_FORMAT_ND, 0, "storageDims[0]"},
  };
  for (const auto &c : cases) {
    SCOPED_TRACE(c.what);
    aclTensor *t = aclCreateTensor(c.dims.data(), c.dims.size(), c.dtype, c.strides.empty() ? nullptr : c.strides.data(),
                                   c.offset, c.format, c.storage.data(), c.storage.size(), nullptr);
    EXPECT_EQ(t, nullptr);
    EXPECT_NE(last_msg().find("aclCreateTensor"), std::string::npos) << last_msg();
    EXPECT_NE(last_msg().find(c.needle), std::string::npos) << last_msg();
    aclDestroyTensor(t);
  }
  // null dims with a count
  EXPECT_EQ(aclCreateTensor(nullptr, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, nullptr), nullptr);
  EXPECT_NE(last_msg().find("viewDims"), std::string::npos);
  // aclInitTensor reports the status code
  int64_t d[] = {-3};
  int64_t ok[] = {2};
  aclTensor *t = aclCreateTensor(ok, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, ok, 1, nullptr);
  EXPECT_EQ(aclInitTensor(t, d, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, ok, 1, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclInitTensor(nullptr, ok, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, ok, 1, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  aclDestroyTensor(t);
}

TEST(TensorApi, GettersRejectNull) {
  int64_t *v;
  uint64_t n;
  EXPECT_EQ(aclGetViewShape(nullptr, &v, &n), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(last_msg().find("tensor"), std::string::npos);
  int64_t dims[] = {2};
  aclTensor *t = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, nullptr);
  EXPECT_EQ(aclGetViewShape(t, nullptr, &n), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetViewStrides(t, &v, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetDataType(t, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(last_msg().find("dataType"), std::string::npos);
  EXPECT_EQ(aclGetFormat(nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclSetRawTensorAddr(nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  aclDestroyTensor(t);
}

TEST(TensorApi, ScalarsArraysLists) {
  double d = 2.5;
  aclScalar *s = aclCreateScalar(&d, ACL_DOUBLE);
  ASSERT_NE(s, nullptr);
  d = 7;  // the value is captured at creation
  aclDestroyScalar(s);
  EXPECT_EQ(aclCreateScalar(nullptr, ACL_FLOAT), nullptr);
  EXPECT_NE(last_msg().find("value"), std::string::npos);
  EXPECT_EQ(aclCreateScalar(&d, static_cast<aclDataType>(99)), nullptr);
  EXPECT_NE(last_msg().find("dataType"), std::string::npos);

  int64_t iv[] = {1, 2, 3};
  aclIntArray *ia = aclCreateIntArray(iv, 3);
  uint64_t n = 0;
  EXPECT_EQ(aclGetIntArraySize(ia, &n), ACLNN_SUCCESS);
  EXPECT_EQ(n, 3u);
  aclDestroyIntArray(ia);
  float fv[] = {1, 2};
  aclFloatArray *fa = aclCreateFloatArray(fv, 2);
  EXPECT_EQ(aclGetFloatArraySize(fa, &n), ACLNN_SUCCESS);
  EXPECT_EQ(n, 2u);
  aclDestroyFloatArray(fa);
  bool bv[] = {true};
  aclBoolArray *ba = aclCreateBoolArray(bv, 1);
  EXPECT_EQ(aclGetBoolArraySize(ba, &n), ACLNN_SUCCESS);
  EXPECT_EQ(n, 1u);
  aclDestroyBoolArray(ba);
  EXPECT_EQ(aclCreateIntArray(nullptr, 2), nullptr);

  // Lists own their elements: destroying the list destroys them (LeakSanitizer checks both ways).
  int64_t dims[] = {2};
  const aclTensor *ts[] = {aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, nullptr),
                           aclCreateTensor(dims, 1, ACL_INT32, nullptr, 0, ACL_FORMAT_ND, dims, 1, nullptr)};
  aclTensorList *tl = aclCreateTensorList(ts, 2);
  EXPECT_EQ(aclGetTensorListSize(tl, &n), ACLNN_SUCCESS);
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(aclDestroyTensorList(tl), ACLNN_SUCCESS);
  float one = 1;
  const aclScalar *ss[] = {aclCreateScalar(&one, ACL_FLOAT)};
  aclScalarList *sl = aclCreateScalarList(ss, 1);
  EXPECT_EQ(aclGetScalarListSize(sl, &n), ACLNN_SUCCESS);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(aclDestroyScalarList(sl), ACLNN_SUCCESS);
  const aclTensor *with_null[] = {nullptr};
  EXPECT_EQ(aclCreateTensorList(with_null, 1), nullptr);
  EXPECT_NE(last_msg().find("value[0]"), std::string::npos);
}

TEST(TensorApi, DestroyFunctionsHaveTheClientSignature) {
  // Clients pass these as template arguments / deleters: aclnnStatus f(const T *).
  aclnnStatus (*dt)(const aclTensor *) = aclDestroyTensor;
  aclnnStatus (*ds)(const aclScalar *) = aclDestroyScalar;
  aclnnStatus (*dl)(const aclTensorList *) = aclDestroyTensorList;
  static_assert(std::is_same_v<aclnnStatus, aclError>);
  EXPECT_EQ(dt(nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(ds(nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(dl(nullptr), ACLNN_SUCCESS);
}

TEST(TensorApi, AclnnInitFinalize) {
  EXPECT_EQ(aclnnInit(nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnFinalize(), ACLNN_SUCCESS);
}

}  // namespace
}  // namespace opsnn::test
