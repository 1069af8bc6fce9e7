// The resize engine: nearest, nearest-exact, (bi/tri)linear and bicubic interpolation over up to
// three spatial dims (D, H, W) of dense FLOAT buffers, planar (N, C, D, H, W) or channels-last
// (N, D, H, W, C), and the transposed scatter of their gradients. Every mode is a separable
// weighted gather: per axis and output position a few (source index, weight) taps — nearest 1,
// linear 2, cubic 4 — fixed in phase 1 by resize_axis with PyTorch's index rules (aten upsample_*:
// area_pixel_compute_scale, nearest's float source index, nearest-exact's +0.5, cubic A = -0.75
// with clamped border access). The op layer (ops/pooling/resize_phase1) stages other dtypes and
// strided views.
#pragma once

#include <cstdint>
#include <vector>

namespace opsnn::core {
struct ImplTrace;
}

namespace opsnn::kernels {

enum class ResizeMode : uint8_t { kNearest, kNearestExact, kLinear, kCubic };

// One axis: output o = sum over k < taps of w[o * taps + k] * input[idx[o * taps + k]].
struct ResizeAxis {
  int64_t in = 1, out = 1;
  int taps = 1;
  std::vector<int32_t> idx;
  std::vector<float> w;
  bool identity() const;  // in == out and every output copies its own position
};

// `scale` is the op's scales argument (used when > 0 and not align_corners, as in aten).
ResizeAxis resize_axis(ResizeMode m, int64_t in, int64_t out, bool align_corners, double scale);

struct ResizePlan {
  int64_t planes = 1;  // planar: N * C planes; channels-last: N samples
  int64_t inner = 1;   // elements per spatial position: 1 planar, C channels-last
  ResizeAxis ax[3];    // D, H, W (missing dims: in = out = 1)
  int tier = 0;        // chosen in phase 1 (choose_resize_kernel)
  int64_t in_plane() const { return ax[0].in * ax[1].in * ax[2].in * inner; }
  int64_t out_plane() const { return ax[0].out * ax[1].out * ax[2].out * inner; }
};

// Chooses the ISA tier (ordered list, rejections into `trace`); returns its name.
const char *choose_resize_kernel(ResizePlan &p, core::ImplTrace *trace);

// out (planes x out_plane) from in (planes x in_plane): a W pass, then H, then D (identity axes
// skipped), in FLOAT; every pass is a weighted sum of rows of `inner`-long (or longer) vectors.
void resize_forward(const ResizePlan &p, const float *in, float *out);
// gin (overwritten) = the transpose applied to gout: D, then H, then W, each a scatter-add over
// the output positions in ascending order per plane (deterministic, independent of threads).
void resize_backward(const ResizePlan &p, const float *gout, float *gin);

// Per-tier kernels (resize_<tier>.cpp from resize_impl.h) over planes [b0, b1).
struct ResizeTierKernels {
  void (*forward)(const ResizePlan &, const float *, float *, int64_t, int64_t);
  void (*backward)(const ResizePlan &, const float *, float *, int64_t, int64_t);
};
ResizeTierKernels resize_kernels_portable();
#if defined(__x86_64__)
ResizeTierKernels resize_kernels_avx2();
ResizeTierKernels resize_kernels_avx512();
#endif

}  // namespace opsnn::kernels
