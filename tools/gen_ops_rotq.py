"""The rotate-quant table of the op factory (found by tools/gen_ops.py as the module of `phase1 rotq`):
rows become ops::rotate_quant_phase1 entry points (src/ops/matmul/rotate_quant_phase1.h) and
RotqTableCase registrations (tests/ops/test_op_table_rotq.cpp).

Row format (besides the common `header`, `dtypes`, `backward`): nothing else. Every parameter's role comes
from its name (ROLES); the entry checks the pointers (alpha may be null), the phase 1 everything else.
"""

ROTQ_KEYS = {"header", "dtypes", "backward"}
ROLES = {"x": "x", "rotation": "rotation", "alpha": "alpha", "axis": "axis", "roundMode": "round_mode",
         "scaleAlg": "scale_alg", "dstTypeMax": "dst_type_max", "trans": "trans", "yOut": "y",
         "scaleOut": "scale_out"}
VALUES = ("axis", "round_mode", "scale_alg", "dst_type_max", "trans")


def resolve(g, table, op):
    g.family_resolve_common(table, op, ROTQ_KEYS, "a rotate-quant")
    op.roles = g.roles_by_name(op, ROLES, "a rotate-quant op")
    op.input, op.output = op.roles["x"], op.roles["y"]
    op.results = ["INT8 / INT32 (eight INT4) of x @ rotation per token, FLOAT per-row scales; FP4 / FP8 not supported"]


def render_entry(g, table):
    out = g.family_entry_head(table, "rotate_quant_phase1", "ops/matmul/rotate_quant_phase1.h",
                              ["opsnn::core::dtype_bit"])
    out += [f"const ::opsnn::ops::RotqRule k{op.name}Rule = {{{g.mask(op.dtypes)}}};" for op in table.ops]
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::RotqCall")
        lines += g.family_null_checks(op, nullable=("alpha", "roundMode"), any_dtype=("yOut", "scaleOut"))
        for role, p in op.roles.items():
            lines.append(f"    c.{role} = {p.name};" if role in VALUES else f'    c.{role} = {{{p.name}, "{p.name}"}};')
        out += lines + g.family_entry_close(op, "rotate_quant_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    return g.family_roles_tests(tables, "rotate-quant", "RotqTableCase", "rotq_table_cases", "RotqArgs")
