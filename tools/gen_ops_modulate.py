"""The modulate table of the op factory (found by tools/gen_ops.py as the module of `phase1 modulate`): rows
become ops::modulate_phase1 entry points (src/ops/vfusion/modulate_phase1.h) and ModulateTableCase
registrations (tests/ops/test_op_table_modulate.cpp).

Row format (besides the common `header`, `dtypes`): nothing else. Every parameter's role comes from its name
(ROLES); a row with grad_output is the backward (ModulateRule::backward).
"""

MODULATE_KEYS = {"header", "dtypes", "backward"}
ROLES = {"self": "x", "input": "x", "scaleOptional": "scale", "scale": "scale", "shiftOptional": "shift",
         "shift": "shift", "out": "out", "grad_output": "dy", "grad_input": "dx", "grad_scale": "dscale",
         "grad_shift": "dshift"}


def resolve(g, table, op):
    g.family_resolve_common(table, op, MODULATE_KEYS, "a modulate")
    op.roles = g.roles_by_name(op, ROLES, "a modulate op")
    op.input = op.roles["x"]
    op.output = op.roles.get("out", op.roles.get("dx"))


def render_entry(g, table):
    out = g.family_entry_head(table, "modulate_phase1", "ops/vfusion/modulate_phase1.h", ["opsnn::core::dtype_bit"])
    for op in table.ops:
        backward = str("dy" in op.roles).lower()
        out.append(f"const ::opsnn::ops::ModulateRule k{op.name}Rule = {{{g.mask(op.dtypes)}, {backward}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::ModulateCall")
        lines += [f'    c.{role} = {{{p.name}, "{p.name}"}};' for role, p in op.roles.items()]
        out += lines + g.family_entry_close(op, "modulate_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "modulate", "ModulateTableCase", "modulate_table_cases")
    for t in tables:
        for op in t.ops:
            fields = [f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                      f"c.backward = {str('dy' in op.roles).lower()};"]
            out += g.family_case(op, {}, "ModulateTableCase", fields, "ModulateArgs", g.role_args(op))
    return "\n".join(out + ["  return v;", "}", ""])
