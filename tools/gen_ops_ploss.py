"""The point-wise loss family of the op factory (imported by tools/gen_ops.py): tables whose
`phase1 ploss` rows become ops::pointwise_loss_phase1 entry points and PlossTableCase
registrations (tests/ops/test_op_table_ploss.cpp).

Row format (besides the common `header`, `dtypes`, `backward`):
  loss     kMseTerm           the element-wise functor: the term, or for a gradient op its derivative
  ref      NAME               the tests' float64 reference (tests/common/float64_refs.h ploss_ref)
  batchmean yes               reduction 3 (batchmean: divided by self's dim 0) is accepted
  weighted yes                the loss takes weight / posWeight: `loss` is the term (or derivative)
                              of (self, target, posWeight), multiplied by the weight in a second pass
Parameter roles come from the names: gradOutput / gradOut (a gradient op), self, target,
reduction, beta, logTarget, weight(Optional), posWeightOptional; the output is the last tensor.
"""

PLOSS_KEYS = {"loss", "ref", "header", "dtypes", "backward", "sample", "batchmean", "weighted"}
ROLES = {"gradOutput": "grad", "gradOut": "grad", "self": "self", "target": "target", "reduction": "reduction",
         "beta": "beta", "logTarget": "log_target",
         "weight": "weight", "weightOptional": "weight", "posWeightOptional": "pos_weight"}


def resolve(g, table, op):
    w = op.where
    g.family_resolve_common(table, op, PLOSS_KEYS, "a point-wise loss")
    tensors = [p for p in op.params if p.kind == "tensor"]
    op.roles = {"out": tensors[-1]}
    for p in op.params:
        if p is tensors[-1]:
            continue
        role = ROLES.get(p.name)
        if role is None:
            raise g.TableError(f"{w}: parameter '{p.name}' has no role in a point-wise loss")
        op.roles[role] = p
    op.loss = g.one(op, "loss")
    if op.loss not in g.ew_functor_names():
        raise g.TableError(f"{w}: '{op.loss}' is not an element-wise functor")
    op.ref = g.one(op, "ref")
    if not op.ref:
        raise g.TableError(f"{w}: missing 'ref'")
    op.samples = [g.parse_values(s, w) for s in op.keys.get("sample", [])] or [{}]
    op.batchmean = g.one(op, "batchmean", "no") == "yes"
    op.weighted = g.one(op, "weighted", "no") == "yes"
    if ("weight" in op.roles or "pos_weight" in op.roles) != op.weighted:
        raise g.TableError(f"{w}: 'weighted yes' goes with a weight / posWeight parameter")
    op.input, op.output = op.roles["self"], op.roles["out"]
    op.result = "float"
    op.results = ["float"]


def render_entry(g, table):
    out = g.family_entry_head(table, "pointwise_loss_phase1", "ops/loss/pointwise_loss_phase1.h",
                              ["opsnn::core::dtype_bit", "opsnn::kernels::EwOp"])
    for op in table.ops:
        out.append(f"const ::opsnn::ops::PointwiseLossRule k{op.name}Rule = {{EwOp::{op.loss}, "
                   f"{str('grad' in op.roles).lower()}, {g.mask(op.dtypes)}, {str(op.batchmean).lower()}, {str(op.weighted).lower()}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        r = op.roles
        lines = g.family_entry_open(op, "::opsnn::ops::PointwiseLossCall")
        for role in ("grad", "self", "target", "weight", "pos_weight", "out"):
            if role in r:
                lines += [f"    c.{role} = {r[role].name};", f'    c.{role}_name = "{r[role].name}";']
        lines.append(f"    c.reduction = {r['reduction'].name};")
        if "beta" in r:
            lines += [f"    c.beta = {r['beta'].name};", "    c.has_beta = true;"]
        for role in ("weight", "pos_weight"):
            if role in r:
                lines.append(f"    c.has_{role} = true;")
        if "log_target" in r:
            lines.append(f"    c.log_target = {r['log_target'].name};")
        out += lines + g.family_entry_close(op, "pointwise_loss_phase1")
    return "\n".join(out) + "\n"



def render_tests(g, tables):
    out = g.family_tests_head(tables, "point-wise loss", "PlossTableCase", "ploss_table_cases")
    arg = {"grad": "a.grad", "self": "a.self", "target": "a.target", "out": "a.out", "reduction": "a.reduction",
           "beta": "a.beta", "log_target": "a.log_target",
           "weight": "a.weight", "pos_weight": "a.pos_weight"}
    for t in tables:
        for op in t.ops:
            role_of = {p.name: k for k, p in op.roles.items()}
            args = ", ".join(arg[role_of[p.name]] for p in op.params)
            for sample in op.samples:
                fields = [f'c.ref = "{op.ref}";', f"c.backward = {str('grad' in op.roles).lower()};",
                          f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                          f"c.beta = {sample.get('beta', '1.0')};",
                          f"c.log_target = {sample.get('logTarget', 'false')};",
                          f"c.batchmean = {str(op.batchmean).lower()};",
                          f"c.has_weight = {str('weight' in op.roles).lower()};",
                          f"c.has_pos_weight = {str('pos_weight' in op.roles).lower()};"]
                out += g.family_case(op, sample, "PlossTableCase", fields, "PlossArgs", args)
    return "\n".join(out + ["  return v;", "}", ""])
