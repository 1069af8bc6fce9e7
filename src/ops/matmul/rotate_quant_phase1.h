// The phase 1 of the rotate-quant table (src/ops/matmul/rotate_quant.ops): x @ rotation on the GEMM engine
// into an fp32 scratch, then per-token quantisation of each row (the per-token DynamicQuant kernels when
// they apply). Checks every argument (161001 for a missing required one, 161002 naming the argument
// otherwise). Our reading of the documented rules (the integer-output products' list):
//  - x FLOAT16 / BF16 [M, N], any strides; rotation [K, K] of x's dtype, any strides; N a multiple of K and
//    of 8, N in [128, 16000], K in [16, 1024];
//  - Y = (x.reshape(-1, K) @ rotation).reshape(M, N): each K-wide slice of a row times rotation, fp32;
//  - yOut INT8 [M, N] (C = 127, any strides) or INT32 [M, N / 8] (eight INT4 a word, low nibble first,
//    C = 7, contiguous); FLOAT4_E2M1 / FLOAT8 yOut (the MX modes) are not supported (161002 naming yOut);
//  - scaleOut FLOAT [M] (any stride): max_j |Y[i, j]| / C; yOut = round(Y / scale) saturated to [-C - 1, C],
//    a row of zeros gives scale 0 and y 0, NaN gives 0;
//  - roundMode null or "rint" (half to even), "round" (half away from zero), "floor";
//  - alpha must be null, axis -1 or 1, scaleAlg 0, dstTypeMax 0, trans false (the only values documented
//    for the integer outputs).
#pragma once

#include <cstdint>

#include "core/dtype.h"
#include "core/op_builder.h"
#include "core/op_checks.h"

namespace opsnn::ops {

struct RotqRule {
  core::DtypeMask dtypes;  // x's (rotation has x's dtype)
};

struct RotqCall {
  core::NamedTensor x, rotation, alpha, y, scale_out;
  int64_t axis = -1, scale_alg = 0;
  const char *round_mode = nullptr;
  double dst_type_max = 0.0;
  bool trans = false;
};

void rotate_quant_phase1(core::OpBuilder &b, const RotqRule &rule, const RotqCall &c);

}  // namespace opsnn::ops
