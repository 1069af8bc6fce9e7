"""The pooling family of the op factory (imported by tools/gen_ops.py): tables whose `phase1 pool`
rows become ops::pool_phase1 entry points (src/ops/pooling/pool_phase1.h) and PoolTableCase
registrations (tests/ops/test_op_table_pool.cpp).

Row format (besides the common `header`, `dtypes`, `backward`):
  pool      kAvg | kMax | kMaxIndices | kAdaptiveAvg | kAdaptiveMax | kAvgBackward |
            kMaxIndicesBackward | kAdaptiveAvgBackward | kAdaptiveMaxBackward | kUnpool | kUnpoolBackward |
            kMaxMask | kMaxMaskBackward (the mask layout: src/ops/pooling/pool_phase1.h)
  spatial   2 | 3             spatial dims (inputs: spatial + 2 dims, or + 1 without the batch dim)
  onnx_pads yes               aclnnMaxPool's pads (1, 2 or 4 values), int64 ceilMode and autoPad
Parameter roles come from the names: self, gradOutput, indices (an input when const, else the
index output), indicesOut; out / outputOut / gradInput / output / outRef (the output);
kernelSize / kernelShape, stride(s), padding(s) / pads, dilation(s), outputSize; ceilMode,
countIncludePad, divisorOverride, autoPad; cubeMathType is accepted and ignored (FLOAT compute).
"""

POOL_KEYS = {"pool", "spatial", "onnx_pads", "header", "dtypes", "backward"}
KINDS = ["kAvg", "kMax", "kMaxIndices", "kAdaptiveAvg", "kAdaptiveMax", "kAvgBackward",
         "kMaxIndicesBackward", "kAdaptiveAvgBackward", "kAdaptiveMaxBackward", "kUnpool", "kUnpoolBackward",
         "kMaxMask", "kMaxMaskBackward"]
TENSOR_ROLES = {"self": "self", "gradOutput": "grad", "indicesOut": "out_indices", "out": "out", "outputOut": "out",
                "gradInput": "out", "output": "out", "outRef": "out"}
ARRAY_ROLES = {"kernelSize": "kernel", "kernelShape": "kernel", "strides": "stride", "stride": "stride",
               "paddings": "padding", "padding": "padding", "pads": "padding", "dilation": "dilation",
               "dilations": "dilation", "outputSize": "output_size"}
ATTR_ROLES = {"ceilMode": "ceil", "countIncludePad": "include", "divisorOverride": "divisor", "autoPad": "auto_pad",
              "cubeMathType": "cube"}


def role_of(p):
    if p.kind == "tensor":
        if p.name == "indices":
            return "indices" if "const" in p.ctype else "out_indices"
        return TENSOR_ROLES.get(p.name)
    if p.kind == "other" and "aclIntArray" in p.ctype:
        return ARRAY_ROLES.get(p.name)
    if p.kind == "attr":
        return ATTR_ROLES.get(p.name)
    return None


def resolve(g, table, op):
    w = op.where
    for k in op.keys:
        if k not in POOL_KEYS:
            raise g.TableError(f"{w}: key '{k}' is not one of a pooling op's ({', '.join(sorted(POOL_KEYS))})")
    op.roles = {}
    for p in op.params:
        role = role_of(p)
        if role is None:
            raise g.TableError(f"{w}: parameter '{p.name}' has no role in a pooling op")
        op.roles[role] = p
    if "self" not in op.roles or "out" not in op.roles:
        raise g.TableError(f"{w}: a pooling op needs self and an output")
    op.pool = g.one(op, "pool")
    if op.pool not in KINDS:
        raise g.TableError(f"{w}: pool must be one of {', '.join(KINDS)}")
    op.spatial = int(g.one(op, "spatial", "2"))
    if op.spatial not in (2, 3):
        raise g.TableError(f"{w}: spatial must be 2 or 3")
    op.onnx_pads = g.one(op, "onnx_pads", "no") == "yes"
    op.header = g.one(op, "header", f"aclnn_{g.snake(op.name)}.h")
    op.dtypes = g.dtype_list(g.one(op, "dtypes", ""), w)
    if not op.dtypes:
        raise g.TableError(f"{w}: missing 'dtypes'")
    op.backward = g.one(op, "backward")
    op.input, op.output, op.extra_output, op.inplace = op.roles["self"], op.roles["out"], None, None
    op.result = "same"
    op.results = ["same"] + (["index"] if "out_indices" in op.roles else [])
    op.family = table.settings["family"]


def render_entry(g, table):
    out = g.family_entry_head(table, "pool_phase1", "ops/pooling/pool_phase1.h",
                              ["opsnn::core::dtype_bit", "opsnn::ops::PoolKind"])
    for op in table.ops:
        out.append(f"const ::opsnn::ops::PoolRule k{op.name}Rule = {{PoolKind::{op.pool}, {op.spatial}, "
                   f"{g.mask(op.dtypes)}, {str(op.onnx_pads).lower()}}};")
    out += ["}  // namespace", ""]
    names = {"self": "self", "grad": "grad", "indices": "indices", "out": "out", "out_indices": "out_indices",
             "kernel": "kernel", "stride": "stride", "padding": "padding", "dilation": "dilation",
             "output_size": "output_size"}
    for op in table.ops:
        r = op.roles
        lines = g.family_entry_open(op, "::opsnn::ops::PoolCall")
        for role, field in names.items():
            if role in r:
                p = r[role]
                lines += [f"    c.{field} = {p.name};", f'    c.{field}_name = "{p.name}";']
                if role in ("kernel", "stride", "padding", "dilation", "output_size"):
                    lines.append(f"    c.has_{field} = true;")
        if "ceil" in r:
            lines.append(f"    c.ceil_mode = {r['ceil'].name} != 0;")
        if "include" in r:
            lines.append(f"    c.count_include_pad = {r['include'].name};")
        if "divisor" in r:
            lines.append(f"    c.divisor_override = {r['divisor'].name};")
        if "auto_pad" in r:
            lines.append(f"    c.auto_pad = {r['auto_pad'].name};")
        if "cube" in r:
            lines.append(f"    (void){r['cube'].name};  // FLOAT compute whatever the cube math type")
        out += lines + g.family_entry_close(op, "pool_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "pool", "PoolTableCase", "pool_table_cases")
    arg = {"self": "a.self", "grad": "a.grad", "indices": "a.indices", "out": "a.out", "out_indices": "a.out_indices",
           "kernel": "a.kernel", "stride": "a.stride", "padding": "a.padding", "dilation": "a.dilation",
           "output_size": "a.output_size", "ceil": "a.ceil", "include": "a.include", "divisor": "a.divisor",
           "auto_pad": "a.auto_pad", "cube": "a.cube"}
    for t in tables:
        for op in t.ops:
            role_of_name = {p.name: k for k, p in op.roles.items()}
            args = ", ".join(arg[role_of_name[p.name]] for p in op.params)
            fields = [f'c.kind = "{op.pool}";', f"c.spatial = {op.spatial};",
                      f"c.onnx_pads = {str(op.onnx_pads).lower()};",
                      f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                      "c.roles = {" + ", ".join(f'"{role_of_name[p.name]}"' for p in op.params) + "};",
                      "c.names = {" + ", ".join(f'"{p.name}"' for p in op.params) + "};"]
            out += g.family_case(op, {}, "PoolTableCase", fields, "PoolArgs", args)
    return "\n".join(out + ["  return v;", "}", ""])
