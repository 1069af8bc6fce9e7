"""The convolution family of the op factory (imported by tools/gen_ops.py): tables whose `phase1 conv`
rows become ops::conv_phase1 entry points (src/ops/conv/conv_phase1.h) and ConvTableCase
registrations (tests/ops/test_op_table_conv.cpp).

Row format (besides the common `header`, `dtypes`, `backward`):
  conv     kConvolution | kConvDepthwise2d | kConvTbc | kConvolutionBackward | kConvTbcBackward | kIm2col
           | kIm2colBackward
           | kDeformableConv2d | kDeformableConv2dBackward | kQuantConvolution | kQuantConvolutionWeightNz
  role     NAME=ROLE ...          overrides a parameter's role (ConvTbcBackward's `self` is the gradient)
  sample   a=V ...                values for the tests (cube=, transposed=): one case per sample
  nullable NAME ...               pointer parameters that may be null (besides `...Optional`): the
                                  entry point checks every other one (gen_ops.family_null_checks)
  anydtype NAME ...               tensors whose dtypes the phase 1 checks alone (not check_tensor's list)
Parameter roles come from the names: input / self (the input), weight, bias / biasOptional, output /
out, gradOutput, gradInput, gradWeight, gradBias (tensors); stride, padding, dilation, outputPadding,
kernelSize, inputSize, biasSizes (int arrays), outputMask (bool array), transposed, groups, pad, cubeMathType;
DeformableConv2d's offset, deformOutOptional, offsetOut, gradOffset (tensors), deformableGroups, modulated;
QuantConvolution's scale (tensor), offsetx, roundMode (its `offset` tensor takes the offset role).
"""

CONV_KEYS = {"conv", "role", "sample", "header", "dtypes", "backward", "nullable", "anydtype"}
KINDS = {"kConvolution": "convolution", "kConvDepthwise2d": "depthwise2d", "kConvTbc": "tbc",
         "kConvolutionBackward": "convolution_backward", "kConvTbcBackward": "tbc_backward", "kIm2col": "im2col", "kIm2colBackward": "im2col_backward",
         "kDeformableConv2d": "deformable", "kDeformableConv2dBackward": "deformable_backward",
         "kQuantConvolution": "quant", "kQuantConvolutionWeightNz": "quant_nz"}
ROLES = {"input": "input", "self": "input", "x": "input", "weight": "weight", "bias": "bias",
         "biasOptional": "bias", "output": "output", "out": "output", "gradOutput": "grad_output",
         "gradInput": "grad_input", "gradWeight": "grad_weight", "gradBias": "grad_bias", "stride": "stride",
         "padding": "padding", "dilation": "dilation", "outputPadding": "output_padding",
         "kernelSize": "kernel_size", "inputSize": "input_size", "biasSizes": "bias_sizes", "outputMask": "output_mask",
         "transposed": "transposed", "groups": "groups", "pad": "pad", "cubeMathType": "cube_math_type",
         "offset": "offset", "deformOutOptional": "deform_out", "offsetOut": "offset_out", "gradOffset": "grad_offset",
         "deformableGroups": "deformable_groups", "modulated": "modulated",
         "scale": "scale", "offsetx": "offsetx", "roundMode": "round_mode"}
TENSOR_ROLES = {"input", "weight", "bias", "output", "grad_output", "grad_input", "grad_weight", "grad_bias",
                "offset", "deform_out", "offset_out", "grad_offset", "scale"}


def resolve(g, table, op):
    w = op.where
    for k in op.keys:
        if k not in CONV_KEYS:
            raise g.TableError(f"{w}: key '{k}' is not one of a conv op's ({', '.join(sorted(CONV_KEYS))})")
    override = {}
    for r in op.keys.get("role", []):
        for item in r.split():
            name, _, role = item.partition("=")
            if role not in ROLES.values():
                raise g.TableError(f"{w}: unknown role '{role}'")
            override[name] = role
    op.roles = {}
    for p in op.params:
        role = override.get(p.name, ROLES.get(p.name))
        if role is None:
            raise g.TableError(f"{w}: parameter '{p.name}' has no role in a conv op")
        if (role in TENSOR_ROLES) != (p.kind == "tensor"):
            raise g.TableError(f"{w}: parameter '{p.name}' cannot take the role '{role}'")
        op.roles[role] = p
    op.conv = g.one(op, "conv")
    if op.conv not in KINDS:
        raise g.TableError(f"{w}: conv must be one of {', '.join(KINDS)}")
    op.header = g.one(op, "header", f"aclnn_{g.snake(op.name)}.h")
    op.dtypes = g.dtype_list(g.one(op, "dtypes", ""), w)
    if not op.dtypes:
        raise g.TableError(f"{w}: missing 'dtypes'")
    op.samples = [g.parse_values(s, w) for s in op.keys.get("sample", [])] or [{}]
    op.backward = g.one(op, "backward")
    names = {p.name for p in op.params}
    op.nullable = " ".join(op.keys.get("nullable", [])).split()
    op.any_dtype = " ".join(op.keys.get("anydtype", [])).split()
    for n in op.nullable + op.any_dtype:
        if n not in names:
            raise g.TableError(f"{w}: nullable / anydtype names '{n}', which is not a parameter")
    op.input = op.roles.get("input", op.roles.get("grad_output"))
    op.output, op.extra_output, op.inplace = op.roles.get("output"), None, None
    op.result = "same"
    op.results = ["FLOAT16 or BF16"] if op.conv.startswith("kQuantConvolution") else ["same"]
    op.family = table.settings["family"]


def render_entry(g, table):
    out = g.family_entry_head(table, "conv_phase1", "ops/conv/conv_phase1.h",
                              ["opsnn::core::dtype_bit", "opsnn::ops::ConvKind"])
    for op in table.ops:
        out.append(f"const ::opsnn::ops::ConvRule k{op.name}Rule = {{ConvKind::{op.conv}, {g.mask(op.dtypes)}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::ConvCall")
        for role, p in op.roles.items():
            if role == "cube_math_type":
                lines.append(f"    c.cube_math_type = static_cast<int>({p.name});")
            else:
                lines.append(f"    c.{role} = {p.name};")
            if role in TENSOR_ROLES:
                lines.append(f'    c.{role}_name = "{p.name}";' if role in ("input", "weight", "bias", "output",
                                                                            "grad_output") else "")
        lines += g.family_null_checks(op, op.nullable, op.any_dtype)
        out += [ln for ln in lines if ln] + g.family_entry_close(op, "conv_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "conv", "ConvTableCase", "conv_table_cases")
    for t in tables:
        for op in t.ops:
            role_of = {p.name: k for k, p in op.roles.items()}
            args = ", ".join(f"a.{role_of[p.name]}" for p in op.params)
            for sample in op.samples:
                fields = [f'c.kind = "{KINDS[op.conv]}";',
                          f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                          f"c.cube = {sample.get('cube', '0')};",
                          f"c.transposed = {sample.get('transposed', 'false')};",
                          "c.names = {" + ", ".join(f'{{"{k}", "{p.name}"}}' for k, p in op.roles.items()) + "};"]
                out += g.family_case(op, sample, "ConvTableCase", fields, "ConvArgs", args)
    return "\n".join(out + ["  return v;", "}", ""])
