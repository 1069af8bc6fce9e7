"""The grouped SwiGLU table of the op factory (found by tools/gen_ops.py as the module of `phase1 swgroup`):
rows become ops::swiglu_group_phase1 entry points (src/ops/activation/swiglu_group_phase1.h) and
SwgroupTableCase registrations (tests/ops/test_op_table_swgroup.cpp).

Row format (besides the common `header`, `dtypes`, `backward`): nothing else. Every parameter's role comes
from its name (ROLES); a row with gradY is a gradient row. The phase 1 checks the pointers (the entry passes
them as given).
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
    return g.family_roles_entry(table, "swiglu_group_phase1", "ops/activation/swiglu_group_phase1.h", "SwigluGroupRule",
                                "SwigluGroupCall", VALUES)


def render_tests(g, tables):
    return g.family_roles_tests(tables, "grouped SwiGLU", "SwgroupTableCase", "swgroup_table_cases", "SwgroupArgs")
