"""The foreach family of the op factory (found by tools/gen_ops.py as the module of `phase1 foreach`):
rows become ops::foreach_phase1 entry points (src/ops/foreach/foreach_phase1.h) and ForeachTableCase
registrations (tests/ops/test_op_table_foreach.cpp).

Row format (besides the common `header`, `dtypes`):
  kernel   kOp          the element-wise functor applied entry by entry (kernels/elementwise/lists/*.inc);
                        `round` for RoundOffNumber (the functor comes from roundMode), `norm` for Norm
                        (the scalar is p; out[i] holds one element), `unscale` for
                        NonFiniteCheckAndUnscale (AMP's torch._amp_foreach_non_finite_check_and_unscale_)
  s0       V            the functor's s0 when no parameter gives it (default 1: Add's alpha)
  scalar   operand|value|first   what `scalar` / `scalars` are: the functor's last operand (default),
                        its s0 (addcmul's value), or its first operand (scalar ** x[i])
  ref      EXPR         float64 reference of one element (not for norm / unscale: the harness's own), a C++ expression of a (x[i]), b (x2[i] or
                        the scalar operand), c (x3[i]) and v (s0: alpha / value)
  mag      EXPR         the magnitude of the terms a result cancels (e.g. |a| + |v * b| for a + v * b):
                        errors of results much smaller than it are measured against it (precision.md's
                        near-zero allowance); default none (purely relative)
  domain   LO HI        input range of the random tests (default -2 2)
Parameter roles come from the names and types (roles below); a list without `out` is written in place.
"""

FOREACH_KEYS = {"kernel", "header", "dtypes", "s0", "scalar", "ref", "mag", "domain"}
LIST_ROLES = {"x": "x", "x1": "x", "x2": "x2", "x3": "x3", "weight": "x3", "out": "out", "scaledGrads": "x"}
TENSOR_ROLES = {"alpha": "alpha_t", "scalar": "scalar_t", "scalars": "scalars_t", "roundMode": "round_t",
                "foundInf": "found_inf", "invScale": "inv_scale"}
KINDS = {"round": "kRound", "norm": "kNorm", "unscale": "kUnscale"}
SCALAR_ROLES = {"alpha": "alpha", "scalar": "scalar", "weight": "scalar", "roundMode": "round"}


def resolve(g, table, op):
    w = op.where
    g.family_resolve_common(table, op, FOREACH_KEYS, "a foreach", default_dtypes="act")
    op.roles = {}
    for p in op.params:
        base = p.ctype.replace("const", "").replace(" ", "")
        role = {"aclTensorList*": LIST_ROLES, "aclTensor*": TENSOR_ROLES, "aclScalar*": SCALAR_ROLES,
                "aclScalarList*": {"scalars": "scalars"}}.get(base, {}).get(p.name)
        if role is None:
            raise g.TableError(f"{w}: parameter '{p.name}' ({p.ctype}) has no role in a foreach op")
        op.roles[role] = p
    if "x" not in op.roles:
        raise g.TableError(f"{w}: a foreach op needs an x (or x1) list")
    op.kernel = g.one(op, "kernel")
    if op.kernel is None:
        raise g.TableError(f"{w}: a foreach op needs a kernel")
    if op.kernel not in KINDS and op.kernel not in g.ew_functor_names():
        raise g.TableError(f"{w}: kernel '{op.kernel}' is not an element-wise functor")
    op.s0 = g.one(op, "s0", "1")
    op.scalar = g.one(op, "scalar", "operand")
    if op.scalar not in ("operand", "value", "first"):
        raise g.TableError(f"{w}: scalar must be operand, value or first")
    # Norm's and the unscale's references are the harness's own (a reduction, foundInf).
    op.ref = g.one(op, "ref", "0.0" if op.kernel in ("norm", "unscale") else None)
    if op.ref is None:
        raise g.TableError(f"{w}: a foreach op needs a float64 ref")
    op.mag = g.one(op, "mag", "0.0")
    op.domain = [float(v) for v in g.one(op, "domain", "-2 2").split()]
    op.input = op.roles["x"]
    op.output = op.roles.get("out", op.input)


def render_entry(g, table):
    out = g.family_entry_head(table, "foreach_phase1", "ops/foreach/foreach_phase1.h",
                              ["opsnn::core::dtype_bit", "opsnn::kernels::EwOp", "opsnn::ops::ForeachKind"])
    for op in table.ops:
        kind = KINDS.get(op.kernel, "kMap")
        kernel = "kIdentity" if op.kernel in KINDS else op.kernel
        out.append(f"const ::opsnn::ops::ForeachRule k{op.name}Rule = {{ForeachKind::{kind}, EwOp::{kernel}, "
                   f"{g.mask(op.dtypes)}, {op.s0}, {str(op.scalar == 'first').lower()}, "
                   f"{str(op.scalar == 'value').lower()}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::ForeachCall")
        lines += g.family_null_checks(op)
        for role, p in op.roles.items():
            lines.append(f"    c.{role} = {p.name};")
            if role not in ("alpha", "round", "scalars"):
                lines.append(f'    c.{role}_name = "{p.name}";')
        lines.append(f"    c.x_ir = {op.params.index(op.roles['x'])};")
        out += lines + g.family_entry_close(op, "foreach_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "foreach", "ForeachTableCase", "foreach_table_cases")
    for t in tables:
        for op in t.ops:
            kinds = {r: ("list" if r in LIST_ROLES.values() else "tensor" if r in TENSOR_ROLES.values()
                         else "scalar_list" if r == "scalars" else "scalar") for r in op.roles}
            roles = ", ".join(f'"{r}"' for r in op.roles)
            fields = [f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                      f"c.roles = {{{roles}}};",
                      f'c.names = {{{", ".join(chr(34) + p.name + chr(34) for p in op.roles.values())}}};',
                      f'c.scalar_use = "{op.scalar}";',
                      f"c.s0 = {op.s0};",
                      f'c.kind = "{op.kernel if op.kernel in KINDS else "map"}";',
                      f"c.lo = {op.domain[0]};", f"c.hi = {op.domain[1]};",
                      f"c.ref = [](double a, double b, double c, double v) {{ (void)a; (void)b; (void)c; (void)v; "
                      f"return {op.ref}; }};",
                      f"c.mag = [](double a, double b, double c, double v) {{ (void)a; (void)b; (void)c; (void)v; "
                      f"return {op.mag}; }};"]
            out += g.family_case(op, {}, "ForeachTableCase", fields, "ForeachArgs", g.role_args(op))
    return "\n".join(out + ["  return v;", "}", ""])
