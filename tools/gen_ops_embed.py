"""The embedding family of the op factory (found by tools/gen_ops.py as the module of `phase1
embed`): rows become ops::embed_phase1 entry points (src/ops/layout/embed_phase1.h) and
EmbedTableCase registrations (tests/ops/test_op_table_embed.cpp).

Row format (besides the common `header`, `dtypes`, `backward`):
  kind     dense_backward | renorm | bag | top_k_top_p        the plan (ops::EmbedKind)
Parameter roles come from the names (see ROLES); the tests know each role by the same name.
"""

EMBED_KEYS = {"kind", "header", "dtypes", "backward"}
KINDS = {"dense_backward": "kDenseBackward", "renorm": "kRenorm", "bag": "kBag", "top_k_top_p": "kTopKTopP"}
ROLES = {"grad": "weight", "weight": "weight", "selfRef": "weight", "indices": "indices", "offsets": "offsets",
         "perSampleWeights": "per_sample_weights", "out": "out", "output": "out", "offset2bag": "offset2bag",
         "bagSize": "bag_size", "maxIndices": "max_indices", "numWeights": "num_weights",
         "paddingIdx": "padding_idx", "scaleGradByFreq": "scale_grad", "mode": "mode", "sparse": "sparse",
         "includeLastOffset": "include_last", "maxNorm": "max_norm", "normType": "norm_type", "logits": "weight",
         "p": "p", "k": "k"}
TENSOR_ROLES = {"weight", "indices", "offsets", "per_sample_weights", "out", "offset2bag", "bag_size",
                "max_indices", "p", "k"}


def resolve(g, table, op):
    w = op.where
    g.family_resolve_common(table, op, EMBED_KEYS, "an embedding")
    op.roles = g.roles_by_name(op, ROLES, "an embedding op")
    op.kind = g.one(op, "kind")
    if op.kind not in KINDS:
        raise g.TableError(f"{w}: kind must be one of {', '.join(KINDS)}")
    for need in ("weight",) if op.kind == "top_k_top_p" else ("weight", "indices"):
        if need not in op.roles:
            raise g.TableError(f"{w}: an embedding op needs a '{need}' parameter")
    op.input = op.roles["weight"]
    op.output = op.roles.get("out", op.input)


def render_entry(g, table):
    out = g.family_entry_head(table, "embed_phase1", "ops/layout/embed_phase1.h",
                              ["opsnn::core::dtype_bit", "opsnn::ops::EmbedKind"])
    for op in table.ops:
        out.append(f"const ::opsnn::ops::EmbedRule k{op.name}Rule = {{EmbedKind::{KINDS[op.kind]}, "
                   f"{g.mask(op.dtypes)}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::EmbedCall")
        for role, p in op.roles.items():
            if role in TENSOR_ROLES:
                lines += [f"    c.{role} = {p.name};", f'    c.{role}_name = "{p.name}";']
            elif p.ctype.replace("const", "").strip() == "uint64_t":
                lines.append(f"    c.{role} = static_cast<int64_t>({p.name});")
            else:
                lines.append(f"    c.{role} = {p.name};")
        out += lines + g.family_entry_close(op, "embed_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "embedding", "EmbedTableCase", "embed_table_cases")
    for t in tables:
        for op in t.ops:
            role_of = {p.name: k for k, p in op.roles.items()}
            args = ", ".join(f"static_cast<uint64_t>(a.{role_of[p.name]})"
                             if p.ctype.replace("const", "").strip() == "uint64_t" else f"a.{role_of[p.name]}"
                             for p in op.params)
            names = ", ".join(f'{{"{k}", "{p.name}"}}' for k, p in op.roles.items() if k in TENSOR_ROLES)
            fields = [f'c.kind = "{op.kind}";',
                      f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                      f"c.names = {{{names}}};"]
            out += g.family_case(op, {}, "EmbedTableCase", fields, "EmbedArgs", args)
    return "\n".join(out + ["  return v;", "}", ""])
