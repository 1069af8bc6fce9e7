// Phase 2 of the quantised matmuls (ops/matmul/qmm_steps.h).
#include "ops/matmul/qmm_steps.h"

#include <algorithm>
#include <cstring>

#include "core/dtype.h"
#include "kernels/matmul/gemm_elem.h"
#include "core/thread_pool.h"
#include "kernels/matmul/qmm_epilogue.h"
#include "kernels/quant/quant_rows.h"
#include "runtime/runtime.h"

namespace opsnn::ops {

namespace {

struct Int8Ctx {
  const QmmInt8Step *st;
  char *out;
  const float *scale, *offset, *pertoken;
  const void *bias;  // decoded: int32 or fp32, [bias_batches][n]
  int64_t flat_base;
};

// The epilogue of one finished int32 block of the GEMM, straight into out.
void int8_block(void *vctx, int64_t b, int64_t i0, int64_t j0, int64_t rows, int64_t cols, const int32_t *acc,
                int64_t ldacc) {
  const Int8Ctx &c = *static_cast<const Int8Ctx *>(vctx);
  const QmmInt8Step &st = *c.st;
  const int64_t esize = static_cast<int64_t>(core::dtype_size(st.out_dtype));
  kernels::QmmEpilogue e;
  e.scale = c.scale;
  e.offset = c.offset;
  e.out_dtype = st.out_dtype;
  e.act = st.act;
  e.accumulate = st.accumulate;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t i = i0 + r;
    // Folded: the GEMM's row i is row i % m0 of batch i / m0 (b is 0); else i < m0.
    const int64_t flat = c.flat_base + b + i / st.m0, row = i % st.m0;
    int64_t off = row * st.out_row + j0 * st.out_col;
    for (int64_t d = st.out_bdims - 1, f = flat; d >= 0; --d) {
      off += (f % st.out_bshape[d]) * st.out_bstride[d];
      f /= st.out_bshape[d];
    }
    if (c.bias != nullptr) {
      const int64_t boff = (st.bias_batches > 1 ? flat : 0) * st.n;
      if (st.bias_dtype == ACL_INT32) e.bias_i32 = static_cast<const int32_t *>(c.bias) + boff;
      else e.bias_f = static_cast<const float *>(c.bias) + boff;
    }
    const float pt = c.pertoken != nullptr ? c.pertoken[flat * st.pertoken_bstride + row * st.pertoken_stride] : 1.0f;
    kernels::qmm_epilogue_row(e, acc + r * ldacc, j0, cols, pt, c.out + off * esize, st.out_col);
  }
}

}  // namespace

int QmmInt8Step::run(const core::LaunchArgs &args) const {
  if (x2_source == nullptr) return run_with(args, reinterpret_cast<const int8_t *>(address(args, kQmmB)));
  int rc = 0;
  x2_source->with(args, [&](const char *x2) { rc = run_with(args, reinterpret_cast<const int8_t *>(x2)); });
  return rc;
}

int QmmInt8Step::run_with(const core::LaunchArgs &args, const int8_t *b) const {
  Int8Ctx c{};
  c.st = this;
  c.out = out_to_ws ? args.get(ws_out) : const_cast<char *>(address(args, kQmmOut));
  float *sv = reinterpret_cast<float *>(args.get(ws_scale));
  if (has_scale_value)
    std::fill(sv, sv + n, scale_value);
  else
    kernels::qmm_decode_floats(address(args, kQmmScale), scale_dtype, scale_count, scale_stride, n, sv);
  c.scale = sv;
  if (op[kQmmOffset].slot >= 0) {
    float *ov = reinterpret_cast<float *>(args.get(ws_offset));
    kernels::qmm_decode_floats(address(args, kQmmOffset), ACL_FLOAT, offset_count, offset_stride, n, ov);
    c.offset = ov;
  }
  c.pertoken = pertoken_from_ws ? reinterpret_cast<const float *>(args.get(ws_pertoken))
                                : reinterpret_cast<const float *>(address(args, kQmmPertoken));
  if (op[kQmmBias].slot >= 0) {
    const char *bp = address(args, kQmmBias);
    const int64_t esize = static_cast<int64_t>(core::dtype_size(bias_dtype));
    for (int64_t g = 0; g < bias_batches; ++g) {
      const char *src = bp + g * bias_bstride * esize;
      if (bias_dtype == ACL_INT32)
        kernels::qmm_decode_int32(reinterpret_cast<const int32_t *>(src), bias_col, n,
                                  reinterpret_cast<int32_t *>(args.get(ws_bias)) + g * n);
      else
        kernels::qmm_decode_floats(src, bias_dtype, n, bias_col, n, reinterpret_cast<float *>(args.get(ws_bias)) + g * n);
    }
    c.bias = args.get(ws_bias);
  }
  const int8_t *a = reinterpret_cast<const int8_t *>(a_from_ws ? args.get(ws_a) : address(args, kQmmA));
  int64_t outer = 1;
  for (int d = 0; d < outer_ndim; ++d) outer *= outer_dims[d];
  for (int64_t o = 0; o < outer; ++o) {
    int64_t aoff = 0, boff = 0;
    for (int64_t d = outer_ndim - 1, f = o; d >= 0; --d) {
      const int64_t idx = f % outer_dims[d];
      f /= outer_dims[d];
      aoff += idx * outer_a[d];
      boff += idx * outer_b[d];
    }
    c.flat_base = o * inner;
    kernels::igemm_run(plan, a + aoff, b + boff, args.get(ws_gemm), &int8_block, &c);
  }
  return 0;
}

int QmmXQuantStep::run(const core::LaunchArgs &args) const {
  const char *x = address(args, kQmmA), *smooth = address(args, kQmmSmooth), *xs = address(args, kQmmXScale);
  int8_t *xq = reinterpret_cast<int8_t *>(args.get(ws_xq));
  float *sx = reinterpret_cast<float *>(args.get(ws_sx));
  float *rows = reinterpret_cast<float *>(args.get(ws_rows));
  const int64_t xsize = static_cast<int64_t>(core::dtype_size(x_dtype));
  const int64_t per = (m + tasks - 1) / tasks;
  core::parallel_for(tasks, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      float *in = rows + t * 2 * k, *sm = in + k;
      if (smooth != nullptr && !rows_fast) kernels::quant_load_row(smooth, smooth_dtype, smooth_stride, k, sm);
      for (int64_t i = t * per; i < std::min(m, (t + 1) * per); ++i) {
        float ext[3];
        if (rows_fast) {  // the tier's row load (x * smooth and the row's extrema in one pass)
          token.prep(x + i * x_row * xsize, x_dtype, smooth, k, in, ext);
        } else {
          kernels::quant_load_row(x + i * x_row * xsize, x_dtype, x_col, k, in);
          if (smooth != nullptr)
            for (int64_t p = 0; p < k; ++p) in[p] *= sm[p];
          if (dynamic) kernels::quant_row_extrema(in, k, ext);
        }
        float s;
        if (dynamic) {
          s = ext[0] / 127.0f;
        } else {
          kernels::quant_load_row(xs + i * xscale_stride * static_cast<int64_t>(core::dtype_size(xscale_dtype)),
                                  xscale_dtype, 1, 1, &s);
        }
        token.int8(in, k, s, 0.0f, xq + i * k);
        sx[i] = s;
      }
    }
  });
  return 0;
}

int QmmSumStep::run(const core::LaunchArgs &args) const {
  float *a = reinterpret_cast<float *>(args.get(acc));
  if (!store) {
    std::fill(a, a + m * n, 0.0f);
    return 0;
  }
  char *out = const_cast<char *>(address(args, kQmmOut));
  for (int64_t i = 0; i < m; ++i) kernels::quant_store_floats(a + i * n, n, out_dtype, out + i * out_row * 2, out_col);
  return 0;
}

int QmmInt4PackStep::run(const core::LaunchArgs &args) const {
  const int32_t *w = reinterpret_cast<const int32_t *>(address(args, kQmmB));
  char *out = const_cast<char *>(address(args, kQmmOut));
  core::parallel_for(rows, 64, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      kernels::quant_store_ints(w + r * cols, cols, ACL_INT4, true, 0, out + r * (cols / 2), 1);
  });
  return 0;
}

int QmmWeightStep::run(const core::LaunchArgs &args) const {
  if (w_source == nullptr) return run_with(args, address(args, kQmmB));
  int rc = 0;
  w_source->with(args, [&](const char *w) { rc = run_with(args, w); });
  return rc;
}

int QmmWeightStep::run_with(const core::LaunchArgs &args, const char *wp) const {
  const char *xp = address(args, kQmmA), *sp = address(args, kQmmScale), *ofp = address(args, kQmmOffset);
  kernels::WqOutput out;
  out.y = const_cast<char *>(address(args, kQmmOut));
  out.y_dtype = y_dtype;
  out.y_row = y_row;
  out.bias = address(args, kQmmBias);
  out.bias_dtype = bias_dtype;
  out.bias_stride = bias_stride;
  out.quant.scale = address(args, kQmmQScale);
  out.quant.scale_dtype = qscale_dtype;
  out.quant.scale_stride = qscale_stride;
  out.quant.offset = address(args, kQmmQOffset);
  out.quant.offset_stride = qoffset_stride;
  if (path == kernels::WqPath::kStream) {
    float *y32 = reinterpret_cast<float *>(args.get(ws_b));
    kernels::wq_small_m_run(wq, x_dtype, xp, x_row, x_col, wp, sp, ofp, y32, wq.n, args.get(ws_a), simd);
    for (int64_t i = 0; i < wq.m; ++i) kernels::wq_store_row(out, i, 0, wq.n, y32 + i * wq.n);
    return 0;
  }
  if (path == kernels::WqPath::kFused) {
    kernels::wq_fused_run(fplan, wq, x_dtype, xp, x_row, x_col, wp, sp, ofp, out, args.get(ws_a));
    return 0;
  }
  float *wf = reinterpret_cast<float *>(args.get(ws_a));
  kernels::wq_dequant_prepacked(wq, wp, sp, ofp, wf, simd);
  if (out.quant.scale == nullptr) {
    kernels::gemm_run(plan, xp, wf, out.y, args.get(ws_b), out.bias);
    return 0;
  }
  // Requantised output: the GEMM writes fp32 rows into the workspace, then bias and quantisation.
  float *y32 = reinterpret_cast<float *>(args.get(ws_c));
  kernels::gemm_run(plan, xp, wf, y32, args.get(ws_b));
  for (int64_t i = 0; i < wq.m; ++i) kernels::wq_store_row(out, i, 0, wq.n, y32 + i * wq.n);
  return 0;
}

int QmmEncodeParamStep::run(const core::LaunchArgs &args) const {
  kernels::qmm_encode_params(reinterpret_cast<const float *>(address(args, kQmmScale)), scale_stride,
                             reinterpret_cast<const float *>(address(args, kQmmOffset)), offset_stride, count,
                             reinterpret_cast<uint64_t *>(const_cast<char *>(address(args, kQmmOut))), out_stride,
                             round_mode);
  return 0;
}

int QmmPrepackStep::run(const core::LaunchArgs &args) const {
  char *base = const_cast<char *>(address(args, kQmmB));
  // Only device allocations are re-laid: the runtime hears when they are written, copied over or
  // freed, which ends the registry's entry. Host memory (allowed for tensors) can be freed and
  // reused behind our back, and a stale entry would make a later plain weight at the same address
  // read as packed: such a weight stays plain (the GEMM reads it as it is, same results).
  const void *alloc = nullptr;
  size_t alloc_bytes = 0;
  if (!rt::find_device_allocation(base, &alloc, &alloc_bytes)) return 0;
  const size_t es = core::dtype_size(src.dtype);
  // Copy the logical matrix out (contiguous), then write the packed layout over the buffer.
  char *copy = args.get(copy_ws);
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j)
      std::memcpy(copy + static_cast<size_t>(p * n + j) * es,
                  base + static_cast<size_t>(p * src.row_stride + j * src.col_stride) * es, es);
  kernels::GemmOperand dense{src.dtype, n, 1, 0};
  kernels::gemm_prepack_b(dense, k, n, copy, base);
  kernels::gemm_prepacked_b_register(base, k, n, src.dtype, src.row_stride, src.col_stride);
  return 0;
}

}  // namespace opsnn::ops
