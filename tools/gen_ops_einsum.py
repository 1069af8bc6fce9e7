"""The einsum table of the op factory (found by tools/gen_ops.py as the module of `phase1 einsum`): rows become
ops::einsum_phase1 entry points (src/ops/matmul/einsum_phase1.h) and EinsumTableCase registrations
(tests/ops/test_op_table_einsum.cpp).

Row format (besides the common `header`, `dtypes`): nothing else. Parameter roles come from the names (ROLES);
`dtypes` are the one dtype of every operand and of the output.
"""

EINSUM_KEYS = {"header", "dtypes"}
ROLES = {"tensors": "tensors", "equation": "equation", "output": "output"}


def resolve(g, table, op):
    g.family_resolve_common(table, op, EINSUM_KEYS, "an einsum")
    op.roles = g.roles_by_name(op, ROLES, "an einsum op")
    op.input, op.output = op.roles["tensors"], op.roles["output"]


def render_entry(g, table):
    return g.family_roles_entry(table, "einsum_phase1", "ops/matmul/einsum_phase1.h", "EinsumRule", "EinsumCall",
                                {"equation"})


def render_tests(g, tables):
    return g.family_roles_tests(tables, "einsum", "EinsumTableCase", "einsum_table_cases", "EinsumArgs")
