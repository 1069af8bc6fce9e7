// The resize engine: nearest, nearest-exact, (bi/tri)linear and bicubic interpolation over up to
// three spatial dims (D, H, W) of dense planar FLOAT buffers (N * C planes of D * H * W), and the
// transposed scatter of their gradients. Every mode is a separable weighted gather: per axis and
// output position a few (source index, weight) taps — nearest 1, linear 2, cubic 4 — fixed in
// phase 1 by resize_axis with PyTorch's index rules (aten upsample_*: area_pixel_compute_scale,
// nearest_idx, nearest-exact's +0.5, cubic A = -0.75 with clamped border access). The op layer
// (ops/pooling/resize_phase1) stages other dtypes, channels-last and strided views.
#pragma once

#include <cstdint>
#include <vector>

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
  int64_t planes = 1;  // N * C
  ResizeAxis ax[3];    // D, H, W (missing dims: in = out = 1)
  int64_t in_plane() const { return ax[0].in * ax[1].in * ax[2].in; }
  int64_t out_plane() const { return ax[0].out * ax[1].out * ax[2].out; }
};

// out (planes x out_plane) from in (planes x in_plane): a W pass, then H, then D (identity axes
// skipped), in FLOAT.
void resize_forward(const ResizePlan &p, const float *in, float *out);
// gin (overwritten) = the transpose applied to gout: D, then H, then W, each a scatter-add over
// the output positions in ascending order per plane (deterministic, independent of threads).
void resize_backward(const ResizePlan &p, const float *gout, float *gin);

}  // namespace opsnn::kernels
