#include "kernels/loss/vocab_ce.h"

#include <cmath>

#include "core/dtype.h"
#include "core/thread_pool.h"
#include "kernels/elementwise/convert.h"

namespace opsnn::kernels {
namespace {

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

// Row r of a [rows, V] operand into / from the double buffer.
void load_row(const VocabCePlan &P, const VocabCeArgs &a, int role, int64_t r, double *buf) {
  const VocabOperand &o = P.op[role];
  const int64_t es = static_cast<int64_t>(core::dtype_size(o.dtype));
  load_as<double>(o.dtype, a.p[role] + row_offset(P, role, r) * es, o.col * es, buf, P.vocab);
}

void store_row(const VocabCePlan &P, const VocabCeArgs &a, int role, int64_t r, const double *buf) {
  const VocabOperand &o = P.op[role];
  const int64_t es = static_cast<int64_t>(core::dtype_size(o.dtype));
  store_from<double>(buf, o.dtype, a.p[role] + row_offset(P, role, r) * es, o.col * es, P.vocab);
}

void sum_exp_row(const VocabCePlan &P, const VocabCeArgs &a, int64_t r, double *buf) {
  const double m = load(P, a, kVcMax, r), t = load(P, a, kVcTarget, r);
  const bool outside = !(t >= static_cast<double>(P.start) && t < static_cast<double>(P.start + P.vocab));
  const int64_t offset = outside ? 0 : static_cast<int64_t>(t) - P.start;
  load_row(P, a, kVcX, r, buf);
  store(P, a, kVcPredicted, r, outside ? 0.0 : buf[offset] - m);
  double sum = 0;
  for (int64_t j = 0; j < P.vocab; ++j) {
    buf[j] = std::exp(buf[j] - m);
    sum += buf[j];
  }
  store_row(P, a, kVcExp, r, buf);
  store(P, a, kVcSumExp, r, sum);
  store(P, a, kVcOffset, r, static_cast<double>(offset));
  store(P, a, kVcMask, r, outside ? 1.0 : 0.0);
}

void loss_row(const VocabCePlan &P, const VocabCeArgs &a, int64_t r, double *buf) {
  const double s = load(P, a, kVcSumExp, r);
  store(P, a, kVcLoss, r, std::log(s) - load(P, a, kVcPredicted, r));
  if (!P.has[kVcSoftmax]) return;
  const double m = load(P, a, kVcMax, r);
  load_row(P, a, kVcX, r, buf);
  for (int64_t j = 0; j < P.vocab; ++j) buf[j] = std::exp(buf[j] - m) / s;
  store_row(P, a, kVcSoftmax, r, buf);
}

}  // namespace

void vocab_ce_run(const VocabCePlan &P, const VocabCeArgs &a) {
  auto *ws = static_cast<double *>(a.workspace);
  core::parallel_tasks(P.tasks, [&](int64_t t) {
    double *buf = ws + t * P.vocab;
    for (int64_t r = P.rows * t / P.tasks; r < P.rows * (t + 1) / P.tasks; ++r)
      P.mode == VocabCeMode::kSumExp ? sum_exp_row(P, a, r, buf) : loss_row(P, a, r, buf);
  });
}

}  // namespace opsnn::kernels
