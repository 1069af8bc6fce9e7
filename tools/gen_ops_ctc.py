"""The CTC loss family of the op factory (found by tools/gen_ops.py as the module of `phase1 ctc`):
rows become ops::ctc_phase1 entry points (src/ops/loss/ctc_loss_phase1.h) and CtcTableCase
registrations (tests/ops/test_op_table_ctc.cpp).

Row format (besides the common `header`, `dtypes`, `backward`):
  targets  D ...        accepted target dtypes (default INT64 INT32)
Parameter roles come from the names (ROLES); a prototype with gradOut is the backward op.
"""

CTC_KEYS = {"targets", "header", "dtypes", "backward"}
ROLES = {"gradOut": "gout", "logProbs": "lp", "targets": "targets", "inputLengths": "input_lengths",
         "targetlengths": "target_lengths", "targetLengths": "target_lengths", "blank": "blank",
         "zeroInfinity": "zero_infinity", "negLogLikelihoodOut": "nll_out", "logAlphaOut": "alpha_out",
         "negLogLikelihood": "nll_in", "logAlpha": "alpha_in", "out": "out"}
NAMED = {"gout", "lp", "targets", "nll_in", "alpha_in", "nll_out", "alpha_out", "out", "input_lengths",
         "target_lengths"}


def resolve(g, table, op):
    g.family_resolve_common(table, op, CTC_KEYS, "a CTC loss")
    op.roles = g.roles_by_name(op, ROLES, "a CTC loss")
    op.targets = g.dtype_list(g.one(op, "targets", "INT64 INT32"), op.where)
    op.is_backward = "gout" in op.roles
    op.input, op.output = op.roles["lp"], op.roles["out" if op.is_backward else "nll_out"]


def render_entry(g, table):
    out = g.family_entry_head(table, "ctc_phase1", "ops/loss/ctc_loss_phase1.h", ["opsnn::core::dtype_bit"])
    for op in table.ops:
        out.append(f"const ::opsnn::ops::CtcRule k{op.name}Rule = {{{str(op.is_backward).lower()}, "
                   f"{g.mask(op.dtypes)}, {g.mask(op.targets)}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::CtcCall")
        for role, p in op.roles.items():
            lines.append(f"    c.{role} = {p.name};")
            if role in NAMED:
                lines.append(f'    c.{role}_name = "{p.name}";')
        out += lines + g.family_entry_close(op, "ctc_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "CTC loss", "CtcTableCase", "ctc_table_cases")
    for t in tables:
        for op in t.ops:
            fields = [f"c.backward = {str(op.is_backward).lower()};",
                      f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                      f"c.targets = {{{', '.join(g.cxx_dtype(d) for d in op.targets)}}};"]
            out += g.family_case(op, {}, "CtcTableCase", fields, "CtcArgs", g.role_args(op))
    return "\n".join(out + ["  return v;", "}", ""])
