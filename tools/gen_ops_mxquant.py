"""The MX quantisation table of the op factory (found by tools/gen_ops.py as the module of `phase1 mxquant`):
rows become ops::mx_quant_phase1 entry points (src/ops/quant/mx_quant_phase1.h) and MxTableCase
registrations (tests/ops/test_op_table_mxquant.cpp).

Row format (besides the common `header`, `dtypes`, `backward`):
  kind     quant|dual|block|grouped|grouped_dual|dual_level|to_block|anti|swiglu|swiglu_dual|situ|swiglu_grad_dual   what the row computes (ops/quant/mx_quant_phase1.h says each formula)
  dtypes                 x's accepted dtypes
Every parameter's role comes from its name (ROLES). Every tensor's dtype is checked by the phase 1 (the
FLOAT8 / FLOAT4 / E8M0 dtypes are outside check_tensor's general ones).
"""

MXQUANT_KEYS = {"header", "dtypes", "backward", "kind"}
KINDS = {"quant": "kQuant", "dual": "kDual", "block": "kBlock", "grouped": "kGrouped", "grouped_dual": "kGroupedDual",
         "dual_level": "kDualLevel", "to_block": "kToBlock", "anti": "kAnti", "swiglu": "kSwiglu",
         "swiglu_dual": "kSwigluDual", "situ": "kSitu", "swiglu_grad_dual": "kSwigluGradDual"}
RESULTS = {"quant": "FLOAT8_E5M2 / FLOAT8_E4M3FN / FLOAT4_E2M1 / FLOAT4_E1M2 (dstType), FLOAT8_E8M0 scales",
           "dual": "two FLOAT8 / FLOAT4 results (dims -1 and -2), FLOAT8_E8M0 scales for each",
           "block": "FLOAT8 / FLOAT4 of 32 x 32 blocks, FLOAT8_E8M0 scales per row and per column",
           "grouped": "FLOAT8 / FLOAT4 along dim 0 per group of rows, FLOAT8_E8M0 scales",
           "grouped_dual": "FLOAT8 along dim -1 and, per group of rows, along dim 0; FLOAT8_E8M0 scales for each",
           "dual_level": "FLOAT4_E2M1 after a FLOAT level-0 scale per 512, FLOAT8_E8M0 level-1 scales per 32",
           "to_block": "FLOAT8 in 32 x 32 blocks from FLOAT4 MX data, FLOAT8_E8M0 scales per row and per column",
           "anti": "FLOAT / FLOAT16 / BF16 (dstType)",
           "swiglu": "the SwiGLU gate of x quantised as DynamicMxQuantV2: FLOAT8 / FLOAT4 (dstType), FLOAT8_E8M0 scales",
           "swiglu_dual": "the SwiGLU gate of x quantised along dims -1 and -2, FLOAT8_E8M0 scales for each",
           "swiglu_grad_dual": "the SwiGLU gradient of x quantised along dims -1 and -2, FLOAT8_E8M0 scales for each",
           "situ": "the SiTU gate of x quantised as DynamicMxQuant: FLOAT8 / FLOAT4 (dstType), FLOAT8_E8M0 scales"}
ROLES = {"x": "x", "mxscale": "scale", "yOut": "y", "y": "y", "mxscaleOut": "scale_out", "axis": "axis",
         "y1Out": "y", "mxscale1Out": "scale_out", "y2Out": "y2", "mxscale2Out": "scale2_out",
         "scale1Out": "scale_out", "scale2Out": "scale2_out", "groupIndex": "group", "roundMode": "round_mode",
         "scale1": "scale_out", "scale2": "scale2_out", "smoothScaleOptional": "smooth", "level0BlockSize": "level0_block", "level1BlockSize": "blocksize",
         "level0ScaleOut": "scale_out", "level1ScaleOut": "scale2_out", "dstDtype": "dst_type", "maxDtypeValue": "dst_type_max", "y1ScaleOut": "scale_out", "y2ScaleOut": "scale2_out",
         "roundModeOptional": "round_mode", "dstType": "dst_type", "blocksize": "blocksize", "scaleAlg": "scale_alg",
         "dstTypeMax": "dst_type_max", "maxLowBound": "max_low_bound", "groupIndexOptional": "group",
         "activateDim": "activate_dim", "activateLeft": "activate_left", "swigluMode": "swiglu_mode",
         "clampLimit": "clamp_limit", "gluAlpha": "glu_alpha", "gluBias": "glu_bias", "groupMode": "group_mode",
         "beta": "beta", "linearBeta": "linear_beta", "yScaleOut": "scale_out", "yGrad": "dy"}
VALUES = ("axis", "round_mode", "dst_type", "blocksize", "scale_alg", "dst_type_max", "max_low_bound", "level0_block",
          "activate_dim", "activate_left", "swiglu_mode", "clamp_limit", "glu_alpha", "glu_bias", "group_mode", "beta",
          "linear_beta")


def resolve(g, table, op):
    g.family_resolve_common(table, op, MXQUANT_KEYS, "an MX quantisation")
    kind = g.one(op, "kind")
    if kind not in KINDS:
        raise g.TableError(f"{op.where}: kind must be one of {', '.join(KINDS)}")
    op.mkind = KINDS[kind]
    op.roles = g.roles_by_name(op, ROLES, "an MX quantisation op")
    if kind == "grouped":  # its mxscale is the output
        op.roles["scale_out"] = op.roles.pop("scale")
    op.input, op.output = op.roles["x"], op.roles["y"]
    op.results = [RESULTS[kind]]


def render_entry(g, table):
    out = g.family_entry_head(table, "mx_quant_phase1", "ops/quant/mx_quant_phase1.h", ["opsnn::core::dtype_bit"])
    out += [f"const ::opsnn::ops::MxQuantRule k{op.name}Rule = {{::opsnn::ops::MxKind::{op.mkind}, "
            f"{g.mask(op.dtypes)}}};" for op in table.ops]
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::MxQuantCall")
        lines += g.family_null_checks(op, any_dtype=[p.name for p in op.params if p.kind == "tensor"])
        for role, p in op.roles.items():
            lines.append(f"    c.{role} = {p.name};" if role in VALUES else f'    c.{role} = {{{p.name}, "{p.name}"}};')
        if "dst_type_max" in op.roles:
            lines.append("    c.given_dst_type_max = true;")
        out += lines + g.family_entry_close(op, "mx_quant_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "MX quantisation", "MxTableCase", "mxquant_table_cases")
    for t in tables:
        for op in t.ops:
            fields = [f"c.kind = \"{op.mkind}\";",
                      f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                      "c.roles = {" + ", ".join(f'"{r}"' for r in op.roles) + "};"]
            out += g.family_case(op, {}, "MxTableCase", fields, "MxArgs", g.role_args(op))
    return "\n".join(out + ["  return v;", "}", ""])
