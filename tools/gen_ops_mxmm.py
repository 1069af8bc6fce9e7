"""The block-scaled / emulated matmul table of the op factory (found by tools/gen_ops.py as the module of
`phase1 mxmm`): rows become ops::mxmm_phase1 entry points (src/ops/matmul/mxmm_phase1.h) and MxmmTableCase
registrations (tests/ops/test_op_table_mxmm.cpp).

Row format (besides the common `header`, `dtypes`, `backward`):
  scheme   act_quant|dual_level|emu_split   what the row computes (ops/matmul/mxmm_phase1.h says each formula)
  dtypes                                    x1's (x's) accepted dtypes
Every parameter's role comes from its name (ROLES). Every tensor's dtype is checked by the phase 1 (the
FLOAT8 / FLOAT4 / E8M0 dtypes are outside check_tensor's general ones).
"""

MXMM_KEYS = {"header", "dtypes", "backward", "scheme"}
SCHEMES = {"act_quant": "kActQuant", "dual_level": "kDualLevel", "emu_split": "kEmuSplit"}
RESULTS = {"act_quant": "FLOAT8 / FLOAT4 (x1's dtype) of GELU(the MX matmul) MX-quantised, FLOAT8_E8M0 scales",
           "dual_level": "FLOAT16 / BF16 of the two-level scaled FLOAT4 matmul",
           "emu_split": "FLOAT of x @ wHigh + wLowScale * (x @ wLow)"}
ROLES = {"x1": "a", "x": "a", "x2": "b", "wHigh": "b", "wLow": "b_low",
         "x1ScaleOptional": "a_scale", "x2Scale": "b_scale", "x1Level1Scale": "a_scale", "x2Level1Scale": "b_scale",
         "x1Level0Scale": "a_l0", "x2Level0Scale": "b_l0", "biasOptional": "bias", "optionalBias": "bias",
         "transposeX1": "trans_a", "transposeX2": "trans_b", "groupSize": "group_size",
         "level0GroupSize": "level0_group", "level1GroupSize": "level1_group", "activationType": "activation",
         "quantMode": "quant_mode", "roundMode": "round_mode", "scaleAlg": "scale_alg", "dstTypeMax": "dst_type_max",
         "yOut": "y", "out": "y", "y": "y", "yScaleOut": "y_scale", "wLowScale": "low_scale", "yDtype": "y_dtype"}
VALUES = ("trans_a", "trans_b", "group_size", "level0_group", "level1_group", "activation", "quant_mode",
          "round_mode", "scale_alg", "dst_type_max", "low_scale", "y_dtype")


def resolve(g, table, op):
    g.family_resolve_common(table, op, MXMM_KEYS, "a block-scaled matmul")
    scheme = g.one(op, "scheme")
    if scheme not in SCHEMES:
        raise g.TableError(f"{op.where}: scheme must be one of {', '.join(SCHEMES)}")
    op.mscheme = SCHEMES[scheme]
    op.roles = g.roles_by_name(op, ROLES, "a block-scaled matmul op")
    op.input, op.output = op.roles["a"], op.roles["y"]
    op.results = [RESULTS[scheme]]


def render_entry(g, table):
    out = g.family_entry_head(table, "mxmm_phase1", "ops/matmul/mxmm_phase1.h", ["opsnn::core::dtype_bit"])
    out += [f"const ::opsnn::ops::MxmmRule k{op.name}Rule = {{::opsnn::ops::MxmmScheme::{op.mscheme}, "
            f"{g.mask(op.dtypes)}}};" for op in table.ops]
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::MxmmCall")
        lines += g.family_null_checks(op, nullable=("optionalBias",),
                                      any_dtype=[p.name for p in op.params if p.kind == "tensor"])
        for role, p in op.roles.items():
            lines.append(f"    c.{role} = {p.name};" if role in VALUES else f'    c.{role} = {{{p.name}, "{p.name}"}};')
        out += lines + g.family_entry_close(op, "mxmm_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    return g.family_roles_tests(tables, "block-scaled matmul", "MxmmTableCase", "mxmm_table_cases", "MxmmArgs")
