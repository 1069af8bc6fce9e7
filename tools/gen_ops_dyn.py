"""The data-dependent-size family of the op factory (found by tools/gen_ops.py as the module of
`phase1 dyn`): rows become ops::dyn_phase1 entry points (src/ops/layout/dyn_phase1.h) and
DynTableCase registrations (tests/ops/test_op_table_dyn.cpp).

Row format (besides the common `header`, `dtypes`, `backward`):
  kind     nonzero | nonzero_t | unique | unique_consecutive | unique_dim | masked_scatter |
           scatter_update | scatter_list | masked_select | quant_scatter
           the plan (ops::DynKind)
Parameter roles come from the names (see ROLES); the tests know each role by the same name.
"""

DYN_KEYS = {"kind", "header", "dtypes", "backward"}
KINDS = {"nonzero": "kNonzero", "nonzero_t": "kNonzeroT", "unique": "kUnique",
         "unique_consecutive": "kUniqueConsecutive", "unique_dim": "kUniqueDim", "masked_scatter": "kMaskedScatter",
         "scatter_update": "kScatterUpdate", "scatter_list": "kScatterList",
         "masked_select": "kMaskedSelect", "quant_scatter": "kQuantScatter"}
ROLES = {"self": "self", "selfRef": "self", "out": "out", "valueOut": "out", "inverseOut": "inverse",
         "countsOut": "counts", "mask": "mask", "source": "source", "sorted": "sorted",
         "returnInverse": "return_inverse", "returnCounts": "return_counts", "dim": "dim",
         "data": "self", "indices": "index", "updates": "source", "axis": "dim",
         "varRef": "list", "indice": "index", "maskOptional": "mask", "reduceOptional": "reduce",
         "quantScales": "quant_scales", "quantZeroPoints": "quant_zero_points", "quantAxis": "quant_axis",
         "reduction": "reduction", "roundMode": "round_mode"}
TENSOR_ROLES = {"self", "out", "inverse", "counts", "mask", "source", "index", "list", "quant_scales",
                "quant_zero_points"}
# The header comment of each op with dynamic outputs (tools/gen_ops.py render_header), filled by resolve.
HEADER_NOTES = {}
DYN_NOTE = """{outs}: allocate and describe at the largest size
({largest}); phase 1 rejects smaller ones.
The launch writes the result and rewrites the view shape of the descriptor passed here to the real
size when it runs on the stream: synchronise the stream (aclrtSynchronizeStream) before reading it
with aclGetViewShape / aclGetViewStrides, and keep the descriptor alive until then (a destroyed or
re-initialised descriptor is not written). A contiguous output is packed contiguously at the real
shape; a strided one keeps its strides. Every launch of a repeatable executor starts from the
largest shape. Semantics: src/ops/layout/dynamic.ops."""
LARGEST = {"nonzero": ("out", "[numel(self), ndim(self)]"), "nonzero_t": ("out", "[ndim(self), numel(self)]"),
           "unique": ("valueOut / countsOut", "[numel(self)]"),
           "unique_consecutive": ("valueOut / countsOut", "[numel(self)], or with a dim: self's shape / [self.size(dim)]"),
           "unique_dim": ("valueOut / countsOut", "self's shape / [self.size(dim)]"),
           "masked_select": ("out", "[numel of self's and mask's broadcast shape]")}


def resolve(g, table, op):
    w = op.where
    g.family_resolve_common(table, op, DYN_KEYS, "a data-dependent-size", default_dtypes="real_bool")
    op.roles = g.roles_by_name(op, ROLES, "a data-dependent-size op")
    op.kind = g.one(op, "kind")
    if op.kind not in KINDS:
        raise g.TableError(f"{w}: kind must be one of {', '.join(KINDS)}")
    need = {"masked_scatter": ("self", "mask", "source"), "scatter_update": ("self", "index", "source", "dim"),
            "scatter_list": ("list", "index", "source", "dim"), "masked_select": ("self", "mask", "out"),
            "quant_scatter": ("self", "index", "source", "quant_scales", "dim", "quant_axis", "reduction")}.get(op.kind, ("self", "out"))
    for r in need:
        if r not in op.roles:
            raise g.TableError(f"{w}: a {op.kind} op needs a '{r}' parameter")
    op.input = op.roles.get("self", op.roles.get("list"))
    op.output = op.roles.get("out", op.input)
    if op.kind in LARGEST:
        outs, largest = LARGEST[op.kind]
        if op.kind == "unique" and "counts" not in op.roles:
            outs = "valueOut"
        HEADER_NOTES[op.name] = DYN_NOTE.format(outs=outs, largest=largest)


def render_entry(g, table):
    out = g.family_entry_head(table, "dyn_phase1", "ops/layout/dyn_phase1.h",
                              ["opsnn::core::dtype_bit", "opsnn::ops::DynKind"])
    for op in table.ops:
        out.append(f"const ::opsnn::ops::DynRule k{op.name}Rule = {{DynKind::{KINDS[op.kind]}, "
                   f"{g.mask(op.dtypes)}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::DynCall")
        for role, p in op.roles.items():
            if role in TENSOR_ROLES:
                lines += [f"    c.{role} = {p.name};", f'    c.{role}_name = "{p.name}";']
            else:
                lines.append(f"    c.{role} = {p.name};")
        if "return_counts" in op.roles:
            lines.append("    c.has_return_counts = true;")
        if "round_mode" in op.roles:
            lines.append("    c.has_round_mode = true;")
        out += lines + g.family_entry_close(op, "dyn_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "data-dependent-size", "DynTableCase", "dyn_table_cases")
    for t in tables:
        for op in t.ops:
            names = ", ".join(f'{{"{k}", "{p.name}"}}' for k, p in op.roles.items() if k in TENSOR_ROLES)
            params = ", ".join(f'"{k}"' for k in op.roles if k not in TENSOR_ROLES)
            fields = [f'c.kind = "{op.kind}";',
                      f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                      f"c.names = {{{names}}};",
                      f"c.params = {{{params}}};"]
            out += g.family_case(op, {}, "DynTableCase", fields, "DynArgs", g.role_args(op))
    return "\n".join(out + ["  return v;", "}", ""])
