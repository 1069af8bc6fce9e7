"""The copy / layout family of the op factory (imported by tools/gen_ops.py): tables whose
`phase1 layout` rows become ops::layout_phase1 entry points and LayoutTableCase registrations.

Row format (besides the common `header`, `dtypes`, `inplace`, `backward`):
  kind      permute | cat | slice | constant_pad | reflection_pad | replication_pad | tril | triu |
            roll | repeat | repeat_interleave | flip | arange | linspace | eye | stack | gather | index_select |
            index_copy | index_add | index_fill | repeat_interleave_tensor | repeat_interleave_grad |
            gather_elements | take | scatter | gather_nd | scatter_nd | index_tensors | index_put | put |
            split | narrow | diag | circular_pad | circular_pad_grad | search |
            scatter_reduce | scatter_max | scatter_min | scatter_mul | scatter_div | scatter_add_tf
                                                                     the plan (ops::LayoutKind)
  pad_dims  N               the padded trailing dims of a reflection / replication / circular pad
  out_dtype same|castable   the output has the input's dtype (default), or any dtype it casts to
  inplace_header aclnn_x.h  the in-place twin's header when it is not the op's
  output    none            the op is in place only: its first tensor is read and written (no output)
  sample    a=V ...         one test call: shape=[2,3] (self), shapes=[2,3]/[4,3] (a tensor list),
                            [..] for an int list, numbers for int64_t and aclScalar parameters; an
                            index tensor: its values index=[0,2] (index_shape=[..] when not 1-D), a
                            source tensor: its shape; a list of index tensors: indices=[0,2]/[1,1]
                            (indices_shape=[2]/[2] when not 1-D)
  reject    a=V ... ; WORD  a call phase 1 must refuse (161002, message containing WORD)
Parameter roles come from the prototype, in order: the first aclTensor is the input (none for
arange, linspace, eye), an aclTensorList the inputs, the last aclTensor the output, tensors between them the
index (or repeats) and the source; aclIntArray, int64_t and
aclScalar parameters fill the LayoutCall's arr / i / s slots in prototype order (bool and uint64_t ones
the i slots). A non-const aclTensorList is the output list (split: no output tensor). The search rows
(Bucketize, SearchSorted(s)) take their roles from the names: self the values (a tensor, or the
scalar s[0]), sortedSequence / boundaries the source, sorter the (optional) index.
"""
import re

LAYOUT_KEYS = {"kind", "pad_dims", "out_dtype", "sample", "reject", "header", "dtypes", "inplace", "inplace_header",
               "output", "backward"}
KINDS = {"permute": "kPermute", "cat": "kCat", "slice": "kSlice", "constant_pad": "kConstantPad",
         "reflection_pad": "kReflectionPad", "replication_pad": "kReplicationPad", "tril": "kTril", "triu": "kTriu",
         "roll": "kRoll", "repeat": "kRepeat", "repeat_interleave": "kRepeatInterleave", "flip": "kFlip",
         "arange": "kArange", "gather": "kGather", "index_select": "kIndexSelect", "index_copy": "kIndexCopy",
         "index_fill": "kIndexFill", "repeat_interleave_tensor": "kRepeatInterleaveTensor", "stack": "kStack",
         "linspace": "kLinspace", "eye": "kEye", "gather_elements": "kGatherElements", "take": "kTake",
         "index_add": "kIndexAdd", "scatter": "kScatter", "repeat_interleave_grad": "kRepeatInterleaveGrad",
         "gather_nd": "kGatherNd", "scatter_nd": "kScatterNd",
         "index_tensors": "kIndexTensors", "index_put": "kIndexPut", "put": "kPut", "split": "kSplit",
         "narrow": "kNarrow", "diag": "kDiag", "circular_pad": "kCircularPad", "search": "kSearch",
         "circular_pad_grad": "kCircularPadGrad", "scatter_reduce": "kScatterReduce",
         "scatter_max": "kScatterMax", "scatter_min": "kScatterMin", "scatter_mul": "kScatterMul",
         "scatter_div": "kScatterDiv", "scatter_add_tf": "kScatterAddTf"}
NO_INPUT = {"arange", "linspace", "eye"}


def base_type(ctype):
    return ctype.replace("const", "").replace(" ", "")


def roles(g, op, params, where):
    """Maps each parameter to its LayoutCall field: ('self'|'list'|'out'|'arr'|'i'|'s', index)."""
    r, counts = {}, {"arr": 0, "i": 0, "s": 0}
    tensors = [p for p in params if p.kind == "tensor"]
    if op.kind == "search":
        for p in params:
            t = base_type(p.ctype)
            if p.kind == "tensor":
                r[p.name] = {"self": ("self", 0), "sorter": ("index", 0)}.get(
                    p.name, ("out", 0) if p is tensors[-1] else ("source", 0))
            elif t == "aclScalar*":
                r[p.name] = ("s", counts["s"])
                counts["s"] += 1
            elif t == "bool":
                r[p.name] = ("i", counts["i"])
                counts["i"] += 1
            else:
                raise g.TableError(f"{where}: parameter '{p.name}' has no role in a search op")
        return r
    list_out = op.list_out
    has_list = any(base_type(p.ctype) == "aclTensorList*" for p in params)
    first_is_input = op.kind not in NO_INPUT and (
        not has_list or op.params.index(tensors[0]) < [base_type(p.ctype) for p in params].index("aclTensorList*"))
    middle = tensors[1 if first_is_input else 0:None if op.no_output or list_out else -1]
    kinds = ["index" if re.search("ind|repeats", p.name, re.I) else "source" for p in middle]
    if len(set(kinds)) != len(kinds):
        raise g.TableError(f"{where}: at most one index tensor and one source tensor besides the input and output")
    for p in params:
        t = base_type(p.ctype)
        if p.kind == "tensor":
            if p in middle:
                r[p.name] = (kinds[middle.index(p)], 0)
            else:
                r[p.name] = ("self", 0) if first_is_input and p is tensors[0] else ("out", 0)
            continue
        slot = {"aclTensorList*": "list", "aclIntArray*": "arr", "int64_t": "i", "bool": "i", "uint64_t": "i",
                "aclScalar*": "s"}.get(t)
        if slot is None:
            raise g.TableError(f"{where}: parameter '{p.name}' has no role in a layout op")
        if slot == "list":
            r[p.name] = ("list", 0)
        else:
            r[p.name] = (slot, counts[slot])
            counts[slot] += 1
    if counts["arr"] > 2 or counts["i"] > 4 or counts["s"] > 3:
        raise g.TableError(f"{where}: too many parameters of one kind for a LayoutCall")
    return r


def resolve(g, table, op):
    """Fills op's layout attributes; g is the gen_ops module (helpers, TableError)."""
    w = op.where
    for k in op.keys:
        if k not in LAYOUT_KEYS:
            raise g.TableError(f"{w}: key '{k}' is not one of a layout row's ({', '.join(sorted(LAYOUT_KEYS))})")
    op.kind = g.one(op, "kind")
    if op.kind not in KINDS:
        raise g.TableError(f"{w}: kind must be one of {', '.join(KINDS)}")
    op.no_output = g.one(op, "output", "yes") == "none"
    op.list_out = any(base_type(p.ctype) == "aclTensorList*" and "const" not in p.ctype for p in op.params)
    op.roles = roles(g, op, op.params, w)
    tensors = [p for p in op.params if p.kind == "tensor"]
    lists = [p for p in op.params if base_type(p.ctype) == "aclTensorList*"]
    op.output = lists[0] if op.list_out else tensors[0] if op.no_output else tensors[-1]
    selfs = [p for p in op.params if op.roles.get(p.name, ("",))[0] == "self" and p.kind == "tensor"]
    op.input = selfs[0] if selfs else op.output
    op.extra_output = None
    op.header = g.one(op, "header", f"aclnn_{g.snake(op.name)}.h")
    op.dtypes = g.dtype_list(g.one(op, "dtypes", ""), w)
    if not op.dtypes:
        raise g.TableError(f"{w}: missing 'dtypes'")
    op.out_dtype = g.one(op, "out_dtype", "same")
    if op.out_dtype not in ("same", "castable"):
        raise g.TableError(f"{w}: out_dtype must be 'same' or 'castable'")
    op.pad_dims = int(g.one(op, "pad_dims", "0"))
    op.inplace = None
    ip = g.one(op, "inplace")
    if ip:
        name, ptext, params = g.parse_signature(ip, w)
        ts = [p for p in params if p.kind == "tensor"]
        if not ts or any(t.name not in op.roles or op.roles[t.name][0] not in ("index", "source") for t in ts[1:]):
            raise g.TableError(f"{w}: the in-place twin takes selfRef and the op's other input tensors")
        if [(p.name, p.kind) for p in params if p.kind != "tensor"] != \
                [(p.name, p.kind) for p in op.params if p.kind != "tensor"]:
            raise g.TableError(f"{w}: the in-place twin's parameters differ from the op's")
        op.inplace = (name, ptext, params, ts[0])
    op.inplace_dtypes = list(op.dtypes)
    op.inplace_header = g.one(op, "inplace_header", op.header)
    op.samples = [g.parse_values(s, w) for s in op.keys.get("sample", [])]
    if not op.samples:
        raise g.TableError(f"{w}: a layout row needs at least one 'sample'")
    op.rejects = []
    for rj in op.keys.get("reject", []):
        vals, _, word = rj.partition(";")
        op.rejects.append((g.parse_values(vals, w), word.strip()))
    for s in op.samples + [v for v, _ in op.rejects]:
        for k in s:
            if k not in op.roles and k not in ("shape", "shapes") and not k.endswith("_shape"):
                raise g.TableError(f"{w}: sample value '{k}' names no parameter")
    op.backward = g.one(op, "backward")
    op.result = "same"
    op.results = ["self's dtype" if op.out_dtype == "same" else "castable"]
    op.family = table.settings["family"]


def render_entry(g, table):
    src = table.path.relative_to(g.ROOT)
    out = [f"// Generated by tools/gen_ops.py from {src}; do not edit.",
           f"// The phase-1 / launch pairs of the {table.settings['family']} table, over ops::layout_phase1.",
           '#include "ops/layout/layout_phase1.h"']
    for h in dict.fromkeys(h for op in table.ops for h in (op.header, op.inplace_header)):
        out.append(f'#include "aclnnop/{h}"')
    out += ["", "using opsnn::core::dtype_bit;", "using opsnn::ops::LayoutKind;", "", "namespace {"]
    for op in table.ops:
        out.append(f"const ::opsnn::ops::LayoutRule k{op.name}Rule = {{LayoutKind::{KINDS[op.kind]}, "
                   f"{g.mask(op.dtypes)}, {str(op.out_dtype == 'castable').lower()}, {op.pad_dims}}};")
    out += ["}  // namespace", ""]
    for op in table.ops:
        out += entry_pair(g, op, op.name, op.params_text, op.params, op.input if op.no_output else None)
        if op.inplace:
            name, ptext, params, t = op.inplace
            out += entry_pair(g, op, name, ptext, params, t)
    return "\n".join(out) + "\n"


def entry_pair(g, op, name, ptext, params, inplace_tensor):
    lines = [f'extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnn{name}GetWorkspaceSize({ptext},',
             "    uint64_t *workspaceSize, aclOpExecutor **executor) {",
             f'  return ::opsnn::core::phase1({g.keyed_api(name, params)}, workspaceSize, executor, '
             "[&](::opsnn::core::OpBuilder &b) {",
             "    ::opsnn::ops::LayoutCall c;"]
    for p in params:
        if inplace_tensor is not None and p is inplace_tensor:
            lines += [f"    c.self = {p.name};", f'    c.self_name = "{p.name}";', f"    c.out = {p.name};",
                      f'    c.out_name = "{p.name}";', "    c.inplace = true;"]
            continue
        role, k = op.roles[p.name]
        if role in ("self", "out", "list", "index", "source"):
            lines += [f"    c.{role} = {p.name};", f'    c.{role}_name = "{p.name}";']
        elif base_type(p.ctype) == "uint64_t":  # beyond INT64_MAX: as large as any size
            lines += [f"    c.{role}[{k}] = static_cast<int64_t>({p.name} > INT64_MAX ? INT64_MAX : {p.name});",
                      f'    c.{role}_name[{k}] = "{p.name}";']
        else:
            lines += [f"    c.{role}[{k}] = {p.name};", f'    c.{role}_name[{k}] = "{p.name}";']
    lines += [f"    ::opsnn::ops::layout_phase1(b, k{op.name}Rule, c);", "  });", "}",
              f"OPSNN_DEFINE_LAUNCH({name})", ""]
    return lines


def list_literal(text):
    text = text.strip()
    if not (text.startswith("[") and text.endswith("]")):
        raise ValueError(text)
    return "{" + text[1:-1] + "}"


def sample_literal(op, s):
    """A LayoutSample aggregate for the sample's values (parameters in LayoutCall slot order)."""
    arr, ints, scal = {}, {}, {}
    for p in op.params:
        if p.name not in op.roles or p.kind == "tensor":
            continue
        role, k = op.roles[p.name]
        v = s.get(p.name)
        if role == "arr":
            arr[k] = "std::vector<int64_t>" + ("{}" if v is None else list_literal(v))
        elif role == "i":
            ints[k] = v or "0"
        elif role == "s":
            scal[k] = v or "0"
    shape = list_literal(s["shape"]) if "shape" in s else "{}"
    index = source = index_shape = index_lists = index_list_shapes = "{}"
    for p in op.params:
        role = op.roles[p.name][0]
        if role in ("index", "self") and p.name in s:  # values of an index (or repeats) tensor
            index = list_literal(s[p.name])
            index_shape = list_literal(s.get(p.name + "_shape", f"[{len(s[p.name].strip('[]').split(',')) if s[p.name].strip('[]') else 0}]"))
        elif role == "source" and p.name in s:
            source = list_literal(s[p.name])
        elif role == "list" and p.name in s:  # index tensors: values (and shapes)
            vals = s[p.name].split("/")
            shapes = s.get(p.name + "_shape", "/".join(f"[{len(v.strip('[]').split(',')) if v.strip('[]') else 0}]"
                                                       for v in vals)).split("/")
            index_lists = "{" + ", ".join("std::vector<int64_t>" + list_literal(v) for v in vals) + "}"
            index_list_shapes = "{" + ", ".join("std::vector<int64_t>" + list_literal(v) for v in shapes) + "}"
    shapes = "{" + ", ".join("std::vector<int64_t>" + list_literal(x) for x in s["shapes"].split("/")) + "}" \
        if "shapes" in s else "{}"
    arrs = "{" + ", ".join(arr[k] for k in sorted(arr)) + "}"
    return (f"LayoutSample{{{shape}, {shapes}, {arrs}, {{{', '.join(ints[k] for k in sorted(ints))}}}, "
            f"{{{', '.join(scal[k] for k in sorted(scal))}}}, {index}, {index_shape}, {source}, {index_lists}, "
            f"{index_list_shapes}}}")


def call_args(op, params, inplace_tensor=None):
    args = []
    for p in params:
        if inplace_tensor is not None and p is inplace_tensor:
            args.append("a.self")
            continue
        role, k = op.roles[p.name]
        args.append({"self": "a.self", "out": "a.out", "list": "a.list", "index": "a.index",
                     "source": "a.source"}.get(role, f"a.{role}[{k}]"))
    return ", ".join(args)


def render_tests(g, tables):
    out = ["// Generated by tools/gen_ops.py from the layout tables; do not edit.",
           "// One LayoutTableCase per op and sample (tests/ops/test_op_table_layout.cpp runs them)."]
    for h in dict.fromkeys(h for t in tables for op in t.ops for h in (op.header, op.inplace_header)):
        out.append(f'#include "aclnnop/{h}"')
    out += ["", "inline std::vector<LayoutTableCase> layout_table_cases() {", "  std::vector<LayoutTableCase> v;"]
    for t in tables:
        for op in t.ops:
            names = {"arr": {}, "i": {}, "s": {}, "index": {}, "source": {}}
            for p in op.params:
                role, k = op.roles[p.name]
                if role in names:
                    names[role][k] = p.name
            for si, sample in enumerate(op.samples):
                label = op.name + "[" + ",".join(f"{k}={v}" for k, v in sample.items()) + "]"
                lines = ["  {", "    LayoutTableCase c;", f'    c.name = "{label}";', f'    c.api = "aclnn{op.name}";',
                         f'    c.kind = "{op.kind}";', f"    c.pad_dims = {op.pad_dims};",
                         f"    c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                         f"    c.out_castable = {str(op.out_dtype == 'castable').lower()};",
                         f'    c.self_name = "{op.input.name}";', f'    c.out_name = "{op.output.name}";',
                         f"    c.arr_names = {{{', '.join(chr(34) + names['arr'][k] + chr(34) for k in sorted(names['arr']))}}};",
                         f"    c.s_names = {{{', '.join(chr(34) + names['s'][k] + chr(34) for k in sorted(names['s']))}}};",
                         f"    c.index_name = \"{names['index'].get(0, '')}\";",
                         f"    c.source_name = \"{names['source'].get(0, '')}\";",
                         f"    c.sample = {sample_literal(op, sample)};",
                         ]
                if not op.no_output:
                    lines += ["    c.phase1 = [](const LayoutArgs &a, uint64_t *ws, aclOpExecutor **ex) {",
                              f"      return aclnn{op.name}GetWorkspaceSize({call_args(op, op.params)}, ws, ex);",
                              "    };", f"    c.launch = aclnn{op.name};"]
                twin = (op.name, None, op.params, op.input) if op.no_output else op.inplace
                if twin:
                    name, _, params, tensor = twin
                    lines += ["    c.inplace_phase1 = [](const LayoutArgs &a, uint64_t *ws, aclOpExecutor **ex) {",
                              f"      return aclnn{name}GetWorkspaceSize({call_args(op, params, tensor)}, ws, ex);",
                              "    };", f"    c.inplace_launch = aclnn{name};"]
                if si == 0:
                    for vals, word in op.rejects:
                        lines.append(f'    c.rejects.push_back({{"{word}", {sample_literal(op, vals)}}});')
                lines += ["    v.push_back(std::move(c));", "  }"]
                out += lines
    out += ["  return v;", "}", ""]
    return "\n".join(out)
