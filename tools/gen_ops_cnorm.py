"""The batch-norm family of the op factory (found by tools/gen_ops.py as the module of `phase1
cnorm`): rows become ops::chan_norm_phase1 entry points (src/ops/norm/channel_norm_phase1.h) and
CnormTableCase registrations (tests/ops/test_op_table_cnorm.cpp).

Row format (besides the common `header`, `dtypes`, `backward`):
  mode     kForward | kSums | kBackward | kElemtBackward | kGather | kSyncGather | kQuantForward
  tensors  NAME=ROLE ...   every tensor parameter: ROLE is x, dy, y (per element) or a per-channel
                           role of kernels::ChanVec (kWeight, kRunMean, kMeanOut, ...); a suffix
                           `?` marks it optional, `>` an output, `~` updated in place (input and output)
Attribute roles come from the names: training, momentum, eps (or epsilon), outputMask, inputG / weightG /
biasG, the quantisation scalars inputScale / inputZeroPoint / outputScale / outputZeroPoint; `version` is
accepted and ignored. kQuantForward's per-channel tensors are FLOAT; `dtypes` lists x's (and y's).
"""

CNORM_KEYS = {"mode", "tensors", "header", "dtypes", "backward"}
MODES = ["kForward", "kSums", "kBackward", "kElemtBackward", "kGather", "kSyncGather", "kQuantForward"]
VEC = ["kWeight", "kBias", "kMeanIn", "kInvstdIn", "kRunMean", "kRunVar", "kSumDyIn", "kSumDyXmuIn", "kCounts",
       "kSumIn", "kSqSumIn", "kMeanOut", "kInvstdOut", "kSumOut", "kSqSumOut", "kSumDyOut", "kSumDyXmuOut", "kGradWeight", "kGradBias"]
ELEM = {"x": "kX", "dy": "kDy", "y": "kY"}
ATTRS = {"training": "training", "momentum": "momentum", "eps": "eps", "epsilon": "eps", "outputMask": "output_mask",
         "inputG": "input_g", "weightG": "weight_g", "biasG": "bias_g", "version": None,
         "inputScale": "input_scale", "inputZeroPoint": "input_zero_point", "outputScale": "output_scale",
         "outputZeroPoint": "output_zero_point"}


def resolve(g, table, op):
    w = op.where
    g.family_resolve_common(table, op, CNORM_KEYS, "a batch-norm")
    op.mode = g.one(op, "mode")
    if op.mode not in MODES:
        raise g.TableError(f"{w}: mode must be one of {', '.join(MODES)}")
    roles = {}
    for item in (g.one(op, "tensors", "") or "").split():
        name, _, role = item.partition("=")
        flags = ""
        while role and role[-1] in "?>~":
            flags += role[-1]
            role = role[:-1]
        if role not in ELEM and role not in VEC:
            raise g.TableError(f"{w}: '{role}' is not a batch-norm tensor role")
        roles[name] = (role, flags)
    op.args = []
    for p in op.params:
        if p.kind == "tensor":
            if p.name not in roles:
                raise g.TableError(f"{w}: tensor parameter '{p.name}' has no role in 'tensors'")
            op.args.append((p.name,) + roles.pop(p.name))
        elif p.name not in ATTRS and p.kind != "other":
            raise g.TableError(f"{w}: parameter '{p.name}' has no role in a batch-norm op")
        elif p.kind == "other" and p.name != "outputMask":
            raise g.TableError(f"{w}: parameter '{p.name}' has no role in a batch-norm op")
    if roles:
        raise g.TableError(f"{w}: 'tensors' names unknown parameters {', '.join(roles)}")
    x = [a for a in op.args if a[1] == "x"]
    op.input = next(p for p in op.params if p.name == x[0][0]) if x else op.params[0]
    op.output = op.params[-1]


def role_expr(role):
    return f"::opsnn::ops::ChanNormArg::{ELEM[role]}" if role in ELEM else f"::opsnn::kernels::{role}"


def access(flags):
    return "kOut" if ">" in flags else "kInOut" if "~" in flags else "kIn"


def render_entry(g, table):
    out = g.family_entry_head(table, "chan_norm_phase1", "ops/norm/channel_norm_phase1.h",
                              ["opsnn::core::dtype_bit", "opsnn::kernels::ChanNormMode"])
    for op in table.ops:
        out.append(f"const ::opsnn::ops::ChanNormRule k{op.name}Rule = {{ChanNormMode::{op.mode}, {g.mask(op.dtypes)}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::ChanNormCall")
        for name, role, flags in op.args:
            lines.append(f'    c.args.push_back({{{name}, "{name}", {role_expr(role)}, '
                         f"::opsnn::ops::ChanNormArg::{access(flags)}, {str('?' in flags).lower()}}});")
        for p in op.params:
            if ATTRS.get(p.name):
                lines.append(f"    c.{ATTRS[p.name]} = {p.name};")
        out += lines + g.family_entry_close(op, "chan_norm_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "batch-norm", "CnormTableCase", "cnorm_table_cases")
    for t in tables:
        for op in t.ops:
            n = 0
            args = []
            for p in op.params:
                if p.kind == "tensor":
                    args.append(f"a.t[{n}]")
                    n += 1
                elif p.name == "version":
                    args.append("0")
                else:
                    args.append(f"a.{ATTRS[p.name]}")
            roles = ", ".join(f'{{"{name}", "{role}", {str(">" in f).lower()}, {str("~" in f).lower()}, '
                              f'{str("?" in f).lower()}}}' for name, role, f in op.args)
            fields = [f'c.mode = "{op.mode}";', f"c.args = {{{roles}}};",
                      f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                      f"c.has_training = {str(any(p.name == 'training' for p in op.params)).lower()};",
                      f"c.has_mask = {str(any(p.name == 'outputMask' for p in op.params)).lower()};",
                      f"c.has_flags = {str(any(p.name == 'inputG' for p in op.params)).lower()};"]
            out += g.family_case(op, {}, "CnormTableCase", fields, "CnormArgs", ", ".join(args))
    return "\n".join(out + ["  return v;", "}", ""])
