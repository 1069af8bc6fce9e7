"""The row family of the op factory (imported by tools/gen_ops.py): tables whose `phase1 rows`
rows become ops::row_phase1 entry points (src/ops/norm/row_phase1.h) and RowTableCase
registrations (tests/ops/test_op_table_rows.cpp).

Row format (besides the common `header`, `dtypes`, `backward`):
  rows     kLayerNorm | kRmsNorm | kGroupNorm | kSoftmaxCrossEntropy
  gemma    yes                scale by (1 + gamma)
  silu     yes                apply SiLU to y (an `activateSilu` parameter decides when present)
  shape_from_input yes        group norm: N, C, HxW from self's shape
  variance yes                the rstd output (`variance`) receives the biased variance
  stat_dtypes D ...           accepted mean / rstd dtypes (default: the input's dtype or FLOAT)
  y_dtypes D ...              accepted y dtypes (default: the input's dtype; AddRmsNormCast's y1Out FLOAT)
  sample   a=V ...            parameter values for the tests (eps=, group=)
Parameter roles come from the names: x / x1 / input / self / features (the input), x2 / labels (a
second input, added to the first for norms), gamma / weight(Optional), beta / bias(Optional),
epsilon / eps, normalizedShape, N, C, HxW, group, activateSilu; outputs yOut / out / backprop,
meanOut(Optional) / loss, rstdOut(Optional), xOut; implMode is accepted and ignored. Also: gx (DeepNorm's
second input; alpha scales the first), biasOptional beside beta (AddLayerNorm: added to the sum, shaped
like gamma), additionalOutput (xOut written), y1Out / y2Out (y in FLOAT and in x's dtype), x1Ref / x2Ref
(in place: read as x1 / x2, written with y / the sum), numGroups, dataFormatOptional (NCHW / ND),
activateSwish / swishScale (y * sigmoid(swishScale * y)), scale / shift (AdaLayerNorm: y * (1 + scale) + shift,
[B..., H] or [B..., 1, H] for x [B..., S, H]), InstanceNorm's y / mean / variance and dataFormat (NCHW / NHWC). A layer norm without normalizedShape
normalises gamma's trailing dims. Sample keys for the tests: eps, group, alpha, swish_scale, additional,
activate, format, p, maxnorm (-1: the median sub-tensor norm), dim. Renorm (rows kRenorm): self / selfRef,
p, dim, maxNorm (torch.renorm: the sub-tensors along dim).
"""

ROWS_KEYS = {"rows", "gemma", "silu", "shape_from_input", "stat_dtypes", "y_dtypes", "variance", "sample", "header", "dtypes",
             "backward"}
KINDS = {"kLayerNorm": "layer_norm", "kRmsNorm": "rms_norm", "kGroupNorm": "group_norm",
         "kSoftmaxCrossEntropy": "softmax_cross_entropy", "kRope": "rope",
         "kInstanceNorm": "instance_norm", "kRenorm": "renorm", "kMaskedSoftmax": "masked_softmax"}
TENSOR_ROLES = {"x": "x", "x1": "x", "input": "x", "self": "x", "features": "x", "x2": "x2", "labels": "x2",
                "gamma": "gamma", "weight": "gamma", "weightOptional": "gamma", "beta": "beta", "bias": "beta",
                "biasOptional": "beta", "cos": "cos", "sin": "sin", "yOut": "y", "out": "y", "backprop": "y", "meanOut": "mean",
                "gx": "x2", "scale": "scale", "shift": "shift", "y1Out": "y", "y2Out": "y2", "y": "y", "mean": "mean", "variance": "rstd",
                "meanOutOptional": "mean", "loss": "mean", "attenMaskOptional": "mask", "relativePosBias": "pos_bias", "rstdOut": "rstd", "rstdOutOptional": "rstd", "xOut": "xsum"}
VALUE_ROLES = {"epsilon": "eps", "eps": "eps", "normalizedShape": "normalized_shape", "N": "n", "C": "c",
               "HxW": "hxw", "group": "group", "numGroups": "group", "activateSilu": "activate", "activateSwish": "activate",
               "swishScale": "swish_scale", "alpha": "alpha", "additionalOutput": "write_xsum",
               "dataFormatOptional": "data_format", "dataFormat": "data_format", "mode": "mode", "implMode": "ignored",
               "p": "p", "maxNorm": "max_norm", "dim": "dim",
               "scaleValue": "scale_value", "innerPrecisionMode": "ignored"}
# In-place operands: read as one role, written as another (InplaceAddRmsNorm: x1Ref <- y, x2Ref <- x1 + x2).
REF_ROLES = {"x1Ref": ("x", "y"), "x2Ref": ("x2", "xsum"), "selfRef": ("x", "y")}


def resolve(g, table, op):
    w = op.where
    for k in op.keys:
        if k not in ROWS_KEYS:
            raise g.TableError(f"{w}: key '{k}' is not one of a row op's ({', '.join(sorted(ROWS_KEYS))})")
    op.roles = {}
    names = {p.name for p in op.params}
    op.inplace_refs = False
    for p in op.params:
        if p.kind == "tensor" and p.name in REF_ROLES:
            for role in REF_ROLES[p.name]:
                op.roles[role] = p
            op.inplace_refs = True
            continue
        role = TENSOR_ROLES.get(p.name) if p.kind == "tensor" else VALUE_ROLES.get(p.name)
        if p.name == "biasOptional" and "beta" in names:
            role = "bias"  # AddLayerNorm: beta is the shift, biasOptional is added to the sum
        if role is None:
            raise g.TableError(f"{w}: parameter '{p.name}' has no role in a row op")
        op.roles[role] = p
    if "x" not in op.roles or "y" not in op.roles:
        raise g.TableError(f"{w}: a row op needs an input and an output")
    op.rows = g.one(op, "rows")
    if op.rows not in KINDS:
        raise g.TableError(f"{w}: rows must be one of {', '.join(KINDS)}")
    op.header = g.one(op, "header", f"aclnn_{g.snake(op.name)}.h")
    op.dtypes = g.dtype_list(g.one(op, "dtypes", ""), w)
    if not op.dtypes:
        raise g.TableError(f"{w}: missing 'dtypes'")
    op.flags = {k: g.one(op, k, "no") == "yes" for k in ("gemma", "silu", "shape_from_input", "variance")}
    sd = g.one(op, "stat_dtypes")
    op.stat_dtypes = g.dtype_list(sd, w) if sd else []
    yd = g.one(op, "y_dtypes")
    op.y_dtypes = g.dtype_list(yd, w) if yd else []
    op.samples = [g.parse_values(s, w) for s in op.keys.get("sample", [])] or [{}]
    op.backward = g.one(op, "backward")
    op.input, op.output, op.extra_output, op.inplace = op.roles["x"], op.roles["y"], None, None
    op.result = "same"
    op.results = ["same"]
    op.family = table.settings["family"]


def render_entry(g, table):
    out = g.family_entry_head(table, "row_phase1", "ops/norm/row_phase1.h",
                              ["opsnn::core::dtype_bit", "opsnn::ops::RowKind"])
    for op in table.ops:
        f = op.flags
        stat = g.mask(op.stat_dtypes) if op.stat_dtypes else "0"
        out.append(f"const ::opsnn::ops::RowRule k{op.name}Rule = {{RowKind::{op.rows}, {g.mask(op.dtypes)}, "
                   f"{str(f['gemma']).lower()}, {str(f['silu']).lower()}, {str(f['shape_from_input']).lower()}, {stat}, "
                   f"{g.mask(op.y_dtypes) if op.y_dtypes else '0'}, {str(f['variance']).lower()}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        r = op.roles
        lines = g.family_entry_open(op, "::opsnn::ops::RowCall")
        for role in ("x", "x2", "gamma", "beta", "bias", "scale", "shift", "cos", "sin", "y", "y2", "mean", "rstd",
                     "xsum", "mask", "pos_bias"):
            if role in r:
                p = r[role]
                lines += [f"    c.{role} = {p.name};", f'    c.{role}_name = "{p.name}";']
                if p.name.endswith("Optional"):
                    lines.append(f"    c.{role}_optional = true;")
        if "x2" in r:
            lines.append("    c.add = true;")
        for role in ("gamma", "beta", "mean", "rstd", "bias", "y2", "xsum", "scale", "shift", "pos_bias"):
            if role in r:
                lines.append(f"    c.has_{role} = true;")
        if "normalized_shape" in r:
            lines.append("    c.has_normalized_shape = true;")
        if "write_xsum" in r:
            lines.append(f"    c.write_xsum = {r['write_xsum'].name};")
        if "data_format" in r:
            lines += [f"    c.data_format = {r['data_format'].name};",
                      f'    c.data_format_name = "{r["data_format"].name}";']
        for role in ("eps", "normalized_shape", "n", "c", "hxw", "group", "mode", "alpha", "swish_scale", "p",
                     "max_norm", "dim", "scale_value"):
            if role in r:
                lines.append(f"    c.{role} = {r[role].name};")
        if "activate" in r:
            lines.append(f"    c.activate = {r['activate'].name} ? 1 : 0;")
        out += lines + g.family_entry_close(op, "row_phase1")
    return "\n".join(out) + "\n"



def render_tests(g, tables):
    out = g.family_tests_head(tables, "row", "RowTableCase", "row_table_cases")
    arg = {"x": "a.x", "x2": "a.x2", "gamma": "a.gamma", "beta": "a.beta", "cos": "a.cos", "sin": "a.sin",
           "mode": "a.mode", "y": "a.y", "mean": "a.mean", "rstd": "a.rstd", "xsum": "a.xsum", "eps": "a.eps",
           "normalized_shape": "a.normalized_shape", "n": "a.n", "c": "a.c", "hxw": "a.hxw", "group": "a.group",
           "activate": "a.activate", "ignored": "0", "bias": "a.bias", "y2": "a.y2", "alpha": "a.alpha",
           "swish_scale": "a.swish_scale", "scale": "a.scale", "shift": "a.shift", "write_xsum": "a.write_xsum", "data_format": "a.data_format",
           "p": "a.p", "max_norm": "a.max_norm", "dim": "a.dim",
           "mask": "a.mask", "pos_bias": "a.pos_bias", "scale_value": "a.scale_value"}
    for t in tables:
        for op in t.ops:
            role_of = {p.name: k for k, p in op.roles.items()}
            role_of.update({n: rs[0] for n, rs in REF_ROLES.items()})  # in-place operands passed as the inputs
            args = ", ".join(arg[role_of[p.name]] for p in op.params)
            opt = [k for k, p in op.roles.items() if p.name.endswith("Optional")]
            for sample in op.samples:
                fields = [f'c.kind = "{KINDS[op.rows]}";',
                          f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                          "c.roles = {" + ", ".join(f'"{k}"' for k in op.roles) + "};",
                          "c.optional = {" + ", ".join(f'"{k}"' for k in opt) + "};",
                          f"c.gemma = {str(op.flags['gemma']).lower()};", f"c.silu = {str(op.flags['silu']).lower()};",
                          f"c.stat_float = {str(op.stat_dtypes == ['FLOAT']).lower()};",
                          f"c.eps = {sample.get('eps', '1e-5')};", f"c.group = {sample.get('group', '2')};",
                          f"c.mode = {sample.get('mode', '0')};", f'c.x_name = "{op.roles["x"].name}";',
                          f"c.y_float = {str(op.y_dtypes == ['FLOAT']).lower()};",
                          f"c.inplace = {str(op.inplace_refs).lower()};",
                          f"c.alpha = {sample.get('alpha', '1.0')};",
                          f"c.swish_scale = {sample.get('swish_scale', '1.0')};",
                          f"c.write_xsum = {sample.get('additional', 'true')};",
                          f"c.variance = {str(op.flags['variance']).lower()};",
                          f"c.activate = {sample.get('activate', 'true')};",
                          f'c.data_format = "{sample.get("format", "NCHW")}";',
                          f"c.p = {sample.get('p', '2.0')};", f"c.maxnorm = {sample.get('maxnorm', '-1.0')};",
                          f"c.dim = {sample.get('dim', '0')};",
                          f"c.scale_value = {sample.get('scale', '1.0')};"]
                out += g.family_case(op, sample, "RowTableCase", fields, "RowArgs", args)
    return "\n".join(out + ["  return v;", "}", ""])
