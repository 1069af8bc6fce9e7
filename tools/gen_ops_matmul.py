"""The matmul family of the op factory (found by tools/gen_ops.py as the module of `phase1 matmul`):
rows become ops::matmul_phase1 entry points (src/ops/matmul/matmul_phase1.h) and MatmulTableCase
registrations (tests/ops/test_op_table_matmul.cpp).

Row format (besides the common `header`, `dtypes`, `backward`):
  operands A:R B:R      the two factors and their ranks (R: 2, or a range 1-6); a 1-D operand is a
                        row / a column as in torch.matmul (dropped from the result)
  bias     NAME [R] [optional]   the addend (beta * NAME; beta 1 without a beta parameter),
                        broadcast to the result; R: its least rank (default 0); optional: may be null
  inplace  Twin(...)    the in-place twin: the same parameters without `out`, the bias written in place
  batch    broadcast|equal|sum   how batch dims combine: broadcast (default), equal sizes, or summed
                        (the result has none)
  trans    TA TB        integer / bool attributes transposing A / B
  vectors  outer        1-D operands are a column and a row (K = 1) instead
  same_dtype yes        every tensor has one dtype
  weight   nz           B may be FRACTAL_NZ (the *WeightNz APIs: ops/matmul/weight_nz.h)
  perm     PA PB PY [SPLIT [SCALE]]   aclIntArray attributes permuting A and B into [B, M, K] /
                        [B, K, N] and the result [B, M, N] into out (TransposeBatchMatMul), the
                        int32 attribute splitting out's last dims, and the (refused) quantising scale
  compress INDEX         B arrives "compressed" with this index tensor (MatmulCompress): OpsNN reads the
                        stored form only, B's 1-D buffer holding W [n, k] (see matmul_phase1.h)
  fused    OPTYPE X3    a `char *` epilogue choice (FusedMatmul: "", add, mul, relu, gelu_tanh,
                        gelu_erf) and its optional tensor operand
Parameter roles besides these come from the names: alpha / beta (aclScalar or float), cubeMathType,
out / y; any other parameter is a table error. Rows with `perm` or `fused` are tested by their own
harness (tests/ops/test_op_table_mmx.cpp; `compress`: tests/ops/test_matmul_compress.cpp), not registered for
the generic one.
"""

MATMUL_KEYS = {"header", "dtypes", "backward", "operands", "bias", "inplace", "batch", "trans", "vectors",
               "same_dtype", "weight", "perm", "fused", "compress"}
BATCH = {"broadcast": "kBroadcast", "equal": "kEqual", "sum": "kSum"}


def ranks(text, where, g):
    lo, _, hi = text.partition("-")
    try:
        return int(lo), int(hi or lo)
    except ValueError:
        raise g.TableError(f"{where}: rank '{text}' is not N or N-M")


def resolve(g, table, op):
    g.family_resolve_common(table, op, MATMUL_KEYS, "a matmul", default_dtypes="act")
    w = op.where
    operands = g.one(op, "operands", "").split()
    if len(operands) != 2 or any(":" not in o for o in operands):
        raise g.TableError(f"{w}: 'operands' names the two factors as NAME:RANK")
    (an, ar), (bn, br) = [o.split(":", 1) for o in operands]
    op.a_rank, op.b_rank = ranks(ar, w, g), ranks(br, w, g)
    bias = g.one(op, "bias", "").split()
    op.bias_optional = bias[-1:] == ["optional"]
    if op.bias_optional:
        bias = bias[:-1]
    op.bias_min = int(bias[1]) if len(bias) > 1 else 0
    perm = g.one(op, "perm", "").split()
    if perm and not 3 <= len(perm) <= 5:
        raise g.TableError(f"{w}: 'perm' names the permutations of A, B and the result (then split, scale)")
    fused = g.one(op, "fused", "").split()
    if fused and len(fused) != 2:
        raise g.TableError(f"{w}: 'fused' names the epilogue choice and its tensor operand")
    compress = g.one(op, "compress", "").split()
    op.special = bool(perm or fused or compress)
    trans = g.one(op, "trans", "").split()
    if trans and len(trans) != 2:
        raise g.TableError(f"{w}: 'trans' names the attributes transposing A and B")
    op.batch = g.one(op, "batch", "broadcast")
    if op.batch not in BATCH:
        raise g.TableError(f"{w}: batch must be one of {', '.join(BATCH)}")
    op.outer = g.one(op, "vectors", "") == "outer"
    op.same_dtype = g.one(op, "same_dtype", "no") == "yes"
    op.weight_nz = g.one(op, "weight", "") == "nz"
    if g.one(op, "weight", "nz") != "nz":
        raise g.TableError(f"{w}: weight must be 'nz'")
    named = {an: "a", bn: "b", "out": "out", "y": "out", "alpha": "alpha", "beta": "beta", "cubeMathType": "cube"}
    named.update(zip(perm, ("perm0", "perm1", "perm2", "split", "qscale")))
    named.update(zip(fused, ("fused", "x3")))
    named.update(zip(compress, ("cindex",)))
    if bias:
        named[bias[0]] = "bias"
    if trans:
        named.update({trans[0]: "trans_a", trans[1]: "trans_b"})
    op.roles = g.roles_by_name(op, named, "a matmul")
    for need in ("a", "b", "out"):
        if need not in op.roles:
            raise g.TableError(f"{w}: a matmul needs its '{need}' parameter")
    op.input, op.output = op.roles["a"], op.roles["out"]
    op.twin = None
    ip = g.one(op, "inplace")
    if ip:
        if "bias" not in op.roles:
            raise g.TableError(f"{w}: an in-place twin writes the bias: the row needs 'bias'")
        name, ptext, params = g.parse_signature(ip, w)
        mine = [p for p in op.params if p.name != "out"]
        if len(params) != len(mine) or any(p.kind != q.kind for p, q in zip(params, mine)):
            raise g.TableError(f"{w}: the in-place twin takes the op's parameters without out")
        op.inplace = (name, ptext, params, params[0])
        op.inplace_dtypes = list(op.dtypes)
        # The twin's parameters take the roles of the op's at the same positions.
        op.twin = {p.name: next(r for r, q in op.roles.items() if q is m) for p, m in zip(params, mine)}
    op.results = ["out's dtype (in place: selfRef's)" if op.twin else "out's dtype"]


def rule_init(op):
    return (f"{{{op.a_rank[0]}, {op.a_rank[1]}, {op.b_rank[0]}, {op.b_rank[1]}, ::opsnn::ops::MmBatch::{BATCH[op.batch]}, "
            f"{'true' if op.outer else 'false'}, {'true' if op.same_dtype else 'false'}, {op.bias_min}, "
            f"{'true' if op.weight_nz else 'false'}}}")


ORDER = {"a": "a", "b": "b", "bias": "s", "out": "o", "x3": "x", "cindex": "c"}


def call_lines(op, params, role_of, inplace):
    lines, order = [], ""
    for p in params:
        role = role_of[p.name]
        if role in ORDER:
            lines.append(f"    c.{role} = {p.name};")
            lines.append(f'    c.{role}_name = "{p.name}";')
            order += ORDER[role]
            if role == "cindex":
                lines.append("    c.has_compress = true;")
        elif role in ("alpha", "beta"):
            lines.append(f"    c.{role}{'_s' if p.kind == 'scalar' else ''} = {p.name};")
            if p.kind == "scalar":
                lines.append("    c.scalar_alpha_beta = true;")
        elif role == "cube":
            lines += [f"    c.cube = {p.name};", "    c.has_cube = true;"]
        elif role.startswith("perm"):
            lines += [f"    c.perm[{role[4]}] = {p.name};", f'    c.perm_name[{role[4]}] = "{p.name}";',
                      "    c.has_perm = true;"]
        elif role == "split":
            lines += [f"    c.split = {p.name};", f'    c.split_name = "{p.name}";']
        elif role == "qscale":
            lines += [f"    c.qscale = {p.name};", f'    c.qscale_name = "{p.name}";']
        elif role == "fused":
            lines += [f"    c.fused = {p.name};", f'    c.fused_name = "{p.name}";', "    c.has_fused = true;"]
        else:  # trans_a / trans_b
            lines.append(f"    c.{role} = {p.name} != 0;")
    if "bias" in role_of.values():
        lines.append("    c.has_bias = true;")
        if op.bias_optional:
            lines.append("    c.bias_optional = true;")
        if "beta" not in role_of.values():
            lines.append("    c.beta = 1.0f;")
    if inplace:
        lines.append("    c.inplace = true;")
    lines.append(f'    c.order = "{order}";')
    return lines


def render_entry(g, table):
    out = g.family_entry_head(table, "matmul_phase1", "ops/matmul/matmul_phase1.h", [])
    for op in table.ops:
        out.append(f"const ::opsnn::ops::MatmulRule k{op.name}Rule = {rule_init(op)};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        forms = [(op.name, op.params_text, op.params, {p.name: r for r, p in op.roles.items()}, False)]
        if op.twin:
            name, ptext, params, _ = op.inplace
            forms.append((name, ptext, params, op.twin, True))
        for name, ptext, params, role_of, inplace in forms:
            twin = g.Op(name, ptext, params, op.where)
            lines = g.family_entry_open(twin, "::opsnn::ops::MatmulCall")
            lines += call_lines(op, params, role_of, inplace)
            lines += [f"    ::opsnn::ops::matmul_phase1(b, k{op.name}Rule, c);", "  });", "}",
                      f"OPSNN_DEFINE_LAUNCH({name})", ""]
            out += lines
    return "\n".join(out) + "\n"


ARG = {"a": "a.a", "b": "a.b", "bias": "a.bias", "out": "a.out", "cube": "a.cube", "trans_a": "a.trans_a",
       "trans_b": "a.trans_b"}


def render_tests(g, tables):
    out = g.family_tests_head(tables, "matmul", "MatmulTableCase", "matmul_table_cases")
    for t in tables:
        for op in t.ops:
            if op.special:
                continue
            forms = [(op.name, op.params, {p.name: r for r, p in op.roles.items()}, False)]
            if op.twin:
                forms.append((op.inplace[0], op.inplace[2], op.twin, True))
            for name, params, role_of, inplace in forms:
                args = []
                for p in params:
                    r = role_of[p.name]
                    if r in ("alpha", "beta"):
                        args.append(f"a.{r}_s" if p.kind == "scalar" else f"a.{r}")
                    else:
                        args.append(ARG[r])
                names = {r: p.name for p in params for r in [role_of[p.name]]}
                scalar = any(p.kind == "scalar" for p in params if role_of[p.name] in ("alpha", "beta"))
                fields = [f"c.rule = {rule_init(op)};",
                          f'c.a_name = "{names["a"]}"; c.b_name = "{names["b"]}"; '
                          f'c.bias_name = "{names.get("bias", "")}";',
                          f"c.has_bias = {'true' if 'bias' in names else 'false'}; "
                          f"c.inplace = {'true' if inplace else 'false'};",
                          f"c.scalar_alpha_beta = {'true' if scalar else 'false'}; "
                          f"c.float_alpha_beta = {'true' if 'alpha' in names and not scalar else 'false'};",
                          f"c.has_trans = {'true' if 'trans_a' in names else 'false'}; "
                          f"c.has_cube = {'true' if 'cube' in names else 'false'};"]
                out += g.family_case(g.Op(name, "", params, op.where), {}, "MatmulTableCase", fields, "MatmulArgs",
                                     ", ".join(args))
    return "\n".join(out + ["  return v;", "}", ""])
