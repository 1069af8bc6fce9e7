"""The recurrent tables of the op factory (found by tools/gen_ops.py as the module of `phase1 rnn`):
rows become ops::rnn_phase1 entry points (src/ops/rnn/rnn_phase1.h) and RnnTableCase registrations
(tests/ops/test_op_table_rnn.cpp).

Row format (besides the common `header`, `dtypes`, `backward`):
    kind      the plan: fused_lstm_cell | fused_lstm_cell_backward | lstm | lstm_backward | gru | gru_backward |
              bidirection_lstm
    nullable  pointer parameters the op's own rules decide about (e.g. an output the flags turn off)
Every parameter's role comes from its name (ROLES; `hx` is the role of the LSTM's tensor list, the
GRU's one tensor is `hx_tensor`); `dtypes` are the one floating dtype of every tensor.
"""

RNN_KEYS = {"header", "dtypes", "backward", "kind", "nullable"}
KINDS = {"fused_lstm_cell": "kFusedLstmCell", "fused_lstm_cell_backward": "kFusedLstmCellBackward",
         "lstm": "kLstm", "lstm_backward": "kLstmBackward", "gru": "kGru", "gru_backward": "kGruBackward",
         "bidirection_lstm": "kBidirectionLstm"}
ROLES = {
    # the fused cell and its gradient
    "inputGates": "input_gates", "hiddenGates": "hidden_gates", "cx": "cx", "inputBiasOptional": "input_bias",
    "hiddenBiasOptional": "hidden_bias", "hyOut": "hy", "cyOut": "cy", "storageOut": "storage", "cy": "cy",
    "storage": "storage", "gradHyOptional": "grad_hy", "gradCOptional": "grad_c", "gradGatesOut": "grad_gates",
    "gradCxOut": "grad_cx", "gradBiasOut": "grad_bias",
    # sequences
    "input": "input", "params": "params", "hx": "hx", "batchSizes": "batch_sizes",
    "batchSizesOptional": "batch_sizes", "hasBias": "has_bias", "numLayers": "num_layers", "dropout": "dropout",
    "train": "train", "bidirectional": "bidirectional", "bidirection": "bidirectional", "batchFirst": "batch_first",
    "output": "output", "hy": "hy", "dy": "dy", "dh": "dh", "dc": "dc", "outputMask": "output_mask",
    "dxOut": "dx", "dhPrevOut": "dh_prev", "dcPrevOut": "dc_prev", "dparamsOut": "dparams",
    # saved per-step tensors (outputs of the forward, inputs of the backward)
    "iOut": "i", "jOut": "g", "fOut": "f", "oOut": "o", "hOut": "h", "cOut": "c", "tanhCOut": "tanhc",
    "i": "i", "g": "g", "f": "f", "o": "o", "h": "h", "c": "c", "tanhc": "tanhc",
    # BidirectionLSTM (V2)
    "x": "input", "initH": "init_h", "initC": "init_c", "wIh": "w_ih", "wHh": "w_hh", "bIhOptional": "b_ih",
    "bHhOptional": "b_hh", "wIhReverseOptional": "w_ih_r", "wHhReverseOptional": "w_hh_r",
    "bIhReverseOptional": "b_ih_r", "bHhReverseOptional": "b_hh_r", "isbias": "has_bias", "yOut": "output",
    "outputHOut": "hy", "outputCOut": "cy", "batchSizeOptional": "batch_sizes", "packed": "packed",
    "rOut": "r", "zOut": "z", "nOut": "n", "hnOut": "hn", "r": "r", "z": "z", "n": "n", "hn": "hn",
}
VALUE_ROLES = {"packed", "has_bias", "num_layers", "dropout", "train", "bidirectional", "batch_first", "output_mask"}


def resolve(g, table, op):
    g.family_resolve_common(table, op, RNN_KEYS, "a recurrent")
    op.roles = g.roles_by_name(op, ROLES, "a recurrent op")
    if "hx" in op.roles and "aclTensorList" not in op.roles["hx"].ctype:
        op.roles["hx_tensor"] = op.roles.pop("hx")
    kind = g.one(op, "kind")
    if kind not in KINDS:
        raise g.TableError(f"{op.where}: kind '{kind}' is not one of {', '.join(KINDS)}")
    op.kind = KINDS[kind]
    op.nullable = " ".join(op.keys.get("nullable", [])).split()
    for n in op.nullable:
        if n not in [p.name for p in op.params]:
            raise g.TableError(f"{op.where}: nullable '{n}' is not a parameter")
    op.results = ["input's dtype"]


def render_entry(g, table):
    out = g.family_entry_head(table, "rnn_phase1", "ops/rnn/rnn_phase1.h", ["opsnn::core::dtype_bit"])
    out += [f"const ::opsnn::ops::RnnRule k{op.name}Rule = {{::opsnn::ops::RnnKind::{op.kind}, {g.mask(op.dtypes)}}};"
            for op in table.ops]
    out += ["}  // namespace", ""]
    for op in table.ops:  # the call is `call`: LstmBackward has a parameter named c
        lines = g.family_entry_open(op, "::opsnn::ops::RnnCall")
        lines[-1] = lines[-1].replace(" c;", " call;")
        lines += g.family_null_checks(op, nullable=op.nullable)
        for role, p in op.roles.items():
            lines.append(f"    call.{role} = {p.name};" if role in VALUE_ROLES else
                         f'    call.{role} = {{{p.name}, "{p.name}"}};')
        out += lines + [line.replace(", c);", ", call);") for line in g.family_entry_close(op, "rnn_phase1")]
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "recurrent", "RnnTableCase", "rnn_table_cases")
    for t in tables:
        for op in t.ops:
            fields = [f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                      f'c.kind = "{next(k for k, v in KINDS.items() if v == op.kind)}";']
            out += g.family_case(op, {}, "RnnTableCase", fields, "RnnArgs", g.role_args(op))
    return "\n".join(out + ["  return v;", "}", ""])
