"""The grouped-matmul family of the op factory (found by tools/gen_ops.py as the module of `phase1 gmm`):
rows become ops::gmm_phase1 entry points (src/ops/matmul/gmm_phase1.h) and GmmTableCase registrations
(tests/ops/test_op_table_gmm.cpp).

Row format (besides the common `header`, `dtypes` (the float forms), `backward`): `int8_y` and `int8_scale`, the
dtypes of y and of the scale list in the int8 quantised form (absent: that form is refused). Parameter roles come from the
names (ROLES; the antiquant scale / offset make the weight-quantised form, scale / offset the int8 quantised
form); any other tensor list is an unsupported input, refused with 161002 naming it when it is not null.
"""

GMM_KEYS = {"header", "dtypes", "backward", "int8_y", "int8_scale"}
ROLES = {"x": "x", "weight": "weight", "biasOptional": "bias", "groupListOptional": "group_list",
         "antiquantScaleOptional": "aq_scale", "antiquantOffsetOptional": "aq_offset",
         "scaleOptional": "scale", "offsetOptional": "offset",
         "splitItem": "split_item", "groupType": "group_type", "y": "y"}
NAMED = {"x", "weight", "bias", "group_list", "y", "aq_scale", "aq_offset", "scale", "offset"}


def resolve(g, table, op):
    g.family_resolve_common(table, op, GMM_KEYS, "a grouped-matmul")
    op.roles, op.unsupported = {}, []
    for p in op.params:
        if p.name in ROLES:
            op.roles[ROLES[p.name]] = p
        elif p.ctype.replace("const", "").replace(" ", "") == "aclTensorList*":
            op.unsupported.append(p)
        else:
            raise g.TableError(f"{op.where}: parameter '{p.name}' has no role in a grouped matmul")
    for need in ("x", "weight", "y", "split_item", "group_type"):
        if need not in op.roles:
            raise g.TableError(f"{op.where}: a grouped matmul needs a '{need}' parameter")
    op.int8_y = g.dtype_list(g.one(op, "int8_y", ""), op.where)
    op.int8_scale = g.dtype_list(g.one(op, "int8_scale", ""), op.where)
    if bool(op.int8_y) != bool(op.int8_scale) or (op.int8_y and "scale" not in op.roles):
        raise g.TableError(f"{op.where}: the int8 form needs int8_y, int8_scale and a scaleOptional parameter")
    op.input, op.output = op.roles["x"], op.roles["y"]
    op.results = ["x's dtype (the int8 form: y's INT8 / FLOAT16 / BF16)"]


def render_entry(g, table):
    out = g.family_entry_head(table, "gmm_phase1", "ops/matmul/gmm_phase1.h", ["opsnn::core::dtype_bit"])
    for op in table.ops:
        out.append(f"const ::opsnn::ops::GmmRule k{op.name}Rule = {{{g.mask(op.dtypes)}, {g.mask(op.int8_y)}, "
                   f"{g.mask(op.int8_scale)}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::GmmCall")
        for p in op.params:
            role = next((r for r, q in op.roles.items() if q is p), None)
            if role is not None:
                lines.append(f"    c.{role} = {p.name};")
                if role in NAMED:
                    lines.append(f'    c.{role}_name = "{p.name}";')
            else:
                lines.append(f'    c.unsupported.push_back({{{p.name}, "{p.name}"}});')
        out += lines + g.family_entry_close(op, "gmm_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "grouped-matmul", "GmmTableCase", "gmm_table_cases")
    for t in tables:
        for op in t.ops:
            args = []
            for p in op.params:
                role = next((r for r, q in op.roles.items() if q is p), None)
                args.append(f"a.{role}" if role is not None else
                            f'(a.bogus == std::string("{p.name}") ? a.bogus_list : nullptr)')
            fields = [f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                      f"c.int8_y = {{{', '.join(g.cxx_dtype(d) for d in op.int8_y)}}};",
                      f"c.int8_scale = {{{', '.join(g.cxx_dtype(d) for d in op.int8_scale)}}};",
                      "c.unsupported = {" + ", ".join(f'"{p.name}"' for p in op.unsupported) + "};"]
            out += g.family_case(op, {}, "GmmTableCase", fields, "GmmArgs", ", ".join(args))
    return "\n".join(out + ["  return v;", "}", ""])
