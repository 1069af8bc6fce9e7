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
  --tests OUT.inc          the test registration of every `phase1 unary` op (written at build time)
  --nary-tests OUT.inc     the same for every `phase1 nary` op

Usage: tools/gen_ops.py            # rewrite headers, README table, docs/OPS.md
       tools/gen_ops.py --check    # exit 1 if any of them is out of date (a test runs this)
       tools/gen_ops.py --entry src/ops/math/unary_math.ops build/x.cpp
       tools/gen_ops.py --tests build/op_table_cases.inc

Op table format (one file per family and phase 1; `#` starts a comment):
  family NAME               the family (README / OPS.md grouping)
  phase1 KIND               the family phase 1 the rows use: unary element-wise (this format), nary
                            (binary / ternary ops, see "n-ary tables" further down), or a family
                            module's: any tools/gen_ops_<kind>.py (reduce, dimwise, rows, ploss, closs,
                            cnorm, layout, conv, pool, attention, ...)
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

n-ary tables (`phase1 nary`, ops/elementwise/nary_phase1.h): the operands are the tensor and
scalar parameters in prototype order, except the output (the tensor named `out`, else the last
tensor; an `Inplace...` op without `out` is in place only and writes its first operand) and the
`param` scalar; every rule applies to the operands' promoted dtype
(torch.result_type: tensors with dims, then 0-d tensors, then scalars by category). Keys:
      inplace  InplaceName(<C parameters>)   its in-place twin (writes the first operand)
      header   aclnn_x.h    default aclnn_<snake_case(Name)>.h
      kernel   kOp          the functor, or `attr: 0=kA 1=kB@float ...` chosen by an integer
                            attribute, or `present: a+b=kA a=kB b=kC` chosen by the optional
                            operands given (the first choice whose operands are all non-null;
                            none: 161001 naming them); a choice's @float / @bool / @promoted sets
                            its result, @nobool drops BOOL from its dtypes
      dtypes   D ...        the promoted dtypes the op takes (default real_bool; others: 161002
                            naming the operands, as is a promoted dtype no kernel computes)
      result   promoted|float|bool   the promoted dtype; FLOAT for integers / BOOL; BOOL computed
                            in the promoted dtype (default promoted)
      bool_op  kOp          the functor used when the promoted dtype is BOOL (bitwise -> logical)
      round_scalars yes     scalar operands take their value in the promoted dtype first
      param    name         the scalar parameter that is the functor's s0 (alpha, value), not an
                            operand; a fractional / BOOL value is checked against the result
      operand  name [optional] [nopromote] [zerodim] [dtypes D ...]   an operand that may be null
                            (then left out; `kernel present:`), left out of the promotion
                            (condition, mask), that must be 0-dim, and / or with its own accepted
                            dtypes (161002 naming it)
      check    fn           an op-specific check, ops::ew_checks::fn(args, promoted)
      order    i j k        the functor's operand order (default prototype order)
      compute  self         compute in the first operand's dtype, not the promoted one (masked fill)
      inplace_dtypes D ...  for the in-place twin (default: dtypes; floating ones for result float)
      backward Name         the backward twin (coverage table)
      ref      EXPR         float64 reference, a C++ expression of the parameters' names (and
                            has_NAME for an optional operand: given in this sample)
      ref_bool EXPR         the reference when the op computes in BOOL (BitwiseNot)
      domain   [name] LO HI input range of the random tests (all operands, or the named one)
      nonzero  name ...     operands whose random values avoid 0 (integer division)
      sample   a=V ...      values of the scalars and attributes (one line per sample); NAME=null
                            leaves an optional operand out
      reject   a=V ; WORD   attribute values phase 1 must reject (161002, message containing WORD)
      special no            no special-value test; special_limit X: leave out finite specials
                            beyond X (intermediate overflow in the compute dtype)
      special_tol / signed_zero   as for unary tables
  gradient rows (src/ops/activation/activation_backward.ops):
      scalars  E; E; ...    the functor's s0.. as C++ expressions of the scalar parameters (all of
                            them values then, not operands; null: 161001) and attributes
      default  name = V     the value of a null optional scalar (named ...Optional)
      require  EXPR ; MSG   a check on those values (161002 with MSG when false)
      shapes equal          the tensor operands must have one shape (no broadcasting)
      same_dtype yes        the tensor operands must have one dtype
      out_dtype same        the output must have the result dtype
      extra_input name      a (floating) tensor registered after the operands, never read
      kernel   attr: v=kA   also for a `char *` attribute (strcmp; null: 161001)
      forward  EXPR         the forward formula (of the x operand's name), for the finite-difference
                            test; the functor's a is the gradient, b x (see `order`)
      from_result yes|ATTR  the x operand is the forward's result f(x) (or when the bool ATTR is)
      forward_domain LO HI  where that test draws x (default: the x operand's domain)
      kinks    X ...        no finite difference within 1e-2 of these
"""
import collections
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
# Families with a generator module of their own: every tools/gen_ops_<kind>.py is the module of
# the tables whose `phase1` is <kind> (it defines resolve, render_entry, render_tests and its
# row keys as a set named *_KEYS); adding a family is adding its module.
import importlib  # noqa: E402

FAMILY_MODULES = {m.stem[len("gen_ops_"):]: importlib.import_module(m.stem)
                  for m in sorted(pathlib.Path(__file__).resolve().parent.glob("gen_ops_*.py"))}
FAMILY_KEYS = set().union(*(v for m in FAMILY_MODULES.values() for n, v in vars(m).items() if n.endswith("_KEYS")))

ROOT = pathlib.Path(__file__).resolve().parent.parent
CATALOG = ROOT / "src" / "ops" / "catalog.txt"
HEADER_DIR = ROOT / "include" / "aclnnop"
README = ROOT / "README.md"
OPS_DOC = ROOT / "docs" / "OPS.md"
EW_LISTS = ROOT / "src" / "kernels" / "elementwise" / "lists"

# Rows whose parameter field starts with this are one-shot functions (e.g.
# aclnnCalculateMatmulWeightSizeV2): the rest of the field is the complete parameter list. A table
# op is one-shot when its family module sets op.oneshot (its prototype is then the complete list).
ONESHOT = "oneshot:"

# UINT16 / UINT32 / UINT64: only for rows whose phase 1 takes them (e.g. Nonzero; no compute type).
DTYPES = ["FLOAT", "FLOAT16", "BF16", "DOUBLE", "INT8", "INT16", "INT32", "INT64", "UINT8", "BOOL", "UINT16", "UINT32",
          "UINT64", "INT4", "HIFLOAT8", "FLOAT8_E5M2", "FLOAT8_E4M3FN", "FLOAT8_E8M0", "FLOAT4_E2M1", "FLOAT4_E1M2"]
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
        known = {"nary": NARY_KEYS, "unary": OP_KEYS}.get(
            table.settings.get("phase1"),
            FAMILY_KEYS)
        if key not in known:
            raise TableError(f"{where}: unknown key '{key}' (known: {', '.join(sorted(known))})")
        op.keys[key].append(value.strip())
    for k in ("family", "phase1"):
        if k not in table.settings:
            raise TableError(f"{path.relative_to(ROOT)}: missing '{k}'")
    kind = table.settings["phase1"]
    if kind in FAMILY_MODULES:
        for op in table.ops:
            FAMILY_MODULES[kind].resolve(sys.modules[__name__], table, op)
        return table
    resolvers = {"unary": resolve_unary, "nary": resolve_nary}
    if kind not in resolvers:
        raise TableError(f"{path.relative_to(ROOT)}: unknown phase1 '{kind}'")
    functors = ew_functor_names()
    for op in table.ops:
        resolvers[kind](table, op, functors)
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


def read_rejects_and_special(table, op):
    """The keys every table's tests share: rejected values, the special-value tolerance and sign."""
    op.rejects = []
    for r in op.keys.get("reject", []):
        vals, _, word = r.partition(";")
        op.rejects.append((parse_values(vals, op.where), word.strip()))
    op.special_tol = float(one(op, "special_tol", table.settings.get("special_tol", "1e-5")))
    op.signed_zero = one(op, "signed_zero", table.settings.get("signed_zero", "no")) == "yes"


def read_defaults_and_requires(op):
    """`default name = V` (a null optional scalar's value) and `require EXPR ; MSG` rows."""
    op.defaults = {}
    for d in op.keys.get("default", []):
        k, _, v = d.partition("=")
        op.defaults[k.strip()] = v.strip()
    op.requires = []
    for r in op.keys.get("require", []):
        expr, _, msg = r.partition(";")
        if not msg.strip():
            raise TableError(f"{op.where}: require needs 'EXPR ; message'")
        op.requires.append((expr.strip(), msg.strip()))


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
    read_defaults_and_requires(op)
    for p in op.args:
        if p.kind == "scalar" and p.name.endswith("Optional") and p.name not in op.defaults:
            raise TableError(f"{w}: optional scalar '{p.name}' needs a 'default'")
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
    read_rejects_and_special(table, op)
    op.family = table.settings["family"]
    if not op.ref:
        raise TableError(f"{w}: missing 'ref' (the float64 reference the tests use)")


def all_tables():
    return [read_table(p) for p in sorted((ROOT / "src" / "ops").glob("*/*.ops"))]


# ---------------------------------------------------------------------------------------------
# The n-ary element-wise family (`phase1 nary`, ops/elementwise/nary_phase1.h): operands are the
# tensor and scalar parameters in prototype order, except the output (the tensor named `out`, or
# the last tensor) and the scalar `param` (the functor's s0: alpha, value). Rules apply to the
# promoted dtype of the operands (torch.result_type).

NARY_KEYS = {"inplace", "header", "kernel", "dtypes", "inplace_dtypes", "result", "bool_op", "round_scalars",
             "param", "operand", "check", "order", "compute", "backward", "ref", "ref_bool", "domain", "nonzero", "sample",
             "reject", "special_tol", "signed_zero", "special", "special_limit",
             # the gradient rows' (activation_backward.ops): value parameters, shape / dtype rules,
             # an unread input, and the forward the finite-difference test differentiates
             "scalars", "default", "require", "shapes", "same_dtype", "out_dtype", "extra_input", "forward",
             "from_result", "kinks", "forward_domain"}
NARY_RESULTS = {"promoted": "kPromoted", "float": "kFloating", "bool": "kBool"}
# The harness's phase-1 signature (tests/ops/test_op_table_nary.cpp, NaryPhase1).
NARY_SIGNATURE = ("[[maybe_unused]] aclTensor *const *t, [[maybe_unused]] aclScalar *const *s, "
                  "[[maybe_unused]] aclTensor *out, uint64_t *ws, aclOpExecutor **ex")


def nary_rule(op, kernel, mods, where):
    """One EwRule of a row: (kernel, result, promoted dtypes) with a kernel choice's @modifiers."""
    result, dtypes = op.result, list(op.dtypes)
    for m in mods:
        if m in NARY_RESULTS:
            result = m
        elif m == "nobool":
            dtypes = [d for d in dtypes if d != "BOOL"]
        else:
            raise TableError(f"{where}: unknown kernel modifier '@{m}' (float, promoted, bool, nobool)")
    return {"kernel": kernel, "result": result, "dtypes": dtypes}


def resolve_nary(table, op, functors):
    w = op.where
    op.header = one(op, "header", f"aclnn_{snake(op.name)}.h")
    tensors = [p for p in op.params if p.kind == "tensor"]
    outs = [p for p in tensors if p.name == "out"]
    # An `Inplace...` op without an `out` is in place only (the masked fills): it writes its first
    # operand and has no twin.
    op.inplace_only = not outs and op.name.startswith("Inplace")
    if not outs and not op.inplace_only:
        outs = tensors[-1:]
    op.output = outs[0] if outs else Param("aclTensor *", "", "tensor")  # nameless: no parameter
    op.param = one(op, "param")
    if op.param and op.param not in [p.name for p in op.params if p.kind == "scalar"]:
        raise TableError(f"{w}: param '{op.param}' is not a scalar parameter")
    # `char *` parameters are string attributes (GeluBackwardV2's approximate).
    op.strings = [p.name for p in op.params if p.kind == "other" and p.ctype.replace(" ", "") in ("char*", "constchar*")]
    op.params = [Param(p.ctype, p.name, "string") if p.name in op.strings else p for p in op.params]
    # `scalars E; ...`: every scalar parameter is a value (the functor's s0.. are these expressions).
    scalars = one(op, "scalars")
    op.values = [e.strip() for e in scalars.split(";")] if scalars else []
    if len(op.values) > 3 or (op.values and op.param):
        raise TableError(f"{w}: at most 3 scalars, and not with param")
    op.value_params = [p for p in op.params if p.kind == "scalar"] if scalars else []
    read_defaults_and_requires(op)
    op.shapes_equal = one(op, "shapes", "broadcast") == "equal"
    op.same_dtype = one(op, "same_dtype", "no") == "yes"
    op.out_same = one(op, "out_dtype", "castable") == "same"
    op.extra = one(op, "extra_input")
    if op.extra and op.extra not in [p.name for p in tensors]:
        raise TableError(f"{w}: extra_input '{op.extra}' is not a tensor parameter")
    op.forward = one(op, "forward")
    op.from_result = one(op, "from_result", "no")  # yes / no / a bool attribute that says so
    if op.from_result not in ("yes", "no") and op.from_result not in [p.name for p in op.params if p.kind == "attr"]:
        raise TableError(f"{w}: from_result must be yes, no or a bool attribute")
    op.kinks = [float(k) for k in one(op, "kinks", "").split()]
    fd = one(op, "forward_domain")
    op.forward_domain = tuple(float(v) for v in fd.split()) if fd else None
    skip = {op.output.name, op.param, op.extra} | {p.name for p in op.value_params}
    op.operands = [p for p in op.params if p.kind in ("tensor", "scalar") and p.name not in skip]
    if not 1 <= len(op.operands) <= 3:
        raise TableError(f"{w}: an n-ary op takes one to three operands")
    if not any(p.kind == "tensor" for p in op.operands):
        raise TableError(f"{w}: at least one operand must be a tensor")
    op.attrs = [p for p in op.params if p.kind in ("attr", "string")]
    if any(p.kind == "other" for p in op.params):
        raise TableError(f"{w}: parameter types the n-ary phase 1 cannot take")
    op.dtypes = dtype_list(one(op, "dtypes", "real_bool"), w)
    op.result = one(op, "result", "promoted")
    if op.result not in NARY_RESULTS:
        raise TableError(f"{w}: result must be one of {', '.join(NARY_RESULTS)}")
    op.bool_op = one(op, "bool_op")
    op.round_scalars = one(op, "round_scalars", "no") == "yes"
    kernel = one(op, "kernel")
    if not kernel:
        raise TableError(f"{w}: missing 'kernel'")
    op.kernel_attr, op.presence = None, False
    if ":" in kernel:  # attr: V=kX[@mod...] ...  or  present: a+b=kX a=kY ...
        attr, _, choices = kernel.partition(":")
        op.presence = attr.strip() == "present"
        op.kernel_attr = None if op.presence else attr.strip()
        if op.kernel_attr and op.kernel_attr not in [p.name for p in op.attrs]:
            raise TableError(f"{w}: kernel chosen by '{op.kernel_attr}', which is not an attribute parameter")
        op.rules = {}
        for c in choices.split():
            v, _, spec = c.partition("=")
            k, *mods = spec.split("@")
            op.rules[v] = nary_rule(op, k, mods, w)
    else:
        k, *mods = kernel.split("@")
        op.rules = {None: nary_rule(op, k, mods, w)}
    for r in op.rules.values():
        for k in [r["kernel"]] + ([op.bool_op] if op.bool_op else []):
            if k not in functors:
                raise TableError(f"{w}: '{k}' is not an element-wise functor (kernels/elementwise/lists/*.inc)")
    # Operand properties: `operand NAME [optional] [nopromote] [zerodim] [dtypes D ...]`.
    op.operand_dtypes, op.nopromote, op.optional, op.zerodim = {}, set(), [], set()
    names = [p.name for p in op.operands]
    for line in op.keys.get("operand", []):
        name, _, rest = line.partition(" ")
        if name not in names:
            raise TableError(f"{w}: '{name}' is not an operand")
        words = rest.split()
        if words[:1] == ["optional"]:
            op.optional.append(name)
            words = words[1:]
        if words[:1] == ["nopromote"]:
            op.nopromote.add(name)
            words = words[1:]
        if words[:1] == ["zerodim"]:
            op.zerodim.add(name)
            words = words[1:]
        if words[:1] == ["dtypes"]:
            op.operand_dtypes[name] = dtype_list(" ".join(words[1:]), w)
        elif words:
            raise TableError(f"{w}: operand {name}: expected [optional] [nopromote] [zerodim] [dtypes D ...]")
    if op.presence:
        for v in op.rules:
            if not set(v.split("+")) <= set(op.optional):
                raise TableError(f"{w}: kernel choice '{v}' names operands not declared optional")
    elif op.optional:
        raise TableError(f"{w}: optional operands need a kernel chosen by `present:`")
    op.check = one(op, "check")
    order = one(op, "order")
    op.order = [int(i) for i in order.split()] if order else list(range(len(op.operands)))
    if sorted(op.order) != list(range(len(op.operands))):
        raise TableError(f"{w}: order must permute the operand indices")
    op.compute_self = one(op, "compute") == "self"
    op.inplace = None
    if op.inplace_only and one(op, "inplace"):
        raise TableError(f"{w}: an in-place-only op has no in-place twin")
    ip = one(op, "inplace")
    if ip:
        name, ptext, params = parse_signature(ip, w)
        ops_ip = [p for p in params if p.kind in ("tensor", "scalar") and p.name != op.param]
        if [p.kind for p in ops_ip] != [p.kind for p in op.operands] or \
                [(p.name, p.kind) for p in params if p.kind == "attr" or p.name == op.param] != \
                [(p.name, p.kind) for p in op.params if p.kind == "attr" or p.name == op.param]:
            raise TableError(f"{w}: the in-place twin's parameters differ from the op's")
        op.inplace = (name, ptext, params, ops_ip)
    idt = one(op, "inplace_dtypes")
    op.inplace_dtypes = dtype_list(idt, w) if idt else (
        [d for d in op.dtypes if d in FLOATING] if op.result == "float" else list(op.dtypes))
    op.backward = one(op, "backward")
    op.ref = one(op, "ref")
    if not op.ref:
        raise TableError(f"{w}: missing 'ref' (the float64 reference the tests use)")
    op.ref_bool = one(op, "ref_bool")
    op.domains = {}
    for d in op.keys.get("domain", []) or ["-6 6"]:
        words = d.split()
        targets = names if len(words) == 2 else [words[0]]
        for t in targets:
            op.domains[t] = (float(words[-2]), float(words[-1]))
    for t in names:
        op.domains.setdefault(t, (-6.0, 6.0))
    op.nonzero = set(" ".join(op.keys.get("nonzero", [])).split())
    values = [p for p in op.params if p.kind in ("scalar", "attr", "string") and p.name != op.output.name]
    op.samples = [parse_values(s, w) for s in op.keys.get("sample", [])] or [{}]
    for s in op.samples:
        for p in values:
            if p.name not in s and p.name not in op.defaults:
                raise TableError(f"{w}: sample lacks a value for '{p.name}'")
    read_rejects_and_special(table, op)
    op.special = one(op, "special", "yes") == "yes"
    op.special_limit = one(op, "special_limit")
    op.family = table.settings["family"]


def render_nary_entry(table):
    src = table.path.relative_to(ROOT)
    out = [f"// Generated by tools/gen_ops.py from {src}; do not edit.",
           f"// The phase-1 / launch pairs of the {table.settings['family']} table, over ops::nary_phase1.",
           "#include <cstring>", "", '#include "core/op_checks.h"', '#include "ops/elementwise/nary_phase1.h"']
    for h in dict.fromkeys(op.header for op in table.ops):
        out.append(f'#include "aclnnop/{h}"')
    out += ["", "using opsnn::core::dtype_bit;", "using opsnn::kernels::EwOp;", "using opsnn::ops::EwResult;",
            "", "namespace {"]
    for op in table.ops:
        bool_op = f"EwOp::{op.bool_op}" if op.bool_op else "EwOp::kCount"
        for v, r in op.rules.items():
            out.append(f"const ::opsnn::ops::EwRule {nary_rule_name(op, v)}{{EwOp::{r['kernel']}, "
                       f"EwResult::{NARY_RESULTS[r['result']]}, {mask(r['dtypes'])}, {bool_op}, "
                       f"{'true' if op.round_scalars else 'false'}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        out += render_nary_pair(op, op.name, op.params_text, op.params, op.operands, op.inplace_only)
        if op.inplace:
            name, ptext, params, operands = op.inplace
            out += render_nary_pair(op, name, ptext, params, operands, True)
    return "\n".join(out) + "\n"


def nary_rule_name(op, v):
    return f"k{op.name}Rule" + (f"_{list(op.rules).index(v)}" if v is not None else "")


def render_nary_pair(op, name, ptext, params, operands, inplace):
    lines = [f'extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnn{name}GetWorkspaceSize({ptext},',
             "    uint64_t *workspaceSize, aclOpExecutor **executor) {",
             f'  return ::opsnn::core::phase1({keyed_api(name, params)}, workspaceSize, executor, [&](::opsnn::core::OpBuilder &b) {{']
    lines += render_nary_values(op)
    if op.kernel_attr in op.strings:
        a = op.kernel_attr
        conds = " else ".join(f'if (std::strcmp({a}, "{v}") == 0) rule = &{nary_rule_name(op, v)};' for v in op.rules)
        lines.append(f'    ::opsnn::core::check_not_null({a}, "{a}");')
        lines.append("    const ::opsnn::ops::EwRule *rule = nullptr;")
        lines.append(f"    {conds}")
        lines.append(f'    else ::opsnn::throw_error(ACLNN_ERR_PARAM_INVALID, "{a} is \\"%s\\"; expected one of '
                     f'{", ".join(op.rules)}", {a});')
    elif op.kernel_attr:
        a = op.kernel_attr
        conds = " else ".join(f"if ({a} == {v}) rule = &{nary_rule_name(op, v)};" for v in op.rules)
        lines.append("    const ::opsnn::ops::EwRule *rule = nullptr;")
        lines.append(f"    {conds}")
        lines.append(f'    else ::opsnn::throw_error(ACLNN_ERR_PARAM_INVALID, "{a} must be one of '
                     f'{", ".join(op.rules)}, got %lld", static_cast<long long>({a}));')
    elif op.presence:
        conds = " else ".join(f"if ({' && '.join(v.split('+'))}) rule = &{nary_rule_name(op, v)};" for v in op.rules)
        lines.append("    const ::opsnn::ops::EwRule *rule = nullptr;")
        lines.append(f"    {conds}")
        # None given: the operands before them are checked first (prototype order), then 161001.
        first = min(op.operands.index(next(p for p in op.operands if p.name == n)) for n in op.optional)
        lines.append("    if (!rule) {")
        for p, tp in zip(operands[:first], op.operands[:first]):
            lines.append(f'      ::opsnn::core::check_{"scalar" if p.kind == "scalar" else "tensor"}({p.name}, "{p.name}");')
        names = " and ".join(op.optional)
        lines.append(f'      ::opsnn::throw_error(ACLNN_ERR_PARAM_NULLPTR, "{names} are {"both" if len(op.optional) == 2 else "all"} '
                     f'null; at least one is required");')
        lines.append("    }")
    else:
        lines.append(f"    const ::opsnn::ops::EwRule *rule = &{nary_rule_name(op, None)};")
    lines.append("    ::opsnn::ops::EwArgs a;")
    lines.append(f"    a.n_in = {len(operands)};")
    for i, (p, tp) in enumerate(zip(operands, op.operands)):
        lines.append(f'    a.in[{i}] = ::opsnn::ops::EwOperand::{"s" if p.kind == "scalar" else "t"}({p.name}, "{p.name}");')
        if tp.name in op.nopromote:
            lines.append(f"    a.in[{i}].promotes = false;")
        if tp.name in op.optional:
            lines.append(f"    a.in[{i}].optional = true;")
        if tp.name in op.zerodim:
            lines.append(f"    a.in[{i}].zero_dim = true;")
        if tp.name in op.operand_dtypes:
            lines.append(f"    a.in[{i}].dtypes = {mask(op.operand_dtypes[tp.name])};")
    if op.order != list(range(len(operands))):
        lines += [f"    a.order[{k}] = {i};" for k, i in enumerate(op.order)]
    if op.compute_self:
        lines.append("    a.compute_in_self = true;")
    if op.param:
        lines += [f"    a.param = {op.param};", f'    a.param_name = "{op.param}";']
    if inplace:
        lines.append("    a.inplace = true;")
    else:
        lines += [f"    a.out = {op.output.name};", f'    a.out_name = "{op.output.name}";']
    if op.check:
        lines.append(f"    a.check = ::opsnn::ops::ew_checks::{op.check};")
    for i, e in enumerate(op.values):
        lines.append(f"    a.values[{i}] = {nary_subst(op, e)};")
    if op.values:
        lines.append(f"    a.n_values = {len(op.values)};")
    if op.shapes_equal:
        lines.append("    a.broadcast = false;")
    if op.same_dtype:
        lines.append("    a.same_dtype = true;")
    if op.out_same:
        lines.append("    a.out_same_dtype = true;")
    if op.extra:
        lines += [f"    a.extra = {op.extra};", f'    a.extra_name = "{op.extra}";']
    lines += ["    ::opsnn::ops::nary_phase1(b, *rule, a);", "  });", "}", f"OPSNN_DEFINE_LAUNCH({name})", ""]
    return lines


def nary_subst(op, expr):
    """A `scalars` / `require` expression over the value parameters' and attributes' values."""
    names = [p.name for p in op.value_params] + [p.name for p in op.params if p.kind == "attr"]
    return re.sub(r"\b(" + "|".join(map(re.escape, names)) + r")\b", r"\1_v", expr) if names else expr


def render_nary_values(op):
    """The value parameters read (null: 161001 naming them, or the default) and the `require` checks."""
    lines = []
    for p in op.value_params:
        if p.name in op.defaults:
            lines.append(f"    const double {p.name}_v = {p.name} ? ::opsnn::core::scalar_value({p.name}, \"{p.name}\") : "
                         f"static_cast<double>({op.defaults[p.name]});")
        else:
            lines.append(f'    const double {p.name}_v = ::opsnn::core::scalar_value({p.name}, "{p.name}");')
    if op.requires or op.values:
        lines += [f"    [[maybe_unused]] const double {p.name}_v = static_cast<double>({p.name});"
                  for p in op.params if p.kind == "attr"]
    for expr, msg in op.requires:
        cmsg = msg.replace('"', '\\"')
        lines.append(f'    if (!({nary_subst(op, expr)})) ::opsnn::throw_error(ACLNN_ERR_PARAM_INVALID, "{cmsg}");')
    return lines


def nary_sample_call(op, api, params, sample, out, literal=()):
    """The call of `api` with the harness's operands: t[i] / s[i] by parameter index, attributes
    from the sample (and the scalars named in `literal`: a rejected value)."""
    args, idx = [], 0
    for p in params:
        if p.kind == "tensor" and p.name == op.output.name:
            args.append(out)
            continue
        if p.kind == "attr":
            args.append(sample[p.name])
        elif p.kind == "string":
            args.append(f'const_cast<char *>("{sample[p.name]}")' if sample[p.name] != "null" else "nullptr")
        elif p.name in literal and sample[p.name] != "null":
            args.append(f"scalar_arg({sample[p.name]})")
        elif sample.get(p.name) == "null":
            args.append("nullptr")
        else:
            args.append(f"{'t' if p.kind == 'tensor' else 's'}[{idx}]")
        idx += 1
    return f"{api}GetWorkspaceSize({', '.join(args)}, ws, ex)"


def render_nary_tests(tables):
    out = ["// Generated by tools/gen_ops.py from the op tables; do not edit.",
           "// One NaryTableCase per `phase1 nary` table op and sample (tests/ops/test_op_table_nary.cpp runs them)."]
    ops = [op for t in tables if t.settings["phase1"] == "nary" for op in t.ops]
    for h in dict.fromkeys(op.header for op in ops):
        out.append(f'#include "aclnnop/{h}"')
    out += ["", "inline std::vector<NaryTableCase> nary_table_cases() {", "  std::vector<NaryTableCase> v;"]
    for op in ops:
        for si, sample in enumerate(op.samples):
            out += render_nary_case(op, sample, si)
    out += ["  return v;", "}", ""]
    return "\n".join(out)


def nary_sample_rule(op, sample):
    """The key of the rule a sample's call uses: its attribute value, or the first kernel choice
    whose optional operands the sample gives."""
    if op.kernel_attr:
        return sample[op.kernel_attr]
    if op.presence:
        given = {n for n in op.optional if sample.get(n) != "null"}
        return next(v for v in op.rules if set(v.split("+")) <= given)
    return None


def render_nary_case(op, sample, si):
    label = op.name + ("[" + ",".join(f"{k}={v}" for k, v in sample.items()) + "]" if sample else "")
    rule = op.rules[nary_sample_rule(op, sample)]
    lines = ["  {", "    NaryTableCase c;", f'    c.name = "{label}";', f'    c.api = "aclnn{op.name}";']
    args = [p for p in op.params if p.name != op.output.name]
    binds = []
    for i, p in enumerate(args):
        absent = sample.get(p.name) == "null"
        if p.kind == "string":
            kind, val = "kAttr", "0"
        elif p.kind == "attr":
            kind, val = "kAttr", sample[p.name]
        elif p in op.value_params:  # absent: the default's value
            kind, val = "kValue", op.defaults[p.name] if absent or p.name not in sample else sample[p.name]
        elif p.name == op.param:
            kind, val = "kParam", sample[p.name]
        else:
            kind, val = ("kScalar", sample[p.name]) if p.kind == "scalar" and not absent else (
                "kScalar" if p.kind == "scalar" else "kTensor", "0")
        lo, hi = op.domains.get(p.name, (0.0, 0.0))
        extra = p.name == op.extra  # registered, not read: floating, out of the promotion
        dts = ", ".join(cxx_dtype(d) for d in (DTYPE_SETS["floating"] if extra else op.operand_dtypes.get(p.name, [])))
        b = lambda f: "true" if f else "false"
        optional = p.name in op.optional or p.name in op.defaults
        lines.append(f'    c.args.push_back({{"{p.name}", NaryArg::{kind}, {val}, {lo!r}, {hi!r}, '
                     f"{b(p.name in op.nonzero)}, {b(p.name not in op.nopromote and not extra)}, {{{dts}}}, "
                     f"{b(optional)}, {b(absent)}, {b(p.name in op.zerodim)}}});")
        binds.append(f'const std::string_view {p.name} = "{sample[p.name]}";' if p.kind == "string"
                     else f"const double {p.name} = v[{i}];")
        if p.name in op.optional:
            binds.append(f"const bool has_{p.name} = {b(not absent)};")
    bind = " ".join(binds) + " " + " ".join(f"(void){p.name};" for p in args) + \
        "".join(f" (void)has_{n};" for n in op.optional)
    lines += [f"    c.dtypes = {{{', '.join(cxx_dtype(d) for d in rule['dtypes'])}}};",
              f"    c.result = NaryResult::{NARY_RESULTS[rule['result']]};",
              f"    c.special = {'true' if op.special else 'false'};",
              *([f"    c.special_limit = {op.special_limit};"] if op.special_limit else []),
              f"    c.special_tol = {op.special_tol!r}; c.signed_zero = {'true' if op.signed_zero else 'false'};",
              f"    c.ref = [](const double *v) {{ {bind} return static_cast<double>({op.ref}); }};",
              *([f"    c.ref_bool = [](const double *v) {{ {bind} return static_cast<double>({op.ref_bool}); }};"]
                if op.ref_bool else []),
              f"    c.compute_self = {'true' if op.compute_self else 'false'};"]
    b = lambda f: "true" if f else "false"
    lines.append(f"    c.shapes_equal = {b(op.shapes_equal)}; c.same_dtype = {b(op.same_dtype)}; "
                 f'c.out_same = {b(op.out_same)}; c.out_name = "{op.output.name or "out"}";')
    if op.forward:
        # The functor's a is the gradient, b the input x (or the forward result): by argument index.
        names = [p.name for p in args]
        grad, x = (op.operands[i].name for i in op.order[:2])
        lo, hi = op.forward_domain or op.domains[x]
        lines += [f"    c.grad_arg = {names.index(grad)}; c.x_arg = {names.index(x)};",
                  f"    c.forward = [](const double *v) {{ {bind} return static_cast<double>({op.forward}); }};",
                  f"    c.from_result = {b(op.from_result == 'yes' or sample.get(op.from_result) == 'true')}; "
                  f"c.fd_lo = {lo!r}; c.fd_hi = {hi!r};",
                  f"    c.kinks = {{{', '.join(repr(k) for k in op.kinks)}}};"]
    if not op.inplace_only:
        lines += [f"    c.phase1 = []({NARY_SIGNATURE}) {{",
                  f"      return {nary_sample_call(op, 'aclnn' + op.name, op.params, sample, 'out')};",
                  "    };", f"    c.launch = aclnn{op.name};"]
    if op.inplace or op.inplace_only:
        name, _, params, operands = op.inplace or (op.name, op.params_text, op.params, op.operands)
        ipd = [d for d in op.inplace_dtypes if d in rule["dtypes"] and (rule["result"] != "float" or d in FLOATING)]
        lines += [f"    c.inplace_dtypes = {{{', '.join(cxx_dtype(d) for d in ipd)}}};",
                  f'    c.inplace_name = "{operands[0].name}";',
                  f"    c.inplace_phase1 = []({NARY_SIGNATURE}) {{",
                  f"      return {nary_sample_call(op, 'aclnn' + name, params, sample, '')};",
                  "    };", f"    c.inplace_launch = aclnn{name};"]
    if si == 0 and op.optional:
        none = dict(sample, **{n: "null" for n in op.optional})
        lines += [f'    c.none_given = {{"{", ".join(op.optional)}", []({NARY_SIGNATURE}) {{ return '
                  f"{nary_sample_call(op, 'aclnn' + op.name, op.params, none, 'out')}; }}}};"]
    if si == 0:
        for n in op.strings:  # a null string attribute: 161001 naming it
            lines.append(f'    c.null_attrs.push_back({{"{n}", []({NARY_SIGNATURE}) {{ return '
                         f"{nary_sample_call(op, 'aclnn' + op.name, op.params, dict(sample, **{n: 'null'}), 'out')}; }}}});")
        changed = lambda bad: [k for k, v in bad.items() if op.samples[0].get(k) != v]
        lines += reject_lines(op, NARY_SIGNATURE,
                              lambda bad: nary_sample_call(op, 'aclnn' + op.name, op.params, bad, 'out', changed(bad)))
    lines += ["    v.push_back(std::move(c));", "  }"]
    return lines


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
            oneshot = getattr(op, "oneshot", False)
            rows.append((op.header, op.name, op.family, f"{ONESHOT} {op.params_text}" if oneshot else op.params_text))
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
        # A family module may document an op in its header: its HEADER_NOTES {op name: text}.
        for m in FAMILY_MODULES.values():
            note = getattr(m, "HEADER_NOTES", {}).get(op)
            if note:
                out.append("/* " + "\n * ".join(note.splitlines()) + " */")
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


RESULT_DOC = {("unary", "float"): "FLOAT for integers", ("unary", "same"): "self's dtype",
              ("nary", "promoted"): "promoted dtype", ("nary", "float"): "promoted; FLOAT for integers",
              ("nary", "bool"): "BOOL"}


def render_ops_doc(tables, catalog):
    out = ["# Operator coverage", "",
           "Generated by `tools/gen_ops.py` from the op tables; do not edit. Table-driven ops list the",
           "dtypes their phase 1 accepts (in place: the in-place twin's), the result rule and the",
           "backward twin; ops still hand-written (src/ops/catalog.txt) list their header.", ""]
    out += ["## Table-driven ops", "", "| API | family | dtypes | in place | result | backward | table |",
            "|---|---|---|---|---|---|---|"]
    for t in tables:
        for op in t.ops:
            if getattr(op, "oneshot", False):
                continue
            ip = f"`aclnn{op.inplace[0]}`: {' '.join(op.inplace_dtypes)}" if op.inplace else "—"
            res = RESULT_DOC[(t.settings["phase1"], op.result)] if t.settings["phase1"] in ("unary", "nary") \
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


# ---- shared by the family modules (tools/gen_ops_<kind>.py)


def family_resolve_common(table, op, keys, what, default_dtypes="floating"):
    """What every family module's resolve does: the row's keys checked against `keys`, then
    header, dtypes, backward and the coverage-table fields (result: the input's dtype)."""
    for k in op.keys:
        if k not in keys:
            raise TableError(f"{op.where}: key '{k}' is not one of {what} row's ({', '.join(sorted(keys))})")
    op.header = one(op, "header", f"aclnn_{snake(op.name)}.h")
    op.dtypes = dtype_list(one(op, "dtypes", default_dtypes), op.where)
    op.backward = one(op, "backward")
    op.extra_output, op.inplace = None, None
    op.result = "same"
    op.results = ["same"]
    op.family = table.settings["family"]


def roles_by_name(op, roles, what):
    """{role: parameter} from the parameters' names (`roles`: name -> role); a name without a role
    is an error naming `what`."""
    out = {}
    for p in op.params:
        role = roles.get(p.name)
        if role is None:
            raise TableError(f"{op.where}: parameter '{p.name}' has no role in {what}")
        out[role] = p
    return out


def role_args(op):
    """The harness call's arguments: `a.<role>` for each parameter in prototype order."""
    role_of = {p.name: k for k, p in op.roles.items()}
    return ", ".join(f"a.{role_of[p.name]}" for p in op.params)


def family_entry_head(table, phase1_fn, phase1_header, usings):
    """The start of a family table's entry file: provenance, includes, usings, `namespace {`."""
    out = [f"// Generated by tools/gen_ops.py from {table.path.relative_to(ROOT)}; do not edit.",
           f"// The phase-1 / launch pairs of the {table.settings['family']} table, over ops::{phase1_fn}.",
           f'#include "{phase1_header}"']
    out += [f'#include "aclnnop/{h}"' for h in dict.fromkeys(op.header for op in table.ops)]
    return out + [""] + [f"using {u};" for u in usings] + ["", "namespace {"]


def keyed_api(name, params):
    """The first argument of core::phase1 in an entry point: the API and every parameter, the key of
    the phase-1 plan cache (core/plan_cache.h)."""
    args = ", ".join([f'"aclnn{name}"'] + [p.name for p in params])
    return f"::opsnn::core::keyed({args})"


def family_entry_open(op, call_type):
    """An entry point's first lines, up to the declared call struct `c`."""
    return [f'extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnn{op.name}GetWorkspaceSize({op.params_text},',
            "    uint64_t *workspaceSize, aclOpExecutor **executor) {",
            f'  return ::opsnn::core::phase1({keyed_api(op.name, op.params)}, workspaceSize, executor, '
            "[&](::opsnn::core::OpBuilder &b) {",
            f"    {call_type} c;"]


def family_null_checks(op, nullable=(), any_dtype=()):
    """The null checks of an entry point, in prototype order: every pointer parameter except those
    named `...Optional` or listed in `nullable` (the row key `nullable`: pointers the op's own rules
    decide about, e.g. a gradient an output mask turns off). A tensor, when given, also gets
    check_tensor's dtype and plain-format check unless listed in `any_dtype` (tensors whose phase 1
    names its own dtypes, e.g. the INT64 / UINT64 words of a quantisation scale)."""
    lines = []
    for p in op.params:
        if not p.ctype.replace(" ", "").endswith("*"):
            continue
        may_be_null = p.name.endswith("Optional") or p.name in nullable
        if p.kind == "tensor" and p.name not in any_dtype:
            check = f'::opsnn::core::check_tensor({p.name}, "{p.name}");'
            lines.append(f"    if ({p.name} != nullptr) {check}" if may_be_null else f"    {check}")
        elif not may_be_null:
            lines.append(f'    ::opsnn::core::check_not_null({p.name}, "{p.name}");')
    return lines


def family_entry_close(op, phase1_fn):
    return [f"    ::opsnn::ops::{phase1_fn}(b, k{op.name}Rule, c);", "  });", "}", f"OPSNN_DEFINE_LAUNCH({op.name})", ""]


def family_roles_entry(table, phase1_fn, phase1_header, rule_type, call_type, value_roles, rule_extra=None):
    """The entry file of a family whose call struct has one {tensor, name} field per role (op.roles) and
    plain fields for the `value_roles` (attributes), and whose rule is its dtype mask (then rule_extra(op),
    a C++ initializer of the rule's next field, when given)."""
    out = family_entry_head(table, phase1_fn, phase1_header, ["opsnn::core::dtype_bit"])
    extra = (lambda op: f", {rule_extra(op)}") if rule_extra else (lambda op: "")
    out += [f"const ::opsnn::ops::{rule_type} k{op.name}Rule = {{{mask(op.dtypes)}{extra(op)}}};" for op in table.ops]
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = family_entry_open(op, f"::opsnn::ops::{call_type}")
        for role, p in op.roles.items():
            lines.append(f"    c.{role} = {p.name};" if role in value_roles else f'    c.{role} = {{{p.name}, "{p.name}"}};')
        out += lines + family_entry_close(op, phase1_fn)
    return "\n".join(out) + "\n"


def family_roles_tests(tables, what, case_type, fn, args_type, extra_fields=None):
    """The test registration of such a family: one case per op, its dtypes (then extra_fields(op), more
    `c.x = ...;` lines, when given), the arguments by role."""
    out = family_tests_head(tables, what, case_type, fn)
    for t in tables:
        for op in t.ops:
            fields = [f"c.dtypes = {{{', '.join(cxx_dtype(d) for d in op.dtypes)}}};"]
            fields += extra_fields(op) if extra_fields else []
            out += family_case(op, {}, case_type, fields, args_type, role_args(op))
    return "\n".join(out + ["  return v;", "}", ""])


def family_tests_head(tables, what, case_type, fn):
    out = [f"// Generated by tools/gen_ops.py from the {what} tables; do not edit.",
           f"// One {case_type} per op and sample, run by its harness in tests/ops/."]
    out += [f'#include "aclnnop/{h}"' for h in dict.fromkeys(op.header for t in tables for op in t.ops)]
    return out + ["", f"inline std::vector<{case_type}> {fn}() {{", f"  std::vector<{case_type}> v;"]


def family_case(op, sample, case_type, fields, args_type, args):
    """One registered case: name, api, the family's fields, the phase-1 call and the launch."""
    label = op.name + ("[" + ",".join(f"{k}={v}" for k, v in sample.items()) + "]" if sample else "")
    return (["  {", f"    {case_type} c;", f'    c.name = "{label}";', f'    c.api = "aclnn{op.name}";'] +
            [f"    {f}" for f in fields] +
            [f"    c.phase1 = [](const {args_type} &a, uint64_t *ws, aclOpExecutor **ex) {{",
             f"      return aclnn{op.name}GetWorkspaceSize({args}, ws, ex);", "    };",
             f"    c.launch = aclnn{op.name};", "    v.push_back(std::move(c));", "  }"])


def render_entry(table):
    if table.settings["phase1"] in FAMILY_MODULES:
        return FAMILY_MODULES[table.settings["phase1"]].render_entry(sys.modules[__name__], table)
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
             f'  return ::opsnn::core::phase1({keyed_api(name, params)}, workspaceSize, executor, [&](::opsnn::core::OpBuilder &b) {{',
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


def reject_lines(op, signature, call):
    """The registration of the rows' rejected parameter values: one lambda per `reject`, with the
    first sample's values but those rejected; `call(values)` is the phase-1 call expression."""
    lines = []
    for vals, word in op.rejects:
        bad = dict(op.samples[0])
        bad.update(vals)
        lines.append("    c.rejects.push_back({" + f'"{word}", [](' + signature + ") { return " + call(bad) + "; }});")
    return lines


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
        lines += reject_lines(op, "aclTensor *self, aclTensor *out, uint64_t *ws, aclOpExecutor **ex",
                              lambda bad: f"aclnn{op.name}GetWorkspaceSize({sample_args(op, op.params, bad, ins)}, ws, ex)")
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
            table = read_table(pathlib.Path(sys.argv[i + 1]).resolve())
            render = render_nary_entry if table.settings["phase1"] == "nary" else render_entry
            write_if_changed(sys.argv[i + 2], render(table))
            return 0
        if "--tests" in sys.argv:
            out = pathlib.Path(sys.argv[sys.argv.index("--tests") + 1])
            tables = all_tables()
            write_if_changed(out, render_tests([t for t in tables if t.settings["phase1"] == "unary"]))
            for kind, module in FAMILY_MODULES.items():  # <kind>_table_cases.inc beside it
                family_tables = [t for t in tables if t.settings["phase1"] == kind]
                write_if_changed(out.parent / f"{kind}_table_cases.inc",
                                 module.render_tests(sys.modules[__name__], family_tables))
            return 0
        if "--nary-tests" in sys.argv:
            write_if_changed(sys.argv[sys.argv.index("--nary-tests") + 1], render_nary_tests(all_tables()))
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
