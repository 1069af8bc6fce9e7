"""The dim-wise family of the op factory (imported by tools/gen_ops.py): tables whose
`phase1 dimwise` rows become ops::dimwise_phase1 entry points and DimwiseTableCase registrations.

Row format (besides the common `header`, `dtypes`, `backward`):
  dimwise  kSoftmax           the line op (kernels::DimwiseOp)
  inputs   N                  the first N tensors are inputs (default 1); the others are outputs
  result   R [R]              per output: same | dtype | int64 | index (INT64 or INT32, the output's choice)
  shape    full|topk|reduced|all   the output line (default full)
  out_first N                 output k is the line's result N + k (Argsort: 1, the indices)
  sample   a=V ...            parameter values for the tests (k=, descending=, largest=, keepdim=)
A row whose prototype has a single tensor is in place (the tensor is read and written).
Parameter roles come from the prototype: `int64_t dim` (or `const aclScalar *dim`, an integral scalar); `int64_t k`; `bool keepdim` (any case);
`aclDataType dtype`; `bool descending` or `bool largest` (the order); `bool stable` and
`bool sorted` (always honoured: lines are sorted stably).
"""
import re

DIMWISE_KEYS = {"dimwise", "inputs", "result", "shape", "out_first", "sample", "header", "dtypes", "backward"}
RESULTS = {"same": "kSame", "dtype": "kDtypeArg", "int64": "kInt64", "index": "kIndex"}
SHAPES = {"full": "kFull", "topk": "kTopk", "reduced": "kReduced", "all": "kAll"}
OPS = {"kSoftmax": "softmax", "kLogSoftmax": "log_softmax", "kSoftmaxBackward": "softmax_backward",
       "kLogSoftmaxBackward": "log_softmax_backward", "kCumsum": "cumsum", "kCumprod": "cumprod", "kCummax": "cummax",
       "kCummin": "cummin", "kSort": "sort",
       "kTopk": "topk", "kKthvalue": "kthvalue", "kMedian": "median", "kNanMedian": "nanmedian"}
ROLE_FIELD = {"dim": "dim", "k": "params.k", "keepdim": "keepdim", "dtype": "dtype", "order": "params.descending"}


def role_of(p):
    t = p.ctype.replace("const", "").replace(" ", "")
    if t == "int64_t" and p.name in ("dim", "k"):
        return p.name
    if t == "aclScalar*" and p.name == "dim":
        return "dim_scalar"
    if t == "bool" and p.name.lower() == "keepdim":
        return "keepdim"
    if t == "aclDataType":
        return "dtype"
    if t == "bool" and p.name in ("descending", "largest"):
        return "order"
    if t == "bool" and p.name in ("stable", "sorted"):
        return "ignored"
    return None


def resolve(g, table, op):
    w = op.where
    for k in op.keys:
        if k not in DIMWISE_KEYS:
            raise g.TableError(f"{w}: key '{k}' is not one of a dim-wise row's ({', '.join(sorted(DIMWISE_KEYS))})")
    tensors = [p for p in op.params if p.kind == "tensor"]
    nin = int(g.one(op, "inputs", "1"))
    op.inputs, op.outputs = tensors[:nin], tensors[nin:]
    op.inplace_row = len(tensors) == 1 and nin == 1
    if op.inplace_row:
        op.outputs = list(op.inputs)
    if not op.inputs or not 1 <= len(op.outputs) <= 2 or nin > 2:
        raise g.TableError(f"{w}: a dim-wise op takes one or two inputs and one or two outputs")
    op.input, op.output, op.extra_output, op.inplace = op.inputs[0], op.outputs[0], None, None
    op.roles = {}
    for p in op.params:
        if p.kind == "tensor":
            continue
        r = role_of(p)
        if r is None:
            raise g.TableError(f"{w}: parameter '{p.name}' has no role in a dim-wise op")
        op.roles[r] = p
    op.dimwise = g.one(op, "dimwise")
    if op.dimwise not in OPS:
        raise g.TableError(f"{w}: dimwise must be one of {', '.join(OPS)}")
    op.header = g.one(op, "header", f"aclnn_{g.snake(op.name)}.h")
    op.dtypes = g.dtype_list(g.one(op, "dtypes", ""), w)
    if not op.dtypes:
        raise g.TableError(f"{w}: missing 'dtypes'")
    op.results = g.one(op, "result", "same").split()
    if len(op.results) != len(op.outputs) or any(r not in RESULTS for r in op.results):
        raise g.TableError(f"{w}: result needs one of {', '.join(RESULTS)} per output")
    op.shape = g.one(op, "shape", "full")
    if op.shape not in SHAPES:
        raise g.TableError(f"{w}: shape must be one of {', '.join(SHAPES)}")
    op.out_first = int(g.one(op, "out_first", "0"))
    op.samples = [g.parse_values(s, w) for s in op.keys.get("sample", [])] or [{}]
    op.backward = g.one(op, "backward")
    op.result = op.results[0]
    op.family = table.settings["family"]


def render_entry(g, table):
    out = g.family_entry_head(table, "dimwise_phase1", "ops/dimwise/dimwise_phase1.h",
                              ["opsnn::core::dtype_bit", "opsnn::kernels::DimwiseOp", "opsnn::ops::DimwiseResult",
                               "opsnn::ops::DimwiseShape"])
    for op in table.ops:
        res = ", ".join(f"DimwiseResult::{RESULTS[r]}" for r in op.results)
        out.append(f"const ::opsnn::ops::DimwiseRule k{op.name}Rule = {{DimwiseOp::{op.dimwise}, {g.mask(op.dtypes)}, "
                   f"{len(op.inputs)}, {len(op.outputs)}, {op.out_first}, {{{res}}}, DimwiseShape::{SHAPES[op.shape]}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::DimwiseCall")
        for i, t in enumerate(op.inputs):
            lines += [f"    c.in[{i}] = {t.name};", f'    c.in_name[{i}] = "{t.name}";']
        for role, p in op.roles.items():
            if role in ROLE_FIELD:
                lines.append(f"    c.{ROLE_FIELD[role]} = {p.name};")
            elif role == "dim_scalar":
                lines.append(f'    c.dim = ::opsnn::ops::dimwise_scalar_dim({p.name}, "{p.name}");')
        for i, t in enumerate(op.outputs):
            lines += [f"    c.out[{i}] = {t.name};", f'    c.out_name[{i}] = "{t.name}";']
        if op.inplace_row:
            lines.append("    c.inplace = true;")
        out += lines + g.family_entry_close(op, "dimwise_phase1")
    return "\n".join(out) + "\n"



def test_arg(op, p):
    if p.kind == "tensor":
        return f"a.in[{op.inputs.index(p)}]" if p in op.inputs else f"a.out[{op.outputs.index(p)}]"
    role = next(k for k, v in op.roles.items() if v is p)
    return {"dim": "a.dim", "dim_scalar": "dim_scalar(a.dim)", "k": "a.k", "keepdim": "a.keepdim", "dtype": "a.dtype", "order": "a.descending",
            "ignored": "true"}[role]


def render_tests(g, tables):
    out = g.family_tests_head(tables, "dim-wise", "DimwiseTableCase", "dimwise_table_cases")
    for t in tables:
        for op in t.ops:
            args = ", ".join(test_arg(op, p) for p in op.params)
            for sample in op.samples:
                fields = [f'c.kind = "{OPS[op.dimwise]}";',
                          f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                          f"c.results = {{{', '.join(chr(34) + x + chr(34) for x in op.results)}}};",
                          f'c.shape = "{op.shape}";', f"c.nin = {len(op.inputs)};", f"c.out_first = {op.out_first};",
                          f"c.has_keepdim = {str('keepdim' in op.roles).lower()};", f"c.k = {sample.get('k', '1')};",
                          f"c.descending = {sample.get('descending', sample.get('largest', 'false'))};",
                          f'c.in_name = "{op.inputs[0].name}";',
                          f"c.inplace = {str(op.inplace_row).lower()};"]
                out += g.family_case(op, sample, "DimwiseTableCase", fields, "DimwiseArgs", args)
    return "\n".join(out + ["  return v;", "}", ""])
