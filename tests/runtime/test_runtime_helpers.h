// Shared helpers for the runtime tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "acl/acl.h"

// Asserts the exact status and that aclGetRecentErrMsg() mentions `needle` (an API or argument).
#define EXPECT_ACL_ERROR(expr, code, needle)                                                  \
  do {                                                                                        \
    aclError rc_ = (expr);                                                                    \
    EXPECT_EQ(rc_, (code)) << #expr;                                                          \
    const char *msg_ = aclGetRecentErrMsg();                                                  \
    ASSERT_NE(msg_, nullptr);                                                                 \
    EXPECT_NE(std::string(msg_).find(needle), std::string::npos)                              \
        << "message '" << msg_ << "' does not mention '" << (needle) << "'";                  \
  } while (0)

#define ASSERT_ACL_OK(expr) ASSERT_EQ((expr), ACL_SUCCESS) << #expr << ": " << aclGetRecentErrMsg()

class RuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    aclInit(nullptr);  // may return ACL_ERROR_REPEAT_INITIALIZE: ignored, like clients do
    ASSERT_ACL_OK(aclrtSetDevice(0));
  }
};
