"""The channel-activation tables of the op factory (found by tools/gen_ops.py as the module of
`phase1 channel`): rows become ops::channel_phase1 entry points (src/ops/activation/channel_phase1.h)
and ChannelTableCase registrations (tests/ops/test_op_table_channel.cpp).

Row format (besides the common `header`, `dtypes`, `backward`):
  op  prelu|prelu_backward|rrelu   the computation (ops::ChannelOp); an rrelu row without `out` is
                                   the in-place twin (self written)
Every parameter's role comes from its name (ROLES); `dtypes` are every floating tensor's dtypes.
"""

CHANNEL_KEYS = {"header", "dtypes", "backward", "op"}
OPS = {"prelu": "kPrelu", "prelu_backward": "kPreluBackward", "rrelu": "kRRelu"}
ROLES = {p: p for p in ("self", "weight", "out", "gradOutput", "gradInput", "gradWeight", "noise", "lower",
                        "upper", "training", "seed", "offset")}
VALUE_ROLES = {"training", "seed", "offset"}


def resolve(g, table, op):
    g.family_resolve_common(table, op, CHANNEL_KEYS, "a channel-activation")
    kind = g.one(op, "op")
    if kind not in OPS:
        raise g.TableError(f"{op.where}: op '{kind}' is not one of {', '.join(OPS)}")
    op.kind, op.row_op = OPS[kind], kind
    op.results = ["promoted dtype" if kind == "prelu_backward" else "self's dtype"]
    op.roles = g.roles_by_name(op, ROLES, "a channel-activation op")
    op.input = op.roles.get("self")
    op.output = op.roles.get("out") or op.roles.get("gradInput") or op.input


def render_entry(g, table):
    out = g.family_entry_head(table, "channel_phase1", "ops/activation/channel_phase1.h", ["opsnn::core::dtype_bit"])
    out += [f"const ::opsnn::ops::ChannelRule k{op.name}Rule = {{{g.mask(op.dtypes)}, ::opsnn::ops::ChannelOp::{op.kind}}};"
            for op in table.ops]
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::ChannelCall") + g.family_null_checks(op)
        for role, p in op.roles.items():
            lines.append(f"    c.{role} = {p.name};" if role in VALUE_ROLES else f'    c.{role} = {{{p.name}, "{p.name}"}};')
        out += lines + g.family_entry_close(op, "channel_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "channel-activation", "ChannelTableCase", "channel_table_cases")
    for t in tables:
        for op in t.ops:
            fields = [f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                      f'c.op = "{op.row_op}";',  # the row's `op`
                      f"c.inplace = {'true' if op.kind == 'kRRelu' and 'out' not in op.roles else 'false'};"]
            out += g.family_case(op, {}, "ChannelTableCase", fields, "ChannelArgs", g.role_args(op))
    return "\n".join(out + ["  return v;", "}", ""])
