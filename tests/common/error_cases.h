// "Good arguments, then break one": the error tests of the op-table harnesses whose ops take many
// tensors (gdr, ropegrad, ...). A harness names the tensor fields of its Args struct once, then
// replaces each in turn by a null, a wrong dtype or a wrong shape and expects phase 1 to reject it
// with the status code and a message naming the API and that argument.
#pragma once

#include <initializer_list>
#include <vector>

#include <gtest/gtest.h>

#include "test_util.h"

namespace opsnn::test::harness {

// A tensor argument of an op's Args struct, as the prototype names it.
template <class Args>
struct ArgField {
  aclTensor *Args::*member;
  const char *name;
  bool optional = false;  // a null is accepted
};

// For each field i: `good` with field i replaced by `replacement[i]` (all null when `replacement`
// is empty) must fail phase 1 with `code` and a message containing the API, the field's name and
// `word` (when given); an optional field's null must pass.
template <class Args, class Phase1>
void expect_each_rejected(const char *api, const Args &good, const std::vector<ArgField<Args>> &fields,
                          const std::vector<aclTensor *> &replacement, int code, const char *word, Phase1 phase1) {
  ASSERT_TRUE(replacement.empty() || replacement.size() == fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    Args a = good;
    a.*fields[i].member = replacement.empty() ? nullptr : replacement[i];
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    const int rc = phase1(a, &ws, &ex);
    if (replacement.empty() && fields[i].optional) {
      EXPECT_EQ(rc, 0) << fields[i].name << " is optional: " << aclGetRecentErrMsg();
      if (rc == 0) aclDestroyAclOpExecutor(ex);
      continue;
    }
    EXPECT_TRUE(word != nullptr ? fails_with(rc, code, {api, fields[i].name, word}) : fails_with(rc, code, {api, fields[i].name}))
        << fields[i].name;
  }
}

}  // namespace opsnn::test::harness
