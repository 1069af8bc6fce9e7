// Row-count dispatch of the fp32 small-M kernels (StreamFn / DotFn, rows 1..kStreamMaxRows), shared
// by the ISA units so each keeps only its vector code. The blockings are part of the arithmetic
// contract only through the per-element order, which they do not change.
#pragma once

#include <cstdint>
#include <type_traits>

namespace opsnn::kernels::gemm_detail {

template <int V>
using IntC = std::integral_constant<int, V>;

// f(rows_c, kb_c): the stream kernel for `rows` rows with kb_c rows of B per pass over the
// accumulators. More rows of B per pass halve the accumulator loads and stores, which bound 3 and 4
// rows (AVX2, 1 thread, rows 2 / 3 / 4 from 4 / 2 / 2 to 8 / 8 / 4: N = K = 4096 3: 19 -> 24-27,
// 4: 22 -> 27-30 GFLOP/s; N 768 K 3072 3: 34 -> 42, 4: 30 -> 39; 2 rows unchanged).
template <class F>
inline void stream_dispatch(int rows, F &&f) {
  switch (rows) {
    case 1: return f(IntC<1>{}, IntC<8>{});
    case 2: return f(IntC<2>{}, IntC<8>{});
    case 3: return f(IntC<3>{}, IntC<8>{});
    default: return f(IntC<4>{}, IntC<4>{});
  }
}

// f(rows_c, jb_c, j): the dot kernel's block of jb_c columns from column j (4, 2, 1, 1 columns for
// 1..4 rows: rows x columns accumulator pairs within the register file), then single columns.
template <class F>
inline void dot_dispatch(int rows, int64_t cols, F &&f) {
  auto blocks = [&](auto r, auto jb) {
    int64_t j = 0;
    for (; j + decltype(jb)::value <= cols; j += decltype(jb)::value) f(r, jb, j);
    for (; j < cols; ++j) f(r, IntC<1>{}, j);
  };
  switch (rows) {
    case 1: return blocks(IntC<1>{}, IntC<4>{});
    case 2: return blocks(IntC<2>{}, IntC<2>{});
    case 3: return blocks(IntC<3>{}, IntC<1>{});
    default: return blocks(IntC<4>{}, IntC<1>{});
  }
}

}  // namespace opsnn::kernels::gemm_detail
