"""The attention family of the op factory (imported by tools/gen_ops.py): tables whose
`phase1 attention` rows become ops::attention_phase1 entry points and AttnTableCase registrations
(tests/ops/test_op_table_attention.cpp).

Row format (besides the common `header`, `dtypes`, `backward`):
  kind     K                  the kernel: flash (fused attention, kernels/attention/flash_attention.h),
                              trisolve (batched triangular solve, kernels/attention/trisolve.h) or
                              masked_softmax (ScaledMaskedSoftmax and, with a gradOutput, its
                              gradient: kernels/attention/masked_softmax.h)
  decode   yes                Sq = 1 is the incremental (decode) branch: preTokens / nextTokens do not
                              apply in sparse mode 0 (FusedInferAttentionScoreV2)
  sample   a=V ...            parameter values for the registered case (none: one case)
Argument roles come from the parameter names (ROLES below; a trailing `Optional` is dropped; the
block table of paged KV and the antiquant scale / offset are also listed, in their place, with the optional inputs). Every other tensor
or int-array parameter is an unsupported input (quantisation, antiquant, padding sizes, shared prefix): phase 1 answers 161002 naming it when it is not null. Other int64
parameters without a role (keyAntiquantMode, ...) only qualify the unsupported inputs and are ignored.
"""
import re

ATTN_KEYS = {"kind", "decode", "header", "dtypes", "backward", "sample"}
ROLES = {"query": "query", "key": "key", "value": "value", "pseShift": "pse", "attenMask": "mask",
         "actualSeqLengths": "act_q", "actualSeqLengthsKv": "act_kv", "numHeads": "num_heads",
         "scaleValue": "scale", "preTokens": "pre_tokens", "nextTokens": "next_tokens",
         "inputLayout": "layout", "numKeyValueHeads": "num_kv_heads", "sparseMode": "sparse_mode",
         "innerPrecise": "inner_precise", "softmaxLseFlag": "lse_flag", "attentionOut": "out",
         "softmaxLse": "lse", "blockTable": "block_table", "blockSize": "block_size",
         "antiquantScale": "aq_scale", "antiquantOffset": "aq_offset", "antiquantMode": "aq_mode",
         "keyAntiquantScale": "kaq_scale", "keyAntiquantOffset": "kaq_offset", "keyAntiquantMode": "kaq_mode",
         "valueAntiquantScale": "vaq_scale", "valueAntiquantOffset": "vaq_offset", "valueAntiquantMode": "vaq_mode", "self": "self", "A": "a", "upper": "upper", "transpose": "transpose",
         "unitriangular": "unit", "xOut": "x_out", "mOut": "m_out", "x": "x", "y": "y", "gradOutput": "grad",
         "out": "out", "scale": "scale", "mask": "mask", "fixedTriuMask": "triu", "fixTriuMask": "triu"}
KINDS = {"flash": "kFlash", "trisolve": "kTriSolve", "masked_softmax": "kMaskedSoftmax"}
REQUIRED = {"flash": ("query", "key", "value", "out", "num_heads", "layout"), "trisolve": ("self", "a", "x_out", "m_out"),
            "masked_softmax": ("y",)}


def base_type(ctype):
    return ctype.replace("const", "").replace(" ", "")


def resolve(g, table, op):
    w = op.where
    for k in op.keys:
        if k not in ATTN_KEYS:
            raise g.TableError(f"{w}: key '{k}' is not one of an attention row's ({', '.join(sorted(ATTN_KEYS))})")
    op.kind = g.one(op, "kind")
    if op.kind not in KINDS:
        raise g.TableError(f"{w}: kind must be one of {', '.join(KINDS)}")
    op.roles, op.unsupported = {}, []
    for p in op.params:
        name = re.sub(r"Optional$", "", p.name)
        t = base_type(p.ctype)
        if name in ROLES:
            op.roles[ROLES[name]] = p
        elif t in ("aclTensor*", "aclIntArray*", "aclTensorList*"):
            op.unsupported.append(p)
        elif t not in ("int64_t", "bool", "double"):
            raise g.TableError(f"{w}: parameter '{p.name}' has no role in an attention op")
    for need in REQUIRED[op.kind]:
        if need not in op.roles:
            raise g.TableError(f"{w}: an attention op needs a '{need}' parameter")
    op.key_list = "key" in op.roles and base_type(op.roles["key"].ctype) == "aclTensorList*"
    op.decode = g.one(op, "decode", "no") == "yes"
    op.header = g.one(op, "header", f"aclnn_{g.snake(op.name)}.h")
    op.dtypes = g.dtype_list(g.one(op, "dtypes", "act"), w)
    op.backward = g.one(op, "backward")
    op.samples = [g.parse_values(s, w) for s in op.keys.get("sample", [])] or [{}]
    flash = op.kind == "flash"
    if op.kind == "masked_softmax":
        grad = "grad" in op.roles
        op.input, op.output = (op.roles["grad"], op.roles["out"]) if grad else (op.roles["x"], op.roles["y"])
    else:
        op.input, op.output = (op.roles["query"], op.roles["out"]) if flash else (op.roles["self"], op.roles["x_out"])
    op.extra_output, op.inplace = None, None
    op.result = "same"
    op.results = (["query's dtype"] + (["FLOAT lse"] if "lse" in op.roles else [])) if flash else \
        ["X: self's dtype", "M: A's copy"] if op.kind == "trisolve" else ["the input's dtype"]
    op.family = table.settings["family"]


def render_entry(g, table):
    out = g.family_entry_head(table, "attention_phase1", "ops/attention/attention_phase1.h",
                              ["opsnn::core::dtype_bit"])
    for op in table.ops:
        out.append(f"const ::opsnn::ops::AttentionRule k{op.name}Rule = {{::opsnn::ops::AttentionKind::{KINDS[op.kind]}, "
                   f"{str(op.decode).lower()}, {g.mask(op.dtypes)}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::AttentionCall")
        lines.append(f"    c.key_list = {str(op.key_list).lower()};")
        if "grad" in op.roles:
            lines.append("    c.backward = true;")
        # Prototype order: the phase 1 registers the tensors in this order.
        for p in op.params:
            role = next((r for r, q in op.roles.items() if q is p), None)
            t = base_type(p.ctype)
            if role is not None:
                lines.append(f"    c.{role} = {p.name};")
                if t in ("aclTensor*", "aclTensorList*", "aclIntArray*"):
                    lines.append(f'    c.{role}_name = "{p.name}";')
                if role in ("block_table", "aq_scale", "aq_offset", "kaq_scale", "kaq_offset", "vaq_scale", "vaq_offset"):  # optional inputs after the mask: registered in their place
                    lines.append(f'    c.unsupported.push_back({{{p.name}, "{p.name}", true, true}});')
            elif t in ("aclTensor*", "aclIntArray*", "aclTensorList*"):
                lines.append(f'    c.unsupported.push_back({{{p.name}, "{p.name}", {str(t == "aclTensor*").lower()}, false}});')
        out += lines + g.family_entry_close(op, "attention_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "attention", "AttnTableCase", "attn_table_cases")
    for t in tables:
        for op in t.ops:
            args = []
            for p in op.params:
                role = next((r for r, q in op.roles.items() if q is p), None)
                tt = base_type(p.ctype)
                if role == "key" or role == "value":
                    args.append(f"a.{role}_list" if tt == "aclTensorList*" else f"a.{role}")
                elif role is not None:
                    args.append(f"a.{role}")
                elif tt in ("aclTensor*", "aclIntArray*", "aclTensorList*"):
                    cast = {"aclTensor*": "a.bogus_tensor", "aclIntArray*": "a.bogus_array",
                            "aclTensorList*": "a.bogus_list"}[tt]
                    args.append(f'(a.bogus == std::string("{p.name}") ? {cast} : nullptr)')
                else:
                    args.append("0")
            for sample in op.samples:
                fields = [f"c.trisolve = {str(op.kind == 'trisolve').lower()};",
                          f"c.masked_softmax = {str(op.kind == 'masked_softmax').lower()};",
                          f"c.backward = {str('grad' in op.roles).lower()};", f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                          f"c.key_list = {str(op.key_list).lower()};",
                          f"c.has_lse = {str('lse' in op.roles).lower()};",
                          f"c.decode = {str(op.decode).lower()};",
                          f"c.paged = {str('block_table' in op.roles).lower()};",
                          f"c.antiquant = {str('aq_scale' in op.roles).lower()};",
                          f"c.kv_antiquant = {str('kaq_scale' in op.roles).lower()};",
                          "c.unsupported = {" + ", ".join(f'"{p.name}"' for p in op.unsupported) + "};"]
                out += g.family_case(op, sample, "AttnTableCase", fields, "AttnArgs", ", ".join(args))
    return "\n".join(out + ["  return v;", "}", ""])
