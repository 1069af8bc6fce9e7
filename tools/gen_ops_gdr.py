"""The gated delta-rule family of the op factory (found by tools/gen_ops.py as the module of `phase1 gdr`):
rows become ops::gdr_phase1 entry points (src/ops/attention/gdr_phase1.h) and GdrTableCase registrations
(tests/ops/test_op_table_gdr.cpp).

Row format (besides the common `header`, `dtypes`, `backward`): nothing else. Every parameter's role
comes from its name (ROLES); `dtypes` are the query / key / value / out dtypes.
"""

GDR_KEYS = {"header", "dtypes", "backward"}
ROLES = {"query": "query", "key": "key", "value": "value", "beta": "beta", "stateRef": "state",
         "actualSeqLengths": "act_len", "ssmStateIndices": "state_idx", "g": "g", "gk": "gk",
         "numAcceptedTokens": "accepted", "scaleValue": "scale", "out": "out"}


def resolve(g, table, op):
    g.family_resolve_common(table, op, GDR_KEYS, "a gated delta-rule")
    op.roles = g.roles_by_name(op, ROLES, "a gated delta-rule op")
    op.input, op.output = op.roles["query"], op.roles["out"]
    op.results = ["query's dtype", "stateRef in place"]


def render_entry(g, table):
    out = g.family_entry_head(table, "gdr_phase1", "ops/attention/gdr_phase1.h", ["opsnn::core::dtype_bit"])
    for op in table.ops:
        out.append(f"const ::opsnn::ops::GdrRule k{op.name}Rule = {{{g.mask(op.dtypes)}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::GdrCall")
        for role, p in op.roles.items():
            if role == "scale":
                lines.append(f"    c.scale = {p.name};")
            else:
                lines.append(f'    c.{role} = {{{p.name}, "{p.name}"}};')
        out += lines + g.family_entry_close(op, "gdr_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "gated delta-rule", "GdrTableCase", "gdr_table_cases")
    for t in tables:
        for op in t.ops:
            fields = [f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};"]
            out += g.family_case(op, {}, "GdrTableCase", fields, "GdrArgs", g.role_args(op))
    return "\n".join(out + ["  return v;", "}", ""])
