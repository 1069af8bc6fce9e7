#include "kernels/activation/rrelu_noise.h"

#include <algorithm>

#include "core/dtype.h"
#include "core/thread_pool.h"
#include "kernels/elementwise/convert.h"

namespace opsnn::kernels {
namespace {

constexpr int64_t kRow = 512;  // elements converted at a time

uint64_t mix(uint64_t z) {  // SplitMix64's finaliser
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

double rrelu_uniform(uint64_t seed, uint64_t i) {
  const uint64_t h = mix(mix(seed + 0x9e3779b97f4a7c15ULL) ^ (i * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL));
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

void rrelu_noise_run(const RReluNoisePlan &P, const char *self, char *noise) {
  const int nd = P.ndim;
  const int64_t inner = nd > 0 ? P.dims[nd - 1] : 1;
  int64_t rows = 1, numel = inner;
  for (int d = 0; d + 1 < nd; ++d) rows *= P.dims[d];
  numel *= rows;
  if (numel == 0) return;
  const int64_t xs = static_cast<int64_t>(core::dtype_size(P.self_dtype));
  const int64_t ns = static_cast<int64_t>(core::dtype_size(P.noise_dtype));
  int64_t outer_x[kMaxLoopDims], outer_n[kMaxLoopDims];
  for (int d = 0; d + 1 < nd; ++d) {
    outer_x[d] = P.self_strides[d] * xs;
    outer_n[d] = P.noise_strides[d] * ns;
  }
  const int64_t st_x = nd > 0 ? P.self_strides[nd - 1] * xs : 0, st_n = nd > 0 ? P.noise_strides[nd - 1] * ns : 0;
  const double span = P.upper - P.lower;
  auto body = [&](int64_t r0, int64_t r1) {
    Odometer<2> w;
    w.nd = std::max(nd - 1, 0);
    w.shape = P.dims;
    w.nops = 2;
    w.stride[0] = outer_x;
    w.stride[1] = outer_n;
    w.seek(r0);
    double x[kRow], v[kRow];
    for (int64_t r = r0; r < r1; ++r, w.next()) {
      for (int64_t c = 0; c < inner; c += kRow) {
        const int64_t n = std::min(kRow, inner - c);
        load_as<double>(P.self_dtype, self + w.off[0] + c * st_x, st_x, x, n);
        const uint64_t first = P.offset + static_cast<uint64_t>(r * inner + c);
        for (int64_t j = 0; j < n; ++j)
          v[j] = x[j] <= 0 ? P.lower + span * rrelu_uniform(P.seed, first + static_cast<uint64_t>(j)) : 1.0;
        store_from<double>(v, P.noise_dtype, noise + w.off[1] + c * st_n, st_n, n);
      }
    }
  };
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 15) / std::max<int64_t>(inner, 1));
  if (rows <= grain) body(0, rows);
  else core::parallel_for(rows, grain, body);
}

}  // namespace opsnn::kernels
