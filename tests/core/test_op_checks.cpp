// Shared argument checks of the op layer (core/op_checks.h), on views built with the public tensor API.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "aclnn/acl_meta.h"
#include "common/error.h"
#include "core/op_checks.h"

namespace opsnn::test {
namespace {

// True when the view (dims, strides over `storage` floats) passes the no-self-overlap check.
bool no_overlap(std::vector<int64_t> dims, std::vector<int64_t> strides, int64_t storage, std::string *why) {
  std::vector<float> data(static_cast<size_t>(storage));
  aclTensor *t = aclCreateTensor(dims.data(), dims.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND, &storage, 1,
                                 data.data());
  EXPECT_NE(t, nullptr);
  bool ok = true;
  try {
    core::check_no_internal_overlap(*t, "out");
  } catch (const Error &e) {
    ok = false;
    if (why) *why = e.what();
  }
  aclDestroyTensor(t);
  return ok;
}

TEST(OpChecks, NoInternalOverlapWhateverTheDimOrder) {
  // The check sorts dims by stride: permuted and padded layouts that never alias pass.
  EXPECT_TRUE(no_overlap({2, 3, 4}, {12, 4, 1}, 24, nullptr));
  EXPECT_TRUE(no_overlap({2, 3, 4}, {1, 8, 2}, 24, nullptr));   // inner to outer: dim 0, dim 2, dim 1
  EXPECT_TRUE(no_overlap({4, 3, 2}, {2, 8, 1}, 24, nullptr));
  EXPECT_TRUE(no_overlap({3, 1, 5}, {7, 0, 1}, 21, nullptr));   // size-1 dims have any stride
  EXPECT_TRUE(no_overlap({2, 2, 2, 2, 2, 2, 2, 2}, {1, 2, 4, 8, 16, 32, 64, 128}, 256, nullptr));
  EXPECT_TRUE(no_overlap({2, 2, 2, 2, 2, 2, 2, 2}, {128, 64, 32, 16, 8, 4, 2, 1}, 256, nullptr));
  EXPECT_TRUE(no_overlap({2, 2, 2, 2, 2, 2, 2, 2}, {16, 1, 64, 4, 128, 2, 32, 8}, 256, nullptr));

  std::string why;
  EXPECT_FALSE(no_overlap({2, 3, 4}, {1, 6, 2}, 24, &why));  // dim 1's stride 6 lands inside dims 0 and 2
  EXPECT_NE(why.find("out"), std::string::npos) << why;
  EXPECT_NE(why.find("overlapping"), std::string::npos) << why;
  EXPECT_FALSE(no_overlap({2, 3}, {0, 1}, 3, nullptr));                     // broadcast row
  EXPECT_FALSE(no_overlap({4, 4}, {1, 1}, 8, nullptr));                     // diagonal sweep
  EXPECT_FALSE(no_overlap({2, 2, 2, 2, 2, 2, 2, 2}, {16, 1, 64, 4, 128, 2, 32, 4}, 256, nullptr));
}

core::Shape shape_of(std::vector<int64_t> dims) {
  core::Shape s;
  s.ndim = static_cast<int>(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) s.dims[i] = dims[i];
  return s;
}

TEST(OpChecks, BroadcastOfValidShapesMayNotOverflowTheElementCount) {
  // Each operand is a valid tensor (< 2^62 elements); the broadcast of [2^32, 1] and [2^31] is not.
  const int64_t big = int64_t{1} << 32;
  EXPECT_TRUE(core::broadcast_shapes(shape_of({big, 1}), "self", shape_of({1 << 29}), "target") ==
              shape_of({big, 1 << 29}));  // 2^61: still fine
  try {
    core::broadcast_shapes(shape_of({big, 1}), "self", shape_of({int64_t{1} << 31}), "target");
    ADD_FAILURE() << "a broadcast of 2^63 elements was accepted";
  } catch (const Error &e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("self"), std::string::npos) << m;
    EXPECT_NE(m.find("target"), std::string::npos) << m;
    EXPECT_NE(m.find("2^62"), std::string::npos) << m;
  }
  // A size-0 dim does not hide the overflow of the others (strides are products of the dims).
  EXPECT_THROW(core::broadcast_shapes(shape_of({0, big, 1}), "a", shape_of({big}), "b"), Error);
}

}  // namespace
}  // namespace opsnn::test
