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
    return g.family_roles_entry(table, "gdr_phase1", "ops/attention/gdr_phase1.h", "GdrRule", "GdrCall", {"scale"})


def render_tests(g, tables):
    return g.family_roles_tests(tables, "gated delta-rule", "GdrTableCase", "gdr_table_cases", "GdrArgs")
