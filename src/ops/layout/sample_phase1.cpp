#include "ops/layout/sample_phase1.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/error.h"
#include "core/thread_pool.h"
#include "core/verbose.h"
#include "kernels/dimwise/sample_rows.h"
#include "kernels/elementwise/convert.h"

namespace opsnn::ops {
namespace {

using core::Shape;

// A registered tensor: its slot and view (slot -1: not registered).
struct Bound {
  int slot = -1;
  aclTensor t{};
  char *base(const core::LaunchArgs &args) const {
    return slot < 0 ? nullptr : core::view_base(args, slot, t, core::dtype_size(t.dtype));
  }
};

// Row r's scratch: the row in FLOAT (exact for every logits dtype), the kept order and probabilities, an
// output row.
struct RowBuffers {
  float *x;
  double *prob, *row;
  int64_t *pos;
  void *select;
};

class SampleStep final : public core::Step {
 public:
  Bound logits, top_k, top_p, min_ps, q, select_idx, select_logits, logits_idx, sort_masked;
  int64_t rows = 0, v = 0, tasks = 1, k_cap = 1024, guess = 1;
  double eps = 0, def_logit = -INFINITY;
  bool v2 = false, input_is_logits = true;
  kernels::SampleRowFn keep = nullptr;  // the row kernel's ISA tier
  core::WsKey ws;
  uint64_t task_bytes = 0;

  int run(const core::LaunchArgs &args) const override {
    char *scratch = args.get(ws);
    core::parallel_tasks(tasks, [&](int64_t t) {
      char *s = scratch + t * task_bytes;
      RowBuffers buf{reinterpret_cast<float *>(s), reinterpret_cast<double *>(s) + v,
                     reinterpret_cast<double *>(s) + 2 * v, reinterpret_cast<int64_t *>(s) + 3 * v,
                     s + 4 * v * 8};
      for (int64_t r = t; r < rows; r += tasks) run_row(args, r, buf);
    });
    return 0;
  }

 private:
  // Element i of a 1-D ([B] or [B, 1]) per-row tensor.
  static double per_row(const Bound &b, const char *base, int64_t r) {
    return kernels::load_one(b.t.dtype, base, r * b.t.strides[0]);
  }
  // Row r of a [B, V] view: its start and its element stride in bytes.
  static char *row_at(const Bound &b, char *base, int64_t r) {
    return base + r * b.t.strides[0] * static_cast<int64_t>(core::dtype_size(b.t.dtype));
  }
  static int64_t step_bytes(const Bound &b) { return b.t.strides[1] * static_cast<int64_t>(core::dtype_size(b.t.dtype)); }

  void run_row(const core::LaunchArgs &args, int64_t r, const RowBuffers &buf) const {
    kernels::load_as<float>(logits.t.dtype, row_at(logits, logits.base(args), r), step_bytes(logits), buf.x, v);
    kernels::SampleRowRule rule;
    rule.k = static_cast<int64_t>(per_row(top_k, top_k.base(args), r));
    rule.k_cap = k_cap;
    rule.p = per_row(top_p, top_p.base(args), r);
    rule.min_p = min_ps.slot >= 0 ? per_row(min_ps, min_ps.base(args), r) : 0;
    rule.input_is_logits = input_is_logits;
    rule.guess = guess;
    const int64_t kept = keep(buf.x, v, rule, buf.select, buf.pos, buf.prob);
    if (select_idx.slot >= 0) {
      int64_t best = 0;
      if (q.slot >= 0) {
        double norm = 1;
        if (!v2) {  // V1: the probabilities renormalised over the kept tokens
          norm = 0;
          for (int64_t j = 0; j < kept; ++j) norm += buf.prob[j];
        }
        const char *qr = row_at(q, q.base(args), r);
        double top = -INFINITY;
        for (int64_t j = 0; j < kept; ++j) {
          const double score = buf.prob[j] / norm / (kernels::load_one(ACL_FLOAT, qr, j * q.t.strides[1]) + eps);
          if (j == 0 || score > top) {
            top = score;
            best = j;
          }
        }
      }
      const int64_t idx = buf.pos[best];
      kernels::store_from<int64_t>(&idx, ACL_INT64, select_idx.base(args) + r * select_idx.t.strides[0] * 8, 0, 1);
    }
    if (select_logits.slot >= 0) {
      std::fill(buf.row, buf.row + v, def_logit);
      for (int64_t j = 0; j < kept; ++j) buf.row[buf.pos[j]] = buf.x[buf.pos[j]];
      kernels::store_from<double>(buf.row, ACL_FLOAT, row_at(select_logits, select_logits.base(args), r),
                                  step_bytes(select_logits), v);
    }
    if (logits_idx.slot >= 0) {
      // The kept indices in order, then the others ascending; their probabilities, then 0.
      std::fill(buf.row, buf.row + v, 0.0);
      for (int64_t j = 0; j < kept; ++j) buf.row[buf.pos[j]] = 1;
      int64_t *order = buf.pos;
      int64_t n = kept;
      for (int64_t i = 0; i < v; ++i)
        if (buf.row[i] == 0) order[n++] = i;
      kernels::store_from<int64_t>(order, ACL_INT64, row_at(logits_idx, logits_idx.base(args), r),
                                   step_bytes(logits_idx), v);
      std::fill(buf.prob + kept, buf.prob + v, 0.0);
      kernels::store_from<double>(buf.prob, ACL_FLOAT, row_at(sort_masked, sort_masked.base(args), r),
                                  step_bytes(sort_masked), v);
    }
  }
};

// A per-row tensor: `dtype`, [B] or [B, 1].
void check_per_row(const SampleArg &a, std::initializer_list<aclDataType> dtype, int64_t rows) {
  core::check_tensor(a.t, a.name);
  core::check_dtype_in(a.t, a.name, dtype);
  const aclTensor &t = *a.t;
  if (!((t.ndim == 1 || (t.ndim == 2 && t.dims[1] == 1)) && t.dims[0] == rows))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be [%lld] (or [%lld, 1]), one value per row of logits",
                a.name, core::shape_string(t).c_str(), static_cast<long long>(rows), static_cast<long long>(rows));
}

// An output the flags ask for: not null, `dtype`, `shape`.
void check_output(const SampleArg &a, aclDataType dtype, const Shape &shape) {
  core::check_tensor(a.t, a.name);
  core::check_dtype_in(a.t, a.name, {dtype});
  core::check_shape_equals(*a.t, a.name, shape);
}

}  // namespace

void sample_phase1(core::OpBuilder &b, const SampleRule &rule, const SampleCall &c) {
  // Null checks in prototype order (the optional q / minPs and the outputs the flags leave unwritten
  // may be null).
  core::check_tensor(c.logits.t, c.logits.name);
  core::check_tensor(c.top_k.t, c.top_k.name);
  core::check_tensor(c.top_p.t, c.top_p.name);
  core::check_dtype_in(c.logits.t, c.logits.name, rule.dtypes);
  const aclTensor &l = *c.logits.t;
  if (l.ndim != 2)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; it must be 2-D [batch, vocSize]", c.logits.name, l.ndim);
  const int64_t rows = l.dims[0], v = l.dims[1];
  if (rows < 1 || v < 1 || v > (int64_t{1} << 20))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it needs batch >= 1 and 1 <= vocSize <= 2^20 (no empty tensor)",
                c.logits.name, core::shape_string(l).c_str());
  check_per_row(c.top_k, {ACL_INT32}, rows);
  check_per_row(c.top_p, {l.dtype}, rows);
  if (c.q.t != nullptr) {
    core::check_tensor(c.q.t, c.q.name);
    core::check_dtype_in(c.q.t, c.q.name, {ACL_FLOAT});
    core::check_shape_equals(*c.q.t, c.q.name, Shape::of(l));
  }
  if (rule.v2 && c.min_ps.t != nullptr) check_per_row(c.min_ps, {l.dtype}, rows);
  if (!std::isfinite(c.eps) || c.eps < 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "eps must be finite and >= 0, got %g", c.eps);
  if (!rule.v2 && c.guess <= 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "topKGuess must be a positive integer, got %lld", static_cast<long long>(c.guess));
  if (rule.v2 && (c.ks_max < 1 || c.ks_max > 1024))
    throw_error(ACLNN_ERR_PARAM_INVALID, "ksMax must be in [1, 1024], got %lld", static_cast<long long>(c.ks_max));
  const bool sample_result = rule.v2 && c.need_sample_result;
  if (sample_result && c.q.t != nullptr)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be null when isNeedSampleResult is true", c.q.name);
  const Shape per_row{1, {rows}}, full = Shape::of(l);
  if (!sample_result) check_output(c.select_idx, ACL_INT64, per_row);
  if (c.need_logits) check_output(c.select_logits, ACL_FLOAT, full);
  if (sample_result) {
    check_output(c.logits_idx, ACL_INT64, full);
    check_output(c.sort_masked, ACL_FLOAT, full);
  }

  auto &s = b.add_step<SampleStep>();
  auto bind = [&](Bound &d, const aclTensor *t, bool write) {
    d.slot = write ? b.output(t) : b.input(t);
    d.t = b.tensor(d.slot);
  };
  bind(s.logits, c.logits.t, false);
  bind(s.top_k, c.top_k.t, false);
  bind(s.top_p, c.top_p.t, false);
  if (c.q.t != nullptr) bind(s.q, c.q.t, false);
  if (rule.v2 && c.min_ps.t != nullptr) bind(s.min_ps, c.min_ps.t, false);
  if (!sample_result) bind(s.select_idx, c.select_idx.t, true);
  if (c.need_logits) bind(s.select_logits, c.select_logits.t, true);
  if (sample_result) {
    bind(s.logits_idx, c.logits_idx.t, true);
    bind(s.sort_masked, c.sort_masked.t, true);
  }
  s.rows = rows;
  s.v = v;
  s.v2 = rule.v2;
  s.eps = c.eps;
  s.guess = std::max<int64_t>(c.guess, 1);
  s.input_is_logits = !rule.v2 || c.input_is_logits;
  s.def_logit = s.input_is_logits ? -INFINITY : 0.0;
  s.k_cap = rule.v2 ? std::min<int64_t>((c.ks_max + 7) / 8 * 8, 1024) : 1024;
  core::ImplTrace trace;
  const bool traced = core::current_phase1_trace() != nullptr;
  const char *tier = nullptr;
  s.keep = kernels::choose_sample_row_kernel(traced ? &trace : nullptr, &tier);
  if (traced) core::record_choice(std::string("sample_rows/") + tier, &trace);
  s.tasks = std::max<int64_t>(1, std::min<int64_t>(rows, core::num_threads()));
  s.task_bytes = (static_cast<uint64_t>(v) * 4 * 8 + kernels::sample_row_scratch_bytes(v) + 63) / 64 * 64;
  s.ws = b.book("top_k_top_p_sample.rows", s.task_bytes * static_cast<uint64_t>(s.tasks));
}

}  // namespace opsnn::ops
