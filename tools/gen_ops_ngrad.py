"""The norm-gradient family of the op factory (found by tools/gen_ops.py as the module of `phase1
ngrad`): rows become ops::norm_grad_phase1 entry points (src/ops/norm/norm_grad_phase1.h) and
NgradTableCase registrations (tests/ops/test_op_table_ngrad.cpp).

Row format (besides the common `header`, `dtypes`, `backward`):
  grad     kLayer | kRms | kGroup
Parameter roles come from the names (ROLES).
"""

NGRAD_KEYS = {"grad", "header", "dtypes", "backward"}
KINDS = {"kLayer": "layer", "kRms": "rms", "kGroup": "group"}
ROLES = {"gradOut": "dy", "dy": "dy", "input": "x", "x": "x", "mean": "mean", "rstd": "rstd",
         "weightOptional": "gamma", "gamma": "gamma", "biasOptional": "beta", "normalizedShape": "normalized_shape",
         "N": "n", "C": "c", "HxW": "hxw", "group": "group", "outputMask": "output_mask",
         "gradInputOut": "dx", "gradInput": "dx", "dxOut": "dx", "gradWeightOut": "dgamma", "gradGammaOut": "dgamma",
         "dgammaOut": "dgamma", "gradBiasOut": "dbeta", "gradBetaOut": "dbeta"}
TENSORS = {"dy", "x", "mean", "rstd", "gamma", "beta", "dx", "dgamma", "dbeta"}


def resolve(g, table, op):
    g.family_resolve_common(table, op, NGRAD_KEYS, "a norm-gradient")
    op.roles = g.roles_by_name(op, ROLES, "a norm gradient")
    op.grad = g.one(op, "grad")
    if op.grad not in KINDS:
        raise g.TableError(f"{op.where}: grad must be one of {', '.join(KINDS)}")
    op.input, op.output = op.roles["x"], op.roles["dx"]


def render_entry(g, table):
    out = g.family_entry_head(table, "norm_grad_phase1", "ops/norm/norm_grad_phase1.h",
                              ["opsnn::core::dtype_bit", "opsnn::ops::NormGradKind"])
    for op in table.ops:
        out.append(f"const ::opsnn::ops::NormGradRule k{op.name}Rule = {{NormGradKind::{op.grad}, {g.mask(op.dtypes)}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::NormGradCall")
        for role, p in op.roles.items():
            if role in TENSORS:
                lines += [f"    c.{role} = {p.name};", f'    c.{role}_name = "{p.name}";']
            else:
                lines.append(f"    c.{role} = {p.name};")
        if op.roles["gamma"].name.endswith("Optional"):
            lines.append("    c.gamma_optional = true;")
        if "dbeta" in op.roles:
            lines.append("    c.has_dbeta = true;")
        out += lines + g.family_entry_close(op, "norm_grad_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "norm-gradient", "NgradTableCase", "ngrad_table_cases")
    for t in tables:
        for op in t.ops:
            fields = [f'c.kind = "{KINDS[op.grad]}";', f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                      f"c.gamma_optional = {str(op.roles['gamma'].name.endswith('Optional')).lower()};",
                      f"c.has_dbeta = {str('dbeta' in op.roles).lower()};",
                      f"c.has_mask = {str('output_mask' in op.roles).lower()};"]
            out += g.family_case(op, {}, "NgradTableCase", fields, "NgradArgs", g.role_args(op))
    return "\n".join(out + ["  return v;", "}", ""])
