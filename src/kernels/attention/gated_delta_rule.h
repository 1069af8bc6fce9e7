// The recurrent gated delta rule (aclnnRecurrentGatedDeltaRule, formulas in
// src/ops/attention/delta_rule.ops): one task per (sequence, value head) keeps its state S [Dv, Dk]
// in fp32 scratch, runs the sequence's tokens in order and writes S back to the state pool after
// every token. The launch first checks the device lengths, accepted counts and state indices
// (nothing is written when one is bad). Tasks never share a state slot (checked), so results do not
// depend on the thread count.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"

namespace opsnn::kernels {

// An operand: dtype and element strides, dims outermost first.
struct GdrOperand {
  aclDataType dtype = ACL_FLOAT;
  int64_t s[4] = {};
};

struct GdrPlan {
  int64_t t = 0, nk = 0, nv = 0, dk = 0, dv = 0, batch = 0, blocks = 0;
  float scale = 1.0f;
  // q / k [T, Nk, Dk], v / out [T, Nv, Dv], beta / g [T, Nv], gk [T, Nv, Dk], state [blocks, Nv, Dv, Dk],
  // the INT32 vectors act_len / accepted [B] and state_idx [T].
  GdrOperand q, k, v, beta, g, gk, state, out, act_len, accepted, state_idx;
  int64_t workers = 1;  // tasks run by this many workers, each with its own scratch
  // Workspace: per worker the state and the token's vectors; then the owner of every state slot and
  // every sequence's first token.
  int64_t scratch_floats() const { return dv * dk + 3 * dk + 2 * dv; }
  int64_t owner_offset() const { return workers * scratch_floats() * 4; }
  int64_t starts_offset() const { return (owner_offset() + blocks * 4 + 7) / 8 * 8; }
  int64_t workspace_bytes() const { return starts_offset() + (batch + 1) * 8; }
};

struct GdrArgs {
  const char *q = nullptr, *k = nullptr, *v = nullptr, *beta = nullptr, *g = nullptr, *gk = nullptr;
  const char *act_len = nullptr, *accepted = nullptr, *state_idx = nullptr;
  char *state = nullptr, *out = nullptr, *work = nullptr;
};

// Returns 0, or 161002 (after set_last_error) for a bad length, accepted count or state index.
int gated_delta_rule_run(const GdrPlan &plan, const GdrArgs &args);

}  // namespace opsnn::kernels
