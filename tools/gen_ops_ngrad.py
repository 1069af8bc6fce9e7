"""The norm-gradient family of the op factory (found by tools/gen_ops.py as the module of `phase1
ngrad`): rows become ops::norm_grad_phase1 entry points (src/ops/norm/norm_grad_phase1.h) and
NgradTableCase registrations (tests/ops/test_op_table_ngrad.cpp).

Row format (besides the common `header`, `dtypes`, `backward`):
  grad     kLayer | kRms | kGroup       the rows' geometry (a layer row without normalizedShape:
                                        gamma's dims)
  sample   a=V ...                      parameter values for the tests (alpha=, swish_scale=)
Parameter roles come from the names (ROLES); the tensors are registered in prototype order. The
fused forms follow from the roles: x2 / gx (z = alpha x + x2; alpha: DeepNorm), dsumOptional
(added to dx), dgxOut (dz), swishScale (the forward's swish), scale / shift (AdaLayerNorm; their
gradients gradScaleOut / gradShiftOut), dgammaIsRequire / dbetaIsRequire (output flags), numGroups
with N, C, HxW from x's shape; scalesX / offsetXOptional / quantMode / divMode (RmsNormGradQuant) quantise dx
to INT8.
"""

NGRAD_KEYS = {"grad", "header", "dtypes", "backward", "sample"}
KINDS = {"kLayer": "layer", "kRms": "rms", "kGroup": "group"}
ROLES = {"gradOut": "dy", "dy": "dy", "input": "x", "x": "x", "x1": "x", "x2": "x2", "gx": "x2",
         "mean": "mean", "rstd": "rstd", "weightOptional": "gamma", "gamma": "gamma", "biasOptional": "beta",
         "beta": "beta", "scale": "scale", "shift": "shift", "dsumOptional": "dsum",
         "normalizedShape": "normalized_shape", "N": "n", "C": "c", "HxW": "hxw", "group": "group",
         "numGroups": "group", "dataFormatOptional": "data_format", "alpha": "alpha", "swishScale": "swish_scale",
         "dgammaIsRequire": "dgamma_required", "dbetaIsRequire": "dbeta_required", "outputMask": "output_mask",
         "gradInputOut": "dx", "gradInput": "dx", "dxOut": "dx", "dgxOut": "dx2", "gradScaleOut": "dscale",
         "gradShiftOut": "dshift", "gradWeightOut": "dgamma", "gradGammaOut": "dgamma", "dgammaOut": "dgamma",
         "gradBiasOut": "dbeta", "gradBetaOut": "dbeta", "dbetaOut": "dbeta", "scalesX": "scales_x",
         "offsetXOptional": "offset_x", "quantMode": "quant_mode", "divMode": "div_mode"}
TENSORS = {"dy": "kDy", "x": "kX", "x2": "kX2", "mean": "kMean", "rstd": "kRstd", "gamma": "kGamma",
           "beta": "kBeta", "scale": "kScale", "shift": "kShift", "dsum": "kDsum", "dx": "kDx", "dx2": "kDx2",
           "dscale": "kDscale", "dshift": "kDshift", "dgamma": "kDgamma", "dbeta": "kDbeta", "scales_x": "kScalesX",
           "offset_x": "kOffsetX"}
VALUES = ("normalized_shape", "n", "c", "hxw", "group", "alpha", "swish_scale", "output_mask", "quant_mode",
          "div_mode")


def resolve(g, table, op):
    g.family_resolve_common(table, op, NGRAD_KEYS, "a norm-gradient")
    op.roles = g.roles_by_name(op, ROLES, "a norm gradient")
    op.grad = g.one(op, "grad")
    if op.grad not in KINDS:
        raise g.TableError(f"{op.where}: grad must be one of {', '.join(KINDS)}")
    op.samples = [g.parse_values(s, op.where) for s in op.keys.get("sample", [])] or [{}]
    op.input, op.output = op.roles["x"], op.roles["dx"]


def render_entry(g, table):
    out = g.family_entry_head(table, "norm_grad_phase1", "ops/norm/norm_grad_phase1.h",
                              ["opsnn::core::dtype_bit", "opsnn::ops::NormGradKind", "opsnn::ops::NgRole"])
    for op in table.ops:
        out.append(f"const ::opsnn::ops::NormGradRule k{op.name}Rule = {{NormGradKind::{op.grad}, {g.mask(op.dtypes)}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        r = op.roles
        lines = g.family_entry_open(op, "::opsnn::ops::NormGradCall")
        for p in op.params:
            role = next(k for k, v in r.items() if v is p)
            if role in TENSORS:
                lines += [f"    c.{role} = {p.name};", f'    c.{role}_name = "{p.name}";',
                          f"    c.order[c.norder++] = NgRole::{TENSORS[role]};"]
                if role in ("gamma", "beta", "dsum"):
                    lines.append(f"    c.{role}_optional = {str(p.name.endswith('Optional')).lower()};")
            elif role in VALUES:
                lines.append(f"    c.{role} = {p.name};")
        if "normalized_shape" in r:
            lines.append("    c.has_normalized_shape = true;")
        if "data_format" in r:
            lines += [f"    c.data_format = {r['data_format'].name};",
                      f'    c.data_format_name = "{r["data_format"].name}";']
        if "swish_scale" in r:
            lines.append("    c.swish = true;")
        if "scales_x" in r:
            lines.append("    c.has_quant = true;")
        if op.grad == "kGroup" and "n" not in r:
            lines.append("    c.shape_from_input = true;")
        for role in ("dgamma_required", "dbeta_required"):
            if role in r:
                lines.append(f"    c.{role} = {r[role].name} ? 1 : 0;")
        out += lines + g.family_entry_close(op, "norm_grad_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "norm-gradient", "NgradTableCase", "ngrad_table_cases")
    for t in tables:
        for op in t.ops:
            for sample in op.samples:
                fields = [f'c.kind = "{KINDS[op.grad]}";', f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                          "c.roles = {" + ", ".join(f'"{k}"' for k in op.roles) + "};",
                          "c.names = {" + ", ".join(f'{{"{k}", "{p.name}"}}' for k, p in op.roles.items()) + "};",
                          f"c.gamma_optional = {str(op.roles['gamma'].name.endswith('Optional')).lower()};",
                          f"c.has_dbeta = {str('dbeta' in op.roles).lower()};",
                          f"c.has_mask = {str('output_mask' in op.roles).lower()};",
                          f"c.alpha = {sample.get('alpha', '1.0')};",
                          f"c.swish_scale = {sample.get('swish_scale', '1.0')};"]
                out += g.family_case(op, sample, "NgradTableCase", fields, "NgradArgs", g.role_args(op))
    return "\n".join(out + ["  return v;", "}", ""])
