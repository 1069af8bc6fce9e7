"""The grouped SwiGLU table of the op factory (found by tools/gen_ops.py as the module of `phase1 swgroup`):
rows become ops::swiglu_group_phase1 entry points (src/ops/activation/swiglu_group_phase1.h) and
SwgroupTableCase registrations (tests/ops/test_op_table_swgroup.cpp).

Row format (besides the common `header`, `dtypes`, `backward`): nothing else. Every parameter's role comes
from its name (ROLES); a row with gradY is a gradient row.
"""

SWGROUP_KEYS = {"header", "dtypes", "backward"}
ROLES = {"x": "x", "weightOptional": "weight", "groupIndexOptional": "group", "clampLimit": "clamp_limit",
         "out": "out", "gradY": "dy", "yOriginOptional": "y_origin", "gradXOut": "dx",
         "gradWeightOutOptional": "dweight"}
VALUES = ("clamp_limit",)


def resolve(g, table, op):
    g.family_resolve_common(table, op, SWGROUP_KEYS, "a grouped SwiGLU")
    op.roles = g.roles_by_name(op, ROLES, "a grouped SwiGLU op")
    op.input = op.roles["x"]
    op.output = op.roles.get("out", op.roles.get("dx"))
    op.results = ["x's dtype (+ FLOAT gradWeightOut)" if "dy" in op.roles else "x's dtype, last dim halved"]


def render_entry(g, table):
    out = g.family_entry_head(table, "swiglu_group_phase1", "ops/activation/swiglu_group_phase1.h",
                              ["opsnn::core::dtype_bit"])
    out += [f"const ::opsnn::ops::SwigluGroupRule k{op.name}Rule = {{{g.mask(op.dtypes)}}};" for op in table.ops]
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::SwigluGroupCall")
        lines += g.family_null_checks(op)
        for role, p in op.roles.items():
            lines.append(f"    c.{role} = {p.name};" if role in VALUES else f'    c.{role} = {{{p.name}, "{p.name}"}};')
        out += lines + g.family_entry_close(op, "swiglu_group_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "grouped SwiGLU", "SwgroupTableCase", "swgroup_table_cases")
    for t in tables:
        for op in t.ops:
            fields = [f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                      f"c.backward = {str('dy' in op.roles).lower()};"]
            out += g.family_case(op, {}, "SwgroupTableCase", fields, "SwgroupArgs", g.role_args(op))
    return "\n".join(out + ["  return v;", "}", ""])
