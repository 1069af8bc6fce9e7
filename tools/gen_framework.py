#!/usr/bin/env python3
"""The framework layer's generator (docs/ARCHITECTURE.md, "Framework layer"): reads the same op
tables and catalog as tools/gen_ops.py and writes, at build time,

  --bindings OUT.h     one pybind11 binding per two-phase op (in framework_aclnn_bindings_<k>.cpp
                       beside OUT.h, which declares their registration), opsnn._C.aclnn.<Name>(args...):
                       every argument of the prototype in order (tensors: opsnn._C.Tensor or None;
                       aclScalar: a Python number or None; aclIntArray / aclBoolArray: a list or
                       None; aclTensorList: a list of tensors; aclDataType: its code; char *: a
                       str); each runs through opsnn::OpCall (the cache key, then descriptors
                       only when phase 1 runs, workspace, launch on the layer's stream).
  --meta OUT.py        the element-wise tables as data for opsnn.functional: per op its prototype
                       (names and kinds), operands, output, result rule and in-place twin, grouped
                       under the PyTorch name (add = Add / Adds, pow = PowTensorScalar /
                       PowScalarTensor / PowTensorTensor, ...).

Usage: tools/gen_framework.py --bindings build/x.inc --meta build/python/opsnn/_optable.py
"""
import pathlib
import pprint
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import gen_ops as g  # noqa: E402

INT_TYPES = {"int64_t", "int32_t", "int", "int8_t", "uint64_t", "uint32_t"}

# PyTorch's name where snake_case(Name) (after dropping the variant suffix) differs.
TORCH_NAMES = {
    "LogSigmoid": "logsigmoid", "IsNan": "isnan", "IsInf": "isinf", "IsFinite": "isfinite",
    "IsPosInf": "isposinf", "IsNegInf": "isneginf", "SWhere": "where", "Lerps": "lerp",
    "DivMod": "div", "DivMods": "div", "RoundDecimals": "round", "FastGelu": "fast_gelu",
    "GeluV2": "gelu", "SquaredRelu": "squared_relu", "LogSigmoidForward": None,
}
VARIANT_SUFFIXES = ("TensorTensor", "TensorScalar", "ScalarTensor", "Tensor", "Scalar")
SCALAR_TWINS = {"Adds": "Add", "Subs": "Sub", "Muls": "Mul", "Divs": "Div", "DivMods": "DivMod"}


def arg_kind(p):
    base = p.ctype.replace("const", "").replace(" ", "")
    if base == "aclTensor*":
        return "tensor"
    if base == "aclScalar*":
        return "scalar"
    if base == "aclIntArray*":
        return "intarray"
    if base == "aclBoolArray*":
        return "boolarray"
    if base == "aclTensorList*":
        return "tensorlist"
    if base in INT_TYPES:
        return "int"
    if base in ("double", "float"):
        return "float"
    if base == "bool":
        return "bool"
    if base == "aclDataType":
        return "dtype"
    if base == "char*":
        return "str"
    return None


# The executor cache keeps the executors of these families only: table phase 1s and hand-written
# families whose calls tests/python/test_executor_cache.py checks against the uncached call (the
# roles assume phase 1 registers tensors in prototype order). Other ops run phase 1 every call
# until a test covers them. The conv / norm / pooling / embedding-gradient / optimiser tables are
# covered by the nn modules' calls (CNN training and each module op, cache on vs off).
CACHE_TABLE_KINDS = {"unary", "nary", "reduce", "dimwise", "ploss", "closs", "conv", "cnorm", "pool", "rows", "ngrad",
                     "embed", "optim", "matmul", "copy", "rnn"}
CACHE_CATALOG_FAMILIES = {"activation", "matmul"}


def all_rows():
    """(header, name, family, params, cacheable) of every two-phase op (tables, then catalog)."""
    tables = g.all_tables()
    kinds = {}
    for t in tables:
        for op in t.ops:
            kinds[op.name] = t.settings["phase1"]
            if op.inplace:
                kinds[op.inplace[0]] = t.settings["phase1"]
    rows = g.table_entries(tables) + g.read_catalog()
    seen, out = set(), []
    for header, name, family, ptext in rows:
        if ptext.startswith(g.ONESHOT) or name in seen:
            continue
        seen.add(name)
        cacheable = kinds[name] in CACHE_TABLE_KINDS if name in kinds else family in CACHE_CATALOG_FAMILIES
        out.append((header, name, family, g.parse_params(ptext, name), cacheable))
    return tables, out


OUTPUT_NAMES = {"out", "y", "output", "gradInput", "gradWeight", "gradBias"}


# Tensors a phase 1 registers in place whose prototype does not say so by the name: the running
# statistics batch norm updates (`~` in src/ops/norm/batch_norm.ops) and ApplyAdam's const m / v.
INPLACE_ROLES = {("BatchNorm", "runningMean"), ("BatchNorm", "runningVar"),
                 ("BatchNormGatherStatsWithCounts", "runningMean"), ("BatchNormGatherStatsWithCounts", "runningVar"),
                 ("SyncBatchNormGatherStats", "mean"), ("SyncBatchNormGatherStats", "variance"),
                 ("ApplyAdam", "m"), ("ApplyAdam", "v")}


# Tensors a phase 1 only reads whose prototype makes them non-const (QuantizedBatchNorm's weight / bias).
INPUT_ROLES = {("QuantizedBatchNorm", "weight"), ("QuantizedBatchNorm", "bias")}


def tensor_role(p, op=None):
    """The executor-cache role of a tensor parameter: 'b' in place (…Ref, or INPLACE_ROLES), 'o'
    written (non-const, or named like an output), 'i' read. OpCall checks the counts against the
    executor; the tests compare every cached op with the uncached call."""
    if p.name.endswith("Ref") or (op, p.name) in INPLACE_ROLES:
        return "b"
    if (op, p.name) in INPUT_ROLES:
        return "i"
    if "const" not in p.ctype or p.name in OUTPUT_NAMES or p.name.endswith(("Out", "OutOptional")):
        return "o"
    return "i"


def render_binding(name, params, family, cacheable=True):
    kinds = [arg_kind(p) for p in params]
    if None in kinds:
        return None
    # One letter per tensor and per tensor list (a list's letter covers each of its elements).
    roles = "".join(tensor_role(p, name) for p, k in zip(params, kinds) if k in ("tensor", "tensorlist"))
    sig, prep, call, pyargs = [], [], [], []
    for i, (p, k) in enumerate(zip(params, kinds)):
        a = f"a{i}"
        base = p.ctype.replace("const", "").replace(" ", "")
        # Descriptor arguments are keyed here and made inside the phase-1 lambda (c.desc): a call
        # the executor cache serves builds none.
        if k == "tensor":
            sig.append(f"const opsnn::Tensor *{a}")
            prep.append(f"c.arg({a});")
            call.append(f"c.desc({a})")
        elif k == "scalar":
            sig.append(f"py::object {a}")
            prep.append(f"std::optional<opsnn::Scalar> s{i} = to_scalar({a}, \"{p.name}\");")
            prep.append(f"const opsnn::Scalar *p{i} = s{i} ? &*s{i} : nullptr;")
            prep.append(f"c.arg(p{i});")
            call.append(f"c.desc(p{i})")
        elif k in ("intarray", "boolarray", "tensorlist"):
            elem = {"intarray": "int64_t", "boolarray": "bool", "tensorlist": "opsnn::Tensor"}[k]
            sig.append(f"std::optional<std::vector<{elem}>> {a}")
            prep.append(f"const std::vector<{elem}> *p{i} = {a} ? &*{a} : nullptr;")
            prep.append(f"c.arg(p{i});")
            call.append(f"c.desc(p{i})")
        elif k == "int":
            sig.append(f"int64_t {a}")
            prep.append(f"const auto d{i} = static_cast<{base}>({a});")
            prep.append(f"c.key(static_cast<int64_t>(d{i}));")
        elif k == "float":
            sig.append(f"double {a}")
            prep.append(f"const auto d{i} = static_cast<{base}>({a});")
            prep.append(f"c.key(static_cast<double>(d{i}));")
        elif k == "bool":
            sig.append(f"bool {a}")
            prep.append(f"const bool d{i} = {a};")
            prep.append(f"c.key(d{i});")
        elif k == "dtype":
            sig.append(f"int {a}")
            prep.append(f"const auto d{i} = static_cast<aclDataType>({a});")
            prep.append(f"c.key(static_cast<int64_t>(d{i}));")
        elif k == "str":
            sig.append(f"std::optional<std::string> {a}")
            prep.append(f"char *d{i} = {a} ? const_cast<char *>({a}->c_str()) : nullptr;")
            prep.append(f"c.key(static_cast<const char *>(d{i}));")
        if k not in ("tensor", "scalar", "intarray", "boolarray", "tensorlist"):
            call.append(f"d{i}")
        pyargs.append(f'py::arg("{p.name}")' + (".none(true)" if k in ("tensor", "scalar", "intarray", "boolarray",
                                                                            "tensorlist", "str") else ""))
    args = ", ".join(call + ["ws", "ex"])
    lines = [f'  m.def("{name}", []({", ".join(sig)}) {{',
             f'    opsnn::OpCall c("aclnn{name}", {chr(34) + roles + chr(34) if cacheable else "nullptr"}, '
             f'{"true" if family in ("matmul", "conv") else "false"});',
             *("    " + x for x in prep),
             f"    c.run([&](uint64_t *ws, aclOpExecutor **ex) {{ return aclnn{name}GetWorkspaceSize({args}); }},",
             f"          aclnn{name});",
             f"  }}{''.join(', ' + a for a in pyargs)});"]
    return lines


CHUNKS = 4  # binding units compiled in parallel (pybind11 code is slow to compile)


def render_bindings():
    """CHUNKS translation units, each defining register_aclnn_bindings_<k>(py::module_ &)."""
    _, rows = all_rows()
    per = (len(rows) + CHUNKS - 1) // CHUNKS
    units, skipped = [], []
    for k in range(CHUNKS):
        part = rows[k * per:(k + 1) * per]
        headers = sorted({r[0] for r in part})
        out = ["// Generated by tools/gen_framework.py from the op tables and src/ops/catalog.txt: do not edit.",
               '#include "bindings_common.h"', *[f'#include "aclnnop/{h}"' for h in headers], "",
               f"void register_aclnn_bindings_{k}(py::module_ &m) {{"]
        for header, name, family, params, cacheable in part:
            lines = render_binding(name, params, family, cacheable)
            if lines is None:
                skipped.append(name)
                continue
            out += lines
        out += ["}", ""]
        units.append("\n".join(out))
    decl = ["// Generated by tools/gen_framework.py: do not edit.", "#pragma once", '#include "bindings_common.h"',
            *[f"void register_aclnn_bindings_{k}(py::module_ &m);" for k in range(CHUNKS)],
            "inline void register_aclnn_bindings(py::module_ &m) {",
            *[f"  register_aclnn_bindings_{k}(m);" for k in range(CHUNKS)], "}",
            f"// not bound (parameter types the framework does not take): {', '.join(skipped) or 'none'}", ""]
    return units, "\n".join(decl)


def torch_name(name):
    if name in TORCH_NAMES:
        return TORCH_NAMES[name]
    base = SCALAR_TWINS.get(name, name)
    for suf in VARIANT_SUFFIXES:
        if base.endswith(suf) and len(base) > len(suf):
            base = base[: -len(suf)]
            break
    return g.snake(base)


def render_meta():
    tables, _ = all_rows()
    unary, nary = {}, {}
    for t in tables:
        kind = t.settings["phase1"]
        if kind not in ("unary", "nary"):
            continue
        for op in t.ops:
            tn = torch_name(op.name)
            if tn is None:
                continue
            params = [(p.name, arg_kind(p)) for p in op.params]
            inplace = op.inplace[0] if op.inplace else None
            if kind == "unary":
                if op.extra_output is not None:
                    continue
                unary.setdefault(tn, []).append({
                    "api": op.name, "params": params, "input": op.input.name, "output": op.output.name,
                    "result": op.result, "dtypes": list(op.dtypes), "inplace": inplace,
                    "family": t.settings["family"]})
            else:
                if op.inplace_only or op.optional:
                    continue
                rules = {("*" if k is None else str(k)): {"result": r["result"], "dtypes": list(r["dtypes"])}
                         for k, r in op.rules.items()}
                nary.setdefault(tn, []).append({
                    "api": op.name, "params": params, "output": op.output.name,
                    "operands": [(p.name, p.kind) for p in op.operands], "param": op.param,
                    "attrs": [p.name for p in op.attrs], "kernel_attr": op.kernel_attr, "rules": rules,
                    "nopromote": sorted(op.nopromote), "inplace": inplace, "family": t.settings["family"]})
    return ("# Generated by tools/gen_framework.py from src/ops/*/*.ops: do not edit.\n"
            "# The element-wise op tables as data for opsnn.functional, keyed by PyTorch name.\n"
            f"UNARY = {pprint.pformat(unary, width=110, sort_dicts=True)}\n\n"
            f"NARY = {pprint.pformat(nary, width=110, sort_dicts=True)}\n")


def write_if_changed(path, text):
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def main(argv):
    if len(argv) != 4 or argv[0] != "--bindings" or argv[2] != "--meta":
        print(__doc__, file=sys.stderr)
        return 2
    units, decl = render_bindings()
    out = pathlib.Path(argv[1])
    write_if_changed(out, decl)
    for k, text in enumerate(units):
        write_if_changed(out.parent / f"framework_aclnn_bindings_{k}.cpp", text)
    write_if_changed(argv[3], render_meta())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
