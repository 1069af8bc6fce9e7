"""The class-index loss family of the op factory (found by tools/gen_ops.py as the module of
`phase1 closs`): rows become ops::class_loss_phase1 entry points (src/ops/loss/class_loss_phase1.h)
and ClossTableCase registrations (tests/ops/test_op_table_closs.cpp).

Row format (besides the common `header`, `dtypes`, `backward`):
  loss     kNll | kNllBackward | kCrossEntropy | kCrossEntropyGrad | kMultilabelMargin |
           kVocabSumExp | kVocabLoss (the two halves of vocabulary-parallel cross-entropy) |
           kChamferBackward (the chamfer distance's gradient through the forward's nearest indices)
  self_ndim N           self has exactly N dims (default: 1 or 2, [C] or [N, C])
  targets  D ...        accepted target dtypes (default INT64 INT32 UINT8)
Parameter roles come from the names (see ROLES; KIND_ROLES first for the vocabulary-parallel
kinds, whose weightOptional is a matmul weight, not class weights, and the chamfer gradient); the
tests know each role by the same name.
"""

CLOSS_KEYS = {"loss", "self_ndim", "targets", "header", "dtypes", "backward"}
KINDS = {"kNll": "nll", "kNllBackward": "nll_backward", "kCrossEntropy": "cross_entropy",
         "kCrossEntropyGrad": "cross_entropy_grad", "kMultilabelMargin": "multilabel_margin",
         "kVocabSumExp": "vocab_sum_exp", "kVocabLoss": "vocab_loss", "kChamferBackward": "chamfer_backward"}
ROLES = {"gradOutput": "grad", "gradLoss": "grad", "self": "self", "input": "self", "logProb": "self",
         "target": "target", "weight": "weight", "weightOptional": "weight", "totalWeight": "total",
         "totalWeightOut": "total", "out": "out", "lossOut": "out", "logProbOut": "log_prob", "zlossOut": "zloss",
         "lseForZlossOut": "lse_out", "gradZlossOptional": "grad_zloss", "lseForZlossOptional": "lse_in",
         "reduction": "reduction", "reductionOptional": "reduction_text", "ignoreIndex": "ignore_index",
         "labelSmoothing": "smoothing", "lseSquareScaleForZloss": "zloss_scale", "returnZloss": "return_zloss", "isTarget": "is_target"}
VOCAB_ROLES = {"vocabParallelLogits": "self", "vocabParallelLogitsOptional": "self", "globalLogitsMax": "row_max",
               "logitsMax": "row_max", "vocabStartIndex": "vocab_start", "vocabEndIndex": "vocab_end",
               "predictedLogitsOut": "predicted", "predictedLogits": "predicted", "sumExpLogitsOut": "sum_exp",
               "sumExpLogits": "sum_exp", "expLogitsOut": "exp_out", "targetOffsetOut": "target_offset",
               "targetMaskOut": "target_mask", "inputOptional": "matmul_input", "weightOptional": "matmul_weight",
               "softMaxOutOptional": "softmax_out"}
CHAMFER_ROLES = {"xyz1": "xyz1", "xyz2": "xyz2", "idx1": "idx1", "idx2": "idx2", "gradDist1": "grad_dist1",
                 "gradDist2": "grad_dist2", "gradXyz1": "grad_xyz1", "gradXyz2": "grad_xyz2"}
KIND_ROLES = {"kVocabSumExp": VOCAB_ROLES, "kVocabLoss": VOCAB_ROLES, "kChamferBackward": CHAMFER_ROLES}
# The parameters a row of the kind must have: its input and (unless it has an `out`) its output.
NEEDS = {"kVocabSumExp": ("self", "predicted"), "kVocabLoss": ("self", "predicted"),
         "kChamferBackward": ("xyz1", "grad_xyz1")}
TENSOR_ROLES = set(CHAMFER_ROLES.values()) | {"grad", "self", "target", "weight", "total", "out", "log_prob", "zloss", "lse_out", "grad_zloss",
                "lse_in", "is_target", "row_max", "predicted", "sum_exp", "exp_out", "target_offset", "target_mask",
                "matmul_input", "matmul_weight", "softmax_out"}


def resolve(g, table, op):
    w = op.where
    g.family_resolve_common(table, op, CLOSS_KEYS, "a class-index loss")
    op.loss = g.one(op, "loss")
    if op.loss not in KINDS:
        raise g.TableError(f"{w}: loss must be one of {', '.join(KINDS)}")
    op.roles = g.roles_by_name(op, {**ROLES, **KIND_ROLES.get(op.loss, {})}, "a class-index loss")
    needs = NEEDS.get(op.loss, ("self", "target", "out"))
    for need in needs:
        if need not in op.roles:
            raise g.TableError(f"{w}: a {op.loss} loss needs a '{need}' parameter")
    op.self_ndim = int(g.one(op, "self_ndim", "0"))
    op.targets = g.dtype_list(g.one(op, "targets", "INT64 INT32 UINT8"), w)
    op.input, op.output = op.roles[needs[0]], op.roles["out" if "out" in op.roles else needs[1]]


def render_entry(g, table):
    out = g.family_entry_head(table, "class_loss_phase1", "ops/loss/class_loss_phase1.h",
                              ["opsnn::core::dtype_bit", "opsnn::ops::ClassLossKind"])
    for op in table.ops:
        out.append(f"const ::opsnn::ops::ClassLossRule k{op.name}Rule = {{ClassLossKind::{op.loss}, {op.self_ndim}, "
                   f"{g.mask(op.dtypes)}, {g.mask(op.targets)}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::ClassLossCall")
        for role, p in op.roles.items():
            if role in TENSOR_ROLES:
                lines += [f"    c.{role} = {p.name};", f'    c.{role}_name = "{p.name}";']
            elif role == "reduction_text":
                lines += [f"    c.reduction_text = {p.name};", "    c.reduction_is_text = true;"]
            else:
                lines.append(f"    c.{role} = {p.name};")
        out += lines + g.family_entry_close(op, "class_loss_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "class-index loss", "ClossTableCase", "closs_table_cases")
    for t in tables:
        for op in t.ops:
            fields = [f'c.kind = "{KINDS[op.loss]}";', f"c.self_ndim = {op.self_ndim};",
                      f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                      f"c.targets = {{{', '.join(g.cxx_dtype(d) for d in op.targets)}}};",
                      f"c.text_reduction = {str('reduction_text' in op.roles).lower()};"]
            out += g.family_case(op, {}, "ClossTableCase", fields, "ClossArgs", g.role_args(op))
    return "\n".join(out + ["  return v;", "}", ""])
