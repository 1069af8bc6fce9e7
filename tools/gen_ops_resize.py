"""The resize family of the op factory (imported by tools/gen_ops.py): tables whose `phase1 resize`
rows become ops::resize_phase1 entry points (src/ops/pooling/resize_phase1.h) and ResizeTableCase
registrations (tests/ops/test_op_table_resize.cpp).

Row format (besides the common `header`, `dtypes`, `backward`):
  resize    nearest | nearest_exact | linear | cubic   the interpolation (PyTorch's modes)
  spatial   1 | 2 | 3                                  spatial dims (tensors: spatial + 2 dims)
A row is a backward op when it has a gradient input (gradOut / gradOutput) and inputSize.
Parameter roles come from the names: self or gradOut / gradOutput (the input), outputSize,
inputSize, alignCorners, scales / scaleL / scalesD / scalesH / scalesW (in the op's dim order),
out / gradInput / outRef (the output).
"""

RESIZE_KEYS = {"resize", "spatial", "header", "dtypes", "backward"}
MODES = {"nearest": "kNearest", "nearest_exact": "kNearestExact", "linear": "kLinear", "cubic": "kCubic"}
ROLES = {"self": "self", "gradOut": "self", "gradOutput": "self", "outputSize": "output_size",
         "inputSize": "input_size", "alignCorners": "align", "out": "out", "gradInput": "out", "outRef": "out"}
SCALES = {"scales", "scaleL", "scalesL", "scalesD", "scalesH", "scalesW"}


def resolve(g, table, op):
    g.family_resolve_common(table, op, RESIZE_KEYS, "a resize", default_dtypes="act")
    op.roles, op.scales = {}, []
    for p in op.params:
        if p.name in SCALES:
            op.scales.append(p)
            continue
        role = ROLES.get(p.name)
        if role is None:
            raise g.TableError(f"{op.where}: parameter '{p.name}' has no role in a resize op")
        op.roles[role] = p
    for need in ("self", "output_size", "out"):
        if need not in op.roles:
            raise g.TableError(f"{op.where}: a resize op needs {need}")
    op.mode = g.one(op, "resize")
    if op.mode not in MODES:
        raise g.TableError(f"{op.where}: resize must be one of {', '.join(MODES)}")
    op.spatial = int(g.one(op, "spatial", "2"))
    if op.spatial not in (1, 2, 3) or len(op.scales) > op.spatial:
        raise g.TableError(f"{op.where}: spatial must be 1, 2 or 3, with at most that many scales")
    op.is_backward = "input_size" in op.roles
    op.input, op.output = op.roles["self"], op.roles["out"]


def render_entry(g, table):
    out = g.family_entry_head(table, "resize_phase1", "ops/pooling/resize_phase1.h",
                              ["opsnn::core::dtype_bit", "opsnn::kernels::ResizeMode"])
    for op in table.ops:
        out.append(f"const ::opsnn::ops::ResizeRule k{op.name}Rule = {{ResizeMode::{MODES[op.mode]}, {op.spatial}, "
                   f"{str(op.is_backward).lower()}, {g.mask(op.dtypes)}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        r = op.roles
        lines = g.family_entry_open(op, "::opsnn::ops::ResizeCall")
        for role in ("self", "output_size", "input_size", "out"):
            if role in r:
                lines += [f"    c.{role} = {r[role].name};", f'    c.{role}_name = "{r[role].name}";']
        if "align" in r:
            lines.append(f"    c.align_corners = {r['align'].name};")
        # The scales name the last dims (a 3-D op's scalesD, scalesH, scalesW; a 1-D op's scales).
        first = op.spatial - len(op.scales)
        for i, p in enumerate(op.scales):
            lines.append(f"    c.scales[{first + i}] = static_cast<double>({p.name});")
        out += lines + g.family_entry_close(op, "resize_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "resize", "ResizeTableCase", "resize_table_cases")
    arg = {"self": "a.self", "output_size": "a.output_size", "input_size": "a.input_size", "align": "a.align",
           "out": "a.out"}
    for t in tables:
        for op in t.ops:
            role_of = {p.name: k for k, p in op.roles.items()}
            first = op.spatial - len(op.scales)
            scale_of = {p.name: f"a.scales[{first + i}]" for i, p in enumerate(op.scales)}
            args = ", ".join(scale_of[p.name] if p.name in scale_of else arg[role_of[p.name]] for p in op.params)
            fields = [f'c.mode = "{op.mode}";', f"c.spatial = {op.spatial};",
                      f"c.backward = {str(op.is_backward).lower()};",
                      f"c.has_align = {str('align' in op.roles).lower()};",
                      f"c.n_scales = {len(op.scales)};",
                      f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                      f'c.self_name = "{op.roles["self"].name}";', f'c.out_name = "{op.roles["out"].name}";']
            out += g.family_case(op, {}, "ResizeTableCase", fields, "ResizeArgs", args)
    return "\n".join(out + ["  return v;", "}", ""])
