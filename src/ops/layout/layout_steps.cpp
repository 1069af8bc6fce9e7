#include "ops/layout/layout_steps.h"

#include <algorithm>
#include <cstring>

#include "core/dtype.h"
#include "core/thread_pool.h"
#include "kernels/elementwise/convert.h"

namespace opsnn::ops {
namespace {

// Element offset of row `row` (a linear index over every dim but the last) of view `t`.
int64_t row_offset(const aclTensor &t, int64_t row) {
  int64_t off = 0;
  for (int d = t.ndim - 2; d >= 0; --d) {
    off += (row % t.dims[d]) * t.strides[d];
    row /= t.dims[d];
  }
  return off;
}

template <size_t N>
void copy_or_zero(char *dst, int64_t dst_stride, const char *src, int64_t src_stride, int64_t begin, int64_t end,
                  int64_t cols) {
  static const unsigned char zero[8] = {};
  for (int64_t j = 0; j < cols; ++j) {
    const bool keep = j >= begin && j < end;
    std::memcpy(dst + j * dst_stride, keep ? src + j * src_stride : reinterpret_cast<const char *>(zero), N);
  }
}

class TriangleStep final : public core::Step {
 public:
  aclTensor in{}, out{};
  int in_slot = -1, out_slot = -1;
  bool lower = true;
  int64_t diagonal = 0;

  int run(const core::LaunchArgs &args) const override {
    const size_t es = core::dtype_size(out.dtype);
    const char *src = core::view_base(args, in_slot, in, es);
    char *dst = core::view_base(args, out_slot, out, es);
    const int64_t rows_per_matrix = out.dims[out.ndim - 2], cols = out.dims[out.ndim - 1];
    int64_t rows = 1;
    for (int d = 0; d < out.ndim - 1; ++d) rows *= out.dims[d];
    const int64_t ss = in.strides[in.ndim - 1] * static_cast<int64_t>(es);
    const int64_t ds = out.strides[out.ndim - 1] * static_cast<int64_t>(es);
    auto body = [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t i = r % rows_per_matrix;
        // tril keeps j <= i + diagonal; triu keeps j >= i + diagonal.
        const int64_t edge = i + diagonal;
        const int64_t begin = lower ? 0 : std::clamp<int64_t>(edge, 0, cols);
        const int64_t end = lower ? std::clamp<int64_t>(edge + 1, 0, cols) : cols;
        const char *s = src + row_offset(in, r) * static_cast<int64_t>(es);
        char *d = dst + row_offset(out, r) * static_cast<int64_t>(es);
        switch (es) {
          case 1: copy_or_zero<1>(d, ds, s, ss, begin, end, cols); break;
          case 2: copy_or_zero<2>(d, ds, s, ss, begin, end, cols); break;
          case 4: copy_or_zero<4>(d, ds, s, ss, begin, end, cols); break;
          default: copy_or_zero<8>(d, ds, s, ss, begin, end, cols); break;
        }
      }
    };
    const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 15) / std::max<int64_t>(cols, 1));
    if (rows <= grain) body(0, rows);
    else core::parallel_for(rows, grain, body);
    return 0;
  }
};

class ArangeStep final : public core::Step {
 public:
  aclTensor out{};
  int out_slot = -1;
  bool integral = false;
  double start = 0, step = 1;
  int64_t istart = 0, istep = 1;

  int run(const core::LaunchArgs &args) const override {
    const size_t es = core::dtype_size(out.dtype);
    char *dst = core::view_base(args, out_slot, out, es);
    const int64_t n = out.dims[0], stride = out.strides[0] * static_cast<int64_t>(es);
    constexpr int64_t kChunk = 512;
    for (int64_t k0 = 0; k0 < n; k0 += kChunk) {
      const int64_t len = std::min(kChunk, n - k0);
      if (integral) {
        int64_t buf[kChunk];
        for (int64_t k = 0; k < len; ++k) buf[k] = istart + (k0 + k) * istep;
        kernels::store_from<int64_t>(buf, out.dtype, dst + k0 * stride, stride, len);
      } else {
        double buf[kChunk];
        for (int64_t k = 0; k < len; ++k) buf[k] = start + static_cast<double>(k0 + k) * step;
        kernels::store_from<double>(buf, out.dtype, dst + k0 * stride, stride, len);
      }
    }
    return 0;
  }
};

}  // namespace

void record_triangle(core::OpBuilder &b, int in_slot, int out_slot, bool lower, int64_t diagonal) {
  auto &s = b.add_step<TriangleStep>();
  s.in = b.tensor(in_slot);
  s.out = b.tensor(out_slot);
  s.in_slot = in_slot;
  s.out_slot = out_slot;
  s.lower = lower;
  s.diagonal = diagonal;
}

void record_arange(core::OpBuilder &b, int out_slot, double start, double step, int64_t istart, int64_t istep) {
  auto &s = b.add_step<ArangeStep>();
  s.out = b.tensor(out_slot);
  s.out_slot = out_slot;
  s.integral = !core::is_floating(s.out.dtype);
  s.start = start;
  s.step = step;
  s.istart = istart;
  s.istep = istep;
}

}  // namespace opsnn::ops
