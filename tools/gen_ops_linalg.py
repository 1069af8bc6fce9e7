"""The linear-algebra table of the op factory (found by tools/gen_ops.py as the module of `phase1 linalg`): rows
become ops::inverse_phase1 entry points (src/ops/linalg/inverse_phase1.h) and LinalgTableCase registrations
(tests/ops/test_op_table_linalg.cpp).

Row format (besides the common `header`, `dtypes`): nothing else. Every parameter's role comes from its name
(ROLES); `dtypes` are self's dtypes (out has self's).
"""

LINALG_KEYS = {"header", "dtypes"}
ROLES = {"self": "x", "out": "out"}


def resolve(g, table, op):
    g.family_resolve_common(table, op, LINALG_KEYS, "a linear-algebra")
    op.roles = g.roles_by_name(op, ROLES, "a linear-algebra op")
    op.input, op.output = op.roles["x"], op.roles["out"]


def render_entry(g, table):
    return g.family_roles_entry(table, "inverse_phase1", "ops/linalg/inverse_phase1.h", "InverseRule", "InverseCall",
                                set())


def render_tests(g, tables):
    return g.family_roles_tests(tables, "linear-algebra", "LinalgTableCase", "linalg_table_cases", "LinalgArgs")
