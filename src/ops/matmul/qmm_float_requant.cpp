// aclnnBatchMatmulQuant (scheme kFloatRequant of ops/matmul/qmm_phase1.h): a FLOAT16 GEMM on the GEMM
// engine into fp32 scratch (bias as its epilogue's addend), then one pass re-quantising each row into
// the INT8 out with the per-channel words of aclnnTransQuantParam.
#include <algorithm>
#include <cstring>
#include <vector>

#include "common/error.h"
#include "core/dtype.h"
#include "core/op_checks.h"
#include "kernels/matmul/qmm_epilogue.h"
#include "kernels/matmul/requant.h"
#include "ops/matmul/qmm_steps.h"

namespace opsnn::ops {

namespace {

long long ll(int64_t v) { return static_cast<long long>(v); }

// The signed 9-bit offset a TransQuantParam word carries in bits 37..45.
float word_offset(uint64_t w) {
  int32_t o = static_cast<int32_t>((w >> 37) & 0x1FF);
  return static_cast<float>(o >= 256 ? o - 512 : o);
}

}  // namespace

int QmmRequantStep::run(const core::LaunchArgs &args) const {
  const float *acc = reinterpret_cast<const float *>(args.get(ws_acc));
  float *scale = reinterpret_cast<float *>(args.get(ws_params));
  float *offset = scale + n;
  const char *words = address(args, kQmmScale);
  kernels::qmm_decode_floats(words, word_dtype, word_count, word_stride, n, scale);
  for (int64_t j = 0; j < n; ++j) {
    uint64_t w;
    std::memcpy(&w, words + (word_count == 1 ? 0 : j * word_stride) * 8, 8);
    offset[j] = word_offset(w);
  }
  int8_t *out = reinterpret_cast<int8_t *>(const_cast<char *>(address(args, kQmmOut)));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      out[i * out_row + j * out_col] = kernels::requant_int8(acc[i * n + j] * scale[j] + offset[j]);
  return 0;
}

void qmm_float_requant(core::OpBuilder &b, const QmmCall &c) {
  const aclTensor *x1 = c.t[kQmmA], *x2 = c.t[kQmmB], *qp = c.t[kQmmScale], *bias = c.t[kQmmBias],
                  *out = c.t[kQmmOut];
  const char *const *nm = c.name;
  core::check_dtype_in(x1, nm[kQmmA], {ACL_FLOAT16});
  core::check_dtype_in(x2, nm[kQmmB], {ACL_FLOAT16});
  core::check_dtype_in(qp, nm[kQmmScale], {ACL_UINT64, ACL_INT64});
  if (bias != nullptr) core::check_dtype_in(bias, nm[kQmmBias], {ACL_FLOAT16});
  core::check_dtype_in(out, nm[kQmmOut], {ACL_INT8});
  require_rank(x1, nm[kQmmA], 2, 2);
  require_rank(x2, nm[kQmmB], 2, 2);
  const int64_t m = c.trans_a ? x1->dims[1] : x1->dims[0], k = c.trans_a ? x1->dims[0] : x1->dims[1];
  const int64_t k2 = c.trans_b ? x2->dims[1] : x2->dims[0], n = c.trans_b ? x2->dims[0] : x2->dims[1];
  check_inner_dims(x1, nm[kQmmA], k, x2, nm[kQmmB], k2);
  const int64_t n16 = (n + 15) / 16 * 16;
  if (qp->ndim != 1 || (qp->dims[0] != 1 && qp->dims[0] != n && qp->dims[0] != n16))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected 1-D of 1, %lld or %lld (n aligned to 16) words",
                nm[kQmmScale], core::shape_string(*qp).c_str(), ll(n), ll(n16));
  if (bias != nullptr && (bias->ndim != 1 || bias->dims[0] != n))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected (%lld,)", nm[kQmmBias],
                core::shape_string(*bias).c_str(), ll(n));
  core::Shape oshape;
  oshape.ndim = 2;
  oshape.dims[0] = m;
  oshape.dims[1] = n;
  core::check_shape_equals(*out, nm[kQmmOut], oshape);
  core::check_no_internal_overlap(*out, nm[kQmmOut]);

  QmmOperand ops[kQmmRoles];
  for (int i = 0; i < c.count; ++i) {
    const int r = c.order[i];
    ops[r].slot = r == kQmmOut ? b.output(c.t[r]) : b.input(c.t[r]);
    if (c.t[r] != nullptr) ops[r].offset_bytes = c.t[r]->offset * static_cast<int64_t>(core::dtype_size(c.t[r]->dtype));
  }
  if (m == 0 || n == 0) return;
  const core::WsKey acc = b.book("batch_matmul_quant.acc", static_cast<uint64_t>(m * n) * sizeof(float));
  GemmCall g;
  bind_tensor(g, kGemmA, ops[kQmmA].slot, x1);
  bind_tensor(g, kGemmB, ops[kQmmB].slot, x2);
  bind_scratch(g, kGemmC, acc);
  kernels::GemmDesc &d = g.desc;
  d.m = m;
  d.n = n;
  d.k = k;
  d.a.row_stride = c.trans_a ? x1->strides[1] : x1->strides[0];
  d.a.col_stride = c.trans_a ? x1->strides[0] : x1->strides[1];
  d.b.row_stride = c.trans_b ? x2->strides[1] : x2->strides[0];
  d.b.col_stride = c.trans_b ? x2->strides[0] : x2->strides[1];
  d.c.row_stride = n;
  d.c.col_stride = 1;
  if (bias != nullptr) {
    bind_tensor(g, kGemmD, ops[kQmmBias].slot, bias);
    d.d.row_stride = 0;
    d.d.col_stride = bias->strides[0];
    d.beta = 1.0f;
  }
  record_gemms(b, {g});

  QmmRequantStep &st = b.add_step<QmmRequantStep>();
  std::copy(ops, ops + kQmmRoles, st.op);
  st.m = m;
  st.n = n;
  st.out_row = out->strides[0];
  st.out_col = out->strides[1];
  st.word_dtype = qp->dtype;
  st.word_count = qp->dims[0] == 1 ? 1 : n;
  st.word_stride = qp->strides[0];
  st.ws_acc = acc;
  st.ws_params = b.book("batch_matmul_quant.params", static_cast<uint64_t>(2 * n) * sizeof(float));
}

}  // namespace opsnn::ops
