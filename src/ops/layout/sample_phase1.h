// The phase 1 of the sampling table (src/ops/layout/sampling.ops): aclnnTopKTopPSample and
// aclnnTopKTopPSampleV2 over kernels/dimwise/sample_rows. Per row b of logits [B, V] (B >= 1,
// 1 <= V <= 2^20; 2-D only, empty tensors are 161002 as the docs say):
//   order     the row sorted descending, ties by the lower index first (torch.sort(stable=True,
//             descending=True); torch.topk gives the same set), NaN above +inf. Every filter keeps
//             a prefix of this order; at least one token is always kept.
//   top-k     on when 1 <= topK[b] <= min(V, cap): the candidates are the first topK[b]; any other
//             value (0, negative, above the cap) skips it and every token is a candidate. cap is
//             1024 (V1) or min(ksMax rounded up to a multiple of 8, 1024) (V2; ksMax outside
//             [1, 1024] is 161002).
//   probs     inputIsLogits (always for V1): the softmax (in DOUBLE) of the candidates - the top k
//             when top-k is on, else the whole row; V2 with inputIsLogits false: the values
//             themselves (already probabilities, not renormalised).
//   top-p     0 < topP[b] < 1: the shortest prefix whose probability mass reaches topP[b] (a token
//             is kept when the mass of those before it is < topP[b], the docs' table and the
//             ApplyTopKTopP mask 'ascending cumsum <= 1 - p' read from the other end); topP[b] <= 0
//             keeps the largest only (V2's rule, also taken for V1, whose docs leave it undefined);
//             >= 1 (or NaN) skips it.
//   min-p     V2, minPs given: 0 < minPs[b] < 1 keeps the probabilities >= minPs[b] times the largest
//             kept one; >= 1 keeps the largest only; <= 0 (or NaN, or minPs null) skips it.
//   topKGuess a hint only: without top-k, the top-p cut is first looked for in the best topKGuess
//             tokens, then in 4x as many, ...; the result never depends on it. V1 requires it > 0 (the
//             docs: a positive integer), V2 takes any value.
//   sample    q given (FLOAT [B, V]): the kept token at sorted position j scores probs_j / (q[b][j] +
//             eps) - q is read by position in the sorted kept list, as V2's formula q[b, :qCnt] says
//             (V1's docs do not say; the same reading) - V1's probs renormalised over the kept
//             tokens, V2's as they are (the docs; the argmax is the same); logitsSelectIdx[b] is the
//             index of the first best score in sorted order. q null: the first kept token (the
//             argmax). eps must be finite and >= 0 (not stated by the docs).
//   specials  a row holding NaN or +inf (or only -inf) has NaN probabilities (the softmax is undefined):
//             every cut then keeps the first token of the order - the first NaN, else the first +inf,
//             else index 0 - and selects it (torch.argmax's NaN / +inf answer).
//   outputs   logitsSelectIdx INT64 [B]: written unless V2's isNeedSampleResult (then it may be null).
//             isNeedLogits: logitsTopKPSelect FLOAT [B, V] = the logit where kept, defLogit elsewhere
//             (-inf; V2 with inputIsLogits false: 0); not written (may be null) otherwise.
//             V2 isNeedSampleResult (q must then be null, else 161002): logitsIdx INT64 [B, V] = the
//             kept indices in sorted order, then every other index ascending (a permutation of
//             [0, V)); logitsSortMasked FLOAT [B, V] = the kept probabilities, then 0 (the docs fill
//             filtered positions with 0); not written (may be null) otherwise. An output that is not
//             written is not checked.
//   inputs    topK INT32, topP and minPs in logits' dtype, each [B] (or [B, 1]); logits FLOAT16 /
//             BF16 (V1), also FLOAT (V2). Null logits, topK, topP or a needed output: 161001.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"
#include "core/op_checks.h"

namespace opsnn::ops {

struct SampleRule {
  core::DtypeMask dtypes;  // the accepted logits dtypes
  bool v2;                 // aclnnTopKTopPSampleV2 (min-p, ksMax, inputIsLogits, the intermediate outputs)
};

using SampleArg = core::NamedTensor;

struct SampleCall {
  SampleArg logits, top_k, top_p, q, min_ps, select_idx, select_logits, logits_idx, sort_masked;
  double eps = 0;
  bool need_logits = false, input_is_logits = true, need_sample_result = false;
  int64_t guess = 1, ks_max = 1024;
};

void sample_phase1(core::OpBuilder &b, const SampleRule &rule, const SampleCall &c);

}  // namespace opsnn::ops
