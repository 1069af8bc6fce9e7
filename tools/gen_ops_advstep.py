"""The advance-step table of the op factory (found by tools/gen_ops.py as the module of `phase1 advstep`): rows
become ops::advance_step_phase1 entry points (src/ops/serving/advance_step_phase1.h) and AdvanceStepTableCase
registrations (tests/ops/test_op_table_advstep.cpp).

Row format (besides the common `header`, `dtypes`): nothing else. Every parameter's role comes from its name
(ROLES); `dtypes` are the one dtype of every tensor.
"""

ADVSTEP_KEYS = {"header", "dtypes"}
ROLES = {"inputTokens": "tokens", "sampledTokenIds": "sampled", "inputPositions": "positions",
         "seqLens": "seq_lens", "slotMapping": "slots", "blockTables": "block_tables", "numSeqs": "num_seqs",
         "numQueries": "num_queries", "blockSize": "block_size", "specToken": "spec_tokens", "acceptedNum": "accepted"}
VALUES = {"num_seqs", "num_queries", "block_size"}


def resolve(g, table, op):
    g.family_resolve_common(table, op, ADVSTEP_KEYS, "an advance-step")
    op.roles = g.roles_by_name(op, ROLES, "an advance-step op")
    op.input, op.output = op.roles["sampled"], op.roles["tokens"]


def render_entry(g, table):
    return g.family_roles_entry(table, "advance_step_phase1", "ops/serving/advance_step_phase1.h", "AdvanceStepRule",
                                "AdvanceStepCall", VALUES)


def render_tests(g, tables):
    return g.family_roles_tests(tables, "advance-step", "AdvanceStepTableCase", "advstep_table_cases",
                                "AdvanceStepArgs")
