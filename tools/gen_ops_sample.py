"""The sampling table of the op factory (found by tools/gen_ops.py as the module of `phase1 sample`): rows
become ops::sample_phase1 entry points (src/ops/layout/sample_phase1.h) and SampleTableCase registrations
(tests/ops/test_op_table_sample.cpp).

Row format (besides the common `header`, `dtypes`): nothing else. Every parameter's role comes from its name
(ROLES); `dtypes` are the accepted logits dtypes. A row with minPs is the V2 form (rule.v2).
"""

SAMPLE_KEYS = {"header", "dtypes"}
ROLES = {"logits": "logits", "topK": "top_k", "topP": "top_p", "q": "q", "minPs": "min_ps", "eps": "eps",
         "isNeedLogits": "need_logits", "topKGuess": "guess", "ksMax": "ks_max", "inputIsLogits": "input_is_logits",
         "isNeedSampleResult": "need_sample_result", "logitsSelectIdx": "select_idx",
         "logitsTopKPSelect": "select_logits", "logitsIdx": "logits_idx", "logitsSortMasked": "sort_masked"}
VALUES = {"eps", "need_logits", "guess", "ks_max", "input_is_logits", "need_sample_result"}


def resolve(g, table, op):
    g.family_resolve_common(table, op, SAMPLE_KEYS, "a sampling")
    op.roles = g.roles_by_name(op, ROLES, "a sampling op")
    op.input, op.output = op.roles["logits"], op.roles["select_idx"]


def is_v2(op):
    return "true" if "min_ps" in op.roles else "false"


def render_entry(g, table):
    return g.family_roles_entry(table, "sample_phase1", "ops/layout/sample_phase1.h", "SampleRule", "SampleCall", VALUES,
                                rule_extra=is_v2)


def render_tests(g, tables):
    return g.family_roles_tests(tables, "sampling", "SampleTableCase", "sample_table_cases", "SampleArgs",
                                extra_fields=lambda op: [f"c.v2 = {is_v2(op)};"])
