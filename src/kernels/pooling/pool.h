// The pooling / resize engine: windowed max / average over up to three spatial dims (D, H, W) of
// dense FLOAT buffers, planar (N, C, D, H, W) or channels-last (N, D, H, W, C), their gradients,
// and the index scatters / gathers of max-unpooling and max-pooling's backward. Every window is
// described per axis by tables fixed in phase 1 (first position, count, step), so regular pooling
// (kernel, stride, padding, dilation, ceil mode) and adaptive pooling share the
// kernels. The op layer (ops/pooling/pool_phase1) stages other dtypes and strided views through
// the workspace; FLOAT views already dense in the chosen layout are used in place.
#pragma once

#include <cstdint>
#include <vector>

#include "acl/acl_base.h"

namespace opsnn::core {
struct ImplTrace;
}

namespace opsnn::kernels {

// One spatial axis: output position o reads input positions lo[o] + k * step for k < cnt[o] (all
// inside [0, in)); pcnt[o] is the window's size counted with padding (the average's divisor with
// countIncludePad). A regular axis (kernel, stride, pad) also knows its interior [int_lo, int_hi):
// outputs whose whole window is inside the input (lo = o * stride - pad, cnt = kernel).
struct PoolAxis {
  int64_t in = 1, out = 1, step = 1;
  std::vector<int32_t> lo, cnt, pcnt;
  bool regular = false;
  int64_t stride = 1, pad = 0, kernel = 1;
  int64_t int_lo = 0, int_hi = 0;
};
// PyTorch's pooling window: start o * s - pad_begin, positions start + k * d (k < kernel) inside
// the input; the divisor count min(start + kernel, in + pad_end) - start (dilation 1).
PoolAxis pool_axis_regular(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t pad_begin,
                           int64_t pad_end, int64_t dilation);
// Adaptive pooling: [floor(o * in / out), ceil((o + 1) * in / out)).
PoolAxis pool_axis_adaptive(int64_t in, int64_t out);
// The same single axis of a 1-D / 2-D op's missing dims (in = out = 1).
PoolAxis pool_axis_unit();

enum class PoolReduce : uint8_t { kMax, kAvg };

struct PoolPlan {
  int64_t n = 1, c = 1;
  PoolAxis ax[3];      // D, H, W (unused dims: pool_axis_unit)
  bool cl = false;     // channels-last buffers (N, D, H, W, C); else planar (N, C, D, H, W)
  PoolReduce reduce = PoolReduce::kMax;
  bool with_index = false;        // max: also the flat per-plane index d * H * W + h * W + w of the maximum
  bool count_include_pad = true;  // avg: divide by the padded window size (else the valid positions)
  int64_t divisor_override = 0;   // avg: non-zero divides by it
  // Chosen in phase 1 (choose_pool_kernel): the ISA tier and the path.
  int tier = 0;
  bool w_interior = false;  // planar: the W interior runs as a unit-stride-over-output vector loop
  bool w_gather = false;    // planar: every W window is one position (a gather along the row)
  bool global = false;      // planar: one window covering the whole plane (no index)
  bool k2s2 = false;        // planar max without index: 2x2 windows, stride 2, no padding, even W
  int64_t in_plane() const { return ax[0].in * ax[1].in * ax[2].in; }
  int64_t out_plane() const { return ax[0].out * ax[1].out * ax[2].out; }
};

// Chooses the tier and the path (ordered lists, rejections into `trace`); returns "tier/path".
const char *choose_pool_kernel(PoolPlan &p, bool backward, core::ImplTrace *trace);

// Forward: out (and idx) from in, all dense in the plan's layout.
void pool_forward(const PoolPlan &p, const float *in, float *out, int64_t *idx);
// Average gradient: gin (input-sized, overwritten) from gout (output-sized).
void pool_avg_backward(const PoolPlan &p, const float *gout, float *gin);
// Index scatter / gather over planes (planar buffers, `planes` planes): dst plane of dst_plane
// elements, src / index planes of src_plane elements.
//   scatter add:    dst = 0; dst[idx[i]] += src[i]       (max pooling's backward)
//   scatter assign: dst = 0; dst[idx[i]] = src[i]        (max unpooling)
//   gather:         dst[i] = src[idx[i]]                 (max unpooling's backward)
// Returns false (and the bad index / plane size) when an index is outside [0, bound).
enum class IndexMove : uint8_t { kScatterAdd, kScatterAssign, kGather };
bool pool_index_move(IndexMove m, int64_t planes, int64_t src_plane, int64_t dst_plane, const float *src,
                     const int64_t *idx, float *dst, int64_t *bad_index, int64_t *bound);

// Per-tier kernels (pool_<tier>.cpp from pool_impl.h): forward / avg backward over planes
// [b0, b1) (planar) or over rows (n, od, oh) [b0, b1) (channels-last).
struct PoolTierKernels {
  void (*forward)(const PoolPlan &, const float *, float *, int64_t *, int64_t, int64_t);
  void (*avg_backward)(const PoolPlan &, const float *, float *, int64_t, int64_t);
};
PoolTierKernels pool_kernels_portable();
#if defined(__x86_64__)
PoolTierKernels pool_kernels_avx2();
PoolTierKernels pool_kernels_avx512();
#endif

// Staging between a strided view of FLOAT / FLOAT16 / BF16 (or INT32 / INT64 indices) and a dense
// buffer. The view: logical dims (n, c, d, h, w) with element strides `st` from `base` (its first
// element); the dense buffer is planar or channels-last (`cl`).
struct PoolView {
  aclDataType dtype = ACL_FLOAT;
  int64_t dims[5] = {1, 1, 1, 1, 1};
  int64_t st[5] = {0, 0, 0, 0, 0};
};
void pool_load(const PoolView &v, const char *base, bool cl, float *dense);
void pool_store(const PoolView &v, const float *dense, bool cl, char *base);
void pool_load_index(const PoolView &v, const char *base, int64_t *dense);  // planar
void pool_store_index(const PoolView &v, const int64_t *dense, bool cl, char *base);
// The view is FLOAT (INT64 with `index`) and its strides are the dense layout's (usable in place).
bool pool_view_dense(const PoolView &v, bool cl, bool index = false);

}  // namespace opsnn::kernels
