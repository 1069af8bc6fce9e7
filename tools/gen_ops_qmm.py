"""The quantised-matmul family of the op factory (found by tools/gen_ops.py as the module of
`phase1 qmm`): rows become ops::qmm_phase1 entry points (src/ops/matmul/qmm_phase1.h) and
QmmTableCase registrations (tests/ops/test_op_table_qmm.cpp).

Row format (besides the common `header`, `dtypes`, `backward`):
  scheme   S, one of
           int8_dequant: int8 x int8 with the dequantising epilogue (QuantMatmulV3 / V4);
           weight_antiquant: a float x times an antiquantised INT8 / INT4 weight, optionally
           requantised to INT8 (WeightQuantBatchMatmulV2);
           float_requant: a FLOAT16 matmul re-quantised to INT8 by TransQuantParam words
           (BatchMatmulQuant);
           encode_param: fp32 scales / offsets packed into the int8 scheme's 64-bit scale words
           (TransQuantParamV2, and V3 with its roundMode);
           prepack_weight: a weight re-laid in place for the GEMM engine (TransMatmulWeight);
           weight_size: a one-shot function (no workspace / launch pair; the prototype is its
           complete parameter list) giving the elements such a weight's buffer needs
           (CalculateMatmulWeightSize(V2))
           encode_array: a one-shot function giving encode_param's words of host arrays in a
           malloc'ed array the caller frees (TransQuantParam)
           reduce_sum: int8_dequant per batch, the results summed over the batch (QuantMatmulReduceSumWeightNz)
           int4_pack: INT32 values packed into INT4 nibbles (ConvertWeightToINT4Pack)
           dynamic_dequant: a floating x quantised to INT8 on the fly (per token or per tensor,
           dynamic or static scale, optional smoothing), then int8_dequant (QuantMatmulDequant)
           sparse4to2: int8_dequant over a 2:4 sparse INT8 weight given as its kept values and
           position codes (Sparse4to2QuantMatmulWeightNz)
           compress_dequant: int8_dequant over a weight in msModelSlim's compressed form, of which
           OpsNN reads the stored (uncompressed) form (MatmulCompressDequant)
           sparse_pack: a one-shot function encoding a host INT8 weight into those values and
           codes, malloc'ed for the caller to free (TransSparse4to2Para)
  dtypes   the dtypes of the first operand (x1 / x; encode_param: scale; prepack_weight: the weight)
  weight_dtype D   weight_size without a dataType parameter: the dtype it sizes for
  weight   nz      int8_dequant / dynamic_dequant / weight_antiquant: x2 / weight may be FRACTAL_NZ
                   (QuantMatmulWeightNz; weight_antiquant: INT8 blocks only, WeightQuantBatchMatmulNz)
Every parameter's role comes from its name (ROLES); `offset` and `bias` may be null like the
`...Optional` ones. A `yRef` output is read and added to (QuantBatchMatmulInplaceAdd); permX1 /
permX2 / permY permute x1, x2 and the result (TransposeQuantBatchMatMul). Rows with those, or of the
dynamic_dequant scheme, are tested by tests/ops/test_op_table_qmmx.cpp, not the generic harness.
"""

QMM_KEYS = {"header", "dtypes", "backward", "scheme", "weight_dtype", "weight"}
SCHEMES = {"int8_dequant": "kInt8Dequant", "weight_antiquant": "kWeightAntiquant", "encode_param": "kEncodeParam",
           "float_requant": "kFloatRequant",
           "prepack_weight": "kPrepackWeight", "weight_size": None, "encode_array": None,
           "dynamic_dequant": "kDynamicDequant", "int4_pack": "kInt4Pack", "reduce_sum": "kReduceSum",
           "sparse4to2": "kSparse4to2", "sparse_pack": None,
           "compress_dequant": "kCompressDequant"}
# The roles each scheme needs.
NEEDS = {"int8_dequant": ("kQmmA", "kQmmB", "kQmmScale", "kQmmOut"),
         "weight_antiquant": ("kQmmA", "kQmmB", "kQmmScale", "kQmmOut"),
         "float_requant": ("kQmmA", "kQmmB", "kQmmScale", "kQmmOut"), "encode_param": ("kQmmScale", "kQmmOut"),
         "prepack_weight": ("kQmmB",), "weight_size": ("shape", "size"),
         "encode_array": ("scale_array", "param_out"),
         "dynamic_dequant": ("kQmmA", "kQmmB", "kQmmScale", "kQmmOut"), "int4_pack": ("kQmmB", "kQmmOut"),
         "reduce_sum": ("kQmmA", "kQmmB", "kQmmScale", "kQmmOut"),
         "sparse4to2": ("kQmmA", "kQmmB", "kQmmIndex", "kQmmScale", "kQmmPertoken", "kQmmOut"),
         "sparse_pack": ("dense", "values_out"),
         "compress_dequant": ("kQmmA", "kQmmB", "kQmmIndex", "kQmmScale", "kQmmOut")}
RESULTS = {"int8_dequant": "out's dtype (INT8 / FLOAT16 / BF16)", "float_requant": "INT8", "weight_antiquant": "x's dtype, INT8 when requantised",
           "encode_param": "UINT64 / INT64 words", "prepack_weight": "mmWeightRef in place", "weight_size": "a size",
           "encode_array": "a malloc'ed UINT64 array", "dynamic_dequant": "x's dtype",
           "int4_pack": "INT4 / INT32 (eight INT4)", "reduce_sum": "BF16 / FLOAT16",
           "sparse4to2": "BF16", "compress_dequant": "FLOAT16", "sparse_pack": "malloc'ed values, codes and their storage shapes"}
# Parameter name -> role: a QmmRole of the tensors (ops/matmul/qmm_phase1.h), or a value attribute.
ROLES = {"x1": "kQmmA", "x": "kQmmA", "x2": "kQmmB", "weight": "kQmmB", "scale": "kQmmScale",
         "antiquantScale": "kQmmScale", "offset": "kQmmOffset", "antiquantOffsetOptional": "kQmmOffset",
         "pertokenScaleOptional": "kQmmPertoken", "quantScaleOptional": "kQmmQScale",
         "quantOffsetOptional": "kQmmQOffset", "bias": "kQmmBias", "biasOptional": "kQmmBias", "out": "kQmmOut",
         "y": "kQmmOut", "transposeX1": "trans_a", "transposeX2": "trans_b", "antiquantGroupSize": "group",
         "mmWeightRef": "kQmmB", "tensorShape": "shape", "dataType": "dtype", "weightTensorSize": "size",
         # QuantMatmulWeightNz (V5's names)
         "x1Scale": "kQmmPertoken", "x2Scale": "kQmmScale", "x2Offset": "kQmmOffset", "yScale": "kQmmYScale",
         "x1Offset": "kQmmAOffset", "yOffset": "kQmmYOffset", "groupSize": "group",
         # QuantMatmul (a float deqScale: the per-tensor scale's value) / QuantMatmulV2 (a tensor)
         "deqScale": "kQmmScale", "adjX1": "trans_a", "adjX2": "trans_b",
         # WeightQuantBatchMatmulV3: 0 high precision, 1 high performance (both computed alike)
         "innerPrecise": "inner_precise",
         # FusedQuantMatmul (V5's names with Optional suffixes)
         "yScaleOptional": "kQmmYScale", "x1OffsetOptional": "kQmmAOffset", "x2OffsetOptional": "kQmmOffset",
         "yOffsetOptional": "kQmmYOffset", "x3Optional": "kQmmX3",
         "groupSizeOptional": "group", "fusedOpType": "fused",
         # TransQuantParamV3: 0 keeps the scale's top 19 bits, 1 rounds to them (nearest even)
         "roundMode": "round_mode",
         # TransQuantParam (host arrays)
         "scaleArray": "scale_array", "scaleSize": "scale_size", "offsetArray": "offset_array",
         "offsetSize": "offset_size", "quantParam": "param_out", "quantParamSize": "param_size",
         # QuantBatchMatmulInplaceAdd (yRef: read and added to)
         "x1ScaleOptional": "kQmmPertoken", "yRef": "kQmmOut",
         # TransposeQuantBatchMatMul
         "dtype": "out_dtype", "permX1": "perm0", "permX2": "perm1", "permY": "perm2", "batchSplitFactor": "split",
         # QuantMatmulDequant
         "weightScale": "kQmmScale", "xScaleOptional": "kQmmXScale", "xOffsetOptional": "kQmmAOffset",
         "smoothScaleOptional": "kQmmSmooth", "xQuantMode": "x_quant_mode", "transposeWeight": "trans_b",
         # ConvertWeightToINT4Pack
         "weightInt4Pack": "kQmmOut",
         # QuantMatmulReduceSumWeightNz
         "dims": "reduce_dims", "keepDims": "keep_dims",
         # WeightQuantBatchMatmul (V1): mulScale / addOffset are the antiquant scale / offset
         "diagonalMatrix": "kQmmDiag", "deqOffset": "kQmmDeqOffset",
         "addOffset": "kQmmOffset", "mulScale": "kQmmScale", "antiquantOffset": "aq_offset_value",
         # Sparse4to2QuantMatmulWeightNz
         "sparseWeight": "kQmmB", "index": "kQmmIndex", "xScale": "kQmmPertoken", "sparseWeightScale": "kQmmScale",
         # MatmulCompressDequant
         "compressIndex": "kQmmIndex", "offsetW": "kQmmWOffset", "offsetX": "offset_x", "compressInfo": "compress_info"}
# TransSparse4to2Para (host buffers in, malloc'ed buffers out).
SPARSE_PACK_ROLES = {"weight": "dense", "shape": "shape", "sparseWeight": "values_out",
                     "sparseWeightDims": "values_dims", "sparseWeightDimsNum": "values_ndims", "index": "codes_out",
                     "indexDims": "codes_dims", "indexDimsNum": "codes_ndims"}
# WeightQuantBatchMatmul (V1, the row with a diagonalMatrix): its deqScale is the small-m encoding's
# words, not QuantMatmul(V2)'s dequantisation scale.
V1_ROLES = dict(ROLES, deqScale="kQmmDeqScale")
# Roles of the rows with their own harness (tests/ops/test_op_table_qmmx.cpp).
OWN_HARNESS_ROLES = {"perm0", "out_dtype", "x_quant_mode", "kQmmDiag"}
NULLABLE = ("offset", "bias", "x1Scale", "x2Offset", "yScale", "x1Offset", "yOffset", "diagonalMatrix", "deqOffset",
            "deqScale", "addOffset", "mulScale", "offsetW")
# The harness's argument of each role (QmmArgs).
ARG = {"kQmmA": "a.a", "kQmmB": "a.b", "kQmmScale": "a.scale", "kQmmOffset": "a.offset",
       "kQmmPertoken": "a.pertoken", "kQmmQScale": "a.qscale", "kQmmQOffset": "a.qoffset", "kQmmBias": "a.bias",
       "kQmmYScale": "a.yscale", "kQmmAOffset": "a.x1offset", "kQmmYOffset": "a.yoffset", "kQmmX3": "a.x3",
       "fused": "a.fused",
       "kQmmOut": "a.out", "trans_a": "a.trans_a", "trans_b": "a.trans_b", "group": "a.group", "shape": "a.shape",
       "dtype": "a.dtype", "size": "size", "round_mode": "a.round_mode", "inner_precise": "a.inner_precise",
       "scale_value": "a.scale_value"}


def role_of(p, op):
    """A parameter's role; a scale given as a float (QuantMatmul's deqScale) is a value."""
    role = (V1_ROLES if any(q.name == "diagonalMatrix" for q in op.params) else ROLES)[p.name]
    if p.name == "quantParam" and p.kind == "tensor":  # BatchMatmulQuant's scale words
        return "kQmmScale"
    return "scale_value" if role == "kQmmScale" and p.kind != "tensor" else role


def resolve(g, table, op):
    g.family_resolve_common(table, op, QMM_KEYS, "a quantised matmul", default_dtypes="INT8")
    scheme = g.one(op, "scheme")
    if scheme not in SCHEMES:
        raise g.TableError(f"{op.where}: scheme must be one of {', '.join(SCHEMES)}")
    op.scheme = SCHEMES[scheme]
    op.oneshot = scheme in ("weight_size", "encode_array", "sparse_pack")
    op.encode_array = scheme == "encode_array"
    op.sparse_pack = scheme == "sparse_pack"
    op.weight_nz = g.one(op, "weight", "") == "nz"
    if g.one(op, "weight", "nz") != "nz" or (op.weight_nz and scheme not in ("int8_dequant", "dynamic_dequant",
                                                                               "weight_antiquant", "reduce_sum")):
        raise g.TableError(f"{op.where}: weight nz is an int8_dequant / dynamic_dequant / weight_antiquant row's key")
    op.weight_dtype = g.one(op, "weight_dtype")
    if op.weight_dtype is not None and op.weight_dtype not in g.DTYPES:
        raise g.TableError(f"{op.where}: unknown weight_dtype '{op.weight_dtype}'")
    roles = SPARSE_PACK_ROLES if op.sparse_pack else V1_ROLES if any(p.name == "diagonalMatrix" for p in op.params) \
        else ROLES
    op.roles = g.roles_by_name(op, roles, "a quantised matmul")
    if "param_out" in op.roles and op.roles["param_out"].kind == "tensor":  # BatchMatmulQuant's words
        op.roles["kQmmScale"] = op.roles.pop("param_out")
    for need in NEEDS[scheme]:
        if need not in op.roles:
            raise g.TableError(f"{op.where}: scheme {scheme} needs its {need.replace('kQmm', '').lower()} parameter")
    if scheme == "weight_size" and ("dtype" in op.roles) == (op.weight_dtype is not None):
        raise g.TableError(f"{op.where}: a weight_size row takes a dataType parameter or names its weight_dtype")
    op.input, op.output = op.roles[NEEDS[scheme][0]], op.roles[NEEDS[scheme][-1]]
    op.own_harness = (bool(OWN_HARNESS_ROLES & set(op.roles)) or any(p.name == "yRef" for p in op.params)
                      or scheme in ("int4_pack", "reduce_sum", "sparse4to2", "sparse_pack", "compress_dequant") or (scheme == "weight_antiquant" and op.weight_nz))
    op.results = [RESULTS[scheme]]


def render_entry(g, table):
    out = g.family_entry_head(table, "qmm_phase1", "ops/matmul/qmm_phase1.h", [])
    out += [f"const ::opsnn::ops::QmmRule k{op.name}Rule = {{::opsnn::ops::QmmScheme::{op.scheme}, "
            f"{'true' if op.weight_nz else 'false'}}};" for op in table.ops if not op.oneshot]
    out += ["}  // namespace", ""]
    for op in table.ops:
        if op.oneshot:
            out += oneshot_entry(op)
            continue
        tensors = [p.name for p in op.params if p.kind == "tensor"]
        lines = g.family_entry_open(op, "::opsnn::ops::QmmCall")
        lines += g.family_null_checks(op, nullable=NULLABLE, any_dtype=tensors)
        for p in op.params:
            role = role_of(p, op)
            if p.kind == "tensor":
                lines.append(f'    c.set(::opsnn::ops::{role}, {p.name}, "{p.name}");')
                if p.name == "yRef":
                    lines.append("    c.accumulate = true;")
                if p.name == "diagonalMatrix":
                    lines.append("    c.legacy_v1 = true;")
            elif role.startswith("perm"):
                lines += [f"    c.perm[{role[4]}] = {p.name};", f'    c.perm_name[{role[4]}] = "{p.name}";',
                          "    c.has_perm = true;"]
            elif role == "out_dtype":
                lines += [f"    c.out_dtype = {p.name};", "    c.has_out_dtype = true;"]
            else:
                lines.append(f"    c.{role} = {p.name};")
                if role == "scale_value":
                    lines.append("    c.has_scale_value = true;")
        out += lines + g.family_entry_close(op, "qmm_phase1")
    return "\n".join(out) + "\n"


def oneshot_entry(op):
    """A weight_size row: the size through ops::qmm_weight_size, inside the API boundary (an
    encode_array row: the words through ops::qmm_encode_array)."""
    if op.encode_array or op.sparse_pack:
        args = ", ".join(p.name for p in op.params)
        fn = "qmm_sparse_pack" if op.sparse_pack else "qmm_encode_array"
        return [f'extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnn{op.name}({op.params_text}) {{',
                f'  return ::opsnn::core::api_call("aclnn{op.name}", [&] {{',
                f"    ::opsnn::ops::{fn}({args});", "    return ACLNN_SUCCESS;", "  });", "}", ""]
    shape, size = op.roles["shape"].name, op.roles["size"].name
    dtype = op.roles["dtype"].name if "dtype" in op.roles else f"ACL_{op.weight_dtype}"
    dname = op.roles["dtype"].name if "dtype" in op.roles else "dataType"
    return [f'extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnn{op.name}({op.params_text}) {{',
            f'  return ::opsnn::core::api_call("aclnn{op.name}", [&] {{',
            f'    ::opsnn::core::require_not_null({size}, "{size}");',
            f'    *{size} = ::opsnn::ops::qmm_weight_size({shape}, "{shape}", {dtype}, "{dname}");',
            "    return ACLNN_SUCCESS;", "  });", "}", ""]


def render_tests(g, tables):
    out = g.family_tests_head(tables, "quantised matmul", "QmmTableCase", "qmm_table_cases")
    for t in tables:
        for op in t.ops:
            if getattr(op, "own_harness", False):
                continue
            roles = [role_of(p, op) for p in op.params]
            if op.encode_array:
                out += ["  {", "    QmmTableCase c;", f'    c.name = "{op.name}";', f'    c.api = "aclnn{op.name}";',
                        f"    c.encode_array = aclnn{op.name};", "    v.push_back(std::move(c));", "  }"]
                continue
            if op.oneshot:
                out += ["  {", "    QmmTableCase c;", f'    c.name = "{op.name}";', f'    c.api = "aclnn{op.name}";',
                        f"    c.weight_dtype = ACL_{op.weight_dtype or 'DT_UNDEFINED'};",
                        f"    c.oneshot = [](const QmmArgs &a, uint64_t *size) {{ return aclnn{op.name}("
                        f"{', '.join(ARG[r] for r in roles)}); }};", "    v.push_back(std::move(c));", "  }"]
                continue
            fields = [f"c.scheme = ::opsnn::ops::QmmScheme::{op.scheme};",
                      f"c.weight_nz = {'true' if op.weight_nz else 'false'};",
                      f"c.has_round_mode = {'true' if 'round_mode' in op.roles else 'false'};",
                      f"c.scale_value = {'true' if 'scale_value' in roles else 'false'};",
                      f"c.has_trans = {'true' if 'trans_a' in roles else 'false'};",
                      f"c.dtypes = {{{', '.join(g.cxx_dtype(d) for d in op.dtypes)}}};",
                      "c.roles = {" + ", ".join(f'{{::opsnn::ops::{r}, "{p.name}"}}' for r, p in
                                                zip(roles, op.params) if r.startswith("kQmm")) + "};"]
            out += g.family_case(op, {}, "QmmTableCase", fields, "QmmArgs", ", ".join(ARG[r] for r in roles))
    return "\n".join(out + ["  return v;", "}", ""])
