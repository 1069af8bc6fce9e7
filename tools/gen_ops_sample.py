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


def render_entry(g, table):
    out = g.family_entry_head(table, "sample_phase1", "ops/layout/sample_phase1.h", ["opsnn::core::dtype_bit"])
    out += [f"const ::opsnn::ops::SampleRule k{op.name}Rule = {{{g.mask(op.dtypes)}, "
            f"{'true' if 'min_ps' in op.roles else 'false'}}};" for op in table.ops]
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::SampleCall")
        for role, p in op.roles.items():
            lines.append(f"    c.{role} = {p.name};" if role in VALUES else f'    c.{role} = {{{p.name}, "{p.name}"}};')
        out += lines + g.family_entry_close(op, "sample_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "sampling", "SampleTableCase", "sample_table_cases")
    for t in tables:
        for op in t.ops:
            fields = [f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                      f"c.v2 = {'true' if 'min_ps' in op.roles else 'false'};"]
            out += g.family_case(op, {}, "SampleTableCase", fields, "SampleArgs", g.role_args(op))
    return "\n".join(out + ["  return v;", "}", ""])
