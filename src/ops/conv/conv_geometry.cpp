// The logical views of convolution tensors and the argument checks (conv_parts.h).
#include "ops/conv/conv_parts.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "core/op_checks.h"

namespace opsnn::ops::conv_parts {

using core::shape_string;

int64_t column_budget() {
  const char *env = std::getenv("OPSNN_CONV_COLUMN_BYTES");
  if (env != nullptr && *env != '\0') {
    const long long v = std::atoll(env);
    if (v > 0) return v;
  }
  return int64_t{4} << 20;
}

bool channels_last(const aclTensor &t) {
  return (t.format == ACL_FORMAT_NHWC && t.ndim == 4) || (t.format == ACL_FORMAT_NDHWC && t.ndim == 5);
}

Logical logical(const aclTensor &t) {
  Logical l;
  const int nsp = t.ndim - 2;
  const bool cl = channels_last(t);
  const int cdim = cl ? t.ndim - 1 : 1;
  l.dims[0] = t.dims[0];
  l.strides[0] = t.strides[0];
  l.dims[1] = t.dims[cdim];
  l.strides[1] = t.strides[cdim];
  for (int i = 0; i < nsp; ++i) {
    const int src = cl ? 1 + i : 2 + i;
    l.dims[2 + 3 - nsp + i] = t.dims[src];
    l.strides[2 + 3 - nsp + i] = t.strides[src];
  }
  return l;
}

core::Shape shape_in_format(const aclTensor &like, int64_t n, int64_t c, const int64_t *sp, int nsp) {
  core::Shape s;
  s.ndim = nsp + 2;
  s.dims[0] = n;
  if (channels_last(like)) {
    for (int i = 0; i < nsp; ++i) s.dims[1 + i] = sp[i];
    s.dims[nsp + 1] = c;
  } else {
    s.dims[1] = c;
    for (int i = 0; i < nsp; ++i) s.dims[2 + i] = sp[i];
  }
  return s;
}


Side side_of(int slot, const aclTensor &t, const Logical &l) {
  Side s;
  s.ref = core::OperandRef::of_slot(slot, t);
  s.dt = t.dtype;
  s.n = l.dims[0];
  s.c = l.dims[1];
  s.sn = l.strides[0];
  s.sc = l.strides[1];
  for (int i = 0; i < 3; ++i) {
    s.sp[i] = l.dims[2 + i];
    s.ss[i] = l.strides[2 + i];
  }
  return s;
}


Weight weight_of(int slot, const aclTensor &t, const Logical &l) {
  Weight w;
  w.ref = core::OperandRef::of_slot(slot, t);
  w.dt = t.dtype;
  for (int i = 0; i < 5; ++i) {
    w.dims[i] = l.dims[i];
    w.strides[i] = l.strides[i];
  }
  return w;
}


// ---- Argument checks ----

std::vector<int64_t> int_array(const aclIntArray *a, const char *name, int nsp, bool allow_single) {
  const auto &v = a->values;
  if (static_cast<int>(v.size()) == nsp) return v;
  if (allow_single && v.size() == 1) return std::vector<int64_t>(static_cast<size_t>(nsp), v[0]);
  throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %zu values; it must have %d (one per spatial dim)", name, v.size(), nsp);
}

void check_cube(int cube) {
  // A mode allowing lower precision is a permission: every path computes with fp32 products and
  // fp32 accumulation (BF16 / FLOAT16 inputs are widened exactly), at least as precise as any mode.
  if (cube < 0 || cube > 3)
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "cubeMathType is %d; expected 0 (KEEP_DTYPE), 1 (ALLOW_FP32_DOWN_PRECISION), 2 (USE_FP16) or "
                "3 (USE_HF32)",
                cube);
}

void set_params(Problem &p, int nsp, const std::vector<int64_t> &k, const std::vector<int64_t> &s,
                const std::vector<int64_t> &pad, const std::vector<int64_t> &dil) {
  p.nsp = nsp;
  for (int i = 0; i < nsp; ++i) {
    const int j = 3 - nsp + i;
    if (s[static_cast<size_t>(i)] <= 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "stride must be positive, got %s",
                  shape_string(s.data(), nsp).c_str());
    if (pad[static_cast<size_t>(i)] < 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "padding must be non-negative, got %s",
                  shape_string(pad.data(), nsp).c_str());
    if (dil[static_cast<size_t>(i)] <= 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "dilation must be positive, got %s",
                  shape_string(dil.data(), nsp).c_str());
    constexpr int64_t kMaxParam = int64_t{1} << 31;  // keeps every size computation below far from overflow
    if (s[static_cast<size_t>(i)] > kMaxParam || pad[static_cast<size_t>(i)] > kMaxParam ||
        dil[static_cast<size_t>(i)] > kMaxParam)
      throw_error(ACLNN_ERR_PARAM_INVALID, "stride %s, padding %s or dilation %s has a value above 2^31",
                  shape_string(s.data(), nsp).c_str(), shape_string(pad.data(), nsp).c_str(),
                  shape_string(dil.data(), nsp).c_str());
    p.g.k[j] = k[static_cast<size_t>(i)];
    p.g.s[j] = s[static_cast<size_t>(i)];
    p.g.p[j] = pad[static_cast<size_t>(i)];
    p.g.d[j] = dil[static_cast<size_t>(i)];
  }
}

void infer_small(Problem &p, const char *input_name) {
  for (int j = 3 - p.nsp; j < 3; ++j) {
    const __int128 span128 = static_cast<__int128>(p.g.big[j]) + 2 * static_cast<__int128>(p.g.p[j]) -
                             static_cast<__int128>(p.g.d[j]) * (p.g.k[j] - 1) - 1;
    const int64_t span = span128 < 0 ? -1 : static_cast<int64_t>(std::min<__int128>(span128, int64_t{1} << 62));
    if (span < 0)
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "the kernel (size %lld, dilation %lld) is larger than %s's padded size %lld: the output size "
                  "would not be positive",
                  static_cast<long long>(p.g.k[j]), static_cast<long long>(p.g.d[j]), input_name,
                  static_cast<long long>(p.g.big[j] + 2 * p.g.p[j]));
    p.g.small[j] = span / p.g.s[j] + 1;
  }
}

void check_dtype_like(const aclTensor *t, const char *name, aclDataType want, const char *like) {
  if (t->dtype != want)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", name,
                core::dtype_name(t->dtype), like, core::dtype_name(want));
}

void check_out(const aclTensor *t, const char *name, const core::Shape &shape, const ConvRule &rule) {
  core::check_dtype_in(t, name, rule.dtypes);
  core::check_shape_equals(*t, name, shape);
  core::check_no_internal_overlap(*t, name);
}

void check_rank(const aclTensor *t, const char *name, int lo, int hi) {
  if (t->ndim < lo || t->ndim > hi) {
    if (lo == hi)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be %d-D; it has shape %s", name, lo, shape_string(*t).c_str());
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have %d to %d dims; it has shape %s", name, lo, hi,
                shape_string(*t).c_str());
  }
}

Bias bias_of(int slot, const aclTensor *t) {
  Bias bb;
  if (t == nullptr) return bb;
  bb.ref = core::OperandRef::of_slot(slot, *t);
  bb.dt = t->dtype;
  bb.stride = t->strides[0];
  return bb;
}

void check_bias(const aclTensor *bias, const char *name, int64_t channels, aclDataType in_dt) {
  if (bias == nullptr) return;
  if (bias->dtype != in_dt && bias->dtype != ACL_FLOAT)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must be the input's dtype %s or FLOAT", name,
                core::dtype_name(bias->dtype), core::dtype_name(in_dt));
  core::Shape s;
  s.ndim = 1;
  s.dims[0] = channels;
  core::check_shape_equals(*bias, name, s);
}


ConvShapes conv_shapes(const aclTensor *input, const char *in_name, const aclTensor *weight, const char *w_name,
                       const aclIntArray *stride, const aclIntArray *padding, const aclIntArray *dilation,
                       bool transposed, const aclIntArray *output_padding, int64_t groups) {
  check_rank(input, in_name, 3, 5);
  if (weight->ndim != input->ndim)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must have as many dims as %s %s", w_name,
                shape_string(*weight).c_str(), in_name, shape_string(*input).c_str());
  const int nsp = input->ndim - 2;
  if (groups <= 0) throw_error(ACLNN_ERR_PARAM_INVALID, "groups must be positive, got %lld", static_cast<long long>(groups));
  const Logical li = logical(*input), lw = logical(*weight);
  ConvShapes r;
  Problem &p = r.p;
  p.groups = groups;
  std::vector<int64_t> k(static_cast<size_t>(nsp));
  for (int i = 0; i < nsp; ++i) {
    k[static_cast<size_t>(i)] = lw.dims[2 + 3 - nsp + i];
    if (k[static_cast<size_t>(i)] <= 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; its kernel dims must be positive", w_name,
                  shape_string(*weight).c_str());
  }
  set_params(p, nsp, k, int_array(stride, "stride", nsp, true), int_array(padding, "padding", nsp, true),
             int_array(dilation, "dilation", nsp, true));
  r.c_in = li.dims[1];
  if (r.c_in <= 0 || lw.dims[0] <= 0 || lw.dims[1] <= 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s and %s %s must have positive channel counts", in_name,
                shape_string(*input).c_str(), w_name, shape_string(*weight).c_str());
  if (!transposed) {
    r.c_out = lw.dims[0];
    if (lw.dims[1] * groups != r.c_in)
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "%s %s has %lld input channels per group; with groups = %lld the input needs %lld channels, "
                  "%s %s has %lld",
                  w_name, shape_string(*weight).c_str(), static_cast<long long>(lw.dims[1]),
                  static_cast<long long>(groups), static_cast<long long>(lw.dims[1] * groups), in_name,
                  shape_string(*input).c_str(), static_cast<long long>(r.c_in));
    if (r.c_out % groups != 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s has %lld output channels, not divisible by groups = %lld", w_name,
                  shape_string(*weight).c_str(), static_cast<long long>(r.c_out), static_cast<long long>(groups));
    for (int i = 0; i < 3; ++i) p.g.big[i] = li.dims[2 + i];
    infer_small(p, in_name);
  } else {
    if (lw.dims[0] != r.c_in)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s must have %s's %lld channels as its first dim (transposed)", w_name,
                  shape_string(*weight).c_str(), in_name, static_cast<long long>(r.c_in));
    if (r.c_in % groups != 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s has %lld channels, not divisible by groups = %lld", in_name,
                  shape_string(*input).c_str(), static_cast<long long>(r.c_in), static_cast<long long>(groups));
    r.c_out = lw.dims[1] * groups;
    const std::vector<int64_t> op = int_array(output_padding, "outputPadding", nsp, true);
    for (int i = 0; i < nsp; ++i) {
      const int j = 3 - nsp + i;
      const int64_t o = op[static_cast<size_t>(i)];
      if (o < 0 || (o >= p.g.s[j] && o >= p.g.d[j]))
        throw_error(ACLNN_ERR_PARAM_INVALID,
                    "outputPadding %s must be non-negative and smaller than either stride or dilation",
                    shape_string(op.data(), nsp).c_str());
      p.g.small[j] = li.dims[2 + j];
      const __int128 big = static_cast<__int128>(p.g.small[j] - 1) * p.g.s[j] - 2 * static_cast<__int128>(p.g.p[j]) +
                           static_cast<__int128>(p.g.d[j]) * (p.g.k[j] - 1) + o + 1;
      if (big > (static_cast<__int128>(1) << 62))
        throw_error(ACLNN_ERR_PARAM_INVALID, "the transposed convolution's output size is too large");
      p.g.big[j] = static_cast<int64_t>(big);
      if (p.g.big[j] <= 0)
        throw_error(ACLNN_ERR_PARAM_INVALID, "the transposed convolution's output size %lld is not positive",
                    static_cast<long long>(p.g.big[j]));
    }
  }
  int64_t sp[3];
  for (int i = 0; i < nsp; ++i) sp[i] = transposed ? p.g.big[3 - nsp + i] : p.g.small[3 - nsp + i];
  r.out_shape = shape_in_format(*input, li.dims[0], r.c_out, sp, nsp);
  return r;
}

void check_input_dtypes(const ConvRule &rule, const aclTensor *input, const char *in_name, const aclTensor *weight,
                        const char *w_name) {
  core::check_dtype_in(input, in_name, rule.dtypes);
  check_dtype_like(weight, w_name, input->dtype, in_name);
}

}  // namespace opsnn::ops::conv_parts
