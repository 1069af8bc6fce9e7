#include "kernels/loss/vocab_ce.h"

#include <cmath>

#include "core/dtype.h"
#include "core/impl_list.h"
#include "core/thread_pool.h"
#include "kernels/elementwise/convert.h"
#include "kernels/loss/vocab_rows.h"

namespace opsnn::kernels {
namespace {

const core::Impl<VocabCePlan> kVocabTiers[] = {
#if defined(__x86_64__)
    {"avx512", static_cast<int>(core::Isa::kAvx512), nullptr},
    {"avx2", static_cast<int>(core::Isa::kAvx2), nullptr},
#endif
    {"portable", static_cast<int>(core::Isa::kPortable), nullptr},
};
using ExpSumFn = float (*)(const float *, float *, int64_t, float);
using SoftmaxFn = void (*)(const float *, float *, int64_t, float, float);
#if defined(__x86_64__)
const ExpSumFn kExpSum[] = {vocab_exp_sum_avx512, vocab_exp_sum_avx2, vocab_exp_sum_portable};
const SoftmaxFn kSoftmax[] = {vocab_softmax_avx512, vocab_softmax_avx2, vocab_softmax_portable};
#else
const ExpSumFn kExpSum[] = {vocab_exp_sum_portable};
const SoftmaxFn kSoftmax[] = {vocab_softmax_portable};
#endif

int64_t row_offset(const VocabCePlan &P, int role, int64_t r) {
  const VocabOperand &o = P.op[role];
  return (r / P.inner_rows) * o.outer + (r % P.inner_rows) * o.inner;
}

double load(const VocabCePlan &P, const VocabCeArgs &a, int role, int64_t r) {
  return load_one(P.op[role].dtype, a.p[role], row_offset(P, role, r));
}

void store(const VocabCePlan &P, const VocabCeArgs &a, int role, int64_t r, double v) {
  if (P.has[role]) store_one(v, P.op[role].dtype, a.p[role], row_offset(P, role, r));
}

bool dense_float(const VocabCePlan &P, int role) { return P.op[role].dtype == ACL_FLOAT && P.op[role].col == 1; }

char *row_start(const VocabCePlan &P, const VocabCeArgs &a, int role, int64_t r) {
  return a.p[role] + row_offset(P, role, r) * static_cast<int64_t>(core::dtype_size(P.op[role].dtype));
}

// Row r of x as floats: in place when dense FLOAT, else converted into `buf`.
const float *x_row(const VocabCePlan &P, const VocabCeArgs &a, int64_t r, float *buf) {
  if (dense_float(P, kVcX)) return reinterpret_cast<const float *>(row_start(P, a, kVcX, r));
  const VocabOperand &o = P.op[kVcX];
  load_as<float>(o.dtype, row_start(P, a, kVcX, r), o.col * static_cast<int64_t>(core::dtype_size(o.dtype)), buf,
                 P.vocab);
  return buf;
}

// The row of output `role` to write floats to (in place when dense FLOAT, else `buf`), and the
// copy out of `buf` afterwards.
float *y_row(const VocabCePlan &P, const VocabCeArgs &a, int role, int64_t r, float *buf) {
  return P.has[role] && dense_float(P, role) ? reinterpret_cast<float *>(row_start(P, a, role, r)) : buf;
}
void y_done(const VocabCePlan &P, const VocabCeArgs &a, int role, int64_t r, const float *buf) {
  if (!P.has[role] || dense_float(P, role)) return;
  const VocabOperand &o = P.op[role];
  store_from<float>(buf, o.dtype, row_start(P, a, role, r), o.col * static_cast<int64_t>(core::dtype_size(o.dtype)),
                    P.vocab);
}

void sum_exp_row(const VocabCePlan &P, const VocabCeArgs &a, int64_t r, float *xbuf, float *ybuf) {
  const double m = load(P, a, kVcMax, r), t = load(P, a, kVcTarget, r);
  const int64_t range = P.range < 0 ? P.vocab : P.range;
  const bool outside = !(t >= static_cast<double>(P.start) && t < static_cast<double>(P.start + range));
  const int64_t offset = outside ? 0 : static_cast<int64_t>(t) - P.start;
  const float *x = x_row(P, a, r, xbuf);
  store(P, a, kVcPredicted, r, outside ? 0.0 : static_cast<double>(x[offset]) - m);
  float *y = y_row(P, a, kVcExp, r, ybuf);
  const float sum = kExpSum[P.tier](x, y, P.vocab, static_cast<float>(m));
  y_done(P, a, kVcExp, r, ybuf);
  store(P, a, kVcSumExp, r, sum);
  store(P, a, kVcOffset, r, static_cast<double>(offset));
  store(P, a, kVcMask, r, outside ? 1.0 : 0.0);
}

void loss_row(const VocabCePlan &P, const VocabCeArgs &a, int64_t r, float *xbuf, float *ybuf) {
  const double s = load(P, a, kVcSumExp, r);
  if (P.has[kVcLoss]) store(P, a, kVcLoss, r, std::log(s) - load(P, a, kVcPredicted, r));
  if (!P.has[kVcSoftmax]) return;
  const float *x = x_row(P, a, r, xbuf);
  float *y = y_row(P, a, kVcSoftmax, r, ybuf);
  kSoftmax[P.tier](x, y, P.vocab, static_cast<float>(load(P, a, kVcMax, r)), static_cast<float>(1 / s));
  y_done(P, a, kVcSoftmax, r, ybuf);
}

}  // namespace

float vocab_exp_sum_portable(const float *x, float *y, int64_t n, float m) { return vocab_exp_sum_body(x, y, n, m); }
void vocab_softmax_portable(const float *x, float *y, int64_t n, float m, float inv) {
  vocab_softmax_body(x, y, n, m, inv);
}

const char *choose_vocab_tier(VocabCePlan &plan, core::ImplTrace *trace) {
  plan.tier = core::choose(kVocabTiers, plan, trace);
  return kVocabTiers[plan.tier].name;
}

void vocab_ce_run(const VocabCePlan &P, const VocabCeArgs &a) {
  auto *ws = static_cast<float *>(a.workspace);
  core::parallel_tasks(P.tasks, [&](int64_t t) {
    float *xbuf = ws + t * 2 * P.vocab, *ybuf = xbuf + P.vocab;
    for (int64_t r = P.rows * t / P.tasks; r < P.rows * (t + 1) / P.tasks; ++r)
      P.mode == VocabCeMode::kSumExp ? sum_exp_row(P, a, r, xbuf, ybuf) : loss_row(P, a, r, xbuf, ybuf);
  });
}

}  // namespace opsnn::kernels
