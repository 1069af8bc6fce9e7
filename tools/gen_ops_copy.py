"""The copy family of the op factory (found by tools/gen_ops.py as the module of `phase1 copy`): rows
become ops::copy_phase1 entry points (src/ops/copy/copy_phase1.h) and CopyTableCase registrations
(tests/ops/test_op_table_copy.cpp).

Row format (besides the common `header`, `dtypes`, `backward`):
  broadcast yes     the source broadcasts to the destination (default: it has the destination's shape)
  broadcast one     the source is one element (0-d, or 1-D of size 1), read when the launch runs and
                    written everywhere; its dtype must cast to the destination's (torch.can_cast)
Parameter roles come from the prototype: the tensor named `out` is the destination, else the first
tensor is, written in place; another tensor is the source (converted to the destination's dtype); an
aclScalar the fill value; an aclDataType the destination's required dtype. A row with neither
source nor value fills with 0.
"""

COPY_KEYS = {"header", "dtypes", "backward", "broadcast"}


def resolve(g, table, op):
    g.family_resolve_common(table, op, COPY_KEYS, "a copy", default_dtypes="real_bool")
    op.bcast = g.one(op, "broadcast", "no")
    if op.bcast not in ("no", "yes", "one"):
        raise g.TableError(f"{op.where}: broadcast must be no, yes or one, not '{op.bcast}'")
    op.broadcast = op.bcast == "yes"
    op.one_element = op.bcast == "one"
    tensors = [p for p in op.params if p.kind == "tensor"]
    dst = next((p for p in tensors if p.name == "out"), tensors[0] if tensors else None)
    if dst is None:
        raise g.TableError(f"{op.where}: a copy writes a tensor")
    op.roles = {"dst": dst}
    for p in op.params:
        if p is dst:
            continue
        base = p.ctype.replace("const", "").replace(" ", "")
        role = "src" if p.kind == "tensor" else "value" if p.kind == "scalar" else "dtype" \
            if base == "aclDataType" else None
        if role is None or role in op.roles:
            raise g.TableError(f"{op.where}: parameter '{p.name}' has no role in a copy")
        op.roles[role] = p
    op.inplace_dst = dst.name != "out"
    op.input, op.output = op.roles.get("src", dst), dst
    op.results = ["out's dtype" if "dtype" not in op.roles else "dtype"]


def role_of(op, p):
    return next(r for r, q in op.roles.items() if q is p)


def render_entry(g, table):
    out = g.family_entry_head(table, "copy_phase1", "ops/copy/copy_phase1.h", [])
    for op in table.ops:
        flags = ", ".join("true" if f else "false" for f in (op.broadcast, op.one_element))
        out.append(f"const ::opsnn::ops::CopyRule k{op.name}Rule = {{{flags}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        lines = g.family_entry_open(op, "::opsnn::ops::CopyCall")
        for p in op.params:
            r = role_of(op, p)
            if r in ("dst", "src"):
                lines += [f"    c.{r} = {p.name};", f'    c.{r}_name = "{p.name}";']
            elif r == "value":
                lines += [f"    c.value = {p.name};", f'    c.value_name = "{p.name}";']
            else:
                lines += [f"    c.dtype = {p.name};", f'    c.dtype_name = "{p.name}";', "    c.has_dtype = true;"]
        if op.inplace_dst:
            lines.append("    c.inplace = true;")
        if "src" in op.roles and op.params.index(op.roles["src"]) < op.params.index(op.roles["dst"]):
            lines.append("    c.src_first = true;")
        out += lines + g.family_entry_close(op, "copy_phase1")
    return "\n".join(out) + "\n"


def render_tests(g, tables):
    out = g.family_tests_head(tables, "copy", "CopyTableCase", "copy_table_cases")
    for t in tables:
        for op in t.ops:
            args = g.role_args(op)
            name = lambda r: f'"{op.roles[r].name}"' if r in op.roles else '""'
            fields = [f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                      f"c.broadcast = {'true' if op.broadcast else 'false'}; "
                      f"c.one_element = {'true' if op.one_element else 'false'}; "
                      f"c.inplace = {'true' if op.inplace_dst else 'false'};",
                      f"c.dst_name = {name('dst')}; c.src_name = {name('src')}; c.value_name = {name('value')}; "
                      f"c.dtype_name = {name('dtype')};"]
            out += g.family_case(op, {}, "CopyTableCase", fields, "CopyArgs", args)
    return "\n".join(out + ["  return v;", "}", ""])
