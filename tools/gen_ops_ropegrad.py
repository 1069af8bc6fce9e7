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
    return g.family_roles_entry(table, "rope_grad_phase1", "ops/position/rope_grad_phase1.h", "RopeGradRule", "RopeGradCall", {"mode"})


def render_tests(g, tables):
    return g.family_roles_tests(tables, "RoPE-gradient", "RopeGradTableCase", "ropegrad_table_cases", "RopeGradArgs")
