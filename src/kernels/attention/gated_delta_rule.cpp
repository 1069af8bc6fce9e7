#include "kernels/attention/gated_delta_rule.h"

#include <algorithm>
#include <cmath>

#include "aclnn/aclnn_base.h"
#include "common/error.h"
#include "core/dtype.h"
#include "core/thread_pool.h"
#include "kernels/elementwise/convert.h"

namespace opsnn::kernels {
namespace {

int32_t int_at(const GdrOperand &o, const char *base, int64_t i) {
  return reinterpret_cast<const int32_t *>(base)[i * o.s[0]];
}

// The address of element (i0, i1, i2) of an operand.
template <class C>
C *at(const GdrOperand &o, C *base, int64_t i0, int64_t i1, int64_t i2 = 0) {
  return base + (i0 * o.s[0] + i1 * o.s[1] + i2 * o.s[2]) * static_cast<int64_t>(core::dtype_size(o.dtype));
}

int64_t bytes(const GdrOperand &o, int dim) { return o.s[dim] * static_cast<int64_t>(core::dtype_size(o.dtype)); }

// The lengths, accepted counts and state indices: every sequence's first token into `starts` (B + 1
// entries), or 161002 naming the bad value. A state slot written by two sequences is refused (their
// order would decide the result).
int check_indices(const GdrPlan &P, const GdrArgs &a, int64_t *starts, int32_t *owner) {
  int64_t start = 0;
  for (int64_t b = 0; b < P.batch; ++b) {
    starts[b] = start;
    const int64_t len = int_at(P.act_len, a.act_len, b);
    if (len < 0 || len > P.t - start)
      return fail(ACLNN_ERR_PARAM_INVALID,
                  "actualSeqLengths[%lld] = %lld: the lengths must be non-negative and sum to at most the %lld tokens "
                  "(%lld used before it)",
                  static_cast<long long>(b), static_cast<long long>(len), static_cast<long long>(P.t),
                  static_cast<long long>(start));
    const int64_t acc = int_at(P.accepted, a.accepted, b);
    if (len > 0 && (acc < 1 || acc > len))
      return fail(ACLNN_ERR_PARAM_INVALID, "numAcceptedTokens[%lld] = %lld is outside [1, %lld] (the sequence's length)",
                  static_cast<long long>(b), static_cast<long long>(acc), static_cast<long long>(len));
    start += len;
  }
  starts[P.batch] = start;
  std::fill(owner, owner + P.blocks, -1);
  for (int64_t b = 0; b < P.batch; ++b)
    for (int64_t t = starts[b]; t < starts[b + 1]; ++t) {
      const int64_t s = int_at(P.state_idx, a.state_idx, t);
      if (s < 0 || s >= P.blocks)
        return fail(ACLNN_ERR_PARAM_INVALID, "ssmStateIndices[%lld] = %lld is outside [0, %lld) (stateRef's blocks)",
                    static_cast<long long>(t), static_cast<long long>(s), static_cast<long long>(P.blocks));
      if (owner[s] >= 0 && owner[s] != b)
        return fail(ACLNN_ERR_PARAM_INVALID,
                    "ssmStateIndices[%lld] = %lld is also a state slot of sequence %d; each sequence needs its own slots",
                    static_cast<long long>(t), static_cast<long long>(s), owner[s]);
      owner[s] = static_cast<int32_t>(b);
    }
  return 0;
}

// One (sequence, value head): its tokens in order. `w` is the worker's scratch.
void run_task(const GdrPlan &P, const GdrArgs &a, int64_t b, int64_t h, const int64_t *starts, float *w) {
  const int64_t dk = P.dk, dv = P.dv;
  float *S = w, *q = S + dv * dk, *k = q + dk, *decay = k + dk, *x = decay + dk, *v = x + dv;
  const int64_t t0 = starts[b], t1 = starts[b + 1];
  const int64_t kh = h / (P.nv / P.nk);
  const GdrOperand &st = P.state;
  const int64_t s_col = bytes(st, 3);
  const int64_t first = int_at(P.state_idx, a.state_idx, t0 + int_at(P.accepted, a.accepted, b) - 1);
  for (int64_t i = 0; i < dv; ++i) load_as<float>(st.dtype, at(st, a.state, first, h, i), s_col, S + i * dk, dk);
  for (int64_t t = t0; t < t1; ++t) {
    load_as<float>(P.q.dtype, at(P.q, a.q, t, kh), bytes(P.q, 2), q, dk);
    load_as<float>(P.k.dtype, at(P.k, a.k, t, kh), bytes(P.k, 2), k, dk);
    load_as<float>(P.v.dtype, at(P.v, a.v, t, h), bytes(P.v, 2), v, dv);
    const float beta = static_cast<float>(load_one(P.beta.dtype, at(P.beta, a.beta, t, h), 0));
    const float alpha = a.g != nullptr ? std::exp(static_cast<float>(load_one(P.g.dtype, at(P.g, a.g, t, h), 0))) : 1.0f;
    if (a.gk != nullptr) {
      load_as<float>(P.gk.dtype, at(P.gk, a.gk, t, h), bytes(P.gk, 2), decay, dk);
      for (int64_t j = 0; j < dk; ++j) decay[j] = alpha * std::exp(decay[j]);
    } else {
      std::fill(decay, decay + dk, alpha);
    }
    for (int64_t j = 0; j < dk; ++j) q[j] *= P.scale;
    // Decay, then the delta: x = beta (v - S k).
    for (int64_t i = 0; i < dv; ++i) {
      float *row = S + i * dk;
      float sk = 0.0f;
      for (int64_t j = 0; j < dk; ++j) {
        row[j] *= decay[j];
        sk += row[j] * k[j];
      }
      x[i] = beta * (v[i] - sk);
    }
    // S += x k^T and the output S q (into v).
    for (int64_t i = 0; i < dv; ++i) {
      float *row = S + i * dk;
      float o = 0.0f;
      for (int64_t j = 0; j < dk; ++j) {
        row[j] += x[i] * k[j];
        o += row[j] * q[j];
      }
      v[i] = o;
    }
    const int64_t slot = int_at(P.state_idx, a.state_idx, t);
    for (int64_t i = 0; i < dv; ++i)
      store_from<float>(S + i * dk, st.dtype, at(st, a.state, slot, h, i), s_col, dk);
    store_from<float>(v, P.out.dtype, at(P.out, a.out, t, h), bytes(P.out, 2), dv);
  }
}

}  // namespace

int gated_delta_rule_run(const GdrPlan &P, const GdrArgs &a) {
  float *scratch = reinterpret_cast<float *>(a.work);
  int32_t *owner = reinterpret_cast<int32_t *>(a.work + P.owner_offset());
  int64_t *starts = reinterpret_cast<int64_t *>(a.work + P.starts_offset());
  if (const int rc = check_indices(P, a, starts, owner)) return rc;
  // Tokens after the last sequence: a zero output.
  const float zero = 0.0f;
  for (int64_t t = starts[P.batch]; t < P.t; ++t)
    for (int64_t h = 0; h < P.nv; ++h)
      for (int64_t i = 0; i < P.dv; ++i)
        store_from<float>(&zero, P.out.dtype, at(P.out, a.out, t, h, i), 0, 1);
  const int64_t tasks = P.batch * P.nv;
  core::parallel_tasks(P.workers, [&](int64_t w) {
    float *mine = scratch + w * P.scratch_floats();
    for (int64_t task = w; task < tasks; task += P.workers) {
      const int64_t b = task / P.nv, h = task % P.nv;
      if (starts[b + 1] > starts[b]) run_task(P, a, b, h, starts, mine);
    }
  });
  return 0;
}

}  // namespace opsnn::kernels
