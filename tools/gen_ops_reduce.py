"""The reduction family of the op factory (imported by tools/gen_ops.py): tables whose
`phase1 reduce` rows become ops::reduce_phase1 entry points and ReduceTableCase registrations.

Row format (besides the common `header`, `dtypes`, `backward`):
  reduce   kSum               the reducer (kernels::ReduceOp)
  result   R [R]              per output: same | dtype | float | bool | index | int64
  null_dims all               a null dim list reduces every dim (default: 161001)
  nonempty yes                reducing a dim of size 0 is an error (extrema, indices)
  sample   a=V ...            parameter values for the tests (p=, correction=, unbiased=)
Parameter roles come from the prototype: the first tensor is the input and the other tensors are
the outputs; `const aclIntArray *` is the dim list (empty: every dim); `int64_t dim` one dim (no
dim parameter: every dim); a `bool keep...` keepdim; `aclDataType dtype` the result dtype; an
aclScalar the norm's p; `int64_t correction` or `bool unbiased` the variance's correction.
"""
import re

REDUCE_KEYS = {"reduce", "result", "null_dims", "nonempty", "sample", "header", "dtypes", "backward"}
RESULTS = {"same": "kSame", "dtype": "kDtypeArg", "float": "kFloat", "bool": "kBool", "index": "kIndex",
           "int64": "kInt64"}
OPS = {"kSum": "sum", "kMean": "mean", "kProd": "prod", "kMax": "max", "kMin": "min", "kArgMax": "argmax",
       "kArgMin": "argmin", "kAll": "all", "kAny": "any", "kCountNonzero": "count_nonzero", "kNansum": "nansum", "kAminmax": "aminmax", "kNorm": "norm",
       "kLogSumExp": "logsumexp", "kVar": "var", "kStd": "std", "kVarMean": "var_mean", "kStdMean": "std_mean"}


def base_type(ctype):
    return ctype.replace("const", "").replace(" ", "")


def resolve(g, table, op):
    """Fills op's reduction attributes; g is the gen_ops module (helpers, TableError)."""
    w = op.where
    for k in op.keys:
        if k not in REDUCE_KEYS:
            raise g.TableError(f"{w}: key '{k}' is not one of a reduction row's ({', '.join(sorted(REDUCE_KEYS))})")
    tensors = [p for p in op.params if p.kind == "tensor"]
    if len(tensors) < 2 or len(tensors) > 3:
        raise g.TableError(f"{w}: a reduction takes self and one or two outputs")
    op.input, op.outputs = tensors[0], tensors[1:]
    op.output, op.extra_output, op.inplace = op.outputs[0], None, None
    op.roles = {}
    for p in op.params:
        t = base_type(p.ctype)
        if p.kind == "tensor":
            continue
        if t == "aclIntArray*":
            op.roles["dims"] = p
        elif t in ("int64_t",) and p.name == "dim":
            op.roles["dim"] = p
        elif t == "bool" and p.name.lower().startswith("keep"):
            op.roles["keepdim"] = p
        elif t == "aclDataType":
            op.roles["dtype"] = p
        elif t == "aclScalar*":
            op.roles["p"] = p
        elif t == "int64_t" and p.name == "correction":
            op.roles["correction"] = p
        elif t == "bool" and p.name == "unbiased":
            op.roles["unbiased"] = p
        else:
            raise g.TableError(f"{w}: parameter '{p.name}' has no role in a reduction")
    op.reduce = g.one(op, "reduce")
    if op.reduce not in OPS:
        raise g.TableError(f"{w}: reduce must be one of {', '.join(OPS)}")
    op.header = g.one(op, "header", f"aclnn_{g.snake(op.name)}.h")
    op.dtypes = g.dtype_list(g.one(op, "dtypes", ""), w)
    if not op.dtypes:
        raise g.TableError(f"{w}: missing 'dtypes'")
    op.results = (g.one(op, "result", "same")).split()
    if len(op.results) != len(op.outputs) or any(r not in RESULTS for r in op.results):
        raise g.TableError(f"{w}: result needs one of {', '.join(RESULTS)} per output")
    if "dtype" in op.results and "dtype" not in op.roles:
        raise g.TableError(f"{w}: result 'dtype' without an aclDataType parameter")
    op.null_dims_all = g.one(op, "null_dims", "error") == "all"
    op.nonempty = g.one(op, "nonempty", "no") == "yes"
    op.samples = [g.parse_values(s, w) for s in op.keys.get("sample", [])] or [{}]
    op.backward = g.one(op, "backward")
    op.result = op.results[0]
    op.family = table.settings["family"]


def render_entry(g, table):
    out = g.family_entry_head(table, "reduce_phase1", "ops/reduction/reduce_phase1.h",
                              ["opsnn::core::dtype_bit", "opsnn::kernels::ReduceOp", "opsnn::ops::ReduceResult",
                               "Dims = opsnn::ops::ReduceCall::Dims"])
    for op in table.ops:
        res = ", ".join(f"ReduceResult::{RESULTS[r]}" for r in op.results)
        out.append(f"const ::opsnn::ops::ReduceRule k{op.name}Rule = {{ReduceOp::{op.reduce}, {g.mask(op.dtypes)}, "
                   f"{len(op.outputs)}, {{{res}}}, {str(op.null_dims_all).lower()}, {str(op.nonempty).lower()}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        r = op.roles
        lines = g.family_entry_open(op, "::opsnn::ops::ReduceCall")
        lines += [f'    c.self = {op.input.name};', f'    c.self_name = "{op.input.name}";']
        if "dims" in r:
            lines += ["    c.dims_kind = Dims::kList;", f"    c.dims = {r['dims'].name};",
                      f'    c.dims_name = "{r["dims"].name}";']
        elif "dim" in r:
            lines += ["    c.dims_kind = Dims::kOne;", f"    c.dim = {r['dim'].name};", f'    c.dims_name = "{r["dim"].name}";']
        if "keepdim" in r:
            lines.append(f"    c.keepdim = {r['keepdim'].name};")
        if "dtype" in r:
            lines.append(f"    c.dtype = {r['dtype'].name};")
        if "p" in r:
            lines += [f"    c.p_scalar = {r['p'].name};", f'    c.p_name = "{r["p"].name}";']
        if "correction" in r:
            lines.append(f"    c.params.correction = static_cast<double>({r['correction'].name});")
        if "unbiased" in r:
            lines.append(f"    c.params.correction = {r['unbiased'].name} ? 1.0 : 0.0;")
        for i, t in enumerate(op.outputs):
            lines += [f"    c.out[{i}] = {t.name};", f'    c.out_name[{i}] = "{t.name}";']
        out += lines + g.family_entry_close(op, "reduce_phase1")
    return "\n".join(out) + "\n"



def test_arg(op, p):
    """The ReduceArgs field (tests/ops/test_op_table_reduce.cpp) passed for parameter p."""
    if p.kind == "tensor":
        return "a.self" if p is op.input else f"a.out[{op.outputs.index(p)}]"
    role = next(k for k, v in op.roles.items() if v is p)
    return {"dims": "a.dims", "dim": "a.dim", "keepdim": "a.keepdim", "dtype": "a.dtype", "p": "a.p",
            "correction": "a.correction", "unbiased": "a.unbiased"}[role]


def render_tests(g, tables):
    out = g.family_tests_head(tables, "reduction", "ReduceTableCase", "reduce_table_cases")
    for t in tables:
        for op in t.ops:
            r = op.roles
            dims_kind = "list" if "dims" in r else "one" if "dim" in r else "all"
            args = ", ".join(test_arg(op, p) for p in op.params)
            for sample in op.samples:
                corr = sample.get("correction", "1")
                if "unbiased" in r:
                    corr = "1" if sample.get("unbiased", "true") == "true" else "0"
                fields = [f'c.kind = "{OPS[op.reduce]}";',
                          f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                          f"c.results = {{{', '.join(chr(34) + x + chr(34) for x in op.results)}}};",
                          f'c.dims_kind = "{dims_kind}";', f"c.has_keepdim = {str('keepdim' in r).lower()};",
                          f"c.null_dims_all = {str(op.null_dims_all).lower()};",
                          f"c.nonempty = {str(op.nonempty).lower()};", f"c.p = {sample.get('p', '2')};",
                          f"c.correction = {corr};", f'c.self_name = "{op.input.name}";']
                out += g.family_case(op, sample, "ReduceTableCase", fields, "ReduceArgs", args)
    return "\n".join(out + ["  return v;", "}", ""])
