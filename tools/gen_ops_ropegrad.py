"""The RoPE-gradient tables of the op factory (found by tools/gen_ops.py as the module of `phase1 ropegrad`):
rows become ops::rope_grad_phase1 entry points (src/ops/position/rope_grad_phase1.h) and RopeGradTableCase
registrations (tests/ops/test_op_table_ropegrad.cpp).

Row format (besides the common `header`, `dtypes`, `backward`): nothing else. Every parameter's role comes
from its name (ROLES); `dtypes` are the one dtype of every tensor.
"""

ROPEGRAD_KEYS = {"header", "dtypes", "backward"}
ROLES = {"dy": "dy", "cos": "cos", "sin": "sin", "xOptional": "x", "mode": "mode", "dxOut": "dx",
         "dcosOut": "dcos", "dsinOut": "dsin"}


def resolve(g, table, op):
    g.family_resolve_common(table, op, ROPEGRAD_KEYS, "a RoPE-gradient")
    op.roles = g.roles_by_name(op, ROLES, "a RoPE-gradient op")
    op.input, op.output = op.roles["dy"], op.roles["dx"]
    op.results = ["dy's dtype"]


def render_entry(g, table):
    out = g.family_entry_head(table, "rope_grad_phase1", "ops/position/rope_grad_phase1.h", ["opsnn::core::dtype_bit"])
    for op in table.ops:
        out.append(f"const ::opsnn::ops::RopeGradRule k{op.name}Rule = {{{g.mask(op.dtypes)}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::RopeGradCall")
        for role, p in op.roles.items():
            lines.append(f"    c.{role} = {p.name};" if role == "mode" else f'    c.{role} = {{{p.name}, "{p.name}"}};')
        out += lines + g.family_entry_close(op, "rope_grad_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "RoPE-gradient", "RopeGradTableCase", "ropegrad_table_cases")
    for t in tables:
        for op in t.ops:
            fields = [f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};"]
            out += g.family_case(op, {}, "RopeGradTableCase", fields, "RopeGradArgs", g.role_args(op))
    return "\n".join(out + ["  return v;", "}", ""])
