#include "ops/pooling/pool_phase1.h"

#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "common/error.h"
#include "core/impl_list.h"
#include "core/op_checks.h"
#include "core/thread_pool.h"
#include "core/verbose.h"
#include "kernels/pooling/pool.h"

namespace opsnn::ops {
namespace {

using kernels::PoolAxis;
using kernels::PoolPlan;
using kernels::PoolView;

bool is_forward(PoolKind k) {
  return k == PoolKind::kAvg || k == PoolKind::kMax || k == PoolKind::kMaxIndices || k == PoolKind::kAdaptiveAvg ||
         k == PoolKind::kAdaptiveMax || k == PoolKind::kMaxMask;
}
bool is_backward(PoolKind k) {
  return k == PoolKind::kAvgBackward || k == PoolKind::kMaxIndicesBackward || k == PoolKind::kAdaptiveAvgBackward ||
         k == PoolKind::kAdaptiveMaxBackward || k == PoolKind::kUnpoolBackward || k == PoolKind::kMaxMaskBackward;
}
bool reads_indices(PoolKind k) {
  return k == PoolKind::kMaxIndicesBackward || k == PoolKind::kAdaptiveMaxBackward || k == PoolKind::kUnpool ||
         k == PoolKind::kUnpoolBackward || k == PoolKind::kMaxMaskBackward;
}
bool writes_indices(PoolKind k) {
  return k == PoolKind::kMaxIndices || k == PoolKind::kAdaptiveMax || k == PoolKind::kMaxMask;
}
bool is_mask(PoolKind k) { return k == PoolKind::kMaxMask || k == PoolKind::kMaxMaskBackward; }
bool regular_windows(PoolKind k) {
  return k == PoolKind::kAvg || k == PoolKind::kMax || k == PoolKind::kMaxIndices || k == PoolKind::kAvgBackward ||
         k == PoolKind::kMaxIndicesBackward || is_mask(k);
}
bool is_avg(PoolKind k) { return k == PoolKind::kAvg || k == PoolKind::kAvgBackward; }

}  // namespace

PoolLogical pool_logical(const aclTensor &t, const char *name, int nsp) {
  if (t.ndim != nsp + 2 && t.ndim != nsp + 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have %d or %d dims ([N,] C, %s), got shape %s", name, nsp + 1,
                nsp + 2, nsp == 3 ? "D, H, W" : nsp == 2 ? "H, W" : "L", core::shape_string(t).c_str());
  PoolLogical l;
  l.v.dtype = t.dtype;
  l.batched = t.ndim == nsp + 2;
  l.channels_last = (t.format == ACL_FORMAT_NHWC && nsp == 2) || (t.format == ACL_FORMAT_NDHWC && nsp == 3);
  const int b = l.batched ? 1 : 0;
  if (l.batched) {
    l.v.dims[0] = t.dims[0];
    l.v.st[0] = t.strides[0];
  }
  const int cdim = l.channels_last ? b + nsp : b;
  const int sp0 = l.channels_last ? b : b + 1;
  l.v.dims[1] = t.dims[cdim];
  l.v.st[1] = t.strides[cdim];
  for (int i = 0; i < nsp; ++i) {
    l.v.dims[2 + 3 - nsp + i] = t.dims[sp0 + i];
    l.v.st[2 + 3 - nsp + i] = t.strides[sp0 + i];
  }
  return l;
}

std::vector<int64_t> pool_physical_dims(const PoolLogical &like, const int64_t *dims, int nsp) {
  std::vector<int64_t> out;
  if (like.batched) out.push_back(dims[0]);
  if (!like.channels_last) out.push_back(dims[1]);
  for (int i = 0; i < nsp; ++i) out.push_back(dims[2 + 3 - nsp + i]);
  if (like.channels_last) out.push_back(dims[1]);
  return out;
}

void pool_check_dims(const aclTensor &t, const char *name, const PoolLogical &like, const int64_t *dims, int nsp) {
  const std::vector<int64_t> want = pool_physical_dims(like, dims, nsp);
  bool ok = t.ndim == static_cast<int>(want.size());
  PoolLogical lt;
  if (ok) {
    lt = pool_logical(t, name, nsp);
    for (int i = 0; i < 5; ++i) ok = ok && lt.v.dims[i] == dims[i];
  }
  if (!ok)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected %s", name, core::shape_string(t).c_str(),
                core::shape_string(want.data(), static_cast<int>(want.size())).c_str());
}

PoolOperand pool_float_operand(core::OpBuilder &b, int slot, const PoolLogical &l, bool cl, const char *ws_name,
                               bool may_direct) {
  PoolOperand o;
  o.slot = slot;
  o.v = l.v;
  const aclTensor &t = b.tensor(slot);
  o.offset_bytes = t.offset * static_cast<int64_t>(core::dtype_size(t.dtype));
  o.direct = may_direct && kernels::pool_view_dense(o.v, cl);
  const int64_t *d = o.v.dims;
  if (!o.direct) o.ws = b.book(ws_name, static_cast<uint64_t>(d[0] * d[1] * d[2] * d[3] * d[4]) * sizeof(float));
  return o;
}

namespace {

using Logical = PoolLogical;
Logical logical(const aclTensor &t, const char *name, int nsp) { return pool_logical(t, name, nsp); }
void check_dims(const aclTensor &t, const char *name, const Logical &like, const int64_t *dims, int nsp) {
  pool_check_dims(t, name, like, dims, nsp);
}

// An int array of `nsp` values: `n` values given, or one for every dim, or (allow_empty) none ->
// `dflt`.
std::vector<int64_t> expand(const aclIntArray *a, const char *name, int nsp, bool allow_empty,
                            const std::vector<int64_t> &dflt) {
  const size_t n = a->values.size();
  if (n == 0 && allow_empty) return dflt;
  if (n == 1) return std::vector<int64_t>(static_cast<size_t>(nsp), a->values[0]);
  if (n == static_cast<size_t>(nsp)) return a->values;
  throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %zu values; it must have 1%s or %d", name, n,
              allow_empty ? ", 0" : "", nsp);
}

int64_t pool_out_size(int64_t in, int64_t k, int64_t pb, int64_t pe, int64_t s, int64_t d, bool ceil_mode) {
  const int64_t num = in + pb + pe - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t out = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
  if (ceil_mode && (out - 1) * s >= in + pb) --out;
  return out;
}

struct Geometry {
  std::vector<int64_t> k, s, pb, pe, d;
};

Geometry regular_geometry(const PoolRule &rule, const PoolCall &c) {
  const int nsp = rule.spatial;
  Geometry g;
  g.k = expand(c.kernel, c.kernel_name, nsp, false, {});
  g.s = expand(c.stride, c.stride_name, nsp, true, g.k);
  if (rule.onnx_pads) {  // aclnnMaxPool: [], [p], [ph, pw] (both sides) or [top, left, bottom, right]
    const auto &p = c.padding->values;
    if (p.size() == 4) {
      g.pb = {p[0], p[1]};
      g.pe = {p[2], p[3]};
    } else {
      g.pb = expand(c.padding, c.padding_name, nsp, true, std::vector<int64_t>(static_cast<size_t>(nsp), 0));
      g.pe = g.pb;
    }
    const auto &dl = c.dilation->values;
    g.d = dl.size() == 4 ? std::vector<int64_t>{dl[0], dl[1]}
                         : expand(c.dilation, c.dilation_name, nsp, true, std::vector<int64_t>(static_cast<size_t>(nsp), 1));
  } else {
    g.pb = expand(c.padding, c.padding_name, nsp, false, {});
    g.pe = g.pb;
    g.d = c.has_dilation ? expand(c.dilation, c.dilation_name, nsp, false, {})
                         : std::vector<int64_t>(static_cast<size_t>(nsp), 1);
  }
  for (int i = 0; i < nsp; ++i) {
    const size_t u = static_cast<size_t>(i);
    if (g.k[u] <= 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be positive, got %s", c.kernel_name,
                  core::shape_string(g.k.data(), nsp).c_str());
    if (g.s[u] <= 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be positive, got %s", c.stride_name,
                  core::shape_string(g.s.data(), nsp).c_str());
    if (g.d[u] <= 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be positive, got %s", c.dilation_name,
                  core::shape_string(g.d.data(), nsp).c_str());
    if (g.pb[u] < 0 || g.pe[u] < 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must not be negative", c.padding_name);
    // Bounded like the convolution's: the window arithmetic (d * (k - 1), in + pads) stays in int64.
    const int64_t limit = int64_t{1} << 31;
    if (g.k[u] > limit || g.s[u] > limit || g.d[u] > limit)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s, %s %s or %s %s has a value above 2^31", c.kernel_name,
                  core::shape_string(g.k.data(), nsp).c_str(), c.stride_name,
                  core::shape_string(g.s.data(), nsp).c_str(), c.dilation_name,
                  core::shape_string(g.d.data(), nsp).c_str());
    if (g.pb[u] > g.k[u] / 2 || g.pe[u] > g.k[u] / 2)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be at most half of %s (pad %lld, kernel %lld)", c.padding_name,
                  c.kernel_name, static_cast<long long>(std::max(g.pb[u], g.pe[u])), static_cast<long long>(g.k[u]));
  }
  return g;
}

using Operand = PoolOperand;

// The mask of aclnnMaxPool2dWithMask (pool_phase1.h): its view and the window geometry.
struct MaskGeom {
  int slot = -1;
  aclDataType dtype = ACL_INT8;
  int64_t offset = 0;        // elements
  int64_t st[4] = {};        // n, c, k, byte
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  int64_t hi = 1, wi = 1, ho = 1, wo = 1, width = 0;
};

// Some position of the window of output o lies inside the input.
bool window_inside(int64_t o, int64_t s, int64_t pad, int64_t k, int64_t d, int64_t in) {
  for (int64_t j = 0; j < k; ++j) {
    const int64_t x = o * s - pad + j * d;
    if (x >= 0 && x < in) return true;
  }
  return false;
}

// Forward: flat indices (planar) -> mask bytes.
void write_mask(const MaskGeom &m, int64_t n, int64_t c, const int64_t *idx, char *base) {
  auto *b = reinterpret_cast<int8_t *>(base) + m.offset;
  const int64_t kk = m.kh * m.kw, outp = m.ho * m.wo;
  core::parallel_for(n * c, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t pl = b0; pl < b1; ++pl) {
      int8_t *plane = b + (pl / c) * m.st[0] + (pl % c) * m.st[1];
      for (int64_t k = 0; k < kk; ++k)
        for (int64_t w = 0; w < m.width; ++w) plane[k * m.st[2] + w * m.st[3]] = 0;
      for (int64_t p = 0; p < outp; ++p) {
        const int64_t oh = p / m.wo, ow = p % m.wo;
        if (!window_inside(oh, m.sh, m.ph, m.kh, m.dh, m.hi) || !window_inside(ow, m.sw, m.pw, m.kw, m.dw, m.wi))
          continue;  // a window wholly in the padding marks nothing
        const int64_t f = idx[pl * outp + p], ih = f / m.wi, iw = f % m.wi;
        const int64_t kh = (ih - (oh * m.sh - m.ph)) / m.dh, kw = (iw - (ow * m.sw - m.pw)) / m.dw;
        if (kh < 0 || kh >= m.kh || kw < 0 || kw >= m.kw) continue;
        int8_t *row = plane + (kh * m.kw + kw) * m.st[2];
        row[2 * p * m.st[3]] = 1;
        row[(2 * p + 1) * m.st[3]] = 1;
      }
    }
  });
}

// Backward: gradInput (planar, overwritten) from gradOutput and the mask; false on a position
// outside the input.
bool mask_backward(const MaskGeom &m, int64_t n, int64_t c, const float *gout, const char *base, float *gin) {
  const auto *b = reinterpret_cast<const int8_t *>(base) + m.offset;
  const int64_t kk = m.kh * m.kw, outp = m.ho * m.wo, inp = m.hi * m.wi;
  std::atomic<bool> ok{true};
  core::parallel_for(n * c, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t pl = b0; pl < b1; ++pl) {
      const int8_t *plane = b + (pl / c) * m.st[0] + (pl % c) * m.st[1];
      float *gi = gin + pl * inp;
      std::memset(gi, 0, static_cast<size_t>(inp) * sizeof(float));
      for (int64_t p = 0; p < outp; ++p) {
        const int64_t oh = p / m.wo, ow = p % m.wo;
        for (int64_t k = 0; k < kk; ++k) {
          if (plane[k * m.st[2] + 2 * p * m.st[3]] == 0) continue;
          const int64_t ih = oh * m.sh - m.ph + (k / m.kw) * m.dh, iw = ow * m.sw - m.pw + (k % m.kw) * m.dw;
          if (ih < 0 || ih >= m.hi || iw < 0 || iw >= m.wi) {
            ok.store(false, std::memory_order_relaxed);
          } else {
            gi[ih * m.wi + iw] += gout[pl * outp + p];
          }
          break;
        }
      }
    }
  });
  return ok.load();
}

struct PoolStep final : core::Step {
  PoolKind kind = PoolKind::kAvg;
  PoolPlan plan;
  Operand src, index, dst, dst_index;
  kernels::IndexMove move = kernels::IndexMove::kScatterAdd;
  int64_t planes = 0, src_plane = 0, dst_plane = 0;
  const char *index_name = "indices";
  MaskGeom mask;

  int run(const core::LaunchArgs &a) const override {
    float *in = src.buffer<float>(a);
    if (!src.direct) kernels::pool_load(src.v, src.base(a), plan.cl, in);
    float *out = dst.buffer<float>(a);
    if (kind == PoolKind::kMaxMaskBackward) {
      if (!mask_backward(mask, plan.n, plan.c, in, static_cast<char *>(a.addrs[mask.slot]), out))
        return fail(ACLNN_ERR_PARAM_INVALID, "%s marks a kernel position outside the input", index_name);
    } else if (reads_indices(kind)) {
      int64_t *ix = index.buffer<int64_t>(a);
      if (!index.direct) kernels::pool_load_index(index.v, index.base(a), ix);
      int64_t bad = 0, bound = 0;
      if (!kernels::pool_index_move(move, planes, src_plane, dst_plane, in, ix, out, &bad, &bound))
        return fail(ACLNN_ERR_PARAM_INVALID, "%s holds %lld, outside [0, %lld) (a position in a plane)", index_name,
                    static_cast<long long>(bad), static_cast<long long>(bound));
    } else if (is_forward(kind)) {
      int64_t *ix = dst_index.slot >= 0 ? dst_index.buffer<int64_t>(a) : nullptr;
      kernels::pool_forward(plan, in, out, ix);
      if (kind == PoolKind::kMaxMask) write_mask(mask, plan.n, plan.c, ix, static_cast<char *>(a.addrs[mask.slot]));
      else if (ix != nullptr && !dst_index.direct) kernels::pool_store_index(dst_index.v, ix, plan.cl, dst_index.base(a));
    } else {
      kernels::pool_avg_backward(plan, in, out);
    }
    if (!dst.direct) kernels::pool_store(dst.v, out, plan.cl, dst.base(a));
    return 0;
  }
};

int64_t numel5(const int64_t *d) { return d[0] * d[1] * d[2] * d[3] * d[4]; }

Operand float_operand(core::OpBuilder &b, int slot, const Logical &l, bool cl, const char *ws_name, bool may_direct) {
  return pool_float_operand(b, slot, l, cl, ws_name, may_direct);
}

Operand index_operand(core::OpBuilder &b, int slot, const Logical &l, bool cl, const char *ws_name) {
  Operand o;
  o.slot = slot;
  o.v = l.v;
  const aclTensor &t = b.tensor(slot);
  o.offset_bytes = t.offset * static_cast<int64_t>(core::dtype_size(t.dtype));
  o.direct = kernels::pool_view_dense(o.v, cl, true);  // INT64, dense: read / written in place
  if (!o.direct) o.ws = b.book(ws_name, static_cast<uint64_t>(numel5(o.v.dims)) * sizeof(int64_t));
  return o;
}

void check_same_dtype(const aclTensor *t, const char *name, const aclTensor *self, const char *self_name) {
  if (t->dtype != self->dtype)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", name,
                core::dtype_name(t->dtype), self_name, core::dtype_name(self->dtype));
}

}  // namespace

int64_t pool_mask_width(int64_t out_h, int64_t out_w) { return ((out_h * out_w + 15) / 16 + 1) * 32; }

void pool_phase1(core::OpBuilder &b, const PoolRule &rule, const PoolCall &c) {
  const PoolKind kind = rule.kind;
  const int nsp = rule.spatial;
  const bool unpool = kind == PoolKind::kUnpool || kind == PoolKind::kUnpoolBackward;
  // Null checks in prototype order.
  if (is_backward(kind)) core::check_tensor(c.grad, c.grad_name);
  core::check_tensor(c.self, c.self_name);
  if (reads_indices(kind)) core::check_not_null(c.indices, c.indices_name);
  if (unpool && c.has_output_size) core::check_not_null(c.output_size, c.output_size_name);
  if (c.has_kernel) core::check_not_null(c.kernel, c.kernel_name);
  if (c.has_stride) core::check_not_null(c.stride, c.stride_name);
  if (c.has_padding) core::check_not_null(c.padding, c.padding_name);
  if (c.has_dilation) core::check_not_null(c.dilation, c.dilation_name);
  if (!unpool && c.has_output_size) core::check_not_null(c.output_size, c.output_size_name);
  core::check_tensor(c.out, c.out_name);
  if (writes_indices(kind)) core::check_not_null(c.out_indices, c.out_indices_name);

  // Dtypes: self in the rule, gradOutput and the output like self, indices INT32 / INT64.
  core::check_dtype_in(c.self, c.self_name, rule.dtypes);
  if (is_backward(kind)) check_same_dtype(c.grad, c.grad_name, c.self, c.self_name);
  check_same_dtype(c.out, c.out_name, c.self, c.self_name);
  if (is_mask(kind)) {
    core::check_dtype_in(kind == PoolKind::kMaxMask ? c.out_indices : c.indices,
                         kind == PoolKind::kMaxMask ? c.out_indices_name : c.indices_name, {ACL_INT8, ACL_UINT8});
  } else {
    if (reads_indices(kind)) core::check_dtype_in(c.indices, c.indices_name, {ACL_INT32, ACL_INT64});
    if (writes_indices(kind)) core::check_dtype_in(c.out_indices, c.out_indices_name, {ACL_INT32, ACL_INT64});
  }

  const Logical ls = logical(*c.self, c.self_name, nsp);
  const int64_t *sd = ls.v.dims;
  for (int i = 5 - nsp; i < 5; ++i)
    if (sd[i] <= 0 && !unpool)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; its spatial dims must not be empty", c.self_name,
                  core::shape_string(*c.self).c_str());
  if (rule.onnx_pads && c.auto_pad != 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "autoPad %lld is not supported: only 0 (NOTSET, explicit pads) is",
                static_cast<long long>(c.auto_pad));
  if (is_avg(kind) && c.divisor_override < 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "divisorOverride %lld must be >= 0 (0: divide by the window size)",
                static_cast<long long>(c.divisor_override));

  // The forward op's input (in) and output (out) logical dims, and the windows.
  int64_t in5[5], out5[5];
  for (int i = 0; i < 5; ++i) in5[i] = out5[i] = sd[i];
  PoolPlan plan;
  plan.n = sd[0];
  plan.c = sd[1];
  for (auto &a : plan.ax) a = kernels::pool_axis_unit();
  // Each pooled axis's windows; their per-output tables are built only once the shapes are checked
  // and something is to be computed (an empty batch may come with huge spatial dims).
  struct AxisSpec {
    bool adaptive = false;
    int64_t in = 0, out = 0, k = 1, s = 1, pb = 0, pe = 0, d = 1;  // out 0: not a pooled axis
  };
  AxisSpec axes[3];
  if (regular_windows(kind)) {
    const Geometry g = regular_geometry(rule, c);
    for (int i = 0; i < nsp; ++i) {
      const size_t u = static_cast<size_t>(i);
      const int ax = 3 - nsp + i;
      const int64_t o = pool_out_size(sd[2 + ax], g.k[u], g.pb[u], g.pe[u], g.s[u], g.d[u], c.ceil_mode);
      if (o <= 0)
        throw_error(ACLNN_ERR_PARAM_INVALID,
                    "the output size %lld of spatial dim %d is not positive (input %lld, %s %lld, %s %lld, %s %lld, "
                    "%s %lld)",
                    static_cast<long long>(o), i, static_cast<long long>(sd[2 + ax]), c.kernel_name,
                    static_cast<long long>(g.k[u]), c.stride_name, static_cast<long long>(g.s[u]), c.padding_name,
                    static_cast<long long>(g.pb[u]), c.dilation_name, static_cast<long long>(g.d[u]));
      out5[2 + ax] = o;
      axes[ax] = {false, sd[2 + ax], o, g.k[u], g.s[u], g.pb[u], g.pe[u], g.d[u]};
    }
  } else if (kind == PoolKind::kAdaptiveAvg || kind == PoolKind::kAdaptiveMax || unpool) {
    const std::vector<int64_t> os = expand(c.output_size, c.output_size_name, nsp, false, {});
    for (int i = 0; i < nsp; ++i) {
      const size_t u = static_cast<size_t>(i);
      const int ax = 3 - nsp + i;
      if (os[u] <= 0)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be positive, got %s", c.output_size_name,
                    core::shape_string(os.data(), nsp).c_str());
      out5[2 + ax] = os[u];
      axes[ax] = {true, sd[2 + ax], os[u]};
    }
  } else {  // adaptive backward: the windows from self and gradOutput
    const Logical lg = logical(*c.grad, c.grad_name, nsp);
    for (int i = 0; i < nsp; ++i) {
      const int ax = 3 - nsp + i;
      const int64_t o = lg.v.dims[2 + ax];
      if (o <= 0)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; its spatial dims must not be empty", c.grad_name,
                    core::shape_string(*c.grad).c_str());
      out5[2 + ax] = o;
      axes[ax] = {true, sd[2 + ax], o};
    }
  }
  if (unpool && c.has_stride) {  // MaxUnpool3d: stride and padding are only checked (as in PyTorch)
    const std::vector<int64_t> st = expand(c.stride, c.stride_name, nsp, false, {});
    const std::vector<int64_t> pd = expand(c.padding, c.padding_name, nsp, false, {});
    for (int i = 0; i < nsp; ++i) {
      if (st[static_cast<size_t>(i)] <= 0)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be positive, got %s", c.stride_name,
                    core::shape_string(st.data(), nsp).c_str());
      if (pd[static_cast<size_t>(i)] < 0)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s must not be negative, got %s", c.padding_name,
                    core::shape_string(pd.data(), nsp).c_str());
    }
  }

  // Shapes of the other tensors.
  MaskGeom mg;
  if (is_mask(kind)) {
    const Geometry g = regular_geometry(rule, c);
    mg.kh = g.k[0], mg.kw = g.k[1], mg.sh = g.s[0], mg.sw = g.s[1], mg.ph = g.pb[0], mg.pw = g.pb[1];
    mg.dh = g.d[0], mg.dw = g.d[1], mg.hi = sd[3], mg.wi = sd[4], mg.ho = out5[3], mg.wo = out5[4];
    mg.width = pool_mask_width(mg.ho, mg.wo);
    const aclTensor *mt = kind == PoolKind::kMaxMask ? c.out_indices : c.indices;
    const char *mname = kind == PoolKind::kMaxMask ? c.out_indices_name : c.indices_name;
    std::vector<int64_t> want;
    if (ls.batched) want.push_back(sd[0]);
    want.insert(want.end(), {sd[1], mg.kh * mg.kw, mg.width});
    bool ok = mt->ndim == static_cast<int>(want.size());
    for (int i = 0; ok && i < mt->ndim; ++i) ok = mt->dims[i] == want[static_cast<size_t>(i)];
    if (!ok)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected %s (the mask: [N,] C, kH * kW, "
                  "(ceil(Hout * Wout / 16) + 1) * 32)", mname, core::shape_string(*mt).c_str(),
                  core::shape_string(want.data(), static_cast<int>(want.size())).c_str());
    const int b0 = ls.batched ? 1 : 0;
    mg.st[0] = ls.batched ? mt->strides[0] : 0;
    mg.st[1] = mt->strides[b0];
    mg.st[2] = mt->strides[b0 + 1];
    mg.st[3] = mt->strides[b0 + 2];
    mg.offset = mt->offset;
    mg.dtype = mt->dtype;
  }
  if (kind == PoolKind::kMaxMaskBackward) {
    check_dims(*c.grad, c.grad_name, ls, out5, nsp);
    check_dims(*c.out, c.out_name, ls, in5, nsp);
  } else if (is_forward(kind)) {
    check_dims(*c.out, c.out_name, ls, out5, nsp);
    if (writes_indices(kind) && !is_mask(kind)) check_dims(*c.out_indices, c.out_indices_name, ls, out5, nsp);
  } else if (kind == PoolKind::kUnpool) {
    check_dims(*c.indices, c.indices_name, ls, in5, nsp);
    check_dims(*c.out, c.out_name, ls, out5, nsp);
  } else if (kind == PoolKind::kUnpoolBackward) {
    check_dims(*c.grad, c.grad_name, ls, out5, nsp);
    check_dims(*c.indices, c.indices_name, ls, in5, nsp);
    check_dims(*c.out, c.out_name, ls, in5, nsp);
  } else {
    check_dims(*c.grad, c.grad_name, ls, out5, nsp);
    if (reads_indices(kind)) check_dims(*c.indices, c.indices_name, ls, out5, nsp);
    check_dims(*c.out, c.out_name, ls, in5, nsp);
  }
  core::check_no_internal_overlap(*c.out, c.out_name);
  if (writes_indices(kind)) core::check_no_internal_overlap(*c.out_indices, c.out_indices_name);

  // Registration in prototype order.
  const int grad_slot = is_backward(kind) ? b.input(c.grad) : -1;
  const int self_slot = b.input(c.self);
  const int index_slot = reads_indices(kind) ? b.input(c.indices) : -1;
  const int out_slot = b.output(c.out);
  const int oidx_slot = writes_indices(kind) ? b.output(c.out_indices) : -1;
  if (numel5(in5) == 0 || numel5(out5) == 0) return;  // nothing to compute
  for (int ax = 0; ax < 3; ++ax) {
    const AxisSpec &a = axes[ax];
    if (a.out == 0) continue;
    plan.ax[ax] = a.adaptive ? kernels::pool_axis_adaptive(a.in, a.out)
                             : kernels::pool_axis_regular(a.in, a.out, a.k, a.s, a.pb, a.pe, a.d);
  }

  // Layout: channels-last when self's channels are its unit-stride dim (NHWC format or a
  // channels-last view); index scatters and gathers run planar.
  const bool index_move = reads_indices(kind) && kind != PoolKind::kMaxMaskBackward;
  plan.cl = !index_move && !is_mask(kind) && sd[1] > 1 && ls.v.st[1] == 1 && (sd[2] * sd[3] * sd[4]) > 1;
  plan.reduce = (is_avg(kind) || kind == PoolKind::kAdaptiveAvg || kind == PoolKind::kAdaptiveAvgBackward)
                    ? kernels::PoolReduce::kAvg
                    : kernels::PoolReduce::kMax;
  plan.with_index = writes_indices(kind);
  plan.count_include_pad = kind == PoolKind::kAvg || kind == PoolKind::kAvgBackward ? c.count_include_pad : false;
  plan.divisor_override = is_avg(kind) ? c.divisor_override : 0;

  auto &s = b.add_step<PoolStep>();
  s.kind = kind;
  const Logical lo = logical(*c.out, c.out_name, nsp);
  if (is_forward(kind)) {
    s.src = float_operand(b, self_slot, ls, plan.cl, "pool.in", true);
    s.dst = float_operand(b, out_slot, lo, plan.cl, "pool.out", true);
    if (kind == PoolKind::kMaxMask) {
      const int64_t l5[5] = {out5[0], out5[1], 1, out5[3], out5[4]};
      s.dst_index.slot = oidx_slot;
      s.dst_index.ws = b.book("pool.indices", static_cast<uint64_t>(numel5(l5)) * sizeof(int64_t));
    } else if (oidx_slot >= 0) {
      s.dst_index = index_operand(b, oidx_slot, logical(*c.out_indices, c.out_indices_name, nsp), plan.cl,
                                  "pool.indices");
    }
  } else if (kind == PoolKind::kUnpool) {
    s.src = float_operand(b, self_slot, ls, false, "pool.self", true);
    s.dst = float_operand(b, out_slot, lo, false, "pool.out", true);
  } else {
    s.src = float_operand(b, grad_slot, logical(*c.grad, c.grad_name, nsp), plan.cl, "pool.grad", true);
    s.dst = float_operand(b, out_slot, lo, plan.cl, "pool.out", true);
  }
  if (kind == PoolKind::kUnpool) {  // src: self, dst: out (outputSize); scatter assign
    s.index = index_operand(b, index_slot, logical(*c.indices, c.indices_name, nsp), false, "pool.indices");
    s.move = kernels::IndexMove::kScatterAssign;
    s.src_plane = sd[2] * sd[3] * sd[4];
    s.dst_plane = out5[2] * out5[3] * out5[4];
  } else if (kind == PoolKind::kUnpoolBackward) {  // src: gradOutput (outputSize), dst: self-shaped; gather
    s.index = index_operand(b, index_slot, logical(*c.indices, c.indices_name, nsp), false, "pool.indices");
    s.move = kernels::IndexMove::kGather;
    s.src_plane = out5[2] * out5[3] * out5[4];
    s.dst_plane = sd[2] * sd[3] * sd[4];
  } else if (index_move) {  // max backward: src gradOutput, dst gradInput; scatter add
    s.index = index_operand(b, index_slot, logical(*c.indices, c.indices_name, nsp), false, "pool.indices");
    s.move = kernels::IndexMove::kScatterAdd;
    s.src_plane = out5[2] * out5[3] * out5[4];
    s.dst_plane = sd[2] * sd[3] * sd[4];
  }
  s.planes = sd[0] * sd[1];
  s.index_name = kind == PoolKind::kMaxMask ? c.out_indices_name : c.indices_name;
  if (is_mask(kind)) {
    mg.slot = kind == PoolKind::kMaxMask ? oidx_slot : index_slot;
    s.mask = mg;
  }
  if (!index_move) {
    core::ImplTrace trace;
    const bool traced = core::current_phase1_trace() != nullptr;
    const char *name = kernels::choose_pool_kernel(plan, is_backward(kind), traced ? &trace : nullptr);
    if (traced) core::record_choice(std::string("pool:") + name, &trace);
  } else if (core::current_phase1_trace() != nullptr) {
    core::record_choice("pool:index_move", nullptr);
  }
  s.plan = std::move(plan);
}

}  // namespace opsnn::ops
