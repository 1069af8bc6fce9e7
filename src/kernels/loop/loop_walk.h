// The loop planning and walking shared by the element-wise and reduction engines:
//   coalesce_dims  phase 1: dims in the order the planner chose (outermost first), merged where
//                  every operand steps evenly across two neighbours (fewer, longer loops)
//   Odometer       launch: a multi-index over a loop's dims carrying one byte offset per operand;
//                  seek() divides once per task, next() steps to the following position without
//                  division (the runners' rows and reduced positions)
//   unravel_offset the element offset of one row-major position (per-row values of any shape)
// Everything here has internal linkage: the header is included by the per-ISA units of the
// runners, and an inline function with external linkage compiled with different ISA flags could
// be merged by the linker into the wrong ISA's copy.
#pragma once

#include <cstdint>

namespace opsnn::kernels {

constexpr int kMaxLoopDims = 8;

namespace {  // NOLINT(google-build-namespaces, cert-dcl59-cpp): see above

// Appends dims order[0..count) of `shape` (outermost first) to a loop of `nops` operands that has
// `ndim` dims so far: loop_shape[dim], loop_stride[op][dim] (bytes). A dim merges into the previous
// one when every operand's stride there equals its stride here times this dim's size.
// byte_stride(op, d) gives operand op's byte stride along source dim d. Returns the new ndim.
template <class StrideOf>
int coalesce_dims(const int *order, int count, const int64_t *shape, int nops, StrideOf byte_stride, int ndim,
                  int64_t *loop_shape, int64_t *const *loop_stride) {
  for (int k = 0; k < count; ++k) {
    const int d = order[k];
    bool merge = ndim > 0;
    for (int op = 0; op < nops && merge; ++op) merge = loop_stride[op][ndim - 1] == byte_stride(op, d) * shape[d];
    const int at = merge ? ndim - 1 : ndim++;
    loop_shape[at] = merge ? loop_shape[at] * shape[d] : shape[d];
    for (int op = 0; op < nops; ++op) loop_stride[op][at] = byte_stride(op, d);
  }
  return ndim;
}

// The element offset of the linear (row-major) position i over `nd` dims of `shape` with `strides`
// (per-row values of any shape: one division per dim, for positions visited once).
inline int64_t unravel_offset(int nd, const int64_t *shape, const int64_t *strides, int64_t i) {
  int64_t off = 0;
  for (int d = nd - 1; d >= 0; --d) {
    off += (i % shape[d]) * strides[d];
    i /= shape[d];
  }
  return off;
}

// A position in a loop of `nd` dims (shape[d]) over `nops` operands (stride[op][d], bytes).
template <int kMaxOps>
struct Odometer {
  int nd = 0, nops = 0;
  const int64_t *shape = nullptr;
  const int64_t *stride[kMaxOps] = {};
  int64_t idx[kMaxLoopDims] = {};
  int64_t off[kMaxOps] = {};  // byte offset of each operand at idx

  // Moves to the linear position i (row-major over the dims).
  void seek(int64_t i) {
    for (int op = 0; op < nops; ++op) off[op] = 0;
    for (int d = nd - 1; d >= 0; --d) {
      idx[d] = i % shape[d];
      i /= shape[d];
      for (int op = 0; op < nops; ++op) off[op] += idx[d] * stride[op][d];
    }
  }
  // Moves to the next position (after the last one: back to the first).
  void next() {
    for (int d = nd - 1; d >= 0; --d) {
      for (int op = 0; op < nops; ++op) off[op] += stride[op][d];
      if (++idx[d] < shape[d]) return;
      for (int op = 0; op < nops; ++op) off[op] -= stride[op][d] * shape[d];
      idx[d] = 0;
    }
  }
};

}  // namespace

}  // namespace opsnn::kernels
