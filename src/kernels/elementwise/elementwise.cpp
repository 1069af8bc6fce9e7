#include "kernels/elementwise/elementwise.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <type_traits>

#include "core/thread_pool.h"
#include "kernels/elementwise/convert.h"
#include "kernels/elementwise/stream_copy.h"

namespace opsnn::kernels {
namespace {

constexpr int64_t kChunk = 512;             // elements per converted chunk (fits L1 with 4 operands)
constexpr int64_t kTaskElements = 1 << 15;  // elements per parallel task

aclDataType compute_dtype(core::ComputeType ct) {
  switch (ct) {
    case core::ComputeType::kFloat: return ACL_FLOAT;
    case core::ComputeType::kDouble: return ACL_DOUBLE;
    default: return ACL_INT64;
  }
}

// True when one of the n values is zero (a reduction GCC vectorises).
inline bool any_zero(const int64_t *v, int64_t n) {
  int64_t zeros = 0;
  for (int64_t k = 0; k < n; ++k) zeros |= v[k] == 0 ? 1 : 0;
  return zeros != 0;
}

template <class T>
void run_range(const ElementwiseLoop &loop, char *const *base, ContigKernel kernel, const OpScalars &s,
               int64_t begin, int64_t end, std::atomic<bool> *zero_seen) {
  const int nd = loop.ndim;
  const int64_t inner = nd > 0 ? loop.shape[nd - 1] : 1;
  const aclDataType cdt = compute_dtype(loop.compute);
  const int64_t esize = sizeof(T);
  alignas(64) T buf[kMaxOperands][kChunk];
  const void *in_ptrs[kMaxOperands];

  // Linear element index -> (outer multi-index, inner offset), divided out once per task; later
  // rows advance the outer index like an odometer. Tasks cover [begin, end).
  Odometer<kMaxOperands> rows;
  rows.nd = nd > 0 ? nd - 1 : 0;
  rows.nops = loop.nops;
  rows.shape = loop.shape;
  int64_t st[kMaxOperands];
  for (int op = 0; op < loop.nops; ++op) {
    rows.stride[op] = loop.stride[op];
    st[op] = nd > 0 ? loop.stride[op][nd - 1] : 0;
  }
  rows.seek(begin / inner);
  int64_t pos = begin, j = begin % inner;
  while (pos < end) {
    const int64_t len_row = std::min(inner - j, end - pos);
    char *ptr[kMaxOperands];
    for (int op = 0; op < loop.nops; ++op) ptr[op] = base[op] + rows.off[op] + j * st[op];
    for (int64_t c = 0; c < len_row; c += kChunk) {
      const int64_t len = std::min(kChunk, len_row - c);
      for (int op = 1; op < loop.nops; ++op) {
        const char *p = ptr[op] + c * st[op];
        if (loop.dtype[op] == cdt && st[op] == esize) {
          in_ptrs[op - 1] = p;
        } else if (st[op] == 0) {
          T v;
          load_as<T>(loop.dtype[op], p, 0, &v, 1);
          std::fill_n(buf[op], len, v);
          in_ptrs[op - 1] = buf[op];
        } else {
          load_as<T>(loop.dtype[op], p, st[op], buf[op], len);
          in_ptrs[op - 1] = buf[op];
        }
      }
      if constexpr (std::is_same_v<T, int64_t>) {  // float paths never check
        if (loop.zero_check > 0 && any_zero(static_cast<const int64_t *>(in_ptrs[loop.zero_check - 1]), len))
          zero_seen->store(true, std::memory_order_relaxed);
      }
      char *out = ptr[0] + c * st[0];
      const bool direct = loop.dtype[0] == cdt && st[0] == esize && loop.round_through == ACL_DT_UNDEFINED;
      void *out_buf = direct ? static_cast<void *>(out) : static_cast<void *>(buf[0]);
      kernel(len, out_buf, in_ptrs, s);
      if (!direct) store_from<T>(buf[0], loop.dtype[0], out, st[0], len, loop.round_through);
    }
    pos += len_row;
    if (j + len_row < inner) break;  // (the task ended inside this row)
    j = 0;
    rows.next();
  }
}

// A same-dtype copy (loop.copy_rows): elements [begin, end) moved as bytes, one row run at a time.
void copy_range(const ElementwiseLoop &loop, char *const *base, int64_t begin, int64_t end) {
  const int nd = loop.ndim;
  const int64_t inner = loop.shape[nd - 1];
  const int64_t es = static_cast<int64_t>(core::dtype_size(loop.dtype[0]));
  Odometer<2> rows;
  rows.nd = nd - 1;
  rows.nops = 2;
  rows.shape = loop.shape;
  rows.stride[0] = loop.stride[0];
  rows.stride[1] = loop.stride[1];
  rows.seek(begin / inner);
  int64_t pos = begin, j = begin % inner;
  while (pos < end) {
    const int64_t len = std::min(inner - j, end - pos);
    copy_bytes(base[0] + rows.off[0] + j * es, base[1] + rows.off[1] + j * es, static_cast<size_t>(len * es),
               loop.streaming);
    pos += len;
    j = 0;
    rows.next();
  }
  if (loop.streaming) copy_fence();
}

}  // namespace

void plan_copy_rows(ElementwiseLoop &loop) {
  const int nd = loop.ndim;
  if (loop.nops != 2 || nd < 1 || loop.dtype[0] != loop.dtype[1] || loop.round_through != ACL_DT_UNDEFINED) return;
  const int64_t es = static_cast<int64_t>(core::dtype_size(loop.dtype[0]));
  if (loop.stride[0][nd - 1] != es || loop.stride[1][nd - 1] != es) return;
  loop.copy_rows = true;
  loop.streaming = copy_streams(static_cast<uint64_t>(loop.numel) * static_cast<uint64_t>(es));
}

ElementwiseLoop plan_elementwise_loop(int ndim, const int64_t *out_shape, int nops,
                                      const int64_t (*strides)[kMaxLoopDims], const aclDataType *dtypes,
                                      core::ComputeType compute) {
  ElementwiseLoop loop;
  loop.nops = nops;
  loop.compute = compute;
  for (int op = 0; op < nops; ++op) loop.dtype[op] = dtypes[op];
  loop.numel = 1;
  for (int d = 0; d < ndim; ++d) loop.numel *= out_shape[d];

  // Drop size-1 dims; order the rest by the output stride, largest outermost (stable).
  int order[kMaxLoopDims], n = 0;
  for (int d = 0; d < ndim; ++d)
    if (out_shape[d] != 1) order[n++] = d;
  std::stable_sort(order, order + n, [&](int a, int b) { return strides[0][a] > strides[0][b]; });

  int64_t *loop_stride[kMaxOperands];
  for (int op = 0; op < nops; ++op) loop_stride[op] = loop.stride[op];
  loop.ndim = coalesce_dims(
      order, n, out_shape, nops,
      [&](int op, int d) { return strides[op][d] * static_cast<int64_t>(core::dtype_size(dtypes[op])); }, 0,
      loop.shape, loop_stride);
  return loop;
}

bool run_elementwise(const ElementwiseLoop &loop, char *const *base, ContigKernel kernel, const OpScalars &s) {
  if (loop.numel == 0) return false;
  if (loop.copy_rows) {
    auto rows = [&](int64_t b, int64_t e) { copy_range(loop, base, b, e); };
    if (loop.numel <= kTaskElements) rows(0, loop.numel);
    else core::parallel_for(loop.numel, kTaskElements, rows);
    return false;
  }
  std::atomic<bool> zero_seen{false};
  auto body = [&](int64_t b, int64_t e) {
    switch (loop.compute) {
      case core::ComputeType::kFloat: run_range<float>(loop, base, kernel, s, b, e, &zero_seen); break;
      case core::ComputeType::kDouble: run_range<double>(loop, base, kernel, s, b, e, &zero_seen); break;
      case core::ComputeType::kInt64: run_range<int64_t>(loop, base, kernel, s, b, e, &zero_seen); break;
    }
  };
  if (loop.numel <= kTaskElements) body(0, loop.numel);
  else core::parallel_for(loop.numel, kTaskElements, body);
  return zero_seen.load(std::memory_order_relaxed);
}

}  // namespace opsnn::kernels
