"""The multi-scale deformable attention table of the op factory (found by tools/gen_ops.py as the module of
`phase1 msda`): rows become ops::msda_phase1 entry points (src/ops/vfusion/msda_phase1.h) and MsdaTableCase
registrations (tests/ops/test_op_table_msda.cpp).

Row format (besides the common `header`, `dtypes`, `backward`): nothing else. Every parameter's role comes from
its name (ROLES); a row with gradOutput is the gradient (MsdaRule::backward).
"""

MSDA_KEYS = {"header", "dtypes", "backward"}
ROLES = {"value": "value", "spatialShape": "shapes", "levelStartIndex": "starts", "location": "loc",
         "attnWeight": "attn", "output": "out", "gradOutput": "dy", "gradValue": "dvalue", "gradLocation": "dloc",
         "gradAttnWeight": "dattn"}


def resolve(g, table, op):
    g.family_resolve_common(table, op, MSDA_KEYS, "a deformable-attention")
    op.roles = g.roles_by_name(op, ROLES, "a deformable-attention op")
    op.input = op.roles["value"]
    op.output = op.roles.get("out", op.roles.get("dvalue"))


def render_entry(g, table):
    out = g.family_entry_head(table, "msda_phase1", "ops/vfusion/msda_phase1.h", ["opsnn::core::dtype_bit"])
    for op in table.ops:
        backward = str("dy" in op.roles).lower()
        out.append(f"const ::opsnn::ops::MsdaRule k{op.name}Rule = {{{g.mask(op.dtypes)}, {backward}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::MsdaCall")
        lines += [f'    c.{role} = {{{p.name}, "{p.name}"}};' for role, p in op.roles.items()]
        out += lines + g.family_entry_close(op, "msda_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    return g.family_roles_tests(tables, "deformable-attention", "MsdaTableCase", "msda_table_cases", "MsdaArgs")
