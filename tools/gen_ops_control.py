"""The stream-control table of the op factory (found by tools/gen_ops.py as the module of `phase1 control`):
rows become ops::control_phase1 entry points (src/ops/control/control_phase1.h) and ControlTableCase
registrations (tests/ops/test_op_table_control.cpp).

Row format (besides the common `header`, `dtypes`): nothing else. Every parameter's role comes from its name
(ROLES); `dtypes` is the dtype of the values (INT64 cycles).
"""

CONTROL_KEYS = {"header", "dtypes"}
ROLES = {"cycles": "cycles"}


def resolve(g, table, op):
    g.family_resolve_common(table, op, CONTROL_KEYS, "a stream-control", default_dtypes="INT64")
    op.roles = g.roles_by_name(op, ROLES, "a stream-control op")
    op.input = op.output = op.roles["cycles"]
    op.results = ["a wait on the stream"]


def render_entry(g, table):
    return g.family_roles_entry(table, "control_phase1", "ops/control/control_phase1.h", "ControlRule",
                                "ControlCall", {"cycles"})


def render_tests(g, tables):
    return g.family_roles_tests(tables, "stream-control", "ControlTableCase", "control_table_cases", "ControlArgs")
