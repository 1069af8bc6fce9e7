"""The fused linear cross-entropy table of the op factory (found by tools/gen_ops.py as the module of
`phase1 flce`): rows become ops::flce_phase1 entry points (src/ops/matmul/flce_phase1.h) and FlceTableCase
registrations (tests/ops/test_op_table_flce.cpp).

Row format (besides the common `header`, `dtypes`, `backward`): nothing else. Every parameter's role comes from its
name (ROLES); a row with a `grad` parameter is the gradient (FlceRule::backward).
"""

FLCE_KEYS = {"header", "dtypes", "backward"}
ROLES = {"input": "x", "weight": "w", "target": "target", "vocabStartIndex": "start", "vocabEndIndex": "end",
         "logitsMaxLocalOut": "max_out", "sumExpLogitsLocalOut": "sum_out", "predictedLogitsLocalOut": "pred_out",
         "targetMaskOut": "mask_out", "maskedTargetOut": "mt_out", "vocabParallelLogitsOutOptional": "logits_out",
         "grad": "grad", "targetMask": "mask", "maskedTarget": "mt", "labelSmoothing": "smoothing",
         "logitsMaxOptional": "max", "sumExpLogitsOptional": "sum", "softmaxOptional": "softmax",
         "inputGradOut": "dx", "weightGradOut": "dw"}
VALUES = {"start", "end", "smoothing"}


def resolve(g, table, op):
    g.family_resolve_common(table, op, FLCE_KEYS, "a fused linear cross-entropy")
    op.roles = g.roles_by_name(op, ROLES, "a fused linear cross-entropy op")
    op.input = op.roles["x"]
    op.output = op.roles.get("max_out", op.roles.get("dx"))


def render_entry(g, table):
    out = g.family_entry_head(table, "flce_phase1", "ops/matmul/flce_phase1.h", ["opsnn::core::dtype_bit"])
    for op in table.ops:
        backward = str("grad" in op.roles).lower()
        out.append(f"const ::opsnn::ops::FlceRule k{op.name}Rule = {{{g.mask(op.dtypes)}, {backward}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::FlceCall")
        lines += [f"    c.{role} = {p.name};" if role in VALUES else f'    c.{role} = {{{p.name}, "{p.name}"}};'
                  for role, p in op.roles.items()]
        out += lines + g.family_entry_close(op, "flce_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    return g.family_roles_tests(tables, "fused linear cross-entropy", "FlceTableCase", "flce_table_cases", "FlceArgs")
