"""The quantisation family of the op factory (found by tools/gen_ops.py as the module of `phase1 quant`):
rows become ops::quant_phase1 entry points (src/ops/quant/quant_phase1.h) and QuantTableCase
registrations (tests/ops/test_op_table_quant.cpp).

Row format (besides the common `header`, `dtypes`, `backward`):
  kind     K      what the row computes, one of KINDS (ops/quant/quant_phase1.h says each formula)
  dtypes          x's accepted dtypes
Every parameter's role comes from its name (ROLES): tensors become the call's NamedTensor fields,
attributes its value fields. `offset`, `zeroPoints` and `offsetOut` may be null like the `...Optional` ones.
"""

QUANT_KEYS = {"header", "dtypes", "backward", "kind"}
KINDS = {"ascend_quant": "kAscendQuant", "anti_quant": "kAntiQuant", "quantize": "kQuantize",
         "dynamic": "kDynamic", "fake_tensor": "kFakeTensor", "fake_channel": "kFakeChannel",
         "dequant_bias": "kDequantBias", "group_quant": "kGroupQuant", "quant_max": "kQuantMax",
         "gelu_quant": "kGeluQuant", "swiglu_quant": "kSwiGluQuant",
         "dequant_swiglu_quant": "kDequantSwiGluQuant", "block_quant": "kBlockQuant", "grouped_block_quant": "kGroupedBlockQuant",
         "flat_quant": "kFlatQuant"}
NO_FP8 = "; dstType HIFLOAT8 / FLOAT8 not supported yet (161002)"
RESULTS = {"ascend_quant": "INT8 / INT4 / INT32 (packed INT4)" + NO_FP8, "anti_quant": "FLOAT16 / BF16",
           "quantize": "the dtype argument (INT8 / UINT8 / INT32)",
           "dynamic": "INT8 / INT4 / INT32 (packed INT4), FLOAT scales" + NO_FP8,
           "fake_tensor": "self's dtype, BOOL mask", "fake_channel": "self's dtype, BOOL mask",
           "dequant_bias": "FLOAT16 / BF16", "group_quant": "INT8 / INT4 / INT32 (packed INT4)",
           "swiglu_quant": "INT8 / INT4 of swiglu(x), FLOAT per-row scales when dynamic",
           "dequant_swiglu_quant": "INT8 / INT4 of swiglu(dequant(x)), FLOAT per-row scales when dynamic",
           "gelu_quant": "INT8 of gelu(self), FLOAT per-row scales when dynamic" + NO_FP8,
           "block_quant": "INT8 of x / its block's scale, FLOAT block scales" + NO_FP8,
           "grouped_block_quant": "INT8 of x / its block's scale (blocks inside groupList's row groups), FLOAT block scales" + NO_FP8,
           "flat_quant": "INT4 / INT32 (packed INT4) of P1 @ x[k] @ P2, FLOAT per-slice scales; FLOAT4_E2M1 not supported",
           "quant_max": "FLOAT8_E5M2 / FLOAT8_E4M3FN (dstType; HIFLOAT8 rejected), amax (per group) in x's dtype"}
# Parameter name -> role (a field of ops::QuantCall and of the harness's QuantArgs).
TENSOR_ROLES = {"x": "x", "self": "x", "scale": "scale", "scales": "scale", "weightScale": "scale",
                "offset": "offset", "zeroPoint": "offset", "zeroPoints": "offset", "offsetOptional": "offset",
                "smoothScalesOptional": "smooth", "groupIndexOptional": "group", "groupIndex": "group", "groupList": "group",
                "activateScaleOptional": "act_scale", "biasOptional": "bias", "y": "y", "yOut": "y",
                "out": "y", "scaleOut": "scale_out", "inputScaleOptional": "scale", "inputOffsetOptional": "offset",
                "outScaleOptional": "scale_out", "offsetsOptional": "offset", "yScaleOut": "scale_out",
                "kroneckerP1": "p1", "groupList": "group", "groupListOptional": "group", "kroneckerP2": "p2", "quantScale": "scale_out",
                "weightScaleOptional": "scale", "activationScaleOptional": "act_scale", "quantScaleOptional": "smooth",
                "quantOffsetOptional": "offset", "offsetOut": "offset_out", "mask": "mask", "amax": "amax"}
VALUE_ROLES = {"sqrtMode": "sqrt_mode", "roundMode": "round_mode", "dstType": "dst_type",
               "outputDtype": "dst_type", "dtype": "dst_dtype", "axis": "axis", "isSymmetrical": "symmetric",
               "quantMode": "quant_mode", "dstTypeMax": "dst_type_max", "fakeQuantEnabled": "enabled",
               "quantMin": "quant_min", "quantMax": "quant_max", "approximate": "approximate",
               "activateLeft": "activate_left", "quantModeOptional": "quant_mode", "groupListType": "group_list_type",
               "roundModeOptional": "round_mode", "activateDim": "activate_dim", "swigluMode": "swiglu_mode",
               "clampLimit": "clamp_limit", "gluAlpha": "glu_alpha", "gluBias": "glu_bias",
               "minScale": "min_scale", "rowBlockSize": "row_block", "colBlockSize": "col_block",
               "beta": "situ_beta", "linearBeta": "situ_linear_beta", "quantTypeOptional": "quant_mode",
               "clipRatio": "clip_ratio"}
NULLABLE = ("offset", "zeroPoints", "offsetOut")  # offsetOut: only the asymmetric forms write it


def resolve(g, table, op):
    g.family_resolve_common(table, op, QUANT_KEYS, "a quantisation")
    kind = g.one(op, "kind")
    if kind not in KINDS:
        raise g.TableError(f"{op.where}: kind must be one of {', '.join(KINDS)}")
    op.qkind = KINDS[kind]
    op.roles = g.roles_by_name(op, {**TENSOR_ROLES, **VALUE_ROLES}, "a quantisation op")
    if kind == "swiglu_quant":  # its smooth scales are the static scale too: registered before the offsets
        op.roles["scale"] = op.roles.pop("smooth")
    if "x" not in op.roles or "y" not in op.roles:
        raise g.TableError(f"{op.where}: a quantisation op needs an x and a y (out)")
    op.input, op.output = op.roles["x"], op.roles["y"]
    op.results = [RESULTS[kind]]


def render_entry(g, table):
    out = g.family_entry_head(table, "quant_phase1", "ops/quant/quant_phase1.h", ["opsnn::core::dtype_bit"])
    out += [f"const ::opsnn::ops::QuantRule k{op.name}Rule = {{::opsnn::ops::QuantKind::{op.qkind}, "
            f"{g.mask(op.dtypes)}}};" for op in table.ops]
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::QuantCall")
        lines += g.family_null_checks(op, nullable=NULLABLE,
                                    any_dtype=[p.name for p in op.params if p.kind == "tensor"])
        for role, p in op.roles.items():
            if role in VALUE_ROLES.values():
                lines.append(f"    c.{role} = {p.name};")
                lines.append(f"    c.given.{role} = true;")
            else:
                lines.append(f'    c.{role} = {{{p.name}, "{p.name}"}};')
        out += lines + g.family_entry_close(op, "quant_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "quantisation", "QuantTableCase", "quant_table_cases")
    for t in tables:
        for op in t.ops:
            fields = [f"c.kind = ::opsnn::ops::QuantKind::{op.qkind};",
                      f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                      "c.roles = {" + ", ".join(f'"{r}"' for r in op.roles) + "};",
                      "c.names = {" + ", ".join(f'"{p.name}"' for p in op.roles.values()) + "};"]
            out += g.family_case(op, {}, "QuantTableCase", fields, "QuantArgs", g.role_args(op))
    return "\n".join(out + ["  return v;", "}", ""])
