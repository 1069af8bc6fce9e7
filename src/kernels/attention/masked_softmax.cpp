#include "kernels/attention/masked_softmax.h"

#include <algorithm>
#include <atomic>
#include <string>

#include "core/dtype.h"
#include "core/impl_list.h"
#include "core/thread_pool.h"
#include "core/verbose.h"
#include "kernels/elementwise/convert.h"

namespace opsnn::kernels {
namespace {

constexpr float kMaskedValue = -10000.0f;

struct Ctx {};
const core::Impl<Ctx> kTiers[] = {
#if defined(__x86_64__)
    {"avx512", static_cast<int>(core::Isa::kAvx512), nullptr},
    {"avx2", static_cast<int>(core::Isa::kAvx2), nullptr},
#endif
    {"portable", core::kNoIsa, nullptr},
};
const AttnRowFns &(*const kFns[])() = {
#if defined(__x86_64__)
    &attn_rows_avx512,
    &attn_rows_avx2,
#endif
    &attn_rows_portable,
};

void run_row(const MaskedSoftmaxPlan &p, int64_t row, const char *in, const char *in2, const unsigned char *mask,
             char *out, float *a, float *b) {
  const MaskedSoftmaxDesc &d = p.desc;
  const AttnRowFns &R = *p.rows;
  const int64_t S1 = d.dims[2], S2 = d.dims[3];
  const int64_t i = row % S1, bn = row / S1, n = bn % d.dims[1], bb = bn / d.dims[1];
  auto base = [&](const MaskedSoftmaxDesc::View &v) {
    return (bb * v.st[0] + n * v.st[1] + i * v.st[2]) * static_cast<int64_t>(core::dtype_size(v.dtype));
  };
  auto masked = [&](int64_t j) {
    if (d.triu) return j > i;
    return d.has_mask && mask[bb * d.mask.st[0] + n * d.mask.st[1] + i * d.mask.st[2] + j * d.mask.st[3]] != 0;
  };
  const int64_t isz = static_cast<int64_t>(core::dtype_size(d.in.dtype));
  load_as<float>(d.in.dtype, in + base(d.in), d.in.st[3] * isz, a, S2);
  if (!d.backward) {
    R.scale(a, S2, d.scale);
    if (d.has_mask || d.triu)
      for (int64_t j = 0; j < S2; ++j)
        if (masked(j)) a[j] = kMaskedValue;
    const float m = R.mask_max(a, S2, 0, S2, nullptr, 0);
    const float sum = R.exp_sum(a, S2, m);
    R.scale(a, S2, 1.0f / sum);
  } else {
    const int64_t ysz = static_cast<int64_t>(core::dtype_size(d.in2.dtype));
    load_as<float>(d.in2.dtype, in2 + base(d.in2), d.in2.st[3] * ysz, b, S2);
    double dot = 0;
    for (int64_t j = 0; j < S2; ++j) dot += static_cast<double>(a[j]) * b[j];
    const float df = static_cast<float>(dot);
    for (int64_t j = 0; j < S2; ++j) a[j] = masked(j) ? 0.0f : d.scale * b[j] * (a[j] - df);
  }
  const int64_t osz = static_cast<int64_t>(core::dtype_size(d.out.dtype));
  store_from<float>(a, d.out.dtype, out + base(d.out), d.out.st[3] * osz, S2);
}

}  // namespace

void masked_softmax_plan(const MaskedSoftmaxDesc &d, MaskedSoftmaxPlan *plan) {
  MaskedSoftmaxPlan &p = *plan;
  p = MaskedSoftmaxPlan{};
  p.desc = d;
  core::ImplTrace trace;
  const bool traced = core::current_phase1_trace() != nullptr;
  const int tier = core::choose(kTiers, Ctx{}, traced ? &trace : nullptr);
  p.rows = &kFns[tier]();
  if (traced) core::record_choice(std::string("masked_softmax:") + kTiers[tier].name, &trace);
  const int64_t rows = d.dims[0] * d.dims[1] * d.dims[2], S2 = d.dims[3];
  p.row_block = std::max<int64_t>(1, 16384 / std::max<int64_t>(S2, 1));
  p.tasks = rows == 0 || S2 == 0 ? 0 : (rows + p.row_block - 1) / p.row_block;
  p.worker_bytes = static_cast<size_t>((8 * S2 + 63) / 64 * 64);
  p.workers = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(core::num_threads(), p.tasks)));
  p.workspace_bytes = p.tasks == 0 ? 0 : p.worker_bytes * static_cast<size_t>(p.workers);
}

void masked_softmax_run(const MaskedSoftmaxPlan &p, const void *in, const void *in2, const void *mask, void *out,
                        void *workspace) {
  if (p.tasks == 0) return;
  const int64_t rows = p.desc.dims[0] * p.desc.dims[1] * p.desc.dims[2], S2 = p.desc.dims[3];
  std::atomic<int64_t> next{0};
  auto worker = [&](int64_t w) {
    float *a = reinterpret_cast<float *>(static_cast<char *>(workspace) + static_cast<size_t>(w) * p.worker_bytes);
    float *b = a + S2;
    for (int64_t t = next.fetch_add(1); t < p.tasks; t = next.fetch_add(1))
      for (int64_t r = t * p.row_block; r < std::min(rows, (t + 1) * p.row_block); ++r)
        run_row(p, r, static_cast<const char *>(in), static_cast<const char *>(in2),
                static_cast<const unsigned char *>(mask), static_cast<char *>(out), a, b);
  };
  if (p.workers == 1) {
    worker(0);
  } else {
    core::parallel_for(p.workers, 1, [&](int64_t begin, int64_t end) {
      for (int64_t w = begin; w < end; ++w) worker(w);
    });
  }
}

}  // namespace opsnn::kernels
