"""The gated (GLU) activation family of the op factory (found by tools/gen_ops.py as the module of
`phase1 gated`): rows become ops::gated_phase1 entry points (src/ops/activation/gated_phase1.h) and
GatedTableCase registrations (tests/ops/test_op_table_gated.cpp).

Parameter roles come from the names (TENSOR_ROLES; the values dim, interleaved and the attributes
by their own name): the input x is split in two halves along `dim` (no dim parameter: the last
dim); `interleaved` makes the halves its even / odd elements. A row with a gradient input (`grad`
lines) is a gradient row. Row format (besides the common `header`, `dtypes`, `backward`):
  order    first|second|ATTR   which half is the functor's operand a (b the other): the first, the
                               second, or the first when the bool attribute ATTR is true
  gate     kOp | ATTR: v=kA v=kB   the functor (kernels/elementwise/lists/*.inc), or chosen by an
                               integer attribute (other values: 161002 naming it)
  result   NAME = F(operands)  a forward output and its functor (F: kOp or gate; operands a, b,
                               threshold); default `out = gate(a, b)`
  grad     a|b = F(operands)   a gradient row's gradient of half a / b (operands g, a, b, gelu)
  enum     V = PARAM: w=n ... null=n   a `char *` attribute read as the integer V (unknown word:
                               161002 naming PARAM; without null=: 161001)
  scalars  E; E; ...           the functor's s0.. as C++ expressions of the parameters
  require  EXPR ; MSG          161002 (the row's status) with MSG when false; {NAME} in MSG prints NAME
  status   tiling              shape errors and requires are 561002 (the vendor's ClippedSwigluGrad)
For the tests: `ref NAME = EXPR` the float64 reference of output NAME (forward) or of d out / d a
(d b) without the incoming gradient (gradient rows), an expression of a, b, gelu, threshold and the
parameters (helpers in tests/common/float64_refs.h); `sample` parameter values (one case each);
`reject` values phase 1 must refuse (161002 or the row's status, message containing the word). A
gradient row's finite-difference test differentiates the `ref out` of the forward row naming it as
`backward`.
"""
import re

GATED_KEYS = {"header", "dtypes", "backward", "order", "gate", "result", "grad", "enum", "scalars", "require",
              "status", "ref", "sample", "reject"}
TENSOR_ROLES = {"self": "x", "x": "x", "input": "x", "gradOut": "grad", "yGrad": "grad", "gradOutput": "grad",
                "gradY": "grad", "gelu": "gelu", "threshold": "threshold", "groupIndexOptional": "group",
                "out": "out", "gradInput": "out", "gradXOut": "out", "outGelu": "out_gelu"}
OPERANDS = {"g": "kGrad", "a": "kA", "b": "kB", "gelu": "kGelu", "threshold": "kThreshold"}
TERM_RE = re.compile(r"^(\w+)\s*=\s*(\w+)\((.*)\)$")


def _term(g, op, text, targets):
    m = TERM_RE.match(text)
    if not m or m.group(1) not in targets:
        raise g.TableError(f"{op.where}: expected '{'|'.join(targets)} = kOp(operands)', got '{text}'")
    fn = m.group(2)
    if fn != "gate" and fn not in g.ew_functor_names():
        raise g.TableError(f"{op.where}: '{fn}' is not a functor of kernels/elementwise/lists/*.inc")
    operands = [o.strip() for o in m.group(3).split(",") if o.strip()]
    for o in operands:
        if o not in OPERANDS:
            raise g.TableError(f"{op.where}: operand '{o}' is not one of {', '.join(OPERANDS)}")
    return targets.index(m.group(1)), fn, operands


def resolve(g, table, op):
    g.family_resolve_common(table, op, GATED_KEYS, "a gated")
    op.roles = {}
    op.values = []
    for p in op.params:
        role = TENSOR_ROLES.get(p.name) if p.kind == "tensor" else None
        if p.kind == "tensor" and role is None:
            raise g.TableError(f"{op.where}: tensor '{p.name}' has no role in a gated op")
        if role is None:
            op.values.append(p)
            role = p.name
        op.roles[role] = p
    for need in ("x", "out"):
        if need not in op.roles:
            raise g.TableError(f"{op.where}: a gated op needs an input (self / x / input) and an output")
    op.is_grad = "grad" in op.roles
    op.input, op.output = op.roles["x"], op.roles["out"]
    op.results = ["x's dtype" if op.is_grad else "castable floating out"]
    order = g.one(op, "order", "first")
    if order not in ("first", "second") and (order not in op.roles or op.roles[order].ctype != "bool"):
        raise g.TableError(f"{op.where}: order '{order}' is not first, second or a bool parameter")
    op.order = order
    gate = g.one(op, "gate")
    op.gate_attr, op.gate_map = None, {}
    if gate and ":" in gate:
        attr, _, choices = gate.partition(":")
        op.gate_attr = attr.strip()
        if op.gate_attr not in op.roles:
            raise g.TableError(f"{op.where}: gate attribute '{op.gate_attr}' is not a parameter")
        op.gate_map = dict(c.split("=", 1) for c in choices.split())
    elif gate:
        op.gate_map = {None: gate}
    for fn in op.gate_map.values():
        if fn not in g.ew_functor_names():
            raise g.TableError(f"{op.where}: gate '{fn}' is not a functor of kernels/elementwise/lists/*.inc")
    if op.is_grad:
        terms = [_term(g, op, t, ["a", "b"]) for t in op.keys.get("grad", [])]
        if sorted(t[0] for t in terms) != [0, 1]:
            raise g.TableError(f"{op.where}: a gradient row needs one `grad a = ...` and one `grad b = ...`")
    else:
        outs = ["out", "outGelu"]
        terms = [_term(g, op, t, outs) for t in op.keys.get("result", [])]
        if 0 not in [t[0] for t in terms]:
            terms.insert(0, (0, "gate", ["a", "b"]))
    if any(t[1] == "gate" for t in terms) and not op.gate_map:
        raise g.TableError(f"{op.where}: a term uses `gate` but the row has no gate")
    op.terms = terms
    op.enums = []
    for e in op.keys.get("enum", []):
        m = re.match(r"^(\w+)\s*=\s*(\w+)\s*:\s*(.*)$", e)
        if not m or m.group(2) not in op.roles or op.roles[m.group(2)].ctype.replace(" ", "") != "char*":
            raise g.TableError(f"{op.where}: expected 'enum V = PARAM: word=n ...' over a char * parameter")
        op.enums.append((m.group(1), m.group(2), dict(w.split("=", 1) for w in m.group(3).split())))
    sc = g.one(op, "scalars")
    op.scalars = [s.strip() for s in sc.split(";")] if sc else []
    g.read_defaults_and_requires(op)
    op.status = "ACLNN_ERR_INNER_TILING_ERROR" if g.one(op, "status") == "tiling" else "ACLNN_ERR_PARAM_INVALID"
    op.refs = {}
    for r in op.keys.get("ref", []):
        name, _, expr = r.partition("=")
        op.refs[name.strip()] = expr.strip()
    op.samples = [g.parse_values(s, op.where) for s in op.keys.get("sample", [])] or [{}]
    attrs = [p.name for p in op.values if p.name != "dim"]
    for s in op.samples:
        missing = [a for a in attrs if a not in s]
        if missing:
            raise g.TableError(f"{op.where}: a sample lacks {', '.join(missing)}")
    op.rejects = []
    for r in op.keys.get("reject", []):
        vals, _, word = r.partition(";")
        op.rejects.append((g.parse_values(vals, op.where), word.strip()))


# ---- entry points

def _message(op, msg):
    """A require's message as a printf format and its arguments ({NAME} prints the parameter)."""
    args = []

    def sub(m):
        p = op.roles.get(m.group(1))
        if p is None and m.group(1) not in [e[0] for e in op.enums]:
            raise ValueError(f"{op.where}: {{{m.group(1)}}} is not a parameter")
        if p is not None and p.ctype in ("double", "float"):
            args.append(f"static_cast<double>({m.group(1)})")
            return "%g"
        args.append(f"static_cast<long long>({m.group(1)})")
        return "%lld"
    fmt = re.sub(r"\{(\w+)\}", sub, msg.replace("%", "%%"))
    return fmt, args


def _throw(code, fmt, args):
    a = "".join(f", {x}" for x in args)
    return f'::opsnn::throw_error({code}, "{fmt}"{a});'


def _term_init(op, t):
    target, fn, operands = t
    ops = ", ".join(f"GatedOperand::{OPERANDS[o]}" for o in operands)
    kernel = "EwOp::kIdentity" if fn == "gate" else f"EwOp::{fn}"
    return f"{{{target}, {'true' if fn == 'gate' else 'false'}, {kernel}, {len(operands)}, {{{ops}}}}}"


def render_entry(g, table):
    out = g.family_entry_head(table, "gated_phase1", "ops/activation/gated_phase1.h",
                              ["opsnn::core::dtype_bit", "opsnn::kernels::EwOp", "opsnn::ops::GatedOperand"])
    out[2:2] = ["#include <cstring>", "", '#include "common/error.h"', '#include "core/op_checks.h"']
    for op in table.ops:
        terms = ", ".join(_term_init(op, t) for t in op.terms)
        out.append(f"const ::opsnn::ops::GatedRule k{op.name}Rule = {{{g.mask(op.dtypes)}, "
                   f"{'true' if op.is_grad else 'false'}, {op.status}, {len(op.terms)}, {{{terms}}}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::GatedCall")
        lines += g.family_null_checks(op)
        for v, pname, words in op.enums:
            lines.append(f"    int64_t {v} = 0;")
            null = words.get("null")
            lines.append(f"    if ({pname} == nullptr) " + (f"{v} = {null};" if null is not None else
                         f'::opsnn::core::check_not_null({pname}, "{pname}");'))
            choices = [w for w in words if w != "null"]
            for w in choices:
                lines.append(f'    else if (std::strcmp({pname}, "{w}") == 0) {v} = {words[w]};')
            listed = ", ".join(f'\\"{w}\\"' for w in choices)
            lines.append("    else " + _throw("ACLNN_ERR_PARAM_INVALID",
                                              f'{pname} must be one of {listed}{" (or null)" if null else ""}, '
                                              f'got \\"%s\\"', [pname]))
        for expr, msg in op.requires:
            fmt, args = _message(op, msg)
            lines.append(f"    if (!({expr})) " + _throw(op.status, fmt, args))
        if op.gate_attr:
            first = True
            for v, fn in op.gate_map.items():
                lines.append(f"    {'if' if first else 'else if'} ({op.gate_attr} == {v}) c.gate = EwOp::{fn};")
                first = False
            lines.append("    else " + _throw("ACLNN_ERR_PARAM_INVALID", f"{op.gate_attr} must be one of "
                                              f"{', '.join(op.gate_map)}, got %lld",
                                              [f"static_cast<long long>({op.gate_attr})"]))
        elif op.gate_map:
            lines.append(f"    c.gate = EwOp::{op.gate_map[None]};")
        for role, p in op.roles.items():
            if p.kind == "tensor":
                lines.append(f'    c.{role} = {{{p.name}, "{p.name}"}};')
        if "dim" in op.roles:
            lines.append("    c.dim = dim;")
        else:
            lines.append("    c.dim = -1;  // the last dim")
        if "interleaved" in op.roles:
            lines.append("    c.interleaved = interleaved;")
        lines.append(f"    c.a_first = {'true' if op.order == 'first' else 'false' if op.order == 'second' else op.order};")
        for i, s in enumerate(op.scalars):
            lines.append(f"    c.scalars[{i}] = static_cast<double>({s});")
        lines.append(f"    c.nscalars = {len(op.scalars)};")
        out += lines + g.family_entry_close(op, "gated_phase1")
    return "\n".join(out) + "\n"


# ---- test registration

def _literal(p, v):
    if v == "null":
        return "nullptr"
    if p.ctype == "bool":
        return v
    return v


def _locals(op, sample):
    """The sample's values as C++ locals (and the enums' integers), for the reference lambdas."""
    out = []
    for name, v in sample.items():
        p = op.roles.get(name)
        if p is None:
            continue
        if p.ctype.replace(" ", "") == "char*":
            for ev, pname, words in op.enums:
                if pname == name:
                    out.append(f"[[maybe_unused]] const double {ev} = {words.get(v if v != 'null' else 'null', '0')};")
            continue
        if p.kind == "tensor":  # a one-element tensor (threshold): its value
            out.append(f"[[maybe_unused]] const double {name} = {v};")
            continue
        ctype = "bool" if p.ctype == "bool" else "double"
        out.append(f"[[maybe_unused]] const {ctype} {name} = {v};")
    return " ".join(out)


def _setter(op, values):
    lines = []
    for name, v in values.items():
        p = op.roles.get(name)
        if p is None:
            raise ValueError(f"{op.where}: '{name}' is not a parameter")
        if p.kind == "tensor":
            lines.append(f"a.{name}_value = {v};")
        elif p.ctype.replace(" ", "") == "char*":
            if v == "null":
                lines.append(f"a.{name} = nullptr;")
            else:
                lines.append(f'static char s_{name}_{v}[] = "{v}"; a.{name} = s_{name}_{v};')
        else:
            lines.append(f"a.{name} = {v};")
    return "[](GatedArgs &a) { " + " ".join(lines) + " }"


def _lambda(args, locals_, expr):
    args = ", ".join(f"[[maybe_unused]] {a.strip()}" for a in args.split(","))
    return f"[]({args}) {{ {locals_} return static_cast<double>({expr}); }}"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "gated", "GatedTableCase", "gated_table_cases")
    forward_of = {op.backward: op for t in tables for op in t.ops if op.backward}
    for t in tables:
        for op in t.ops:
            for si, sample in enumerate(op.samples):
                loc = _locals(op, sample)
                names = ", ".join(f'{{"{r}", "{op.roles[r].name}"}}' for r in dict.fromkeys(TENSOR_ROLES.values())
                                  if r in op.roles and r != "group")
                required = ", ".join(f'"{r}"' for r, p in op.roles.items()
                                     if p.kind == "tensor" and not p.name.endswith("Optional"))
                order = "true" if op.order == "first" else "false" if op.order == "second" else \
                    sample.get(op.order, "true")
                fields = [f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                          f"c.backward = {'true' if op.is_grad else 'false'}; c.has_dim = "
                          f"{'true' if 'dim' in op.roles else 'false'}; c.has_group = "
                          f"{'true' if 'group' in op.roles else 'false'};",
                          f"c.interleaved = {sample.get('interleaved', 'false')}; c.a_first = {order};",
                          f"c.status = {op.status};",
                          f"c.names = {{{names}}};", f"c.required = {{{required}}};",
                          f"c.set = {_setter(op, sample)};"]
                enum_params = [e[1] for e in op.enums]
                for vals, word in op.rejects:  # a gate / enum choice is a 161002, a `require` the row's status
                    code = "ACLNN_ERR_PARAM_INVALID" if word in enum_params or word == op.gate_attr else op.status
                    fields.append(f'c.rejects.push_back({{{_setter(op, vals)}, {code}, "{word}"}});')
                if op.is_grad:
                    fields.append(f"c.ref_a = {_lambda('double a, double b, double gelu', loc, op.refs['a'])};")
                    fields.append(f"c.ref_b = {_lambda('double a, double b, double gelu', loc, op.refs['b'])};")
                    fwd = forward_of.get(op.name)
                    if fwd is None:
                        raise ValueError(f"{op.where}: no forward row names {op.name} as its backward")
                    fields.append(f"c.fwd = {_lambda('double a, double b', loc, fwd.refs['out'])};")
                    if "outGelu" in fwd.refs:
                        fields.append(f"c.gelu_of = {_lambda('double a, double b', loc, fwd.refs['outGelu'])};")
                else:
                    fields.append(f"c.ref_out = {_lambda('double a, double b', loc, op.refs['out'])};")
                    if "outGelu" in op.refs:
                        fields.append(f"c.ref_out_gelu = {_lambda('double a, double b', loc, op.refs['outGelu'])};")
                    if "threshold" in op.roles:
                        fields.append(f"c.threshold = {sample['threshold']};")
                label_sample = sample if len(op.samples) > 1 else {}
                out += g.family_case(op, label_sample, "GatedTableCase", fields, "GatedArgs", g.role_args(op))
    return "\n".join(out + ["  return v;", "}", ""])
