"""The jagged-permute table of the op factory (found by tools/gen_ops.py as the module of `phase1 jagged`): rows
become ops::jagged_permute_phase1 entry points (src/ops/serving/jagged_permute_phase1.h) and JaggedTableCase
registrations (tests/ops/test_op_table_jagged.cpp).

Row format (besides the common `header`, `dtypes`): nothing else. Every parameter's role comes from its name
(ROLES); `dtypes` are the one dtype of every tensor.
"""

JAGGED_KEYS = {"header", "dtypes"}
ROLES = {"permute": "permute", "inputOffset": "in_offsets", "outputOffset": "out_offsets",
         "outputSize": "output_size", "outputPermuteOut": "out"}


def resolve(g, table, op):
    g.family_resolve_common(table, op, JAGGED_KEYS, "a jagged-permute")
    op.roles = g.roles_by_name(op, ROLES, "a jagged-permute op")
    op.input, op.output = op.roles["permute"], op.roles["out"]


def render_entry(g, table):
    return g.family_roles_entry(table, "jagged_permute_phase1", "ops/serving/jagged_permute_phase1.h", "JaggedRule",
                                "JaggedCall", {"output_size"})


def render_tests(g, tables):
    return g.family_roles_tests(tables, "jagged-permute", "JaggedTableCase", "jagged_table_cases", "JaggedArgs")
