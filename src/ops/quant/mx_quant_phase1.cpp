#include "ops/quant/mx_quant_phase1.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/error.h"
#include "core/outputs_apart.h"
#include "core/thread_pool.h"
#include "core/verbose.h"
#include "kernels/quant/mx_act.h"
#include "kernels/quant/mx_quant.h"

namespace opsnn::ops {
namespace {

using kernels::LowFloat;

struct MxQuantStep final : core::Step {
  kernels::MxQuantPlan plan;
  core::OperandRef x, y, scale;
  core::WsKey ws;
  int run(const core::LaunchArgs &a) const override {
    kernels::mx_quant_run(plan, x.address(a), reinterpret_cast<uint8_t *>(y.address(a)),
                          reinterpret_cast<uint8_t *>(scale.address(a)), reinterpret_cast<float *>(a.get(ws)));
    return 0;
  }
};

struct MxBlockStep final : core::Step {
  kernels::MxBlockPlan plan;
  core::OperandRef x, y, s1, s2;
  core::WsKey ws;
  int run(const core::LaunchArgs &a) const override {
    kernels::mx_block_quant_run(plan, x.address(a), reinterpret_cast<uint8_t *>(y.address(a)),
                                reinterpret_cast<uint8_t *>(s1.address(a)), reinterpret_cast<uint8_t *>(s2.address(a)),
                                reinterpret_cast<float *>(a.get(ws)));
    return 0;
  }
};

struct MxGroupedStep final : core::Step {
  kernels::MxGroupedPlan plan;
  core::OperandRef x, group, y, scale;
  core::WsKey ws;
  int run(const core::LaunchArgs &a) const override {
    return kernels::mx_grouped_quant_run(plan, x.address(a), group.address(a),
                                         reinterpret_cast<uint8_t *>(y.address(a)),
                                         reinterpret_cast<uint8_t *>(scale.address(a)),
                                         reinterpret_cast<float *>(a.get(ws)));
  }
};

struct MxDualLevelStep final : core::Step {
  kernels::MxDualLevelPlan plan;
  core::OperandRef x, smooth, y, s0, s1;
  core::WsKey ws;
  int run(const core::LaunchArgs &a) const override {
    kernels::mx_dual_level_run(plan, x.address(a), smooth.slot >= 0 ? smooth.address(a) : nullptr,
                               reinterpret_cast<uint8_t *>(y.address(a)), reinterpret_cast<float *>(s0.address(a)),
                               reinterpret_cast<uint8_t *>(s1.address(a)), reinterpret_cast<float *>(a.get(ws)));
    return 0;
  }
};

struct MxToBlockStep final : core::Step {
  kernels::MxToBlockPlan plan;
  core::OperandRef x, scale, y, s1, s2;
  core::WsKey ws;
  int run(const core::LaunchArgs &a) const override {
    auto u8 = [&](const core::OperandRef &r) { return reinterpret_cast<uint8_t *>(r.address(a)); };
    kernels::mx_to_block_run(plan, u8(x), u8(scale), u8(y), u8(s1), u8(s2), reinterpret_cast<uint8_t *>(a.get(ws)));
    return 0;
  }
};

// The gate into a FLOAT scratch, then one or two line quantisations of it.
struct MxActStep final : core::Step {
  kernels::MxActPlan act;
  kernels::MxQuantPlan pass[2];
  int passes = 1;
  core::OperandRef x, dy, group, y[2], scale[2];
  core::WsKey act_ws, line_ws;
  // SwigluMxQuant's groupIndexOptional: `group_n` values `group_stride` apart, counts (groupMode 1) or
  // cumulative ends (0); the rows (x's dim 0, `lines_per_row` gate lines each) past their total are zeros
  int64_t group_n = 0, group_stride = 1, x_rows = 0, lines_per_row = 0;
  bool group_i64 = false, group_counts = false;
  int run(const core::LaunchArgs &a) const override {
    kernels::MxActPlan p = act;
    if (group.slot >= 0) {
      const char *g = group.address(a);
      int64_t rows = 0;
      for (int64_t i = 0; i < group_n; ++i) {
        const int64_t v = group_i64 ? reinterpret_cast<const int64_t *>(g)[i * group_stride]
                                    : reinterpret_cast<const int32_t *>(g)[i * group_stride];
        rows = group_counts ? rows + v : v;
      }
      if (rows < 0 || rows > x_rows)
        return fail(ACLNN_ERR_PARAM_INVALID, "groupIndexOptional gives %lld rows; x has %lld (dim 0)",
                    static_cast<long long>(rows), static_cast<long long>(x_rows));
      p.valid_pre = rows * lines_per_row;
    }
    auto *h = reinterpret_cast<float *>(a.get(act_ws)), *buf = reinterpret_cast<float *>(a.get(line_ws));
    kernels::mx_act_run(p, x.address(a), dy.slot >= 0 ? dy.address(a) : nullptr, h, buf);
    for (int i = 0; i < passes; ++i)
      kernels::mx_quant_run(pass[i], reinterpret_cast<const char *>(h), reinterpret_cast<uint8_t *>(y[i].address(a)),
                            reinterpret_cast<uint8_t *>(scale[i].address(a)), buf);
    return 0;
  }
};

struct AntiMxStep final : core::Step {
  kernels::AntiMxPlan plan;
  core::OperandRef x, scale, y;
  core::WsKey ws;
  int run(const core::LaunchArgs &a) const override {
    kernels::anti_mx_run(plan, reinterpret_cast<const uint8_t *>(x.address(a)),
                         reinterpret_cast<const uint8_t *>(scale.address(a)), y.address(a),
                         reinterpret_cast<float *>(a.get(ws)));
    return 0;
  }
};

bool is_fp4(aclDataType dt) { return dt == ACL_FLOAT4_E2M1 || dt == ACL_FLOAT4_E1M2; }

LowFloat format_of(aclDataType dt) {
  LowFloat f = LowFloat::kE4M3;
  kernels::low_float_of(dt, &f);
  return f;
}

// 161002 with a message naming the argument.
template <class... Args>
[[noreturn]] void invalid(const char *fmt, Args... args) {
  throw_error(ACLNN_ERR_PARAM_INVALID, fmt, args...);
}

void check_not_empty(const core::NamedTensor &x) {
  if (x.t->numel() == 0)
    invalid("%s is empty (shape %s); an empty x is not supported", x.name, core::shape_string(*x.t).c_str());
}

// Where a registered view starts: FLOAT4 offsets count nibbles (an even one: a whole byte).
core::OperandRef ref_of(core::OpBuilder &b, int slot, const core::NamedTensor &a) {
  const aclTensor &t = b.tensor(slot);
  core::OperandRef r = core::OperandRef::of_slot(slot, t);
  if (is_fp4(t.dtype)) {
    if (t.offset % 2 != 0)
      invalid("%s (FLOAT4) starts at the odd element offset %lld; it must start on a whole byte", a.name,
              static_cast<long long>(t.offset));
    r.offset_bytes = t.offset / 2;
  }
  return r;
}

void check_contiguous(const core::NamedTensor &a) {
  if (a.t->numel() > 0 && !a.t->is_contiguous())
    invalid("%s (dims %s, strides %s) must be contiguous", a.name, core::shape_string(*a.t).c_str(),
        core::shape_string(a.t->strides, a.t->ndim).c_str());
}

// The mxscale shape of x: dim axis = ceil(ceil(n / blocksize) / 2), then a trailing 2.
core::Shape scale_shape(const aclTensor &x, int axis, int64_t blocksize) {
  core::Shape s = core::Shape::of(x);
  s.dims[axis] = ((x.dims[axis] + blocksize - 1) / blocksize + 1) / 2;
  s.dims[s.ndim++] = 2;
  return s;
}

void check_rank(const core::NamedTensor &x) {
  if (x.t->ndim < 1 || x.t->ndim > 7) invalid("%s has %d dims; it must have 1 to 7", x.name, x.t->ndim);
}

void check_even_last(const core::NamedTensor &x, aclDataType fp4) {
  if (x.t->dims[x.t->ndim - 1] % 2 != 0)
    invalid("%s has an odd last dim (%lld); %s packs two elements a byte", x.name,
        static_cast<long long>(x.t->dims[x.t->ndim - 1]), core::dtype_name(fp4));
}

int64_t tasks_for(int64_t pre) { return std::max<int64_t>(1, std::min<int64_t>(core::num_threads(), pre)); }

// The block kernels' tier (kernels/quant/mx_rows.h), recorded with the op's choice `what` under OPSNN_VERBOSE.
kernels::MxRowKernels row_kernels(const std::string &what) {
  kernels::MxRowKernels k;
  core::ImplTrace trace;
  const bool traced = core::current_phase1_trace() != nullptr;
  const char *tier = kernels::choose_mx_row_tier(&k, traced ? &trace : nullptr);
  if (traced) core::record_choice(what + "/" + tier, &trace);
  return k;
}

kernels::LfRound round_of(const char *mode, aclDataType dst) {
  const std::string m = mode == nullptr ? "rint" : mode;
  if (m == "rint") return kernels::LfRound::kRint;
  if (is_fp4(dst) && m == "floor") return kernels::LfRound::kFloor;
  if (is_fp4(dst) && m == "round") return kernels::LfRound::kRound;
  invalid("roundModeOptional \"%s\" is not supported for dstType %s (FLOAT4: rint, floor, round; FLOAT8: rint)",
      m.c_str(), core::dtype_name(dst));
}

aclDataType checked_dst(const MxQuantCall &c) {
  const aclDataType dst = static_cast<aclDataType>(c.dst_type);
  if (dst != ACL_FLOAT8_E5M2 && dst != ACL_FLOAT8_E4M3FN && dst != ACL_FLOAT4_E2M1 && dst != ACL_FLOAT4_E1M2)
    invalid("dstType is %lld; it must be 35 (FLOAT8_E5M2), 36 (FLOAT8_E4M3FN), 40 (FLOAT4_E2M1) or 41 (FLOAT4_E1M2)",
        static_cast<long long>(c.dst_type));
  return dst;
}

// dstTypeMax's accepted values per op (0: the format's largest value).
void check_dst_type_max(double m, aclDataType dst, int64_t blocksize, MxKind kind) {
  if (kind == MxKind::kBlock) {
    if (m != 0.0 && m != 6.0 && m != 7.0) invalid("dstTypeMax is %g; this op takes 0, 6 or 7", m);
  } else if (kind == MxKind::kGrouped) {
    const bool ok = m == 0.0 || (dst == ACL_FLOAT4_E1M2 && m >= 1.75 && m <= 3.5) ||
                    (dst == ACL_FLOAT4_E2M1 && m >= 6.0 && m <= 12.0);
    if (!ok)
      invalid("dstTypeMax is %g; it must be 0, or in [1.75, 3.5] for FLOAT4_E1M2 / [6, 12] for FLOAT4_E2M1", m);
    return;
  } else if (!(m == 0.0 || (m >= 6.0 && m <= 12.0))) {
    invalid("dstTypeMax is %g; it must be 0 or in [6, 12]", m);
  }
  if (m != 0.0 && (dst != ACL_FLOAT4_E2M1 || blocksize != 32))
    invalid("dstTypeMax is %g; a non-zero value needs dstType FLOAT4_E2M1 and blocksize 32", m);
}

kernels::MxScaleRule scale_rule(const MxQuantCall &c, aclDataType dst, aclDataType x_dt, MxKind kind) {
  const bool fp8 = !is_fp4(dst), block = kind == MxKind::kBlock, grouped = kind == MxKind::kGrouped;
  const kernels::LowFloatSpec &spec = kernels::low_float_spec(format_of(dst));
  if (c.blocksize < 32 || c.blocksize > 1024 || c.blocksize % 32 != 0 || (grouped && c.blocksize != 32))
    invalid("blocksize is %lld; it must be %s", static_cast<long long>(c.blocksize),
        grouped ? "32" : "a multiple of 32 in [32, 1024]");
  const bool e2m1 = dst == ACL_FLOAT4_E2M1;
  const bool alg_ok = c.scale_alg == 0 || (c.scale_alg == 1 && fp8 && !block) ||
                      (c.scale_alg == 2 && (e2m1 || (grouped && !fp8)));
  if (!alg_ok)
    invalid("scaleAlg is %lld; this op takes %s with dstType %s", static_cast<long long>(c.scale_alg),
        fp8 ? (block ? "0" : "0 or 1") : (e2m1 || grouped) ? "0 or 2" : "0", core::dtype_name(dst));
  if (c.scale_alg == 2 && c.blocksize != 32)
    invalid("blocksize is %lld; scaleAlg 2 takes 32 only", static_cast<long long>(c.blocksize));
  if (x_dt == ACL_FLOAT && c.blocksize != 32)
    invalid("blocksize is %lld; a FLOAT x takes 32 only", static_cast<long long>(c.blocksize));
  const double m = c.dst_type_max;
  check_dst_type_max(m, dst, c.blocksize, kind);
  if (!(c.max_low_bound >= 0.0)) invalid("maxLowBound is %g; it must be >= 0", c.max_low_bound);
  if (c.max_low_bound != 0.0 && c.scale_alg != 1)
    invalid("maxLowBound is %g; it must be 0 unless scaleAlg is 1", c.max_low_bound);
  kernels::MxScaleRule r;
  r.alg = static_cast<int>(c.scale_alg);
  r.emax = spec.max_exp;
  r.dst_max = spec.max;
  r.low_bound = static_cast<float>(c.max_low_bound);
  if (r.alg == 2) {
    // the floor / ceil variant for E2M1's dstTypeMax 0 / 6 / 7 and E1M2's 1.875 (not for the block op); else
    // S = amax / dstTypeMax (0: the format's largest value) rounded up
    const bool variant = !block && ((e2m1 && (m == 0.0 || m == 6.0 || m == 7.0)) || (!e2m1 && m == 1.875));
    r.ratio = !variant;
    r.ceil_above = m == 7.0 ? 0.75f : m == 1.875 ? 0.875f : 0.5f;
    if (r.ratio && m != 0.0) r.dst_max = static_cast<float>(m);
  }
  return r;
}

// DynamicBlockMxQuant's one step: x as [B, M, N], tasks over (batch, block row).
void record_block(core::OpBuilder &b, int xs, const MxQuantCall &c, const aclTensor &x, aclDataType dst,
                  kernels::LfRound round, const kernels::MxScaleRule &rule) {
  auto &st = b.add_step<MxBlockStep>();
  st.x = ref_of(b, xs, c.x);
  st.y = ref_of(b, b.output(c.y.t), c.y);
  st.s1 = ref_of(b, b.output(c.scale_out.t), c.scale_out);
  st.s2 = ref_of(b, b.output(c.scale2_out.t), c.scale2_out);
  kernels::MxBlockPlan &P = st.plan;
  const int d = x.ndim;
  P.batch = d == 3 ? x.dims[0] : 1;
  P.stride_b = d == 3 ? x.strides[0] : 0;
  P.m = x.dims[d - 2];
  P.n = x.dims[d - 1];
  P.stride_m = x.strides[d - 2];
  P.stride_n = x.strides[d - 1];
  P.x_dtype = x.dtype;
  P.fmt = format_of(dst);
  P.round = round;
  P.rule = rule;
  const int64_t work = P.batch * ((P.m + 31) / 32);
  P.tasks = tasks_for(work);
  st.ws = b.book("mx_block.rows", static_cast<uint64_t>(P.tasks * (32 * P.n + (P.n + 31) / 32)) * sizeof(float));
  P.rows = row_kernels("mx_block_quant:block_rows/tasks=" + std::to_string(P.tasks));
}

// One quantised axis: its output and scales.
struct QuantPass {
  const core::NamedTensor *y, *scale;
  int axis;
};

// y (when given: dst, x's shape, contiguous) and the scales (E8M0, the mxscale shape, contiguous) of a pass.
void check_pass_outputs(const aclTensor &x, const QuantPass &q, aclDataType dst, int64_t blocksize) {
  if (q.y != nullptr) {
    core::check_dtype_in(q.y->t, q.y->name, {dst});
    core::check_shape_equals(*q.y->t, q.y->name, core::Shape::of(x));
    check_contiguous(*q.y);
  }
  core::check_dtype_in(q.scale->t, q.scale->name, {ACL_FLOAT8_E8M0});
  core::check_shape_equals(*q.scale->t, q.scale->name, scale_shape(x, q.axis, blocksize));
  check_contiguous(*q.scale);
}

// The line kernel along q.axis of x (slot xs) into the registered y (ys) and scales (ss).
void add_line_step(core::OpBuilder &b, int xs, int ys, int ss, const MxQuantCall &c, const QuantPass &q,
                   aclDataType dst, kernels::LfRound round, const kernels::MxScaleRule &rule) {
  const aclTensor &x = *c.x.t;
  auto &st = b.add_step<MxQuantStep>();
  st.x = ref_of(b, xs, c.x);
  st.y = ref_of(b, ys, *q.y);
  st.scale = ref_of(b, ss, *q.scale);
  kernels::MxQuantPlan &P = st.plan;
  P.x = kernels::mx_lines(x, q.axis);
  P.x_dtype = x.dtype;
  P.fmt = format_of(dst);
  P.round = round;
  P.rule = rule;
  P.blocksize = c.blocksize;
  P.tasks = tasks_for(P.x.pre);
  st.ws = b.book("mx_quant.lines", static_cast<uint64_t>(P.tasks * std::max<int64_t>(P.x.n, 1)) * sizeof(float));
  P.rows = row_kernels("mx_quant:lines/axis=" + std::to_string(q.axis) + "/tasks=" + std::to_string(P.tasks));
}

// x's dtype and rank (2 to 7 dims when it is quantised along dims -1 and -2).
const aclTensor &checked_x(const MxQuantRule &rule, const MxQuantCall &c, bool dual) {
  core::check_dtype_in(c.x.t, c.x.name, rule.dtypes);
  check_rank(c.x);
  if (dual && c.x.t->ndim < 2)
    invalid("%s has %d dim; it must have 2 to 7 (it is quantised along dims -1 and -2)", c.x.name, c.x.t->ndim);
  return *c.x.t;
}

void quant(core::OpBuilder &b, const MxQuantRule &rule, const MxQuantCall &c) {
  const bool block = rule.kind == MxKind::kBlock, dual = rule.kind == MxKind::kDual || block;
  const aclTensor &x = checked_x(rule, c, dual);
  if (block && x.ndim > 3) invalid("%s has %d dims; it must have 2 or 3 ([B,] M, N)", c.x.name, x.ndim);
  if (dual && (block || !c.given_dst_type_max)) check_not_empty(c.x);
  const int axis = dual ? x.ndim - 1 : core::wrap_dim(c.axis, x.ndim, "axis");
  const aclDataType dst = checked_dst(c);
  const kernels::LfRound round = round_of(c.round_mode, dst);
  if (dual && !block && !c.given_dst_type_max && c.scale_alg != 0)
    invalid("scaleAlg is %lld; this op takes 0 only", static_cast<long long>(c.scale_alg));
  const kernels::MxScaleRule srule = scale_rule(c, dst, x.dtype, rule.kind);
  if (dual && !block && c.dst_type_max != 0.0 && c.scale_alg != 2)
    invalid("dstTypeMax is %g; a non-zero value needs scaleAlg 2", c.dst_type_max);
  if (x.dtype == ACL_FLOAT && x.dims[axis] < 32)
    invalid("%s is FLOAT with %lld elements along axis %d; a FLOAT x needs at least 32", c.x.name,
        static_cast<long long>(x.dims[axis]), axis);
  if (is_fp4(dst)) check_even_last(c.x, dst);
  std::vector<QuantPass> passes = {{&c.y, &c.scale_out, axis}};
  if (dual) passes.push_back({block ? nullptr : &c.y2, &c.scale2_out, x.ndim - 2});
  for (const QuantPass &q : passes) check_pass_outputs(x, q, dst, c.blocksize);
  core::check_outputs_apart<core::NamedTensor>({&c.y, &c.scale_out, &c.y2, &c.scale2_out},
                                               {&c.x, &c.y, &c.scale_out, &c.y2, &c.scale2_out});

  const int xs = b.input(c.x.t);
  if (block) {
    record_block(b, xs, c, x, dst, round, srule);
    return;
  }
  for (const QuantPass &q : passes) {  // prototype order: x, then each pass's y and scales
    const int ys = b.output(q.y->t), ss = b.output(q.scale->t);
    add_line_step(b, xs, ys, ss, c, q, dst, round, srule);
  }
}

// GroupedDynamicMxQuantWithDualAxis's own rules (its parameters' names: dstDtype, maxDtypeValue).
void check_grouped_dual(const MxQuantCall &c, const aclTensor &x) {
  if (x.ndim == 2 && (x.dims[1] <= 0 || x.dims[1] % 64 != 0))
    invalid("%s has shape %s; its N (dim 1) must be a positive multiple of 64", c.x.name,
            core::shape_string(x).c_str());
  if (c.dst_type != ACL_FLOAT8_E5M2 && c.dst_type != ACL_FLOAT8_E4M3FN)
    invalid("dstDtype is %lld; it must be 35 (FLOAT8_E5M2) or 36 (FLOAT8_E4M3FN)",
            static_cast<long long>(c.dst_type));
  if (c.scale_alg != 1) invalid("scaleAlg is %lld; this op takes 1 only", static_cast<long long>(c.scale_alg));
  if (c.dst_type_max != 0.0) invalid("maxDtypeValue is %g; it is reserved and must be 0", c.dst_type_max);
}

// GroupedDynamicMxQuant(V2) and GroupedDynamicMxQuantWithDualAxis (which also quantises along dim -1 into
// y1Out / y1ScaleOut; its grouped outputs are y2Out / y2ScaleOut).
void grouped(core::OpBuilder &b, const MxQuantRule &rule, const MxQuantCall &c) {
  const bool dual = rule.kind == MxKind::kGroupedDual;
  core::check_dtype_in(c.x.t, c.x.name, rule.dtypes);
  const aclTensor &x = *c.x.t;
  if (x.ndim != 2) invalid("%s has %d dims; it must be 2-D [m, n]", c.x.name, x.ndim);
  core::check_dtype_in(c.group.t, c.group.name, {dual ? ACL_INT64 : ACL_INT32});
  const aclTensor &g = *c.group.t;
  if (g.ndim != 1 || g.dims[0] == 0)
    invalid("%s has shape %s; it must be a non-empty 1-D tensor of the groups' cumulative row ends", c.group.name,
        core::shape_string(g).c_str());
  if (dual) check_grouped_dual(c, x);
  const aclDataType dst = checked_dst(c);
  const kernels::LfRound round = round_of(c.round_mode, dst);
  const kernels::MxScaleRule srule = scale_rule(c, dst, x.dtype, MxKind::kGrouped);
  if (is_fp4(dst)) check_even_last(c.x, dst);
  const core::NamedTensor &gy = dual ? c.y2 : c.y, &gs = dual ? c.scale2_out : c.scale_out;
  const QuantPass row_pass{&c.y, &c.scale_out, 1};  // the dual op's dim -1
  for (const core::NamedTensor *y : dual ? std::vector<const core::NamedTensor *>{&c.y, &gy}
                                         : std::vector<const core::NamedTensor *>{&gy}) {
    core::check_dtype_in(y->t, y->name, {dst});
    core::check_shape_equals(*y->t, y->name, core::Shape::of(x));
    if (is_fp4(dst) || dual) check_contiguous(*y);
  }
  if (dual) {
    core::check_dtype_in(c.scale_out.t, c.scale_out.name, {ACL_FLOAT8_E8M0});
    core::check_shape_equals(*c.scale_out.t, c.scale_out.name, scale_shape(x, 1, 32));
    check_contiguous(c.scale_out);
  }
  core::check_dtype_in(gs.t, gs.name, {ACL_FLOAT8_E8M0});
  core::Shape ss;
  ss.ndim = 3;
  ss.dims[0] = x.dims[0] / 64 + g.dims[0];
  ss.dims[1] = x.dims[1];
  ss.dims[2] = 2;
  core::check_shape_equals(*gs.t, gs.name, ss);
  check_contiguous(gs);
  core::check_outputs_apart<core::NamedTensor>({&c.y, &c.scale_out, &c.y2, &c.scale2_out},
                                               {&c.x, &c.group, &c.y, &c.scale_out, &c.y2, &c.scale2_out});

  // prototype order: x, groupIndex, then the outputs (y1Out, y1ScaleOut, y2Out, y2ScaleOut); the grouped step
  // runs first: it checks the group ends before anything is written
  const int xs = b.input(c.x.t), gslot = b.input(c.group.t);
  const int y1 = dual ? b.output(c.y.t) : -1, s1 = dual ? b.output(c.scale_out.t) : -1;
  const int gys = b.output(gy.t), gss = b.output(gs.t);
  auto &st = b.add_step<MxGroupedStep>();
  st.x = ref_of(b, xs, c.x);
  st.group = ref_of(b, gslot, c.group);
  st.y = ref_of(b, gys, gy);
  st.scale = ref_of(b, gss, gs);
  kernels::MxGroupedPlan &P = st.plan;
  P.m = x.dims[0];
  P.n = x.dims[1];
  P.groups = g.dims[0];
  P.group_stride = g.strides[0];
  P.group_i64 = dual;
  P.scale_rows = ss.dims[0];
  P.x_stride_m = x.strides[0];
  P.x_stride_n = x.strides[1];
  P.y_stride_m = gy.t->strides[0];
  P.y_stride_n = gy.t->strides[1];
  P.x_dtype = x.dtype;
  P.fmt = format_of(dst);
  P.round = round;
  P.rule = srule;
  // column ranges of an even width (FLOAT4 bytes never straddle two tasks), at least 64 columns each
  P.tasks = std::max<int64_t>(1, std::min<int64_t>(core::num_threads(), (P.n + 63) / 64));
  P.width = std::max<int64_t>(2, ((P.n + P.tasks - 1) / P.tasks + 1) / 2 * 2);
  st.ws = b.book("mx_grouped.rows", static_cast<uint64_t>(P.tasks * P.buf_floats()) * sizeof(float));
  P.rows = row_kernels("grouped_mx_quant:column_ranges/tasks=" + std::to_string(P.tasks));
  if (dual) add_line_step(b, xs, y1, s1, c, row_pass, dst, round, srule);
}

void dual_level(core::OpBuilder &b, const MxQuantRule &rule, const MxQuantCall &c) {
  core::check_dtype_in(c.x.t, c.x.name, rule.dtypes);
  check_rank(c.x);
  const aclTensor &x = *c.x.t;
  check_not_empty(c.x);
  check_even_last(c.x, ACL_FLOAT4_E2M1);
  const int64_t n = x.dims[x.ndim - 1];
  if (c.smooth.t != nullptr) {
    core::check_dtype_in(c.smooth.t, c.smooth.name, {x.dtype});
    if (c.smooth.t->ndim != 1 || c.smooth.t->dims[0] != n)
      invalid("%s has shape %s; it must be 1-D with x's last dim (%lld)", c.smooth.name,
          core::shape_string(*c.smooth.t).c_str(), static_cast<long long>(n));
  }
  const kernels::LfRound round = round_of(c.round_mode, ACL_FLOAT4_E2M1);
  if (c.level0_block != 512)
    invalid("level0BlockSize is %lld; it must be 512", static_cast<long long>(c.level0_block));
  if (c.blocksize != 32) invalid("level1BlockSize is %lld; it must be 32", static_cast<long long>(c.blocksize));
  core::check_dtype_in(c.y.t, c.y.name, {ACL_FLOAT4_E2M1});
  core::check_shape_equals(*c.y.t, c.y.name, core::Shape::of(x));
  check_contiguous(c.y);
  core::Shape s0 = core::Shape::of(x);
  s0.dims[x.ndim - 1] = (n + 511) / 512;
  core::check_dtype_in(c.scale_out.t, c.scale_out.name, {ACL_FLOAT});
  core::check_shape_equals(*c.scale_out.t, c.scale_out.name, s0);
  check_contiguous(c.scale_out);
  core::check_dtype_in(c.scale2_out.t, c.scale2_out.name, {ACL_FLOAT8_E8M0});
  core::check_shape_equals(*c.scale2_out.t, c.scale2_out.name, scale_shape(x, x.ndim - 1, 32));
  check_contiguous(c.scale2_out);
  core::check_outputs_apart<core::NamedTensor>({&c.y, &c.scale_out, &c.scale2_out},
                                               {&c.x, &c.smooth, &c.y, &c.scale_out, &c.scale2_out});

  auto &st = b.add_step<MxDualLevelStep>();  // prototype order: x, smoothScaleOptional, yOut, level0, level1
  st.x = ref_of(b, b.input(c.x.t), c.x);
  if (c.smooth.t != nullptr) st.smooth = ref_of(b, b.input(c.smooth.t), c.smooth);
  st.y = ref_of(b, b.output(c.y.t), c.y);
  st.s0 = ref_of(b, b.output(c.scale_out.t), c.scale_out);
  st.s1 = ref_of(b, b.output(c.scale2_out.t), c.scale2_out);
  kernels::MxDualLevelPlan &P = st.plan;
  P.x = kernels::mx_lines(x, x.ndim - 1);
  P.smooth_stride = c.smooth.t != nullptr ? c.smooth.t->strides[0] : 0;
  P.x_dtype = x.dtype;
  P.round = round;
  P.rule.emax = kernels::low_float_spec(kernels::LowFloat::kE2M1).max_exp;
  P.tasks = tasks_for(P.x.pre);
  st.ws = b.book("mx_dual_level.rows", static_cast<uint64_t>(P.tasks * 2 * n) * sizeof(float));
  P.rows = row_kernels("dual_level_mx_quant:rows/tasks=" + std::to_string(P.tasks));
}

void to_block(core::OpBuilder &b, const MxQuantRule &rule, const MxQuantCall &c) {
  core::check_dtype_in(c.x.t, c.x.name, rule.dtypes);
  const aclTensor &x = *c.x.t;
  if (x.ndim < 2 || x.ndim > 3) invalid("%s has %d dims; it must have 2 or 3 ([B,] M, N)", c.x.name, x.ndim);
  check_not_empty(c.x);
  if (x.dims[x.ndim - 2] % 64 != 0)
    invalid("%s has shape %s; its dim -2 must be a multiple of 64", c.x.name, core::shape_string(x).c_str());
  check_even_last(c.x, x.dtype);
  check_contiguous(c.x);
  const aclDataType dst = static_cast<aclDataType>(c.dst_type);
  if (dst != ACL_FLOAT8_E5M2 && dst != ACL_FLOAT8_E4M3FN)
    invalid("dstType is %lld; it must be 35 (FLOAT8_E5M2) or 36 (FLOAT8_E4M3FN)",
            static_cast<long long>(c.dst_type));
  const int d = x.ndim;
  for (const core::NamedTensor *s : {&c.scale, &c.scale_out, &c.scale2_out}) {
    core::check_dtype_in(s->t, s->name, {ACL_FLOAT8_E8M0});
    core::check_shape_equals(*s->t, s->name, scale_shape(x, s == &c.scale2_out ? d - 2 : d - 1, 32));
    check_contiguous(*s);
  }
  core::check_dtype_in(c.y.t, c.y.name, {dst});
  core::check_shape_equals(*c.y.t, c.y.name, core::Shape::of(x));
  check_contiguous(c.y);
  core::check_outputs_apart<core::NamedTensor>({&c.y, &c.scale_out, &c.scale2_out},
                                               {&c.x, &c.scale, &c.y, &c.scale_out, &c.scale2_out});

  auto &st = b.add_step<MxToBlockStep>();  // prototype order: x, mxscale, y, scale1, scale2
  st.x = ref_of(b, b.input(c.x.t), c.x);
  st.scale = ref_of(b, b.input(c.scale.t), c.scale);
  st.y = ref_of(b, b.output(c.y.t), c.y);
  st.s1 = ref_of(b, b.output(c.scale_out.t), c.scale_out);
  st.s2 = ref_of(b, b.output(c.scale2_out.t), c.scale2_out);
  kernels::MxToBlockPlan &P = st.plan;
  P.batch = d == 3 ? x.dims[0] : 1;
  P.m = x.dims[d - 2];
  P.n = x.dims[d - 1];
  P.src = format_of(x.dtype);
  P.dst = format_of(dst);
  P.tasks = tasks_for(P.batch * (P.m / 32));
  st.ws = b.book("mx_to_block.codes", static_cast<uint64_t>(P.tasks * ((P.n + 31) / 32)));
  if (core::current_phase1_trace() != nullptr)
    core::record_choice("mx_to_block_mx_quant:block_rows/scalar/tasks=" + std::to_string(P.tasks), nullptr);
}

void anti(core::OpBuilder &b, const MxQuantRule &rule, const MxQuantCall &c) {
  core::check_dtype_in(c.x.t, c.x.name, rule.dtypes);
  check_rank(c.x);
  const aclTensor &x = *c.x.t;
  const int axis = core::wrap_dim(c.axis, x.ndim, "axis");
  const aclDataType dst = static_cast<aclDataType>(c.dst_type);
  if (dst != ACL_FLOAT && dst != ACL_FLOAT16 && dst != ACL_BF16)
    invalid("dstType is %lld; it must be 0 (FLOAT), 1 (FLOAT16) or 27 (BF16)", static_cast<long long>(c.dst_type));
  if (is_fp4(x.dtype)) {
    check_even_last(c.x, x.dtype);
    check_contiguous(c.x);
  }
  core::check_dtype_in(c.scale.t, c.scale.name, {ACL_FLOAT8_E8M0});
  core::check_shape_equals(*c.scale.t, c.scale.name, scale_shape(x, axis, 32));
  core::check_dtype_in(c.y.t, c.y.name, {dst});
  core::check_shape_equals(*c.y.t, c.y.name, core::Shape::of(x));
  check_contiguous(c.y);
  core::check_outputs_apart<core::NamedTensor>({&c.y}, {&c.x, &c.scale, &c.y});

  auto &st = b.add_step<AntiMxStep>();
  const int xs = b.input(c.x.t), ss = b.input(c.scale.t), ys = b.output(c.y.t);
  st.x = ref_of(b, xs, c.x);
  st.scale = ref_of(b, ss, c.scale);
  st.y = ref_of(b, ys, c.y);
  kernels::AntiMxPlan &P = st.plan;
  P.x = kernels::mx_lines(x, axis);
  const aclTensor &s = *c.scale.t;
  P.scale = kernels::mx_lines(s, axis);  // its trailing 2 is the last post dim: drop it
  P.scale.post_nd -= 1;
  P.scale.post /= 2;
  P.scale_k_stride = s.strides[s.ndim - 1];
  P.y_dtype = dst;
  P.fmt = format_of(x.dtype);
  P.tasks = tasks_for(P.x.pre);
  st.ws = b.book("anti_mx.lines", static_cast<uint64_t>(P.tasks * std::max<int64_t>(P.x.n, 1)) * sizeof(float));
  if (core::current_phase1_trace() != nullptr)
    core::record_choice("anti_mx_quant:lines/scalar/tasks=" + std::to_string(P.tasks), nullptr);
}

// The gate's parameters: swigluMode, clampLimit, beta; the gate kind.
kernels::MxGate checked_gate(const MxQuantCall &c, MxKind kind) {
  if (kind == MxKind::kSitu) {
    if (!(c.beta != 0.0f && std::isfinite(c.beta))) invalid("beta is %g; it must be non-zero and finite", c.beta);
    return kernels::MxGate::kSitu;
  }
  if (kind == MxKind::kSwigluDual) return kernels::MxGate::kSwiglu;
  if (kind == MxKind::kSwigluGradDual) return kernels::MxGate::kSwigluGrad;
  if (c.swiglu_mode < 0 || c.swiglu_mode > 3)
    invalid("swigluMode is %lld; it must be 0, 1, 2 or 3", static_cast<long long>(c.swiglu_mode));
  if (c.swiglu_mode != 0 && !(c.clamp_limit > 0.0 && std::isfinite(c.clamp_limit)))
    invalid("clampLimit is %g; swigluMode %lld needs a positive finite value", c.clamp_limit,
            static_cast<long long>(c.swiglu_mode));
  if (c.group_mode != 0 && c.group_mode != 1)
    invalid("groupMode is %lld; it must be 0 or 1", static_cast<long long>(c.group_mode));
  static const kernels::MxGate modes[] = {kernels::MxGate::kSwiglu, kernels::MxGate::kClippedPairs,
                                          kernels::MxGate::kClippedHalves, kernels::MxGate::kClippedPost};
  return modes[c.swiglu_mode];
}

// SwigluMxQuant, SwigluMxQuantWithDualAxis, SwigluBackwardMxQuantWithDualAxis, SituMxQuant: the gate (or its
// gradient) along the activated dim into a FLOAT scratch, then kQuant / kDual of the scratch.
void act_quant(core::OpBuilder &b, const MxQuantRule &rule, const MxQuantCall &c) {
  const bool grad = rule.kind == MxKind::kSwigluGradDual, dual = rule.kind == MxKind::kSwigluDual || grad;
  const aclTensor &x = checked_x(rule, c, dual);
  const kernels::MxGate gate = checked_gate(c, rule.kind);
  const int adim = rule.kind == MxKind::kSwiglu ? core::wrap_dim(c.activate_dim, x.ndim, "activateDim") : x.ndim - 1;
  if (c.group.t != nullptr) {
    if (rule.kind != MxKind::kSwiglu)
      invalid("%s is given; grouped rows are not supported by this implementation (pass null)", c.group.name);
    core::check_dtype_in(c.group.t, c.group.name, {ACL_INT64, ACL_INT32});
    if (c.group.t->ndim != 1)
      invalid("%s has shape %s; it must be 1-D", c.group.name, core::shape_string(*c.group.t).c_str());
    if (adim == 0)
      invalid("%s is given with activateDim 0; its rows are x's dim 0, which must not be the activated dim",
              c.group.name);
  }
  if (x.dims[adim] % 2 != 0)
    invalid("%s has shape %s; its activated dim %d (%s) must have an even length (two halves)", c.x.name,
            core::shape_string(x).c_str(), adim, rule.kind == MxKind::kSwiglu ? "activateDim" : "the last");
  core::Shape half = core::Shape::of(x);
  half.dims[adim] /= 2;
  if (grad) {
    core::check_dtype_in(c.dy.t, c.dy.name, {x.dtype});
    core::check_shape_equals(*c.dy.t, c.dy.name, half);
  }
  aclTensor act;  // the scratch's geometry (no data): the gate's output, or the gradient of x
  const core::Shape as = grad ? core::Shape::of(x) : half;
  core::set_contiguous(act, as);
  const int axis = dual ? x.ndim - 1 : core::wrap_dim(c.axis, x.ndim, "axis");
  if (gate == kernels::MxGate::kClippedHalves && axis != x.ndim - 1)
    invalid("axis is %lld; swigluMode 2 takes the last dim only", static_cast<long long>(c.axis));
  if (grad && c.dst_type != ACL_FLOAT8_E5M2 && c.dst_type != ACL_FLOAT8_E4M3FN && c.dst_type != ACL_FLOAT4_E2M1 &&
      c.dst_type != ACL_FLOAT4_E1M2)  // checked_dst's message says dstType
    invalid("dstDtype is %lld; it must be 35, 36, 40 or 41", static_cast<long long>(c.dst_type));
  const aclDataType dst = checked_dst(c);
  const kernels::LfRound round = round_of(c.round_mode, dst);
  const double m = c.dst_type_max;  // checked here: scale_rule's messages say dstTypeMax
  if (m != 0.0 && !(m >= 6.0 && m <= 12.0 && dst == ACL_FLOAT4_E2M1 && c.scale_alg == 2))
    invalid("maxDtypeValue is %g; it must be 0, or in [6, 12] with dstType FLOAT4_E2M1 and scaleAlg 2", m);
  const kernels::MxScaleRule srule = scale_rule(c, dst, x.dtype, MxKind::kQuant);
  if (is_fp4(dst) && as.dims[as.ndim - 1] % 2 != 0)
    invalid("%s has shape %s; its activation's last dim (%lld) must be even: %s packs two elements a byte", c.x.name,
            core::shape_string(x).c_str(), static_cast<long long>(as.dims[as.ndim - 1]), core::dtype_name(dst));
  std::vector<QuantPass> passes = {{&c.y, &c.scale_out, axis}};
  if (dual) passes.push_back({&c.y2, &c.scale2_out, x.ndim - 2});
  for (const QuantPass &q : passes) {
    core::check_dtype_in(q.y->t, q.y->name, {dst});
    core::check_shape_equals(*q.y->t, q.y->name, as);
    check_contiguous(*q.y);
    core::check_dtype_in(q.scale->t, q.scale->name, {ACL_FLOAT8_E8M0});
    core::check_shape_equals(*q.scale->t, q.scale->name, scale_shape(act, q.axis, 32));
    check_contiguous(*q.scale);
  }
  core::check_outputs_apart<core::NamedTensor>({&c.y, &c.scale_out, &c.y2, &c.scale2_out},
                                               {&c.x, &c.dy, &c.group, &c.y, &c.scale_out, &c.y2, &c.scale2_out});

  auto &st = b.add_step<MxActStep>();  // prototype order: x, yGrad / groupIndexOptional, then the outputs
  st.x = ref_of(b, b.input(c.x.t), c.x);
  kernels::MxActPlan &A = st.act;
  A.x = kernels::mx_lines(x, adim);
  if (grad) {
    st.dy = ref_of(b, b.input(c.dy.t), c.dy);
    A.dy = kernels::mx_lines(*c.dy.t, adim);
  }
  if (c.group.t != nullptr) {
    st.group = ref_of(b, b.input(c.group.t), c.group);
    st.group_n = c.group.t->dims[0];
    st.group_stride = c.group.t->strides[0];
    st.group_i64 = c.group.t->dtype == ACL_INT64;
    st.group_counts = c.group_mode == 1;
    st.x_rows = x.dims[0];
    st.lines_per_row = x.dims[0] > 0 ? A.x.pre / x.dims[0] : 0;
  }
  A.x_dtype = x.dtype;
  A.gate = gate;
  A.left = dual ? !c.activate_left : c.activate_left;  // the dual-axis docs: activateLeft puts the gate second
  const bool situ = gate == kernels::MxGate::kSitu;
  A.p[0] = situ ? c.beta : static_cast<float>(c.glu_alpha);
  A.p[1] = situ ? c.linear_beta : static_cast<float>(c.clamp_limit);
  A.p[2] = static_cast<float>(c.glu_bias);
  A.tasks = tasks_for(A.x.pre);
  int64_t line_floats = A.tasks * (A.x.n + A.x.n / 2);
  st.passes = static_cast<int>(passes.size());
  for (int i = 0; i < st.passes; ++i) {
    st.y[i] = ref_of(b, b.output(passes[i].y->t), *passes[i].y);
    st.scale[i] = ref_of(b, b.output(passes[i].scale->t), *passes[i].scale);
    kernels::MxQuantPlan &P = st.pass[i];
    P.x = kernels::mx_lines(act, passes[i].axis);
    P.x_dtype = ACL_FLOAT;
    P.fmt = format_of(dst);
    P.round = round;
    P.rule = srule;
    P.tasks = tasks_for(P.x.pre);
    line_floats = std::max(line_floats, P.tasks * P.x.n);
    P.rows = row_kernels("mx_act_quant:gate_then_lines/axis=" + std::to_string(passes[i].axis) +
                         "/tasks=" + std::to_string(P.tasks));
  }
  st.act_ws = b.book("mx_act.scratch", static_cast<uint64_t>(std::max<int64_t>(act.numel(), 1)) * sizeof(float));
  st.line_ws = b.book("mx_act.lines", static_cast<uint64_t>(std::max<int64_t>(line_floats, 1)) * sizeof(float));
}

}  // namespace

MxLastDim mx_last_dim_settings(int64_t dst_type, int64_t scale_alg, const char *round_mode, const core::NamedTensor &x,
                               double dst_type_max) {
  MxQuantCall c;
  c.dst_type = dst_type;
  c.scale_alg = scale_alg;
  c.round_mode = round_mode;
  c.dst_type_max = dst_type_max;
  const aclDataType dst = checked_dst(c);
  MxLastDim s;
  s.fmt = format_of(dst);
  s.round = round_of(round_mode, dst);
  s.rule = scale_rule(c, dst, x.t->dtype, MxKind::kQuant);
  if (is_fp4(dst) && x.t->ndim > 0) check_even_last(x, dst);
  return s;
}

void check_mx_last_dim_outputs(const core::NamedTensor &x, int64_t dst_type, const core::NamedTensor &y,
                               const core::NamedTensor &scale) {
  check_pass_outputs(*x.t, QuantPass{&y, &scale, x.t->ndim - 1}, static_cast<aclDataType>(dst_type), 32);
}

core::OperandRef mx_operand_ref(core::OpBuilder &b, int slot, const core::NamedTensor &a) { return ref_of(b, slot, a); }

void mx_quant_phase1(core::OpBuilder &b, const MxQuantRule &rule, const MxQuantCall &c) {
  if (rule.kind == MxKind::kAnti) anti(b, rule, c);
  else if (rule.kind == MxKind::kGrouped || rule.kind == MxKind::kGroupedDual) grouped(b, rule, c);
  else if (rule.kind == MxKind::kDualLevel) dual_level(b, rule, c);
  else if (rule.kind == MxKind::kToBlock) to_block(b, rule, c);
  else if (rule.kind == MxKind::kSwiglu || rule.kind == MxKind::kSwigluDual || rule.kind == MxKind::kSitu ||
           rule.kind == MxKind::kSwigluGradDual)
    act_quant(b, rule, c);
  else quant(b, rule, c);  // kQuant, kDual, kBlock
}

}  // namespace opsnn::ops
