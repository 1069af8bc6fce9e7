#!/usr/bin/env python3
"""The op factory's generator: one declarative table per op family drives the public headers, the
entry points, the test registration and the coverage docs.

Inputs
  src/ops/catalog.txt      ops whose phase 1 is still hand-written: header | op | family | params
  src/ops/<family>/*.ops   op tables (format below, and docs/ARCHITECTURE.md "The op factory")

Outputs
  include/aclnnop/*.h      the public headers (committed; `--check` verifies them)
  README.md                the op table between <!-- ops-table:begin/end -->
  docs/OPS.md              the coverage table: every API, its dtypes, in-place and backward twins
  --entry T OUT.cpp        the extern "C" phase-1 / launch pairs of table T (written at build time)
  --tests OUT.inc          the test registration of every table op (written at build time)

Usage: tools/gen_ops.py            # rewrite headers, README table, docs/OPS.md
       tools/gen_ops.py --check    # exit 1 if any of them is out of date (a test runs this)
       tools/gen_ops.py --entry src/ops/math/unary_math.ops build/x.cpp
       tools/gen_ops.py --tests build/op_table_cases.inc

Op table format (one file per family and phase 1; `#` starts a comment):
  family NAME               the family (README / OPS.md grouping)
  phase1 unary              the family phase 1 the rows use: unary element-wise (this format), reduce
                            (tools/gen_ops_reduce.py) or layout (tools/gen_ops_layout.py)
  special_tol X             default relative tolerance of the special-value test (FLOAT)
  signed_zero yes|no        default: the special-value test checks the sign of zero results

  Name(<C parameters>)      one op: its phase-1 parameters before workspaceSize / executor
      inplace  InplaceName(<C parameters>)   its in-place twin
      header   aclnn_x.h    default aclnn_<snake_case(Name)>.h
      kernel   kOp          the element-wise functor (kernels/elementwise/lists/*.inc), or
               attr: 0=kA 1=kB   chosen by an integer attribute (other values are rejected)
      dtypes   D ...        accepted input dtypes (names, or floating / real / real_bool / act)
      inplace_dtypes D ...  for the in-place twin (default: dtypes; floating ones for result float)
      result   same|float   same: the input's dtype; float: integers and BOOL compute in FLOAT and
                            the output must be floating
      out_dtype same        the output must have the input's dtype (documented so for some ops;
                            default: any dtype the result can be cast to, as in PyTorch)
      compute_integral D    integer inputs compute in D (e.g. DOUBLE)
      scalars  E; E; ...    the functor's s0.. as C++ expressions of the parameters (default: every
                            scalar / attribute parameter in order; `none`: no scalars)
      default  name = V     value of an optional scalar parameter (named ...Optional) when null
      require  EXPR ; MSG   phase-1 check on the parameter values (161002 with MSG when false)
      extra_output name     an output registered but not written (documented as unused)
      backward Name         the backward twin (coverage table)
      ref      EXPR         float64 reference of the result, a C++ expression of x and the parameters
      domain   LO HI        input range of the random tests
      sample   a=V b=V      parameter values for the tests (one line per sample; null = nullptr)
      reject   a=V ; WORD   parameter values phase 1 must reject (161002, message containing WORD)
      special_tol / signed_zero   per-op overrides
"""
import collections
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import gen_ops_reduce  # noqa: E402  (the reduction family)
import gen_ops_layout  # noqa: E402  (the copy / layout family)

ROOT = pathlib.Path(__file__).resolve().parent.parent
CATALOG = ROOT / "src" / "ops" / "catalog.txt"
HEADER_DIR = ROOT / "include" / "aclnnop"
README = ROOT / "README.md"
OPS_DOC = ROOT / "docs" / "OPS.md"
EW_LISTS = ROOT / "src" / "kernels" / "elementwise" / "lists"

# Rows whose parameter field starts with this are one-shot functions (e.g.
# aclnnCalculateMatmulWeightSizeV2): the rest of the field is the complete parameter list.
ONESHOT = "oneshot:"

DTYPES = ["FLOAT", "FLOAT16", "BF16", "DOUBLE", "INT8", "INT16", "INT32", "INT64", "UINT8", "BOOL"]
DTYPE_SETS = {
    "act": ["FLOAT", "FLOAT16", "BF16"],
    "floating": ["FLOAT", "FLOAT16", "BF16", "DOUBLE"],
    "real": ["FLOAT", "FLOAT16", "BF16", "DOUBLE", "INT8", "INT16", "INT32", "INT64", "UINT8"],
    "real_bool": ["FLOAT", "FLOAT16", "BF16", "DOUBLE", "INT8", "INT16", "INT32", "INT64", "UINT8", "BOOL"],
}
FLOATING = set(DTYPE_SETS["floating"])
OP_KEYS = {"inplace", "header", "kernel", "dtypes", "inplace_dtypes", "result", "out_dtype", "compute_integral", "scalars",
           "default", "require", "extra_output", "backward", "ref", "domain", "sample", "reject", "special_tol",
           "signed_zero"}
FILE_KEYS = {"family", "phase1", "special_tol", "signed_zero"}


class TableError(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# Prototypes and their parameter roles


Param = collections.namedtuple("Param", "ctype name kind")  # kind: tensor / tensor_ref / scalar / attr / other


def parse_params(text, where):
    params = []
    for raw in [p.strip() for p in text.split(",") if p.strip()]:
        m = re.match(r"^(.*?)([A-Za-z_][A-Za-z0-9_]*)$", raw)
        if not m:
            raise TableError(f"{where}: cannot read parameter '{raw}'")
        ctype, name = m.group(1).strip(), m.group(2)
        base = ctype.replace("const", "").replace(" ", "")
        if base == "aclTensor*":
            kind = "tensor"
        elif base == "aclScalar*":
            kind = "scalar"
        elif base in ("int64_t", "int32_t", "int", "double", "float", "bool", "int8_t"):
            kind = "attr"
        else:
            kind = "other"
        params.append(Param(ctype, name, kind))
    return params


def parse_signature(text, where):
    m = re.match(r"^([A-Z][A-Za-z0-9]*)\((.*)\)$", text.strip())
    if not m:
        raise TableError(f"{where}: expected Name(<parameters>), got '{text}'")
    return m.group(1), m.group(2).strip(), parse_params(m.group(2), where)


def snake(name):
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    return s.lower()


# ---------------------------------------------------------------------------------------------
# Op tables


class Op:
    def __init__(self, name, params_text, params, where):
        self.name, self.params_text, self.params, self.where = name, params_text, params, where
        self.keys = collections.defaultdict(list)


class Table:
    def __init__(self, path):
        self.path = path
        self.settings = {}
        self.ops = []


def ew_functor_names():
    names = set()
    for f in EW_LISTS.glob("*.inc"):
        names.update("k" + n for n in re.findall(r"^OPSNN_EW\((\w+),", f.read_text(), re.M))
    return names


def read_table(path):
    table = Table(path)
    op = None
    for no, line in enumerate(path.read_text().splitlines(), 1):
        where = f"{path.relative_to(ROOT)}:{no}"
        body = line.rstrip()
        if line.lstrip().startswith("#") or not body.strip():
            continue
        if not line[0].isspace():
            word = body.split(None, 1)
            if word[0] in FILE_KEYS and op is None:
                table.settings[word[0]] = word[1].strip() if len(word) > 1 else ""
                continue
            name, ptext, params = parse_signature(body, where)
            op = Op(name, ptext, params, where)
            table.ops.append(op)
            continue
        if op is None:
            raise TableError(f"{where}: an indented line before the first op")
        key, _, value = body.strip().partition(" ")
        if key not in OP_KEYS | gen_ops_reduce.REDUCE_KEYS | gen_ops_layout.LAYOUT_KEYS:
            raise TableError(f"{where}: unknown key '{key}' (known: {', '.join(sorted(OP_KEYS))})")
        op.keys[key].append(value.strip())
    for k in ("family", "phase1"):
        if k not in table.settings:
            raise TableError(f"{path.relative_to(ROOT)}: missing '{k}'")
    kind = table.settings["phase1"]
    if kind == "reduce":
        for op in table.ops:
            gen_ops_reduce.resolve(sys.modules[__name__], table, op)
        return table
    if kind == "layout":
        for op in table.ops:
            gen_ops_layout.resolve(sys.modules[__name__], table, op)
        return table
    if kind != "unary":
        raise TableError(f"{path.relative_to(ROOT)}: unknown phase1 '{kind}'")
    functors = ew_functor_names()
    for op in table.ops:
        for k in op.keys:
            if k not in OP_KEYS:
                raise TableError(f"{op.where}: unknown key '{k}' (known: {', '.join(sorted(OP_KEYS))})")
        resolve_unary(table, op, functors)
    return table


def one(op, key, default=None):
    v = op.keys.get(key, [])
    if len(v) > 1:
        raise TableError(f"{op.where}: '{key}' given {len(v)} times")
    return v[0] if v else default


def dtype_list(text, where):
    out = []
    for w in text.split():
        if w in DTYPE_SETS:
            out += DTYPE_SETS[w]
        elif w in DTYPES:
            out.append(w)
        else:
            raise TableError(f"{where}: unknown dtype '{w}'")
    return list(dict.fromkeys(out))


def parse_values(text, where):
    vals = {}
    for item in text.split():
        k, eq, v = item.partition("=")
        if not eq:
            raise TableError(f"{where}: expected name=value, got '{item}'")
        vals[k] = v
    return vals


def resolve_unary(table, op, functors):
    w = op.where
    tensors = [p for p in op.params if p.kind == "tensor"]
    if len(tensors) < 2:
        raise TableError(f"{w}: a unary op takes an input and an output tensor")
    op.input, op.output = tensors[0], tensors[1]
    extra = one(op, "extra_output")
    op.extra_output = None
    if extra:
        match = [p for p in tensors[2:] if p.name == extra]
        if not match:
            raise TableError(f"{w}: extra_output '{extra}' is not a tensor parameter")
        op.extra_output = match[0]
    elif len(tensors) > 2:
        raise TableError(f"{w}: more than two tensors (declare the others with extra_output)")
    op.args = [p for p in op.params if p.kind in ("scalar", "attr")]
    if any(p.kind == "other" for p in op.params):
        raise TableError(f"{w}: parameter types the unary phase 1 cannot take")
    op.header = one(op, "header", f"aclnn_{snake(op.name)}.h")
    kernel = one(op, "kernel")
    if not kernel:
        raise TableError(f"{w}: missing 'kernel'")
    op.kernel_attr, op.kernel_map = None, {}
    if ":" in kernel:
        attr, _, choices = kernel.partition(":")
        op.kernel_attr = attr.strip()
        if op.kernel_attr not in [p.name for p in op.args if p.kind == "attr"]:
            raise TableError(f"{w}: kernel chosen by '{op.kernel_attr}', which is not an attribute parameter")
        op.kernel_map = dict(c.split("=") for c in choices.split())
        kernels = list(op.kernel_map.values())
    else:
        kernels = [kernel]
    op.kernel = kernel
    for k in kernels:
        if k not in functors:
            raise TableError(f"{w}: '{k}' is not an element-wise functor (kernels/elementwise/lists/*.inc)")
    op.dtypes = dtype_list(one(op, "dtypes", ""), w)
    if not op.dtypes:
        raise TableError(f"{w}: missing 'dtypes'")
    op.result = one(op, "result", "same")
    if op.result not in ("same", "float"):
        raise TableError(f"{w}: result must be 'same' or 'float'")
    op.out_same = one(op, "out_dtype", "castable") == "same"
    idt = one(op, "inplace_dtypes")
    op.inplace_dtypes = dtype_list(idt, w) if idt else (
        [d for d in op.dtypes if d in FLOATING] if op.result == "float" else list(op.dtypes))
    op.compute_integral = one(op, "compute_integral")
    if op.compute_integral and op.compute_integral not in DTYPES:
        raise TableError(f"{w}: unknown dtype '{op.compute_integral}'")
    scalars = one(op, "scalars")
    if scalars == "none":
        op.scalars = []
    else:
        op.scalars = [s.strip() for s in scalars.split(";")] if scalars else [p.name for p in op.args]
    if len(op.scalars) > 3:
        raise TableError(f"{w}: at most 3 functor scalars")
    op.defaults = {}
    for d in op.keys.get("default", []):
        k, _, v = d.partition("=")
        op.defaults[k.strip()] = v.strip()
    for p in op.args:
        if p.kind == "scalar" and p.name.endswith("Optional") and p.name not in op.defaults:
            raise TableError(f"{w}: optional scalar '{p.name}' needs a 'default'")
    op.requires = []
    for r in op.keys.get("require", []):
        expr, _, msg = r.partition(";")
        if not msg.strip():
            raise TableError(f"{w}: require needs 'EXPR ; message'")
        op.requires.append((expr.strip(), msg.strip()))
    op.inplace = None
    ip = one(op, "inplace")
    if ip:
        name, ptext, params = parse_signature(ip, w)
        ts = [p for p in params if p.kind == "tensor"]
        if len(ts) != 1:
            raise TableError(f"{w}: the in-place twin takes exactly one tensor")
        if [(p.name, p.kind) for p in params if p.kind != "tensor"] != [(p.name, p.kind) for p in op.args]:
            raise TableError(f"{w}: the in-place twin's parameters differ from the op's")
        op.inplace = (name, ptext, params, ts[0])
    op.backward = one(op, "backward")
    op.ref = one(op, "ref")
    dom = one(op, "domain", "-6 6").split()
    op.domain = (float(dom[0]), float(dom[1]))
    op.samples = [parse_values(s, w) for s in op.keys.get("sample", [])] or [{}]
    for s in op.samples:
        for p in op.args:
            if p.name not in s and p.name not in op.defaults:
                raise TableError(f"{w}: sample lacks a value for '{p.name}'")
    op.rejects = []
    for r in op.keys.get("reject", []):
        vals, _, word = r.partition(";")
        op.rejects.append((parse_values(vals, w), word.strip()))
    op.special_tol = float(one(op, "special_tol", table.settings.get("special_tol", "1e-5")))
    op.signed_zero = one(op, "signed_zero", table.settings.get("signed_zero", "no")) == "yes"
    op.family = table.settings["family"]
    if not op.ref:
        raise TableError(f"{w}: missing 'ref' (the float64 reference the tests use)")


def all_tables():
    return [read_table(p) for p in sorted((ROOT / "src" / "ops").glob("*/*.ops"))]


# ---------------------------------------------------------------------------------------------
# Headers, README table, coverage doc


def read_catalog():
    ops = []
    for line in CATALOG.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        header, op, family, params = [f.strip() for f in line.split("|", 3)]
        ops.append((header, op, family, params))
    return ops


def table_entries(tables):
    """(header, op, family, params) rows of every table op, in table order."""
    rows = []
    for t in tables:
        for op in t.ops:
            rows.append((op.header, op.name, op.family, op.params_text))
            if op.inplace:
                rows.append((getattr(op, "inplace_header", op.header), op.inplace[0], op.family, op.inplace[1]))
    return rows


def render_header(header, ops):
    guard = "OPSNN_ACLNNOP_" + re.sub(r"[^A-Za-z0-9]", "_", header).upper() + "_"
    out = [
        f"/* OpsNN operator header {header} — generated by tools/gen_ops.py from the op",
        " * tables (src/ops/catalog.txt, src/ops/<family>/<table>.ops); do not edit. */",
        f"#ifndef {guard}",
        f"#define {guard}",
        "",
        '#include "aclnn/aclnn_base.h"',
        '#include "aclnn_util.h"',
        "",
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
        "",
    ]
    for _, op, _, params in ops:
        if params.startswith(ONESHOT):
            out.append(f"ACLNN_API aclnnStatus aclnn{op}({params[len(ONESHOT):].strip()});")
            out.append("")
            continue
        out.append(f"ACLNN_API aclnnStatus aclnn{op}GetWorkspaceSize({params}, uint64_t *workspaceSize,")
        out.append(f"    aclOpExecutor **executor);")
        out.append(f"ACLNN_API aclnnStatus aclnn{op}(void *workspace, uint64_t workspaceSize, "
                   f"aclOpExecutor *executor, aclrtStream stream);")
        out.append("")
    out += ["#ifdef __cplusplus", "}", "#endif", "", f"#endif /* {guard} */", ""]
    return "\n".join(out)


def render_table(ops):
    by_family = collections.OrderedDict()
    for header, op, family, params in ops:
        if params.startswith(ONESHOT):
            continue
        by_family.setdefault(family, []).append((op, header))
    rows = ["| family | ops (header) |", "|---|---|"]
    for family, items in by_family.items():
        cells = ", ".join(f"`aclnn{op}` ({header})" for op, header in items)
        rows.append(f"| {family} | {cells} |")
    rows.append("")
    count = sum(1 for op in ops if not op[3].startswith(ONESHOT))
    rows.append(f"{count} two-phase ops in total (generated by tools/gen_ops.py; per-op dtypes in docs/OPS.md).")
    return "\n".join(rows)


def render_ops_doc(tables, catalog):
    out = ["# Operator coverage", "",
           "Generated by `tools/gen_ops.py` from the op tables; do not edit. Table-driven ops list the",
           "dtypes their phase 1 accepts (in place: the in-place twin's), the result rule and the",
           "backward twin; ops still hand-written (src/ops/catalog.txt) list their header.", ""]
    out += ["## Table-driven ops", "", "| API | family | dtypes | in place | result | backward | table |",
            "|---|---|---|---|---|---|---|"]
    for t in tables:
        for op in t.ops:
            ip = f"`aclnn{op.inplace[0]}`: {' '.join(op.inplace_dtypes)}" if op.inplace else "—"
            res = ("FLOAT for integers" if op.result == "float" else "self's dtype") if not hasattr(op, "results") \
                else " + ".join(op.results)
            bw = f"`aclnn{op.backward}`" if op.backward else "—"
            out.append(f"| `aclnn{op.name}` | {op.family} | {' '.join(op.dtypes)} | {ip} | {res} | {bw} | "
                       f"{t.path.relative_to(ROOT)} |")
    out += ["", "## Hand-written ops", "", "| API | family | header |", "|---|---|---|"]
    for header, op, family, params in catalog:
        if params.startswith(ONESHOT):
            continue
        out.append(f"| `aclnn{op}` | {family} | {header} |")
    out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# Entry points (build time)


def cxx_dtype(d):
    return f"ACL_{d}"


def mask(dtypes):
    return " | ".join(f"dtype_bit({cxx_dtype(d)})" for d in dtypes) or "0"


def render_entry(table):
    if table.settings["phase1"] == "reduce":
        return gen_ops_reduce.render_entry(sys.modules[__name__], table)
    if table.settings["phase1"] == "layout":
        return gen_ops_layout.render_entry(sys.modules[__name__], table)
    src = table.path.relative_to(ROOT)
    out = [f"// Generated by tools/gen_ops.py from {src}; do not edit.",
           f"// The phase-1 / launch pairs of the {table.settings['family']} table, over ops::unary_phase1.",
           "#include <cmath>", "", '#include "ops/elementwise/unary_phase1.h"']
    for h in dict.fromkeys(op.header for op in table.ops):
        out.append(f'#include "aclnnop/{h}"')
    out += ["", "using opsnn::core::dtype_bit;", "using opsnn::kernels::EwOp;", "", "namespace {"]
    for op in table.ops:
        out.append(f"const ::opsnn::ops::UnaryRule k{op.name}Rule = {{")
        out.append(f"    /*kernel*/ EwOp::{op.kernel if not op.kernel_attr else list(op.kernel_map.values())[0]},")
        out.append(f"    /*dtypes*/ {mask(op.dtypes)},")
        out.append(f"    /*inplace_dtypes*/ {mask(op.inplace_dtypes)},")
        out.append(f"    /*float_result*/ {'true' if op.result == 'float' else 'false'},")
        out.append(f"    /*out_same_dtype*/ {'true' if op.out_same else 'false'},")
        ci = cxx_dtype(op.compute_integral) if op.compute_integral else "ACL_DT_UNDEFINED"
        out.append(f"    /*compute_integral*/ {ci},")
        out.append("};")
    out.append("}  // namespace")
    out.append("")
    for op in table.ops:
        out += render_entry_pair(op, op.name, op.params_text, op.params, False)
        if op.inplace:
            name, ptext, params, _ = op.inplace
            out += render_entry_pair(op, name, ptext, params, True)
    return "\n".join(out) + "\n"


def render_entry_pair(op, name, ptext, params, inplace):
    tensor = [p for p in params if p.kind == "tensor"][0]
    lines = [f'extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnn{name}GetWorkspaceSize({ptext},',
             "    uint64_t *workspaceSize, aclOpExecutor **executor) {",
             f'  return ::opsnn::core::phase1("aclnn{name}", workspaceSize, executor, [&](::opsnn::core::OpBuilder &b) {{',
             f"    ::opsnn::ops::UnaryCall c{{k{op.name}Rule}};"]
    # Null checks and parameter values in prototype order.
    for p in params:
        if p.kind == "tensor" and (op.extra_output is None or p.name != op.extra_output.name):
            lines.append(f'    ::opsnn::ops::unary_check_tensor({p.name}, "{p.name}");')
        elif p.kind == "scalar":
            if p.name in op.defaults:
                lines.append(f"    const double {p.name}_v = {p.name} ? {p.name}->to_double() : "
                             f"static_cast<double>({op.defaults[p.name]});")
            else:
                lines.append(f'    const double {p.name}_v = ::opsnn::core::scalar_value({p.name}, "{p.name}");')
        elif p.kind == "attr":
            lines.append(f"    const double {p.name}_v = static_cast<double>({p.name});")
    for p in op.args:  # the expressions below use the parameter names for their values
        lines.append(f"    [[maybe_unused]] const double {p.name}_d = {p.name}_v;")
    subst = lambda e: re.sub(r"\b(" + "|".join(re.escape(p.name) for p in op.args) + r")\b", r"\1_d", e) \
        if op.args else e
    for expr, msg in op.requires:
        cmsg = msg.replace('"', '\\"')
        lines.append(f'    if (!({subst(expr)})) ::opsnn::throw_error(ACLNN_ERR_PARAM_INVALID, "{cmsg}");')
    if op.kernel_attr:
        a = op.kernel_attr
        conds = " else ".join(f"if ({a} == {v}) c.kernel = EwOp::{k};" for v, k in op.kernel_map.items())
        allowed = ", ".join(op.kernel_map.keys())
        lines.append(f"    {conds}")
        lines.append(f'    else ::opsnn::throw_error(ACLNN_ERR_PARAM_INVALID, "{a} must be one of {allowed}, got %lld", '
                     f"static_cast<long long>({a}));")
    for i, s in enumerate(op.scalars):
        lines.append(f"    c.scalars[{i}] = {subst(s)};")
    lines.append(f"    c.nscalars = {len(op.scalars)};")
    lines.append(f'    c.self = {tensor.name};')
    lines.append(f'    c.self_name = "{tensor.name}";')
    if inplace:
        lines.append("    c.inplace = true;")
    else:
        lines.append(f"    c.out = {op.output.name};")
        lines.append(f'    c.out_name = "{op.output.name}";')
    lines.append("    ::opsnn::ops::unary_phase1(b, c);")
    if op.extra_output and not inplace:
        lines.append(f"    b.output({op.extra_output.name});  // documented as unused: registered, never written")
    lines += ["  });", "}", f"OPSNN_DEFINE_LAUNCH({name})", ""]
    return lines


# ---------------------------------------------------------------------------------------------
# Test registration (build time)


def cxx_value(p, v):
    if v == "null":
        return "nullptr"
    if p.kind == "scalar":
        return f"scalar_arg({v})"
    return v


def render_tests(tables):
    out = ["// Generated by tools/gen_ops.py from the op tables; do not edit.",
           "// One UnaryTableCase per table op and sample (tests/ops/test_op_table_unary.cpp runs them)."]
    tables = [t for t in tables if t.settings["phase1"] == "unary"]
    for h in dict.fromkeys(op.header for t in tables for op in t.ops):
        out.append(f'#include "aclnnop/{h}"')
    out += ["", "inline std::vector<UnaryTableCase> unary_table_cases() {", "  std::vector<UnaryTableCase> v;"]
    for t in tables:
        for op in t.ops:
            for si, sample in enumerate(op.samples):
                out += render_case(op, sample, si)
    out += ["  return v;", "}", ""]
    return "\n".join(out)


def sample_args(op, params, sample, tensors):
    args = []
    for p in params:
        if p.kind == "tensor":
            args.append(tensors.get(p.name, "nullptr"))
        else:
            v = sample.get(p.name, op.defaults.get(p.name))
            if p.kind == "scalar" and p.name not in sample and p.name in op.defaults:
                v = "null"
            args.append(cxx_value(p, v))
    return ", ".join(args)


def render_case(op, sample, si):
    label = op.name + ("[" + ",".join(f"{k}={v}" for k, v in sample.items()) + "]" if sample else "")
    binds = []
    for p in op.args:
        v = sample.get(p.name)
        if v is None or v == "null":
            v = op.defaults.get(p.name, "0")
        binds.append(f"const double {p.name} = {v};")
    bind = " ".join(binds) + " " + " ".join(f"(void){p.name};" for p in op.args)
    ins = {op.input.name: "self", op.output.name: "out"}
    if op.extra_output:
        ins[op.extra_output.name] = "nullptr"
    lines = ["  {", "    UnaryTableCase c;",
             f'    c.name = "{label}";', f'    c.api = "aclnn{op.name}";', f'    c.family = "{op.family}";',
             f'    c.self_name = "{op.input.name}";', f'    c.out_name = "{op.output.name}";',
             f"    c.dtypes = {{{', '.join(cxx_dtype(d) for d in op.dtypes)}}};",
             f"    c.float_result = {'true' if op.result == 'float' else 'false'};",
             f"    c.out_same_dtype = {'true' if op.out_same else 'false'};",
             f"    c.lo = {op.domain[0]!r}; c.hi = {op.domain[1]!r};",
             f"    c.special_tol = {op.special_tol!r}; c.signed_zero = {'true' if op.signed_zero else 'false'};",
             f"    c.ref = [](double x) {{ {bind} return static_cast<double>({op.ref}); }};",
             "    c.phase1 = [](aclTensor *self, aclTensor *out, uint64_t *ws, aclOpExecutor **ex) {",
             f"      return aclnn{op.name}GetWorkspaceSize({sample_args(op, op.params, sample, ins)}, ws, ex);",
             "    };", f"    c.launch = aclnn{op.name};"]
    if op.inplace:
        name, _, params, t = op.inplace
        lines += [f"    c.inplace_dtypes = {{{', '.join(cxx_dtype(d) for d in op.inplace_dtypes)}}};",
                  f'    c.inplace_name = "{t.name}";',
                  "    c.inplace_phase1 = [](aclTensor *self, uint64_t *ws, aclOpExecutor **ex) {",
                  f"      return aclnn{name}GetWorkspaceSize({sample_args(op, params, sample, {t.name: 'self'})}, ws, ex);",
                  "    };", f"    c.inplace_launch = aclnn{name};"]
    if si == 0:
        # Each required scalar parameter, null: 161001 naming it.
        for p in op.args:
            if p.kind == "scalar" and p.name not in op.defaults:
                null = dict(sample)
                null[p.name] = "null"
                lines += ["    c.null_params.push_back({" + f'"{p.name}", ' +
                          "[](aclTensor *self, aclTensor *out, uint64_t *ws, aclOpExecutor **ex) {" +
                          f" return aclnn{op.name}GetWorkspaceSize({sample_args(op, op.params, null, ins)}, ws, ex); }}}});"]
        for vals, word in op.rejects:
            bad = dict(op.samples[0])
            bad.update(vals)
            lines += ["    c.rejects.push_back({" + f'"{word}", ' +
                      "[](aclTensor *self, aclTensor *out, uint64_t *ws, aclOpExecutor **ex) {" +
                      f" return aclnn{op.name}GetWorkspaceSize({sample_args(op, op.params, bad, ins)}, ws, ex); }}}});"]
    lines += ["    v.push_back(std::move(c));", "  }"]
    return lines


# ---------------------------------------------------------------------------------------------


def write_if_changed(path, text):
    path = pathlib.Path(path)
    if path.exists() and path.read_text() == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def main():
    try:
        if "--entry" in sys.argv:
            i = sys.argv.index("--entry")
            write_if_changed(sys.argv[i + 2], render_entry(read_table(pathlib.Path(sys.argv[i + 1]).resolve())))
            return 0
        if "--tests" in sys.argv:
            out = pathlib.Path(sys.argv[sys.argv.index("--tests") + 1])
            tables = all_tables()
            write_if_changed(out, render_tests(tables))
            reduce_tables = [t for t in tables if t.settings["phase1"] == "reduce"]
            write_if_changed(out.parent / "reduce_table_cases.inc",
                             gen_ops_reduce.render_tests(sys.modules[__name__], reduce_tables))
            write_if_changed(out.parent / "layout_table_cases.inc", gen_ops_layout.render_tests(
                sys.modules[__name__], [t for t in tables if t.settings["phase1"] == "layout"]))
            return 0
        tables = all_tables()
    except TableError as e:
        print(f"gen_ops.py: {e}", file=sys.stderr)
        return 2
    check = "--check" in sys.argv
    catalog = read_catalog()
    ops = catalog + table_entries(tables)
    names = [o[1] for o in ops]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        print("gen_ops.py: ops defined twice:", ", ".join(dup), file=sys.stderr)
        return 2
    by_header = collections.OrderedDict()
    for entry in sorted(ops, key=lambda e: e[0]):
        by_header.setdefault(entry[0], []).append(entry)
    stale = []

    def update(path, text):
        if not path.exists() or path.read_text() != text:
            stale.append(str(path.relative_to(ROOT)))
            if not check:
                path.write_text(text)

    for header, entries in by_header.items():
        update(HEADER_DIR / header, render_header(header, entries))
    update(OPS_DOC, render_ops_doc(tables, catalog))
    readme = README.read_text()
    begin, end = "<!-- ops-table:begin -->", "<!-- ops-table:end -->"
    head, rest = readme.split(begin, 1)
    _, tail = rest.split(end, 1)
    update(README, head + begin + "\n" + render_table(ops) + "\n" + end + tail)
    if check and stale:
        print("out of date (run tools/gen_ops.py):", *stale, sep="\n  ")
        return 1
    for s in stale:
        print("wrote", s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
