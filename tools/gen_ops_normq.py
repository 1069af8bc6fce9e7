"""The fused norm + quantisation family of the op factory (found by tools/gen_ops.py as the module of
`phase1 normq`): rows become ops::norm_quant_phase1 entry points (src/ops/norm/norm_quant_phase1.h says
every formula) and NormQuantTableCase registrations (tests/ops/test_op_table_normq.cpp).

Row format (besides the common `header`, `dtypes`, `backward`):
  norm     rms | layer | group  the normalisation before the quantisation
  quant    static | dynamic | attr | mx   given scales / zero points, per-row scales from the data, as the
                               quantMode attribute says (int 0 / 1 or "static" / "dynamic"), or DynamicMxQuant's
                               blocks of 32 along the last dim (FLOAT8 / FLOAT4 codes, FLOAT8_E8M0 scales)
  divides  yes                 static: y / scale whatever divMode (LayerNormQuant)
  norm_out before_beta         rmsNormOut is the norm before beta is added (AddRmsNormQuantV2)
Every parameter's role comes from its name (TENSOR_ROLES, VALUE_ROLES); tensors are registered in
prototype order (NormQuantCall::order).
"""

NORMQ_KEYS = {"header", "dtypes", "backward", "norm", "quant", "norm_out", "divides"}
# Parameter name -> role (the short name is the harness's NormQuantArgs field, the enum ops::NqRole's).
TENSOR_ROLES = {"x": "x", "x1": "x", "x2": "x2", "gamma": "gamma", "gammma": "gamma", "beta": "beta",
                "betaOptional": "beta", "biasOptional": "bias", "scale": "scale1", "scales1": "scale1",
                "scales1Optional": "scale1", "zeroPointsOptional": "offset1", "res": "y1", "layernormRes": "norm_out",
                "outScales1Out": "scale_out1", "outScales2Out": "scale_out2", "scales2Optional": "scale2",
                "offset": "offset1", "zeroPoints1Optional": "offset1", "zeroPoints2Optional": "offset2",
                "smoothScalesOptional": "smooth1", "smoothScale1Optional": "smooth1",
                "smoothScale2Optional": "smooth2", "y": "y1", "yOut": "y1", "y1Out": "y1", "y2Out": "y2",
                "xOut": "xsum", "rstd": "rstd", "rmsNormOut": "norm_out", "scaleOut": "scale_out1",
                "scale1Out": "scale_out1", "scale2Out": "scale_out2", "weightOptional": "gamma", "shift": "mod_shift",
                "out": "y1", "quantScale": "scale_out1", "quantOffsetOptional": "offset_out", "self": "x",
                "meanOut": "mean", "rstdOut": "rstd", "mxscaleOut": "mx_scale"}
ENUM = {"x": "kNqX", "x2": "kNqX2", "gamma": "kNqGamma", "beta": "kNqBeta", "bias": "kNqBias", "scale1": "kNqScale1",
        "scale2": "kNqScale2", "offset1": "kNqOffset1", "offset2": "kNqOffset2", "smooth1": "kNqSmooth1",
        "smooth2": "kNqSmooth2", "y1": "kNqY1", "y2": "kNqY2", "xsum": "kNqXsum", "rstd": "kNqRstd",
        "norm_out": "kNqNormOut", "scale_out1": "kNqScaleOut1", "scale_out2": "kNqScaleOut2",
        "mean": "kNqMean", "mod_scale": "kNqModScale", "mod_shift": "kNqModShift", "offset_out": "kNqOffsetOut",
        "mx_scale": "kNqMxScale"}
VALUE_ROLES = {"epsilon": "eps", "eps": "eps", "divMode": "div_mode", "outputRstd": "output_rstd", "axis": "axis",
               "dstType": "dst_type", "outputMask": "output_mask", "quantMode": "quant_mode",
               "additionalOutput": "additional_output", "group": "group", "activateSilu": "activate",
               "scaleAlg": "scale_alg", "roundMode": "round_mode"}
RESULTS = {"static": "INT8 (given scales / zero points)", "dynamic": "INT8, FLOAT per-row scales",
           "attr": "INT8 (static), or INT8 and FLOAT per-row scales (dynamic)",
           "mx": "FLOAT8 / FLOAT4, FLOAT8_E8M0 block scales"}
MODES = {"static": "kStatic", "dynamic": "kDynamic", "attr": "kByAttr", "mx": "kMx"}
NORMS = {"rms": "kRms", "layer": "kLayer", "group": "kGroup"}


def resolve(g, table, op):
    g.family_resolve_common(table, op, NORMQ_KEYS, "a norm + quantisation")
    names = {p.name for p in op.params}
    op.norm = g.one(op, "norm")
    op.quant = g.one(op, "quant")
    if op.norm not in NORMS or op.quant not in MODES:
        raise g.TableError(f"{op.where}: norm must be rms, layer or group and quant static, dynamic, attr or mx")
    op.divides = g.one(op, "divides", "no") == "yes"
    op.norm_out_before_beta = g.one(op, "norm_out", "") == "before_beta"
    op.roles = g.roles_by_name(op, {**TENSOR_ROLES, **VALUE_ROLES}, "a norm + quantisation op")
    if "shift" in names:  # AdaLayerNormQuant: scale / shift modulate, biasOptional is the shift after gamma
        op.roles["mod_scale"] = op.roles.pop("scale1")
        if "bias" in op.roles:
            op.roles["beta"] = op.roles.pop("bias")
    qs = op.roles.get("scale_out1")
    if qs is not None and qs.name == "quantScale" and qs.ctype.startswith("const"):  # GroupNormSiluQuant's input
        op.roles["scale1"] = op.roles.pop("scale_out1")
    qm = op.roles.pop("quant_mode", None)  # the int or the string attribute
    if qm is not None:
        op.roles["quant_mode_name" if "char" in qm.ctype else "quant_mode"] = qm
    if "x" not in op.roles or "y1" not in op.roles:
        raise g.TableError(f"{op.where}: a norm + quantisation op needs an x and a y")
    op.input, op.output = op.roles["x"], op.roles["y1"]
    op.results = [RESULTS[op.quant]]


def render_entry(g, table):
    out = g.family_entry_head(table, "norm_quant_phase1", "ops/norm/norm_quant_phase1.h", ["opsnn::core::dtype_bit"])
    out += [f"const ::opsnn::ops::NormQuantRule k{op.name}Rule = {{::opsnn::ops::NormQuantNorm::"
            f"{NORMS[op.norm]}, ::opsnn::ops::NormQuantMode::{MODES[op.quant]}, "
            f"{g.mask(op.dtypes)}, {str(op.norm_out_before_beta).lower()}, {str(op.divides).lower()}}};"
            for op in table.ops]
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::NormQuantCall")
        role_of = {p.name: r for r, p in op.roles.items()}
        for p in op.params:
            role = role_of[p.name]
            if role in ENUM:
                lines.append(f'    c.t[::opsnn::ops::{ENUM[role]}] = {{{p.name}, "{p.name}"}};')
                lines.append(f"    c.order[c.norder++] = ::opsnn::ops::{ENUM[role]};")
            else:
                v = role_of[p.name]
                lines.append(f"    c.{v} = {p.name};")
                if v not in ("eps", "group", "activate", "scale_alg", "round_mode"):  # the attributes only some prototypes have
                    lines.append(f"    c.given.{v} = true;")
        out += lines + g.family_entry_close(op, "norm_quant_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "norm + quantisation", "NormQuantTableCase", "normq_table_cases")
    for t in tables:
        for op in t.ops:
            fields = [f"c.rms = {str(op.norm == 'rms').lower()};",
                      f"c.dynamic = {str(op.quant == 'dynamic').lower()};",
                      f"c.grouped = {str(op.norm == 'group').lower()};",
                      f"c.by_attr = {str(op.quant == 'attr').lower()};",
                      f"c.mx = {str(op.quant == 'mx').lower()};",
                      f"c.divides = {str(op.divides).lower()};",
                      f"c.norm_out_before_beta = {str(op.norm_out_before_beta).lower()};",
                      f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                      "c.roles = {" + ", ".join(f'"{r}"' for r in op.roles) + "};",
                      "c.names = {" + ", ".join(f'"{p.name}"' for p in op.roles.values()) + "};"]
            out += g.family_case(op, {}, "NormQuantTableCase", fields, "NormQuantArgs", g.role_args(op))
    return "\n".join(out + ["  return v;", "}", ""])
