#include "kernels/loss/class_loss.h"

#include <cmath>
#include <cstring>

#include "common/error.h"
#include "core/dtype.h"
#include "core/thread_pool.h"
#include "kernels/elementwise/convert.h"
#include "acl/acl_base.h"
#include "aclnn/aclnn_base.h"

namespace opsnn::kernels {
namespace {

// Walks positions in row-major order from `p`, keeping the element offset of each operand.
struct PosWalk {
  const ClassLossPlan &P;
  int64_t idx[kMaxLoopDims] = {};
  int64_t x = 0, t = 0, g = 0, o = 0;

  PosWalk(const ClassLossPlan &plan, int64_t p) : P(plan) {
    for (int d = P.npos - 1; d >= 0; --d) {
      idx[d] = P.pos_shape[d] > 0 ? p % P.pos_shape[d] : 0;
      p = P.pos_shape[d] > 0 ? p / P.pos_shape[d] : 0;
      x += idx[d] * P.x_pos[d];
      t += idx[d] * P.target_pos[d];
      g += idx[d] * P.grad_pos[d];
      o += idx[d] * P.out_pos[d];
    }
  }
  void next() {
    for (int d = P.npos - 1; d >= 0; --d) {
      x += P.x_pos[d];
      t += P.target_pos[d];
      g += P.grad_pos[d];
      o += P.out_pos[d];
      if (++idx[d] < P.pos_shape[d]) return;
      x -= P.x_pos[d] * P.pos_shape[d];
      t -= P.target_pos[d] * P.pos_shape[d];
      g -= P.grad_pos[d] * P.pos_shape[d];
      o -= P.out_pos[d] * P.pos_shape[d];
      idx[d] = 0;
    }
  }
};

int64_t load_index(aclDataType dt, const char *base, int64_t elem) {
  int64_t v;
  load_as<int64_t>(dt, base + elem * static_cast<int64_t>(core::dtype_size(dt)), 0, &v, 1);
  return v;
}

// The class line of x at element offset `x` into buf (classes doubles).
void load_line(const ClassLossPlan &P, const char *base, int64_t x, double *buf) {
  const int64_t es = static_cast<int64_t>(core::dtype_size(P.x_dtype));
  load_as<double>(P.x_dtype, base + x * es, P.x_class * es, buf, P.classes);
}

void store_line(const ClassLossPlan &P, const double *buf, char *base, int64_t o) {
  const int64_t es = static_cast<int64_t>(core::dtype_size(P.out_dtype));
  store_from<double>(buf, P.out_dtype, base + o * es, P.out_class * es, P.classes);
}

}  // namespace

uint64_t ClassLossPlan::workspace_bytes() const {
  const uint64_t c = static_cast<uint64_t>(classes), n = static_cast<uint64_t>(positions);
  return (c + n + static_cast<uint64_t>(tasks) * c) * sizeof(double) + 64;
}

int class_loss_run(const ClassLossPlan &P, const ClassLossArgs &a) {
  const int64_t C = P.classes, N = P.positions;
  auto *w = static_cast<double *>(a.workspace);
  double *terms = w + C;
  double *lines = terms + N;
  double wsum = 0;
  for (int64_t c = 0; c < C; ++c) {
    w[c] = P.has_weight ? load_one(P.weight_dtype, a.weight, c * P.weight_stride) : 1.0;
    wsum += w[c];
  }
  // Targets first, in order: the first one out of range is the error; total weight of the rest.
  double total = 0;
  {
    PosWalk it(P, 0);
    for (int64_t p = 0; p < N; ++p, it.next()) {
      const int64_t t = load_index(P.target_dtype, a.target, it.t);
      if (t == P.ignore_index) continue;
      if (t < 0 || t >= C)
        return fail(ACLNN_ERR_PARAM_INVALID, "target: value %lld at position %lld is out of range [0, %lld)",
                    static_cast<long long>(t), static_cast<long long>(p), static_cast<long long>(C));
      total += w[t];
    }
  }
  const double ls = P.smoothing;
  const double lsc = C > 0 ? ls / static_cast<double>(C) : 0;
  const bool smooth = ls != 0;

  if (P.mode == ClassLossMode::kForward) {
    auto body = [&](int64_t task) {
      const int64_t p0 = N * task / P.tasks, p1 = N * (task + 1) / P.tasks;
      double *buf = lines + task * C;
      PosWalk it(P, p0);
      for (int64_t p = p0; p < p1; ++p, it.next()) {
        const int64_t t = load_index(P.target_dtype, a.target, it.t);
        double term = 0;
        if (t != P.ignore_index) {
          term = (1 - ls) * -w[t] * load_one(P.x_dtype, a.x, it.x + t * P.x_class);
          if (smooth) {
            load_line(P, a.x, it.x, buf);
            double s = 0;
            for (int64_t c = 0; c < C; ++c) s += w[c] * buf[c];
            term -= lsc * s;
          }
        }
        terms[p] = term;
        if (P.reduction == 0) store_one(term, P.out_dtype, a.out, it.o);
      }
    };
    core::parallel_tasks(P.tasks, body);
    if (P.reduction != 0) {
      double s = 0;
      for (int64_t p = 0; p < N; ++p) s += terms[p];
      store_one(P.reduction == 1 ? s / total : s, P.out_dtype, a.out, 0);
    }
    if (P.has_total_out) store_one(total, P.total_dtype, a.total_out, 0);
    return 0;
  }

  // Gradients: a full class line per position.
  const double scale = P.reduction != 1                        ? 1.0
                       : P.mode == ClassLossMode::kNllBackward ? 1.0 / load_one(P.total_dtype, a.total_in, 0)
                                                               : 1.0 / total;
  auto body = [&](int64_t task) {
    const int64_t p0 = N * task / P.tasks, p1 = N * (task + 1) / P.tasks;
    double *buf = lines + task * C;
    PosWalk it(P, p0);
    for (int64_t p = p0; p < p1; ++p, it.next()) {
      const int64_t t = load_index(P.target_dtype, a.target, it.t);
      if (t == P.ignore_index) {
        std::memset(buf, 0, static_cast<size_t>(C) * sizeof(double));
      } else {
        const double g = load_one(P.grad_dtype, a.grad, it.g) * scale;
        if (P.mode == ClassLossMode::kNllBackward) {
          std::memset(buf, 0, static_cast<size_t>(C) * sizeof(double));
          buf[t] = -w[t] * g;
        } else {
          load_line(P, a.x, it.x, buf);
          const double A = (1 - ls) * w[t] + lsc * wsum;
          for (int64_t c = 0; c < C; ++c) buf[c] = g * (std::exp(buf[c]) * A - lsc * w[c]);
          buf[t] -= g * (1 - ls) * w[t];
        }
      }
      store_line(P, buf, a.out, it.o);
    }
  };
  core::parallel_tasks(P.tasks, body);
  return 0;
}

uint64_t multilabel_workspace_bytes(const ClassLossPlan &P) {
  const uint64_t c = static_cast<uint64_t>(P.classes), n = static_cast<uint64_t>(P.positions);
  return (n + static_cast<uint64_t>(P.tasks) * 3 * c) * sizeof(double) + 64;
}

int multilabel_margin_run(const ClassLossPlan &P, const ClassLossArgs &a, char *is_target) {
  const int64_t C = P.classes, N = P.positions;
  // Every target value first: one outside [-1, C) fails the launch before anything is written.
  for (int64_t p = 0; p < N; ++p)
    for (int64_t c = 0; c < C; ++c) {
      const int64_t t = load_index(P.target_dtype, a.target, p * P.target_pos[0] + c * P.target_class);
      if (t < -1 || t >= C)
        return fail(ACLNN_ERR_PARAM_INVALID, "target: value %lld at [%lld, %lld] is out of range [-1, %lld)",
                    static_cast<long long>(t), static_cast<long long>(p), static_cast<long long>(c),
                    static_cast<long long>(C));
    }
  auto *terms = static_cast<double *>(a.workspace);
  const int64_t es = static_cast<int64_t>(core::dtype_size(P.x_dtype));
  auto body = [&](int64_t task) {
    double *x = terms + N + task * 3 * C, *count = x + C;
    auto *tg = reinterpret_cast<int64_t *>(count + C);
    for (int64_t p = N * task / P.tasks; p < N * (task + 1) / P.tasks; ++p) {
      load_as<double>(P.x_dtype, a.x + p * P.x_pos[0] * es, P.x_class * es, x, C);
      std::memset(count, 0, static_cast<size_t>(C) * sizeof(double));
      int64_t nt = 0;
      for (; nt < C; ++nt) {
        tg[nt] = load_index(P.target_dtype, a.target, p * P.target_pos[0] + nt * P.target_class);
        if (tg[nt] < 0) break;
        count[tg[nt]] += 1;
      }
      double sum = 0;
      for (int64_t j = 0; j < nt; ++j) {
        const double xt = x[tg[j]];
        for (int64_t i = 0; i < C; ++i) {
          if (count[i] != 0) continue;
          const double z = 1 - xt + x[i];
          if (z > 0) sum += z;
        }
      }
      terms[p] = sum / static_cast<double>(C);
      if (P.reduction == 0) store_one(terms[p], P.out_dtype, a.out, p * P.out_pos[0]);
      const int64_t ies = static_cast<int64_t>(core::dtype_size(P.is_target_dtype));
      store_from<double>(count, P.is_target_dtype, is_target + p * P.is_target_pos * ies, P.is_target_class * ies, C);
    }
  };
  core::parallel_tasks(P.tasks, body);
  if (P.reduction != 0) {
    double s = 0;
    for (int64_t p = 0; p < N; ++p) s += terms[p];
    store_one(P.reduction == 1 ? s / static_cast<double>(N) : s, P.out_dtype, a.out, 0);
  }
  return 0;
}

}  // namespace opsnn::kernels
