#include "ops/matmul/rotate_quant_phase1.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "common/error.h"
#include "core/outputs_apart.h"
#include "core/thread_pool.h"
#include "core/verbose.h"
#include "kernels/quant/quant_rows.h"
#include "kernels/quant/quant_token.h"
#include "ops/matmul/matmul_common.h"

namespace opsnn::ops {
namespace {

using core::NamedTensor;
using kernels::QuantRound;

long long ll(int64_t v) { return static_cast<long long>(v); }

// Per-token quantisation of the fp32 rows of Y (the GEMM's scratch, M x N, contiguous): tasks over row
// ranges, each with its own buffers (a row copy for the tier's prep kernel, and the integers).
struct RotqQuantStep final : core::Step {
  core::OperandRef yrows, y, scale;
  core::WsKey ws;
  int64_t m = 0, n = 0, tasks = 1, y_row_stride = 0, y_col_stride = 1, scale_stride = 1;
  int32_t hi = 127;  // C: 127 (INT8) or 7 (eight INT4 a word)
  bool packed = false, fast = false;  // fast: INT8, "rint", y contiguous along the row: the tier's kernels
  QuantRound round = QuantRound::kHalfEven;
  kernels::QuantTokenKernels token{};

  int run(const core::LaunchArgs &args) const override {
    const float *yv = reinterpret_cast<const float *>(yrows.address(args));
    char *out = y.address(args);
    float *scales = reinterpret_cast<float *>(scale.address(args));
    char *buf = args.get(ws);
    core::parallel_tasks(tasks, [&](int64_t t) {
      float *row = reinterpret_cast<float *>(buf) + t * 2 * n;
      int32_t *q = reinterpret_cast<int32_t *>(row + n);
      for (int64_t i = m * t / tasks; i < m * (t + 1) / tasks; ++i) {
        float ext[3];
        token.prep(reinterpret_cast<const char *>(yv + i * n), ACL_FLOAT, nullptr, n, row, ext);
        const float s = ext[0] / static_cast<float>(hi);
        scales[i * scale_stride] = s;
        if (fast) {
          token.int8(row, n, s, 0.0f, reinterpret_cast<int8_t *>(out) + i * y_row_stride);
          continue;
        }
        for (int64_t j = 0; j < n; ++j) q[j] = s == 0.0f ? 0 : kernels::quant_round_sat(row[j] / s, round, -hi - 1, hi);
        if (packed)
          kernels::quant_store_ints(q, n, ACL_INT32, true, 0, out + i * n / 2, 1);
        else
          kernels::quant_store_ints(q, n, ACL_INT8, false, 0, out + i * y_row_stride, y_col_stride);
      }
    });
    return 0;
  }
};

QuantRound round_of(const char *mode) {
  if (mode == nullptr || std::strcmp(mode, "rint") == 0) return QuantRound::kHalfEven;
  if (std::strcmp(mode, "round") == 0) return QuantRound::kHalfAway;
  if (std::strcmp(mode, "floor") == 0) return QuantRound::kFloor;
  throw_error(ACLNN_ERR_PARAM_INVALID, "roundMode must be \"rint\" (or null), \"round\" or \"floor\", got \"%s\"", mode);
}

// yOut: INT8 [M, N] or INT32 [M, N / 8] (contiguous); the MX modes' FP4 / FP8 are not supported.
bool check_y(const NamedTensor &y, const aclTensor &x) {
  const aclDataType dt = y.t->dtype;
  if (dt == ACL_FLOAT4_E2M1 || dt == ACL_FLOAT8_E4M3FN || dt == ACL_FLOAT8_E5M2)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s (the MX quantisation) is not supported yet; INT8 and INT32 are",
                y.name, core::dtype_name(dt));
  core::check_dtype_in(y.t, y.name, {ACL_INT8, ACL_INT32});
  const bool packed = dt == ACL_INT32;
  core::Shape ys = core::Shape::of(x);
  if (packed) ys.dims[1] /= 8;
  core::check_shape_equals(*y.t, y.name, ys);
  if (packed && !y.t->is_contiguous())
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s (INT32, eight INT4 a word) must be contiguous", y.name);
  core::check_no_internal_overlap(*y.t, y.name);
  return packed;
}

}  // namespace

void rotate_quant_phase1(core::OpBuilder &b, const RotqRule &rule, const RotqCall &c) {
  core::check_dtype_in(c.x.t, c.x.name, rule.dtypes);
  const aclTensor &x = *c.x.t, &rot = *c.rotation.t;
  core::check_dtype_in(c.rotation.t, c.rotation.name, {x.dtype});
  const int bad = ACLNN_ERR_PARAM_INVALID;
  if (x.ndim != 2) throw_error(bad, "%s must be 2-D [M, N], got %s", c.x.name, core::shape_string(x).c_str());
  if (rot.ndim != 2 || rot.dims[0] != rot.dims[1])
    throw_error(bad, "%s must be a square [K, K], got %s", c.rotation.name, core::shape_string(rot).c_str());
  const int64_t m = x.dims[0], n = x.dims[1], k = rot.dims[0];
  if (m < 1) throw_error(bad, "%s must not be empty, got %s", c.x.name, core::shape_string(x).c_str());
  if (n < 128 || n > 16000 || n % 8 != 0)
    throw_error(bad, "%s's last dim N = %lld must be in [128, 16000] and a multiple of 8", c.x.name, ll(n));
  if (k < 16 || k > 1024) throw_error(bad, "%s's K = %lld must be in [16, 1024]", c.rotation.name, ll(k));
  if (n % k != 0)
    throw_error(bad, "%s's last dim N = %lld must be a multiple of %s's K = %lld", c.x.name, ll(n), c.rotation.name,
                ll(k));
  if (c.alpha.t != nullptr) throw_error(bad, "alpha must be null: the clamp is documented for the MX outputs only");
  if (c.axis != -1 && c.axis != 1) throw_error(bad, "axis must be -1 or 1 (x's last dim), got %lld", ll(c.axis));
  const QuantRound round = round_of(c.round_mode);
  if (c.scale_alg != 0) throw_error(bad, "scaleAlg must be 0 for INT8 / INT32 yOut, got %lld", ll(c.scale_alg));
  if (c.dst_type_max != 0.0) throw_error(bad, "dstTypeMax must be 0 for INT8 / INT32 yOut, got %g", c.dst_type_max);
  if (c.trans) throw_error(bad, "trans must be false (the only value documented)");
  const bool packed = check_y(c.y, x);
  core::check_dtype_in(c.scale_out.t, c.scale_out.name, {ACL_FLOAT});
  core::Shape ss;
  ss.ndim = 1;
  ss.dims[0] = m;
  core::check_shape_equals(*c.scale_out.t, c.scale_out.name, ss);
  core::check_outputs_apart<NamedTensor>({&c.y, &c.scale_out}, {&c.x, &c.rotation, &c.y, &c.scale_out});

  const int sx = b.input(c.x.t), sr = b.input(c.rotation.t);
  b.input(c.alpha.t);
  const int sy = b.output(c.y.t), ss_slot = b.output(c.scale_out.t);
  // Y = x.reshape(-1, K) @ rotation into fp32 scratch [M, N]: one GEMM over all M N / K slices when x's rows
  // follow each other, else one batch per row of x.
  const core::WsKey yrows = b.book("rotq.y", static_cast<uint64_t>(m * n) * sizeof(float));
  const int64_t tasks = std::max<int64_t>(1, std::min<int64_t>(core::num_threads(), m));
  const core::WsKey rows_ws = b.book("rotq.rows", static_cast<uint64_t>(tasks * 2 * n) * sizeof(float));
  GemmCall call;
  kernels::GemmDesc &d = call.desc;
  const bool flat = x.strides[0] == n * x.strides[1];
  d.batch = flat ? 1 : m;
  d.m = flat ? m * n / k : n / k;
  d.n = k;
  d.k = k;
  bind_tensor(call, kGemmA, sx, &b.tensor(sx));
  bind_tensor(call, kGemmB, sr, &b.tensor(sr));
  bind_scratch(call, kGemmC, yrows);
  d.a = {x.dtype, k * x.strides[1], x.strides[1], flat ? 0 : x.strides[0]};
  d.b = {rot.dtype, rot.strides[0], rot.strides[1], 0};
  d.c = {ACL_FLOAT, k, 1, n};
  record_gemms(b, {call});

  auto &st = b.add_step<RotqQuantStep>();
  st.yrows = core::OperandRef{-1, yrows, 0};
  st.y = core::OperandRef::of_slot(sy, b.tensor(sy));
  st.scale = core::OperandRef::of_slot(ss_slot, b.tensor(ss_slot));
  st.ws = rows_ws;
  st.m = m;
  st.n = n;
  st.tasks = tasks;
  st.packed = packed;
  st.hi = packed ? 7 : 127;
  st.round = round;
  st.y_row_stride = c.y.t->strides[0];
  st.y_col_stride = c.y.t->strides[1];
  st.scale_stride = c.scale_out.t->strides[0];
  core::ImplTrace trace;
  const bool traced = core::current_phase1_trace() != nullptr;
  const char *tier = kernels::choose_quant_token_tier(&st.token, traced ? &trace : nullptr);
  st.fast = !packed && round == QuantRound::kHalfEven && st.y_col_stride == 1;
  if (traced) {
    if (!st.fast) trace.add("token int8", packed ? "yOut is INT32 (eight INT4)" : "roundMode or yOut's strides");
    core::record_choice(std::string("rotate_quant:gemm+token/") + tier + (st.fast ? "" : "+scalar_round") +
                            "/tasks=" + std::to_string(tasks), &trace);
  }
}

}  // namespace opsnn::ops
