"""The tensor-list sum table of the op factory (found by tools/gen_ops.py as the module of `phase1 accumulate`):
rows become ops::accumulate_phase1 entry points (src/ops/math/accumulate_phase1.h) and AccumulateTableCase
registrations (tests/ops/test_op_table_accumulate.cpp).

Row format (besides the common `header`, `dtypes`): nothing else. Parameter roles come from the names (ROLES);
`dtypes` are the one dtype of every listed tensor and of the output.
"""

ACCUMULATE_KEYS = {"header", "dtypes"}
ROLES = {"tensors": "tensors", "out": "out"}


def resolve(g, table, op):
    g.family_resolve_common(table, op, ACCUMULATE_KEYS, "a tensor-list sum")
    op.roles = g.roles_by_name(op, ROLES, "a tensor-list sum op")
    op.input, op.output = op.roles["tensors"], op.roles["out"]


def render_entry(g, table):
    return g.family_roles_entry(table, "accumulate_phase1", "ops/math/accumulate_phase1.h", "AccumulateRule",
                                "AccumulateCall", set())


def render_tests(g, tables):
    return g.family_roles_tests(tables, "tensor-list sum", "AccumulateTableCase", "accumulate_table_cases",
                                "AccumulateArgs")
