#include <algorithm>

#include "core/impl_list.h"
#include "core/thread_pool.h"
#include "kernels/dimwise/dimwise.h"
#include "kernels/dimwise/dimwise_lines.h"

namespace opsnn::kernels {
namespace {

// The tiers, best first (the same line kernels compiled per ISA); the portable build is the reference.
const core::Impl<DimwiseLoop> kDimwiseTiers[] = {
#if defined(__x86_64__)
    {"avx512", static_cast<int>(core::Isa::kAvx512), nullptr},
    {"avx2", static_cast<int>(core::Isa::kAvx2), nullptr},
#endif
    {"portable", static_cast<int>(core::Isa::kPortable), nullptr},
};
DimwiseLinesFn const kDimwiseLines[] = {
#if defined(__x86_64__)
    &dimwise_lines_avx512,
    &dimwise_lines_avx2,
#endif
    &dimwise_lines_portable,
};

// The line path of FLOAT softmax / log-softmax: softmax_rows (kernels/dimwise/softmax_rows.h) keeps
// three rows in flight, overlapping one row's read from memory with the previous row's exp and the
// one before's stores (docs/PERFORMANCE.md, 2026-12-03: rows of 512 in L1 need 1.3-1.4x less
// compute; the ops on [64, 32, 512, 512] 1.4-1.6x (log-softmax) and 1.0-1.35x (softmax) less CPU
// time than a line at a time). Its rows must stay in L1 / L2: softmax's three input rows and two
// lines of exponentials, log-softmax's four rows (softmax's rows of 4096 measured slower).
constexpr int64_t kSoftmaxRowsMaxLen = 2048, kLogSoftmaxRowsMaxLen = 4096;
const core::Impl<DimwiseLoop> kLinePaths[] = {
    {"softmax_rows", core::kNoIsa,
     [](const DimwiseLoop &L, const core::Why &why) {
       if (L.op != DimwiseOp::kSoftmax && L.op != DimwiseOp::kLogSoftmax)
         return why("%s is not softmax", dimwise_op_name(L.op));
       if (L.compute != core::ComputeType::kFloat || L.in_dtype[0] != ACL_FLOAT || L.out_dtype[0] != ACL_FLOAT)
         return why("not FLOAT in and out");
       if (L.nline != 1 || L.in_line[0][0] != 4 || L.out_line[0][0] != 4) return why("the line is not unit-stride");
       const int64_t most = L.op == DimwiseOp::kSoftmax ? kSoftmaxRowsMaxLen : kLogSoftmaxRowsMaxLen;
       return L.len <= most ||
              why("lines of %lld > %lld floats leave the cache", static_cast<long long>(L.len), static_cast<long long>(most));
     }},
    {"lines", core::kNoIsa, nullptr},
};

// How FLOAT row ops write their output. Non-temporal stores skip the read-for-ownership and leave
// the caches to the rows being computed; measured on [4096, 4096] FLOAT (docs/PERFORMANCE.md,
// 2026-12-03, CPU time): LayerNorm -15 %, RmsNorm -28 %, LogSoftmax -6 %. Softmax keeps plain
// stores: by lines its exp pass already wrote y into L1 and re-storing it non-temporally measured no
// better on rows of 512; softmax_rows' non-temporal variant measured within the noise (151 vs 157 ms
// CPU on [64, 32, 512, 512]). An output that fits the last-level cache keeps plain stores (the next
// op reads it from there).
const core::Impl<DimwiseLoop> kStoreModes[] = {
    {"stream_stores", core::kNoIsa,
     [](const DimwiseLoop &L, const core::Why &why) {
       if (L.op != DimwiseOp::kNormalize && L.op != DimwiseOp::kLogSoftmax)
         return why("%s writes its output through the cache", dimwise_op_name(L.op));
       if (L.compute != core::ComputeType::kFloat) return why("not a FLOAT computation");
       const uint64_t bytes = static_cast<uint64_t>(L.lines) * static_cast<uint64_t>(L.len) * 4;
       const uint64_t llc = dimwise_stream_out_bytes();
       return bytes > llc || why("output %llu bytes fits the %llu-byte last-level cache",
                                 static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(llc));
     }},
    {"cached_stores", core::kNoIsa, nullptr},
};

}  // namespace

uint64_t dimwise_stream_out_bytes() {
  // (VMs report the L3 of every CCD together, 508 MiB on the 2-vCPU EPYC guest; one core reaches its
  // CCD's 32 MiB at most)
  return std::min<uint64_t>(core::cpu_features().l3_bytes, uint64_t{32} << 20);
}

const char *dimwise_op_name(DimwiseOp op) {
  switch (op) {
    case DimwiseOp::kSoftmax: return "softmax";
    case DimwiseOp::kLogSoftmax: return "log_softmax";
    case DimwiseOp::kSoftmaxBackward: return "softmax_backward";
    case DimwiseOp::kLogSoftmaxBackward: return "log_softmax_backward";
    case DimwiseOp::kCumsum: return "cumsum";
    case DimwiseOp::kCumprod: return "cumprod";
    case DimwiseOp::kCummax: return "cummax";
    case DimwiseOp::kCummin: return "cummin";
    case DimwiseOp::kSort: return "sort";
    case DimwiseOp::kTopk: return "topk";
    case DimwiseOp::kKthvalue: return "kthvalue";
    case DimwiseOp::kMedian: return "median";
    case DimwiseOp::kNanMedian: return "nanmedian";
    case DimwiseOp::kNormalize: return "normalize";
    case DimwiseOp::kSoftmaxCrossEntropy: return "softmax_cross_entropy";
    case DimwiseOp::kRope: return "rope";
    case DimwiseOp::kRenorm: return "renorm";
    case DimwiseOp::kMaskedSoftmax: return "masked_softmax";
  }
  return "?";
}

const char *choose_dimwise_tier(DimwiseLoop &L, core::ImplTrace *trace) {
  L.tier = core::choose(kDimwiseTiers, L, trace);
  L.softmax_rows = core::choose(kLinePaths, L, trace) == 0;
  L.stream_out = core::choose(kStoreModes, L, trace) == 0;
  return kDimwiseTiers[L.tier].name;
}

void finish_dimwise_plan(DimwiseLoop &L, int max_tasks) {
  L.len = 1;
  for (int d = 0; d < L.nline; ++d) L.len *= L.line_shape[d];
  L.lines = 1;
  for (int d = 0; d < L.nouter; ++d) L.lines *= L.outer_shape[d];
  // Scratch per task: a line per input and per result (8-byte elements), and for the sorting ops
  // two lines of (key, position) pairs (kernels/dimwise/line_sort.h).
  const bool sorts = L.op == DimwiseOp::kSort || L.op == DimwiseOp::kTopk || L.op == DimwiseOp::kKthvalue ||
                     L.op == DimwiseOp::kMedian || L.op == DimwiseOp::kNanMedian;
  L.scratch_bytes_per_task =
      static_cast<uint64_t>(std::max<int64_t>(L.len, 1)) * (L.nin + kDimwiseMaxIo + (sorts ? 4 : 0)) * 8 + 8;
  L.tasks = std::max<int64_t>(1, std::min<int64_t>(L.lines, max_tasks));
}

void run_dimwise(const DimwiseLoop &L, const char *const *in, char *const *out, void *workspace) {
  if (L.lines == 0) return;
  auto *ws = static_cast<char *>(workspace);
  auto body = [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t l0 = L.lines * t / L.tasks, l1 = L.lines * (t + 1) / L.tasks;
      char *scratch = ws + t * static_cast<int64_t>(L.scratch_bytes_per_task);
      kDimwiseLines[L.tier](L, in, out, scratch, l0, l1);
    }
  };
  if (L.tasks == 1) body(0, 1);
  else core::parallel_for(L.tasks, 1, body);
}

void run_dimwise_lines(const DimwiseLoop &L, const char *const *in, char *const *out, void *scratch, int64_t l0,
                       int64_t l1) {
  if (l0 < l1) kDimwiseLines[L.tier](L, in, out, static_cast<char *>(scratch), l0, l1);
}

}  // namespace opsnn::kernels
