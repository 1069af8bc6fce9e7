"""The optimiser family of the op factory (found by tools/gen_ops.py as the module of `phase1 optim`):
rows become ops::optim_phase1 entry points (src/ops/optim/optim_phase1.h) and OptimTableCase
registrations (tests/ops/test_op_table_optim.cpp).

Row format (besides the common `header`, `dtypes`):
  update   kAdamW | kAdam | kAdamWV2 | kEmaAdam | kFusedAdamw | kFusedSgd | kAdamWQuant   the update rule (ops::OptimKind)
Parameter roles come from the names (ROLES; V2_ROLES first for kAdamWV2, whose hyper-parameters are
float attributes and whose step is a tensor; EMA_ROLES first for kEmaAdam, the same plus the EMA
tensor sRef, its decay, the weight-decay mode and biasCorrection); a tensor role is written
(registered in place) when the rule writes it: var, m, v (ApplyAdam's const m / v included),
kAdamWV2's maxGradNormOptionalRef, kEmaAdam's sRef. kFusedAdamw / kFusedSgd take tensor lists
(LIST_ROLES: V2's float hyper-parameters plus the lists, gradScale / foundInf, SGD's momentum terms).
"""

OPTIM_KEYS = {"update", "header", "dtypes"}
UPDATES = {"kAdamW", "kAdam", "kAdamWV2", "kEmaAdam", "kFusedAdamw", "kFusedSgd", "kAdamWQuant"}
ROLES = {"varRef": "var", "mRef": "m", "m": "m", "vRef": "v", "v": "v", "beta1Power": "b1p",
         "beta2Power": "b2p", "lr": "lr", "weightDecay": "wd", "beta1": "b1", "beta2": "b2", "eps": "eps",
         "epsilon": "eps", "grad": "grad", "maxGradNormOptional": "max_v", "amsgrad": "amsgrad",
         "maximize": "maximize", "useLocking": "locking", "useNesterov": "nesterov"}
V2_ROLES = {"maxGradNormOptionalRef": "max_v", "step": "step", "lr": "lr_f", "beta1": "b1_f", "beta2": "b2_f",
            "weightDecay": "wd_f", "eps": "eps_f"}
EMA_ROLES = {**V2_ROLES, "sRef": "s", "emaDecay": "ema_f", "mode": "mode", "biasCorrection": "bias_corr"}
LIST_ROLES = {**V2_ROLES, "paramsRef": "params", "grads": "grads", "gradsRef": "grads", "expAvgsRef": "exp_avgs",
              "expAvgSqsRef": "exp_avg_sqs", "maxExpAvgSqsRef": "max_exp_avg_sqs", "stateSteps": "steps",
              "momentumBufferListOptionalRef": "momenta", "gradScaleOptional": "grad_scale",
              "foundInfOptional": "found_inf", "momentum": "momentum_f", "dampening": "dampening_f",
              "isFirstStep": "first_step", "nesterov": "nesterov"}
QUANT_ROLES = {**V2_ROLES, "qmapM": "qmap_m", "qmapV": "qmap_v", "absmaxMRef": "absmax_m",
               "absmaxVRef": "absmax_v", "gnormScale": "gnorm_f", "quantModeOptional": "quant_mode",
               "blockSize": "block_size"}
TENSORS = ["var", "m", "v", "b1p", "b2p", "lr", "wd", "b1", "b2", "eps", "grad", "max_v", "step", "s", "params", "grads", "exp_avgs",
           "exp_avg_sqs", "max_exp_avg_sqs", "steps", "momenta", "grad_scale", "found_inf",
           "qmap_m", "qmap_v", "absmax_m", "absmax_v"]
EXTRA_ROLES = {"kAdamWV2": V2_ROLES, "kEmaAdam": EMA_ROLES, "kFusedAdamw": LIST_ROLES, "kFusedSgd": LIST_ROLES,
               "kAdamWQuant": QUANT_ROLES}


def resolve(g, table, op):
    g.family_resolve_common(table, op, OPTIM_KEYS, "an optimiser")
    op.update = g.one(op, "update")
    if op.update not in UPDATES:
        raise g.TableError(f"{op.where}: update '{op.update}' is not one of {sorted(UPDATES)}")
    op.roles = g.roles_by_name(op, {**ROLES, **EXTRA_ROLES.get(op.update, {})}, "an optimiser")
    first = op.roles.get("var", op.roles.get("params"))
    op.input, op.output = first, first


def render_entry(g, table):
    out = g.family_entry_head(table, "optim_phase1", "ops/optim/optim_phase1.h", ["opsnn::core::dtype_bit"])
    for op in table.ops:
        out.append(f"const ::opsnn::ops::OptimRule k{op.name}Rule = {{::opsnn::ops::OptimKind::{op.update}, "
                   f"{g.mask(op.dtypes)}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::OptimCall")
        for role, p in op.roles.items():
            lines.append(f"    c.{role} = {p.name};")
            if role in TENSORS:
                lines.append(f'    c.{role}_name = "{p.name}";')
        out += lines + g.family_entry_close(op, "optim_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "optimiser", "OptimTableCase", "optim_table_cases")
    for t in tables:
        for op in t.ops:
            names = ", ".join(f'{{"{r}", "{op.roles[r].name}"}}' for r in TENSORS if r in op.roles)
            fields = [f"c.adamw = {str(op.update == 'kAdamW').lower()};",
                      f"c.v2 = {str(op.update == 'kAdamWV2').lower()};",
                      f"c.ema = {str(op.update == 'kEmaAdam').lower()};",
                      f'c.update = "{op.update}";',
                      f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                      f"c.names = {{{names}}};"]
            out += g.family_case(op, {}, "OptimTableCase", fields, "OptimArgs", g.role_args(op))
    return "\n".join(out + ["  return v;", "}", ""])
