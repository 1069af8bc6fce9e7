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
         "gradWeightOutOptional": "dweight", "scaleOptional": "scale", "dstType": "dst_type", "quantMode": "quant_mode",
         "blockSize": "block_size", "roundScale": "round_scale", "dstTypeMax": "dst_type_max",
         "outputOrigin": "output_origin", "yOut": "out", "yScaleOut": "y_scale", "yOriginOut": "origin_out"}
VALUES = ("clamp_limit", "dst_type", "quant_mode", "block_size", "round_scale", "dst_type_max", "output_origin")


def resolve(g, table, op):
    g.family_resolve_common(table, op, SWGROUP_KEYS, "a grouped SwiGLU")
    op.roles = g.roles_by_name(op, ROLES, "a grouped SwiGLU op")
    op.input = op.roles["x"]
    op.output = op.roles.get("out", op.roles.get("dx"))
    op.results = ["x's dtype (+ FLOAT gradWeightOut)" if "dy" in op.roles else
                  "INT8 (dstType 2), FLOAT block scales, x's dtype yOrigin; FLOAT8 / HIFLOAT8 not supported"
                  if "y_scale" in op.roles else "x's dtype, last dim halved"]


def render_entry(g, table):
    return g.family_roles_entry(table, "swiglu_group_phase1", "ops/activation/swiglu_group_phase1.h", "SwigluGroupRule",
                                "SwigluGroupCall", VALUES)


def render_tests(g, tables):
    return g.family_roles_tests(tables, "grouped SwiGLU", "SwgroupTableCase", "swgroup_table_cases", "SwgroupArgs")
