// The resize engine's phase-1 side (the axis tables, the tier choice) and its launch (planes
// across the thread pool); the kernels are resize_impl.h per tier.
#include "kernels/pooling/resize.h"

#include <algorithm>
#include <cmath>

#include "core/impl_list.h"
#include "core/thread_pool.h"

namespace opsnn::kernels {
namespace {

// aten's area_pixel_compute_scale (in double; aten uses the op-math type).
double axis_scale(int64_t in, int64_t out, bool align, double scale) {
  if (align) return out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  return scale > 0 ? 1.0 / scale : static_cast<double>(in) / static_cast<double>(out);
}

// aten's cubic convolution weights (A = -0.75) of the 4 taps around a source at fraction t.
void cubic_weights(double t, double w[4]) {
  const double A = -0.75;
  auto near = [&](double x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };          // |x| <= 1
  auto far = [&](double x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };     // 1 < |x| < 2
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

const core::Impl<ResizePlan> kResizeTiers[] = {
#if defined(__x86_64__)
    {"avx512", static_cast<int>(core::Isa::kAvx512), nullptr},
    {"avx2", static_cast<int>(core::Isa::kAvx2), nullptr},
#endif
    {"portable", static_cast<int>(core::Isa::kPortable), nullptr},
};
ResizeTierKernels tier_kernels(int tier) {
#if defined(__x86_64__)
  if (tier == 0) return resize_kernels_avx512();
  if (tier == 1) return resize_kernels_avx2();
#endif
  return resize_kernels_portable();
}

// Grain: about 32K output elements per task.
int64_t grain(const ResizePlan &p) { return std::max<int64_t>(1, 32768 / std::max<int64_t>(1, p.out_plane())); }

}  // namespace

bool ResizeAxis::identity() const {
  if (in != out || taps != 1) return false;
  for (int64_t o = 0; o < out; ++o)
    if (idx[static_cast<size_t>(o)] != o || w[static_cast<size_t>(o)] != 1.f) return false;
  return true;
}

ResizeAxis resize_axis(ResizeMode m, int64_t in, int64_t out, bool align, double scale) {
  ResizeAxis a;
  a.in = in;
  a.out = out;
  a.taps = m == ResizeMode::kCubic ? 4 : m == ResizeMode::kLinear ? 2 : 1;
  a.idx.resize(static_cast<size_t>(out * a.taps));
  a.w.resize(static_cast<size_t>(out * a.taps));
  auto set = [&](int64_t o, int k, int64_t i, double w) {
    a.idx[static_cast<size_t>(o * a.taps + k)] = static_cast<int32_t>(std::min(std::max<int64_t>(i, 0), in - 1));
    a.w[static_cast<size_t>(o * a.taps + k)] = static_cast<float>(w);
  };
  if (m == ResizeMode::kNearest || m == ResizeMode::kNearestExact) {
    // aten computes the nearest scale and source in float.
    const float s = scale > 0 ? static_cast<float>(1.0 / scale) : static_cast<float>(in) / static_cast<float>(out);
    for (int64_t o = 0; o < out; ++o) {
      int64_t src;
      if (m == ResizeMode::kNearestExact) src = static_cast<int64_t>(std::floor((static_cast<float>(o) + 0.5f) * s));
      else src = static_cast<int64_t>(std::floor(static_cast<float>(o) * s));
      set(o, 0, std::min(src, in - 1), 1.0);
    }
    return a;
  }
  if (m == ResizeMode::kLinear && in == out) {  // aten copies such an axis whatever the scales
    for (int64_t o = 0; o < out; ++o) {
      set(o, 0, o, 1.0);
      set(o, 1, o, 0.0);
    }
    return a;
  }
  const double s = axis_scale(in, out, align, scale);
  for (int64_t o = 0; o < out; ++o) {
    const double od = static_cast<double>(o);
    if (m == ResizeMode::kLinear) {
      const double real = align ? s * od : std::max(s * (od + 0.5) - 0.5, 0.0);
      // aten's guard_index_and_lambda: a source past the end (scales < out / in) reads the last.
      const int64_t i0 = std::min(static_cast<int64_t>(std::floor(real)), in - 1);
      const int64_t i1 = i0 + (i0 < in - 1 ? 1 : 0);
      const double l1 = std::min(std::max(real - static_cast<double>(i0), 0.0), 1.0);
      set(o, 0, i0, 1.0 - l1);
      set(o, 1, i1, l1);
    } else {
      const double real = align ? s * od : s * (od + 0.5) - 0.5;
      const double f = std::floor(real);
      double w[4];
      cubic_weights(real - f, w);
      for (int k = 0; k < 4; ++k) set(o, k, static_cast<int64_t>(f) - 1 + k, w[k]);
    }
  }
  return a;
}

const char *choose_resize_kernel(ResizePlan &p, core::ImplTrace *trace) {
  p.tier = core::choose(kResizeTiers, p, trace);
  return kResizeTiers[p.tier].name;
}

void resize_forward(const ResizePlan &p, const float *in, float *out) {
  const ResizeTierKernels k = tier_kernels(p.tier);
  core::parallel_for(p.planes, grain(p), [&](int64_t b0, int64_t b1) { k.forward(p, in, out, b0, b1); });
}

void resize_backward(const ResizePlan &p, const float *gout, float *gin) {
  const ResizeTierKernels k = tier_kernels(p.tier);
  core::parallel_for(p.planes, grain(p), [&](int64_t b0, int64_t b1) { k.backward(p, gout, gin, b0, b1); });
}

}  // namespace opsnn::kernels
