#include "ops/norm/row_phase1.h"

#include <string>
#include <vector>

#include "common/error.h"
#include "core/op_checks.h"
#include "kernels/dimwise/dimwise.h"
#include "ops/dimwise/dimwise_phase1.h"

namespace opsnn::ops {
namespace {

using kernels::DimwiseLoop;

int64_t bytes(const aclTensor &t, int64_t elems) { return elems * static_cast<int64_t>(core::dtype_size(t.dtype)); }

// The row geometry of x as outer dims x line dims, expressed per operand by strides over them.
struct Rows {
  std::vector<int64_t> outer, line;  // shapes
};

// An operand's element strides over the (outer, line) dims.
struct OperandStrides {
  std::vector<int64_t> outer, line;
};

void check_floating_param(const aclTensor *t, const char *name, aclDataType x_dtype) {
  if (t->dtype != x_dtype && t->dtype != ACL_FLOAT)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must be the input's dtype %s or FLOAT", name,
                core::dtype_name(t->dtype), core::dtype_name(x_dtype));
}

}  // namespace

void row_phase1(core::OpBuilder &b, const RowRule &rule, const RowCall &c) {
  // Null checks in prototype order: inputs, parameters, outputs.
  core::check_tensor(c.x, c.x_name);
  if (c.add) core::check_tensor(c.x2, c.x2_name);
  if (c.has_gamma && (c.gamma != nullptr || !c.gamma_optional)) core::check_tensor(c.gamma, c.gamma_name);
  if (c.has_beta && (c.beta != nullptr || !c.beta_optional)) core::check_tensor(c.beta, c.beta_name);
  if (c.bias != nullptr || (c.has_bias && !c.bias_optional)) core::check_tensor(c.bias, c.bias_name);
  if (rule.kind == RowKind::kLayerNorm && c.has_normalized_shape)
    core::check_not_null(c.normalized_shape, "normalizedShape");
  if (c.has_scale) core::check_tensor(c.scale, c.scale_name);
  if (c.has_shift) core::check_tensor(c.shift, c.shift_name);
  if (rule.kind == RowKind::kRope) {
    core::check_tensor(c.cos, c.cos_name);
    core::check_tensor(c.sin, c.sin_name);
  }
  if (c.mask != nullptr) core::check_tensor(c.mask, c.mask_name);
  if (c.has_pos_bias) core::check_tensor(c.pos_bias, c.pos_bias_name);
  if (rule.kind == RowKind::kRenorm) {
    core::check_scalar(c.p, "p");
    core::check_scalar(c.max_norm, "maxNorm");
  }
  core::check_tensor(c.y, c.y_name);
  if (c.has_y2) core::check_tensor(c.y2, c.y2_name);
  if (c.has_mean && (c.mean != nullptr || !c.mean_optional)) core::check_tensor(c.mean, c.mean_name);
  if (c.has_rstd && (c.rstd != nullptr || !c.rstd_optional)) core::check_tensor(c.rstd, c.rstd_name);
  const bool write_xsum = c.has_xsum && c.write_xsum;  // additionalOutput false: xOut is left alone
  if (write_xsum) core::check_tensor(c.xsum, c.xsum_name);
  const std::string fmt = c.data_format != nullptr ? c.data_format : "NCHW";
  const bool channels_last = rule.kind == RowKind::kInstanceNorm && fmt == "NHWC";
  if (fmt != "NCHW" && fmt != "ND" && fmt != "NCL" && fmt != "NCDHW" && !channels_last)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s '%s' is not supported: NCHW / NCL / NCDHW / ND (channels at dim 1)%s",
                c.data_format_name, fmt.c_str(), rule.kind == RowKind::kInstanceNorm ? " or NHWC" : "");

  const aclTensor &x = *c.x;
  core::check_dtype_in(c.x, c.x_name, rule.dtypes);
  const core::Shape xs = core::Shape::of(x);
  if (c.add) {
    if (c.x2->dtype != x.dtype)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", c.x2_name,
                  core::dtype_name(c.x2->dtype), c.x_name, core::dtype_name(x.dtype));
    core::check_shape_equals(*c.x2, c.x2_name, xs);
  }
  const int nd = x.ndim;

  // Rows: outer dims [0, split) and line dims [split, nd) of x, or the group split.
  Rows rows;
  OperandStrides xst;
  int split = 0;
  int rdim = 0;  // kRenorm: the rows' dim
  // kMaskedSoftmax: x as [B, W, N, S1] rows of S2; an operand's strides over them (4-d x: B*W split by W).
  int64_t msw = 1;
  auto window_strides = [&](const aclTensor *t) {
    OperandStrides s;
    if (t->ndim == 5) {
      s.outer = {t->strides[0], t->strides[1], t->strides[2], t->strides[3]};
      s.line = {t->strides[4]};
    } else {
      s.outer = {t->strides[0] * msw, t->strides[0], t->strides[1], t->strides[2]};
      s.line = {t->strides[3]};
    }
    return s;
  };
  switch (rule.kind) {
    case RowKind::kMaskedSoftmax: {
      if (nd != 4 && nd != 5)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be [B*W, N, S1, S2] or [B, W, N, S1, S2], got shape %s",
                    c.x_name, core::shape_string(x).c_str());
      if (nd == 4 && c.mask != nullptr && c.mask->ndim >= 3) msw = c.mask->dims[c.mask->ndim == 5 ? 1 : 0];
      if (nd == 4 && (msw <= 0 || x.dims[0] % msw != 0))
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s's first dim %lld (B*W) is not a multiple of W = %lld (%s)", c.x_name,
                    static_cast<long long>(x.dims[0]), static_cast<long long>(msw), c.mask_name);
      rows.outer = nd == 5 ? std::vector<int64_t>{x.dims[0], x.dims[1], x.dims[2], x.dims[3]}
                           : std::vector<int64_t>{x.dims[0] / msw, msw, x.dims[1], x.dims[2]};
      rows.line = {x.dims[nd - 1]};
      xst = window_strides(&x);
      break;
    }
    case RowKind::kRenorm: {
      if (nd < 2)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s needs at least 2 dims, got shape %s", c.x_name,
                    core::shape_string(x).c_str());
      if (c.dim < -nd || c.dim >= nd)
        throw_error(ACLNN_ERR_PARAM_INVALID, "dim %lld is out of range for %s with %d dims", static_cast<long long>(c.dim),
                    c.x_name, nd);
      rdim = static_cast<int>(c.dim < 0 ? c.dim + nd : c.dim);
      const double p = core::scalar_value(c.p, "p"), maxnorm = core::scalar_value(c.max_norm, "maxNorm");
      if (!(p > 0)) throw_error(ACLNN_ERR_PARAM_INVALID, "p must be positive (a non-positive norm is not supported), got %g", p);
      if (!(maxnorm >= 0)) throw_error(ACLNN_ERR_PARAM_INVALID, "maxNorm must be >= 0, got %g", maxnorm);
      rows.outer = {x.dims[rdim]};
      xst.outer = {x.strides[rdim]};
      for (int d = 0; d < nd; ++d)
        if (d != rdim) {
          rows.line.push_back(x.dims[d]);
          xst.line.push_back(x.strides[d]);
        }
      break;
    }
    case RowKind::kLayerNorm: case RowKind::kRmsNorm: case RowKind::kSoftmaxCrossEntropy: case RowKind::kRope: {
      int k = 1;
      if (rule.kind == RowKind::kLayerNorm && !c.has_normalized_shape) {  // gamma's dims, or the last
        k = c.gamma != nullptr ? c.gamma->ndim : 1;
        if (k < 1 || k > nd)
          throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; it must have 1 to %d (the normalised trailing dims of %s)",
                      c.gamma_name, k, nd, c.x_name);
      } else if (rule.kind == RowKind::kLayerNorm) {
        k = static_cast<int>(c.normalized_shape->values.size());
        if (k < 1 || k > nd)
          throw_error(ACLNN_ERR_PARAM_INVALID, "normalizedShape has %d dims; it must have 1 to %d (%s has %d dims)", k,
                      nd, c.x_name, nd);
        for (int i = 0; i < k; ++i)
          if (c.normalized_shape->values[static_cast<size_t>(i)] != x.dims[nd - k + i])
            throw_error(ACLNN_ERR_PARAM_INVALID, "normalizedShape %s does not match the trailing dims of %s %s",
                        core::shape_string(c.normalized_shape->values.data(), k).c_str(), c.x_name,
                        core::shape_string(x).c_str());
      } else if (rule.kind == RowKind::kRmsNorm) {
        k = c.gamma->ndim;
        if (k < 1 || k > nd)
          throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; it must have 1 to %d (the normalised trailing dims of %s)",
                      c.gamma_name, k, nd, c.x_name);
      } else if (rule.kind == RowKind::kRope) {
        if (nd < 1 || x.dims[nd - 1] % 2 != 0)
          throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have an even last dim (pairs rotate), got shape %s", c.x_name,
                      core::shape_string(x).c_str());
        if (c.mode != 0 && c.mode != 1)
          throw_error(ACLNN_ERR_PARAM_INVALID,
                      "mode %lld is not supported: 0 (half, rotate_half) and 1 (interleave) are implemented",
                      static_cast<long long>(c.mode));
      } else if (nd != 2) {
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be 2-D [N, C], got %s", c.x_name, core::shape_string(x).c_str());
      }
      split = nd - k;
      for (int d = 0; d < nd; ++d) (d < split ? rows.outer : rows.line).push_back(x.dims[d]);
      for (int d = 0; d < nd; ++d) (d < split ? xst.outer : xst.line).push_back(x.strides[d]);
      break;
    }
    case RowKind::kInstanceNorm: {  // outer [N, C], line the spatial dims
      if (nd < 2)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have at least 2 dims (%s), got %s", c.x_name,
                    channels_last ? "[N, spatial..., C]" : "[N, C, spatial...]", core::shape_string(x).c_str());
      const int cd = channels_last ? nd - 1 : 1;
      rows.outer = {x.dims[0], x.dims[cd]};
      xst.outer = {x.strides[0], x.strides[cd]};
      for (int d = 1; d < nd; ++d)
        if (d != cd) {
          rows.line.push_back(x.dims[d]);
          xst.line.push_back(x.strides[d]);
        }
      break;
    }
    case RowKind::kGroupNorm: {
      if (nd < 2) throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have at least 2 dims [N, C, ...], got %s", c.x_name,
                              core::shape_string(x).c_str());
      int64_t n = c.n, ch = c.c, hxw = c.hxw;
      int64_t spatial = 1;
      for (int d = 2; d < nd; ++d) spatial *= x.dims[d];
      if (rule.shape_from_input) {
        n = x.dims[0];
        ch = x.dims[1];
        hxw = spatial;
      }
      if (x.dims[0] != n || x.dims[1] != ch || spatial != hxw)
        throw_error(ACLNN_ERR_PARAM_INVALID, "N = %lld, C = %lld, HxW = %lld do not describe %s of shape %s",
                    static_cast<long long>(n), static_cast<long long>(ch), static_cast<long long>(hxw), c.x_name,
                    core::shape_string(x).c_str());
      if (c.group <= 0 || ch % c.group != 0)
        throw_error(ACLNN_ERR_PARAM_INVALID, "group = %lld must be positive and divide C = %lld",
                    static_cast<long long>(c.group), static_cast<long long>(ch));
      const int64_t cg = ch / c.group;
      rows.outer = {n, c.group};
      rows.line.push_back(cg);
      xst.outer = {x.strides[0], x.strides[1] * cg};
      xst.line.push_back(x.strides[1]);
      for (int d = 2; d < nd; ++d) {
        rows.line.push_back(x.dims[d]);
        xst.line.push_back(x.strides[d]);
      }
      break;
    }
  }

  // Parameters: gamma / beta over the line (layer / RMS norm: the trailing dims; group norm: [C]).
  const int chan_dim = channels_last ? nd - 1 : 1;
  auto param_strides = [&](const aclTensor *t, const char *name) {
    check_floating_param(t, name, x.dtype);
    OperandStrides s;
    s.outer.assign(rows.outer.size(), 0);
    s.line.assign(rows.line.size(), 0);
    if (rule.kind == RowKind::kInstanceNorm) {
      if (t->ndim != 1 || t->dims[0] != x.dims[chan_dim])
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be [C] = [%lld]", name,
                    core::shape_string(*t).c_str(), static_cast<long long>(x.dims[chan_dim]));
      s.outer[1] = t->strides[0];
      return s;
    }
    if (rule.kind == RowKind::kGroupNorm) {
      if (t->ndim != 1 || t->dims[0] != x.dims[1])
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be [C] = [%lld]", name,
                    core::shape_string(*t).c_str(), static_cast<long long>(x.dims[1]));
      s.outer[1] = t->strides[0] * (x.dims[1] / c.group);
      s.line[0] = t->strides[0];
      return s;
    }
    core::Shape want;
    for (int64_t d : rows.line) want.dims[want.ndim++] = d;
    core::check_shape_equals(*t, name, want);
    for (size_t d = 0; d < rows.line.size(); ++d) s.line[d] = t->strides[d];
    return s;
  };
  // Per-row statistics: x's shape with the line dims as 1 (group norm: [N, group]).
  core::Shape stat_shape;
  if (rule.kind == RowKind::kGroupNorm) {
    stat_shape.dims[stat_shape.ndim++] = rows.outer[0];
    stat_shape.dims[stat_shape.ndim++] = rows.outer[1];
  } else if (rule.kind == RowKind::kSoftmaxCrossEntropy) {
    stat_shape.dims[stat_shape.ndim++] = x.dims[0];
  } else if (rule.kind == RowKind::kInstanceNorm) {  // x's shape with the spatial dims as 1
    for (int d = 0; d < nd; ++d) stat_shape.dims[stat_shape.ndim++] = d == 0 || d == chan_dim ? x.dims[d] : 1;
  } else {
    for (int d = 0; d < nd; ++d) stat_shape.dims[stat_shape.ndim++] = d < split ? x.dims[d] : 1;
  }
  auto stat_strides = [&](const aclTensor *t, const char *name) {
    core::check_shape_equals(*t, name, stat_shape);
    const bool ok = rule.stat_dtypes != 0 ? core::dtype_in(t->dtype, rule.stat_dtypes)
                                          : (t->dtype == x.dtype || t->dtype == ACL_FLOAT);
    if (!ok)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must be %s", name, core::dtype_name(t->dtype),
                  rule.stat_dtypes != 0 ? "FLOAT" : "the input's dtype or FLOAT");
    OperandStrides s;  // the stats' leading dims are the outer dims (instance norm: N and the channel dim)
    if (rule.kind == RowKind::kInstanceNorm) {
      s.outer = {t->strides[0], t->strides[chan_dim]};
      return s;
    }
    for (size_t d = 0; d < rows.outer.size(); ++d) s.outer.push_back(t->strides[d]);
    return s;
  };
  auto element_strides = [&](const aclTensor *t, const char *name, core::DtypeMask dtypes = 0) {  // shaped like x
    if (dtypes != 0 && !core::dtype_in(t->dtype, dtypes))
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must be FLOAT", name, core::dtype_name(t->dtype));
    if (dtypes == 0 && t->dtype != x.dtype)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", name,
                  core::dtype_name(t->dtype), c.x_name, core::dtype_name(x.dtype));
    core::check_shape_equals(*t, name, xs);
    core::check_no_internal_overlap(*t, name);
    OperandStrides s;
    if (rule.kind == RowKind::kGroupNorm) {
      const int64_t cg = x.dims[1] / c.group;
      s.outer = {t->strides[0], t->strides[1] * cg};
      s.line.push_back(t->strides[1]);
      for (int d = 2; d < nd; ++d) s.line.push_back(t->strides[d]);
    } else if (rule.kind == RowKind::kInstanceNorm) {
      s.outer = {t->strides[0], t->strides[chan_dim]};
      for (int d = 1; d < nd; ++d)
        if (d != chan_dim) s.line.push_back(t->strides[d]);
    } else if (rule.kind == RowKind::kMaskedSoftmax) {
      s = window_strides(t);
    } else if (rule.kind == RowKind::kRenorm) {
      s.outer = {t->strides[rdim]};
      for (int d = 0; d < nd; ++d)
        if (d != rdim) s.line.push_back(t->strides[d]);
    } else {
      for (int d = 0; d < nd; ++d) (d < split ? s.outer : s.line).push_back(t->strides[d]);
    }
    return s;
  };

  // The loop: inputs x (, x2), gamma, beta; outputs y, mean, rstd, xsum (those given).
  DimwiseLoop L;
  L.op = rule.kind == RowKind::kSoftmaxCrossEntropy ? kernels::DimwiseOp::kSoftmaxCrossEntropy
                                                    : kernels::DimwiseOp::kNormalize;
  L.params.eps = c.eps;
  L.params.rms = rule.kind == RowKind::kRmsNorm;
  L.params.gemma = rule.gemma;
  L.params.silu = c.activate >= 0 ? c.activate != 0 : rule.silu;
  L.params.swish_scale = c.swish_scale;
  L.params.add_input = c.add && rule.kind != RowKind::kSoftmaxCrossEntropy;
  L.params.alpha = c.alpha;
  if (rule.kind == RowKind::kRope) {
    L.op = kernels::DimwiseOp::kRope;
    L.params.k = c.mode;
  }
  if (rule.kind == RowKind::kMaskedSoftmax) {
    L.op = kernels::DimwiseOp::kMaskedSoftmax;
    L.params.scale = c.scale_value;
  }
  if (rule.kind == RowKind::kRenorm) {
    L.op = kernels::DimwiseOp::kRenorm;
    L.params.p = core::scalar_value(c.p, "p");
    L.params.maxnorm = core::scalar_value(c.max_norm, "maxNorm");
  }
  L.nouter = static_cast<int>(rows.outer.size());
  L.nline = static_cast<int>(rows.line.size());
  if (L.nouter > kernels::kMaxLoopDims || L.nline > kernels::kMaxLoopDims)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has too many dims", c.x_name);
  for (int d = 0; d < L.nouter; ++d) L.outer_shape[d] = rows.outer[static_cast<size_t>(d)];
  for (int d = 0; d < L.nline; ++d) L.line_shape[d] = rows.line[static_cast<size_t>(d)];

  DimwiseOperand ins[kernels::kDimwiseMaxIo], outs[kernels::kDimwiseMaxIo];
  auto add_in = [&](const aclTensor *t, const OperandStrides &s) {
    const int k = L.nin++;
    ins[k] = core::OperandRef::of_slot(b.input(t), *t);
    L.in_dtype[k] = t->dtype;
    for (int d = 0; d < L.nouter; ++d) L.in_outer[k][d] = bytes(*t, s.outer[static_cast<size_t>(d)]);
    for (int d = 0; d < L.nline; ++d) L.in_line[k][d] = bytes(*t, s.line[static_cast<size_t>(d)]);
    return k;
  };
  L.nin = 0;
  add_in(c.x, xst);
  if (c.add) add_in(c.x2, element_strides(c.x2, c.x2_name));
  // RoPE's cos / sin: x's dtype, broadcast to x's shape (the last dim in full).
  auto broadcast_input = [&](const aclTensor *t, const char *name) {
    if (t->dtype != x.dtype)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", name,
                  core::dtype_name(t->dtype), c.x_name, core::dtype_name(x.dtype));
    if (t->ndim < 1 || t->dims[t->ndim - 1] != x.dims[nd - 1] ||
        !(core::broadcast_shapes(core::Shape::of(*t), name, xs, c.x_name) == xs))
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s of shape %s does not broadcast to %s of shape %s (the last dim in full)",
                  name, core::shape_string(*t).c_str(), c.x_name, core::shape_string(x).c_str());
    int64_t st[core::kMaxDims];
    core::broadcast_strides(*t, xs, st);
    OperandStrides s;
    for (int d = 0; d < nd; ++d) (d < split ? s.outer : s.line).push_back(st[d]);
    return s;
  };
  if (rule.kind == RowKind::kRope) {
    add_in(c.cos, broadcast_input(c.cos, c.cos_name));
    add_in(c.sin, broadcast_input(c.sin, c.sin_name));
  }
  if (c.gamma != nullptr) L.params.gamma_in = add_in(c.gamma, param_strides(c.gamma, c.gamma_name));
  if (c.beta != nullptr) L.params.beta_in = add_in(c.beta, param_strides(c.beta, c.beta_name));
  if (c.bias != nullptr) L.params.bias_in = add_in(c.bias, param_strides(c.bias, c.bias_name));
  // AdaLayerNorm's scale / shift: [B..., H] or [B..., 1, H] for x [B..., S, H], broadcast along S.
  auto modulation_strides = [&](const aclTensor *t, const char *name) {
    if (t->dtype != x.dtype)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", name,
                  core::dtype_name(t->dtype), c.x_name, core::dtype_name(x.dtype));
    if (nd < 2 || split != nd - 1)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be [B..., S, H] with the last dim normalised, got %s", c.x_name,
                  core::shape_string(x).c_str());
    bool ok = (t->ndim == nd - 1 || t->ndim == nd) && t->dims[t->ndim - 1] == x.dims[nd - 1];
    for (int d = 0; ok && d < nd - 2; ++d) ok = t->dims[d] == x.dims[d];
    if (ok && t->ndim == nd) ok = t->dims[nd - 2] == 1;
    if (!ok)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; for %s of shape %s it must be [B..., H] or [B..., 1, H]",
                  name, core::shape_string(*t).c_str(), c.x_name, core::shape_string(x).c_str());
    OperandStrides s;
    for (int d = 0; d < nd - 2; ++d) s.outer.push_back(t->strides[d]);
    s.outer.push_back(0);  // S
    s.line.push_back(t->strides[t->ndim - 1]);
    return s;
  };
  // MaskedSoftmaxWithRelPosBias's mask ([W, S1, S2] forms) and bias ([N, S1, S2] forms), x's dtype.
  auto window_param = [&](const aclTensor *t, const char *name, bool is_mask) {
    if (t->dtype != x.dtype)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", name,
                  core::dtype_name(t->dtype), c.x_name, core::dtype_name(x.dtype));
    const int64_t S1 = rows.outer[3], S2 = rows.line[0], K = is_mask ? rows.outer[1] : rows.outer[2];
    const int kd = t->ndim == 3 ? 0 : t->ndim == 4 ? (is_mask ? 0 : 1) : (is_mask ? 1 : 2);
    bool ok = t->ndim >= 3 && t->ndim <= 5 && t->dims[kd] == K && t->dims[t->ndim - 2] == S1 &&
              t->dims[t->ndim - 1] == S2;
    for (int d = 0; ok && d < t->ndim - 2; ++d) ok = d == kd || t->dims[d] == 1;
    if (!ok)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; for %s of shape %s it must be %s", name,
                  core::shape_string(*t).c_str(), c.x_name, core::shape_string(x).c_str(),
                  is_mask ? "[W, S1, S2], [W, 1, S1, S2] or [1, W, 1, S1, S2]"
                          : "[N, S1, S2], [1, N, S1, S2] or [1, 1, N, S1, S2]");
    OperandStrides s;
    s.outer = {0, is_mask ? t->strides[kd] : 0, is_mask ? 0 : t->strides[kd], t->strides[t->ndim - 2]};
    s.line = {t->strides[t->ndim - 1]};
    return s;
  };
  if (c.mask != nullptr) L.params.mask_in = add_in(c.mask, window_param(c.mask, c.mask_name, true));
  if (c.pos_bias != nullptr) L.params.pos_bias_in = add_in(c.pos_bias, window_param(c.pos_bias, c.pos_bias_name, false));
  if (c.scale != nullptr) L.params.scale_in = add_in(c.scale, modulation_strides(c.scale, c.scale_name));
  if (c.shift != nullptr) L.params.shift_in = add_in(c.shift, modulation_strides(c.shift, c.shift_name));

  // Outputs in prototype order: y, then the per-row ones, then xsum (loss: loss, then backprop).
  L.nout = 0;
  auto add_out = [&](const aclTensor *t, const OperandStrides &s, int src, bool per_row) {
    const int k = L.nout++;
    outs[k] = core::OperandRef::of_slot(b.output(t), *t);
    L.out_dtype[k] = t->dtype;
    L.out_src[k] = src;
    L.out_len[k] = per_row ? 1 : -1;  // -1: the line's length, set below
    for (int d = 0; d < L.nouter; ++d) L.out_outer[k][d] = bytes(*t, s.outer[static_cast<size_t>(d)]);
    for (int d = 0; d < L.nline && !per_row; ++d) L.out_line[k][d] = bytes(*t, s.line[static_cast<size_t>(d)]);
  };
  if (rule.kind == RowKind::kSoftmaxCrossEntropy) {
    add_out(c.mean, stat_strides(c.mean, c.mean_name), 0, true);      // loss
    add_out(c.y, element_strides(c.y, c.y_name), 1, false);          // backprop
  } else {
    add_out(c.y, element_strides(c.y, c.y_name, rule.y_dtypes), 0, false);
    if (c.y2 != nullptr) add_out(c.y2, element_strides(c.y2, c.y2_name), 0, false);
    if (c.mean != nullptr) add_out(c.mean, stat_strides(c.mean, c.mean_name), 1, true);
    if (c.rstd != nullptr) add_out(c.rstd, stat_strides(c.rstd, c.rstd_name), rule.variance ? 4 : 2, true);
    if (write_xsum) add_out(c.xsum, element_strides(c.xsum, c.xsum_name), 3, false);
  }
  int64_t len = 1;
  for (int64_t d : rows.line) len *= d;
  for (int k = 0; k < L.nout; ++k)
    if (L.out_len[k] < 0) L.out_len[k] = len;
  if (len == 0 && core::Shape::of(x).ndim > 0 && x.numel() == 0 && rule.kind != RowKind::kRenorm &&
      rule.kind != RowKind::kMaskedSoftmax) {
    int64_t nrows = 1;
    for (int64_t d : rows.outer) nrows *= d;
    if (nrows > 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has empty rows (shape %s): their statistics are undefined", c.x_name,
                  core::shape_string(x).c_str());
  }
  L.compute = x.dtype == ACL_DOUBLE ? core::ComputeType::kDouble : core::ComputeType::kFloat;  // float32 accumulation
  record_dimwise(b, L, ins, outs);
}

}  // namespace opsnn::ops
