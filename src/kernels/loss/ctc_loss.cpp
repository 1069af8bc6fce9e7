#include "kernels/loss/ctc_loss.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "aclnn/aclnn_base.h"
#include "common/error.h"
#include "core/dtype.h"
#include "core/thread_pool.h"
#include "kernels/elementwise/convert.h"

namespace opsnn::kernels {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double lse2(double a, double b) {
  const double m = std::max(a, b);
  if (m == kNegInf) return kNegInf;
  return std::log(std::exp(a - m) + std::exp(b - m)) + m;
}
double lse3(double a, double b, double c) {
  const double m = std::max(a, std::max(b, c));
  if (m == kNegInf) return kNegInf;
  return std::log(std::exp(a - m) + std::exp(b - m) + std::exp(c - m)) + m;
}

int64_t load_index(aclDataType dt, const char *base, int64_t elem) {
  int64_t v;
  load_as<int64_t>(dt, base + elem * static_cast<int64_t>(core::dtype_size(dt)), 0, &v, 1);
  return v;
}

}  // namespace

int ctc_run(const CtcPlan &P, const CtcArgs &a) {
  // Every used target first: a value outside [0, C) fails the launch before anything is written.
  for (int64_t b = 0; b < P.N; ++b)
    for (int64_t j = 0; j < P.target_lengths[static_cast<size_t>(b)]; ++j) {
      const int64_t v = load_index(P.target_dtype, a.targets, P.target_offsets[static_cast<size_t>(b)] + j * P.target_step);
      if (v < 0 || v >= P.C)
        return fail(ACLNN_ERR_PARAM_INVALID, "targets: value %lld (batch %lld, position %lld) is out of range [0, %lld)",
                    static_cast<long long>(v), static_cast<long long>(b), static_cast<long long>(j),
                    static_cast<long long>(P.C));
    }
  const int64_t T = P.T, C = P.C, SA = 2 * P.max_len + 1;
  const uint64_t per_task = (P.workspace_bytes() - 64) / 8 / static_cast<uint64_t>(P.tasks);
  auto task = [&](int64_t k) {
    double *alpha = static_cast<double *>(a.workspace) + static_cast<uint64_t>(k) * per_task;
    double *beta = alpha + T * SA, *lcab = beta + T * SA;
    int64_t *ext = reinterpret_cast<int64_t *>(lcab + T * C);
    for (int64_t b = P.N * k / P.tasks; b < P.N * (k + 1) / P.tasks; ++b) {
      const int64_t Tb = P.input_lengths[static_cast<size_t>(b)], L = P.target_lengths[static_cast<size_t>(b)];
      const int64_t S = 2 * L + 1;
      for (int64_t s = 0; s < S; ++s)
        ext[s] = s % 2 == 0 ? P.blank
                            : load_index(P.target_dtype, a.targets,
                                         P.target_offsets[static_cast<size_t>(b)] + (s / 2) * P.target_step);
      auto lp = [&](int64_t t, int64_t c) {
        return load_one(P.lp_dtype, a.lp, t * P.lp_strides[0] + b * P.lp_strides[1] + c * P.lp_strides[2]);
      };
      if (!P.backward) {
        std::fill(alpha, alpha + T * SA, kNegInf);
        if (Tb > 0) {
          alpha[0] = lp(0, P.blank);
          if (L > 0) alpha[1] = lp(0, ext[1]);
        }
        for (int64_t t = 1; t < Tb; ++t)
          for (int64_t s = 0; s < S; ++s) {
            const double *prev = alpha + (t - 1) * SA;
            const double x = prev[s], y = s > 0 ? prev[s - 1] : kNegInf;
            const double z = s > 1 && ext[s] != P.blank && ext[s - 2] != ext[s] ? prev[s - 2] : kNegInf;
            alpha[t * SA + s] = lse3(x, y, z) + lp(t, ext[s]);
          }
        double nll;
        if (Tb == 0) nll = L == 0 ? 0.0 : std::numeric_limits<double>::infinity();
        else nll = -lse2(alpha[(Tb - 1) * SA + 2 * L], L > 0 ? alpha[(Tb - 1) * SA + 2 * L - 1] : kNegInf);
        store_one(nll, P.nll_dtype, a.nll_out, b * P.nll_stride);
        for (int64_t t = 0; t < T; ++t)
          for (int64_t s = 0; s < SA; ++s)
            store_one(alpha[t * SA + s], P.alpha_dtype, a.alpha_out,
                      b * P.alpha_strides[0] + t * P.alpha_strides[1] + s * P.alpha_strides[2]);
        continue;
      }
      const double nll = load_one(P.nll_dtype, a.nll_in, b * P.nll_stride);
      const double gr = load_one(P.gout_dtype, a.gout, b * P.gout_stride);
      auto store = [&](int64_t t, int64_t c, double v) {
        store_one(v, P.out_dtype, a.out, t * P.out_strides[0] + b * P.out_strides[1] + c * P.out_strides[2]);
      };
      if (P.zero_infinity && nll == std::numeric_limits<double>::infinity()) {
        for (int64_t t = 0; t < T; ++t)
          for (int64_t c = 0; c < C; ++c) store(t, c, 0.0);
        continue;
      }
      std::fill(beta, beta + T * SA, kNegInf);
      std::fill(lcab, lcab + T * C, kNegInf);
      if (Tb > 0) {
        beta[(Tb - 1) * SA + 2 * L] = lp(Tb - 1, P.blank);
        if (L > 0) beta[(Tb - 1) * SA + 2 * L - 1] = lp(Tb - 1, ext[2 * L - 1]);
      }
      for (int64_t t = Tb - 2; t >= 0; --t)
        for (int64_t s = 0; s < S; ++s) {
          const double *next = beta + (t + 1) * SA;
          const double x = next[s], y = s < S - 1 ? next[s + 1] : kNegInf;
          const double z = s < S - 2 && ext[s] != P.blank && ext[s + 2] != ext[s] ? next[s + 2] : kNegInf;
          beta[t * SA + s] = lse3(x, y, z) + lp(t, ext[s]);
        }
      for (int64_t t = 0; t < Tb; ++t)
        for (int64_t s = 0; s < S; ++s) {
          const double la = load_one(P.alpha_dtype, a.alpha_in,
                                      b * P.alpha_strides[0] + t * P.alpha_strides[1] + s * P.alpha_strides[2]);
          double &v = lcab[t * C + ext[s]];
          v = lse2(v, la + beta[t * SA + s]);
        }
      for (int64_t t = 0; t < T; ++t)
        for (int64_t c = 0; c < C; ++c) {
          if (t >= Tb) {
            store(t, c, 0.0);
            continue;
          }
          const double l = lp(t, c);
          store(t, c, (std::exp(l) - std::exp(lcab[t * C + c] + nll - l)) * gr);
        }
    }
  };
  core::parallel_tasks(P.tasks, task);
  return 0;
}

}  // namespace opsnn::kernels
