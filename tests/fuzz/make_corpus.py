#!/usr/bin/env python3
"""Writes the hand-made seeds of tests/fuzz/corpus/ (the input format is described at the top of
tests/fuzz/fuzz_ops.cpp). Each seed reaches the success path of one op (phase 1 accepts, phase 2
runs) in a plain or a strided / broadcast / other-dtype form; libFuzzer mutates from there.
Inputs kept from fuzzing runs (regress-*: each once found a bug) live next to them and are not written
here.  Usage: python3 tests/fuzz/make_corpus.py [out_dir]"""
import os
import sys

DTYPES = ["FLOAT", "FLOAT16", "BF16", "DOUBLE", "INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32",
          "INT64", "UINT64", "BOOL", "INT4", "STRING", "COMPLEX64", "COMPLEX128", "UINT1", "COMPLEX32",
          "HIFLOAT8", "FLOAT8_E5M2", "FLOAT8_E4M3FN", "FLOAT8_E8M0", "FLOAT6_E3M2", "FLOAT6_E2M3", "FLOAT4_E2M1",
          "FLOAT4_E1M2"]  # the first entries of kDtypes, same order

OPS = ["exp", "inplace_exp", "gelu_v2", "softplus", "add", "inplace_add", "mul", "divs", "divmod", "eq",
       "maximum", "remainder", "pow", "cast", "copy", "fill", "clamp", "where", "masked_fill",
       "round_decimals", "leaky_relu", "gelu_backward", "swiglu", "glu", "mm", "matmul", "addmm", "bmm",
       "trans_weight", "wqbmm", "qmm_v4", "trans_quant_param",
       "reduce_sum", "argmax", "var_correction", "norm", "max_dim",
       "softmax", "cumsum", "sort", "topk", "median_dim",
       "layer_norm", "rms_norm", "group_norm", "softmax_ce",
       "conv", "max_pool_indices", "avg_pool", "adaptive_avg_pool", "upsample_nearest",
       "im2col", "index_select", "gather", "scatter_add", "embedding",
       "permute", "constant_pad", "repeat", "nll_loss", "mse_loss",
       "prelu", "lstm_cell", "rope", "chamfer_grad", "vocab_sum_exp", "vocab_loss",
       "matmul_nz", "qmm_nz", "qconv_nz",
       "foreach_add_list", "foreach_mul_scalar", "foreach_add_scalar_list", "foreach_addcmul",
       "foreach_lerp", "foreach_exp", "foreach_pow_scalar_tensor", "foreach_norm",
       "foreach_unscale", "foreach_round_off", "ema_adam",
       "ascend_quant", "dynamic_quant_v2", "fake_quant_channel", "quantize", "group_quant",
       "fused_adamw", "fused_sgd", "apply_adamw_quant", "advance_step", "jagged_permute",
       "inverse", "modulate", "transpose_bmm", "fused_matmul", "qmm_v5", "swiglu_quant_v2",
       "gelu_quant", "rms_norm_quant", "layer_norm_quant", "group_norm_silu_quant",
       "einsum", "msda", "msda_grad", "flce_max_sum", "flce_grad",
       "qmm_inplace_add", "tqbmm", "qmm_dequant", "int4_pack", "qmm_reduce_sum", "wqbmm_v1",
       "swiglu_group", "swiglu_group_grad", "dynamic_block_quant", "rms_norm_grad_quant",
       "top_k_top_p_sample", "inplace_quant_scatter", "advance_step_v2", "grouped_dynamic_block_quant",
       "rotate_quant", "swiglu_group_quant", "dynamic_mx_quant", "anti_mx_quant", "grouped_quant_max",
       "swiglu_mx_quant", "situ_mx_quant", "rms_norm_mx_quant", "matmul_compress", "sparse4to2_qmm", "sum_list",
       "qmm_act_quant", "dual_level_qmm", "emu_split"]  # kOps, same order


def dt(name):
    return 0 if name is None else DTYPES.index(name) + 1


def T(dims, dtype=None, flags=0, extra=()):
    """A tensor: dims are pool indices (0..3); extra = the bytes the flags ask for."""
    return bytes([flags, dt(dtype), len(dims) + 1] + list(dims) + list(extra))


NULL_T = bytes([0xC0, 0, 1])  # a null (optional) tensor


def S(value=1, dtype=None):
    """A scalar with a small integer value."""
    return bytes([dt(dtype), 0, value & 0xFF])


def S16(value16, dtype=None):
    """A scalar with value value16 / 16 (mode 7)."""
    return bytes([dt(dtype), 7, value16])


def I(v):
    return bytes([v if v >= 0 else 16 + v])


def A(values):
    """An aclIntArray: ints 0..11 / -4..-1 as attributes, ("pool", i) = pool[i]."""
    out = [len(values) + 1]
    for v in values:
        out.append(0xD0 + v[1] if isinstance(v, tuple) else (v if v >= 0 else 16 + v))
    return bytes(out)


NULL_A = b"\xff"  # a null aclIntArray


def L(*entries):
    """A tensor list or scalar list of 0..4 entries (tensors T(...) or scalars S(...))."""
    assert len(entries) <= 4
    return bytes([len(entries) + 1]) + b"".join(entries)
DEFAULT = b"\x00"  # the role's usual value (int array, double, dtype)


def B(*bits):
    """The bool arguments of an op, in prototype order."""
    return bytes([sum(1 << i for i, b in enumerate(bits) if b)])


def seed(op, pool, *args, mode=0, fill=0x3c):
    return bytes([OPS.index(op), mode, fill] + list(pool)) + b"".join(args)


STRIDED = 2      # flags: last two dims transposed
OFFSET = 0x10    # flags: offset byte follows the dims


def seeds():
    p = (3, 4, 2, 1)  # pool: dims 3, 4, 2, 1 (index 3 broadcasts)
    yield "exp_f32", seed("exp", p, T([0, 1]), T([0, 1]))
    yield "exp_f16_transposed", seed("exp", p, T([0, 1], "FLOAT16", STRIDED), T([0, 1], "FLOAT16"))
    yield "exp_int_to_float", seed("exp", p, T([0, 1], "INT32"), T([0, 1], "FLOAT"))
    yield "inplace_exp_bf16", seed("inplace_exp", p, T([0, 1], "BF16"))
    yield "gelu_v2_tanh", seed("gelu_v2", p, T([0, 1]), I(1), T([0, 1]))
    yield "softplus", seed("softplus", p, T([0, 1]), S(1), S(20), T([0, 1]))
    yield "add_broadcast", seed("add", p, T([0, 1]), T([1]), S(2), T([0, 1]))
    yield "add_int_alpha", seed("add", p, T([0, 1], "INT32"), T([3, 1], "INT32"), S(3, "INT64"), T([0, 1], "INT32"))
    yield "add_offset_storage", seed("add", p, T([0, 1], None, OFFSET | 0x04, [5]), T([0, 1]), S(1), T([0, 1]))
    yield "inplace_add", seed("inplace_add", p, T([0, 1], "FLOAT16"), T([0, 1], "FLOAT16"), S(1))
    yield "mul_double", seed("mul", p, T([0, 1], "DOUBLE"), T([0, 1], "DOUBLE"), T([0, 1], "DOUBLE"))
    yield "mul_bool", seed("mul", p, T([0, 1], "BOOL"), T([0, 1], "BOOL"), T([0, 1], "BOOL"))
    yield "divs", seed("divs", p, T([0, 1]), S(3), T([0, 1]))
    yield "divmod_floor", seed("divmod", p, T([0, 1], "INT32"), T([0, 1], "INT32"), I(2), T([0, 1], "INT32"))
    yield "eq_tensor", seed("eq", p, T([0, 1]), T([0, 1]), T([0, 1], "BOOL"))
    yield "maximum_uint8", seed("maximum", p, T([0, 1], "UINT8"), T([0, 1], "UINT8"), T([0, 1], "UINT8"))
    yield "remainder_int64", seed("remainder", p, T([0, 1], "INT64"), T([0, 1], "INT64"), T([0, 1], "INT64"))
    yield "remainder_by_zero", seed("remainder", p, T([0, 1], "INT64"), T([0, 1], "INT64"), T([0, 1], "INT64"), fill=0)
    yield "pow_int", seed("pow", p, T([0, 1], "INT32"), S(2, "INT64"), T([0, 1], "INT32"))
    yield "cast_f32_i8", seed("cast", p, T([0, 1]), bytes([dt("INT8")]), T([0, 1], "INT8"))
    yield "cast_f16_bool", seed("cast", p, T([0, 1], "FLOAT16"), bytes([dt("BOOL")]), T([0, 1], "BOOL"))
    yield "copy_transposed", seed("copy", p, T([0, 1], None, STRIDED), T([0, 1], "FLOAT16"))
    yield "fill_int16", seed("fill", p, T([0, 1], "INT16"), S(7))
    yield "clamp", seed("clamp", p, T([0, 1]), S(-1), S(1), T([0, 1]))
    yield "where", seed("where", p, T([0, 1], "BOOL"), T([0, 1]), T([1]), T([0, 1]))
    yield "masked_fill", seed("masked_fill", p, T([0, 1]), T([1], "BOOL"), S(5))
    yield "round_decimals", seed("round_decimals", p, T([0, 1]), I(2), T([0, 1]))
    yield "leaky_relu_bf16", seed("leaky_relu", p, T([0, 1], "BF16"), S16(2))
    yield "gelu_backward", seed("gelu_backward", p, T([0, 1]), T([0, 1]), T([0, 1]))
    q = (3, 4, 2, 1)
    yield "swiglu_last", seed("swiglu", q, T([0, 1]), I(-1), T([0, 2]))
    yield "glu_f16", seed("glu", q, T([0, 1, 1], "FLOAT16"), I(1), T([0, 2, 1], "FLOAT16"))
    m = (5, 7, 6, 1)  # M, K, N
    yield "mm_f32", seed("mm", m, T([0, 1]), T([1, 2]), T([0, 2]), I(1))
    yield "mm_transposed_b", seed("mm", m, T([0, 1]), T([1, 2], None, STRIDED), T([0, 2]), I(1))
    yield "mm_f16", seed("mm", m, T([0, 1], "FLOAT16"), T([1, 2], "FLOAT16"), T([0, 2], "FLOAT16"), I(1))
    yield "matmul_3d_2d", seed("matmul", m, T([3, 0, 1], "FLOAT16"), T([1, 2], "FLOAT16"), T([3, 0, 2], "FLOAT16"), I(1))
    yield "matmul_1d", seed("matmul", m, T([1]), T([1, 2]), T([2]), I(1))
    yield "addmm_bias", seed("addmm", m, T([2]), T([0, 1]), T([1, 2]), S(1), S(1), T([0, 2]), I(1))
    yield "bmm_bf16", seed("bmm", m, T([3, 0, 1], "BF16"), T([3, 1, 2], "BF16"), T([3, 0, 2], "BF16"), I(1))
    w = (16, 8, 2, 1)  # K, N; storage [K, align(N, 16)] = [16, 16] (storage mode 2: 2 dims, pool[0] twice)
    yield "trans_weight_f16", seed("trans_weight", w, T([0, 1], "FLOAT16", 0x08, [2, 0, 0]))
    yield "trans_weight_f32", seed("trans_weight", w, T([0, 1], "FLOAT", 0x08, [2, 0, 0]))
    # pre-packed weight then used by a matmul at (likely) the same host address: the registry
    yield "trans_weight_exact", seed("trans_weight", (16, 16, 2, 1), T([0, 1], "FLOAT16"))
    wq = (2, 8, 4, 1)  # M, K, N
    yield "wqbmm_int8", seed("wqbmm", wq, T([0, 1], "FLOAT16"), T([1, 2], "INT8"), T([2], "FLOAT16"), NULL_T, NULL_T,
                             NULL_T, NULL_T, I(0), T([0, 2], "FLOAT16"))
    yield "wqbmm_offset_bias", seed("wqbmm", wq, T([0, 1], "FLOAT16"), T([1, 2], "INT8"), T([2], "FLOAT16"),
                                    T([2], "FLOAT16"), NULL_T, NULL_T, T([2], "FLOAT16"), I(0), T([0, 2], "FLOAT16"))
    yield "wqbmm_int4", seed("wqbmm", wq, T([0, 1], "BF16"), T([1, 2], "INT4"), T([2], "BF16"), NULL_T, NULL_T,
                             NULL_T, NULL_T, I(0), T([0, 2], "BF16"))
    # larger M (the fused dequantising path), per-group scales, transposed weight
    yield "wqbmm_int8_m9_fused", seed("wqbmm", (9, 8, 4, 1), T([0, 1], "FLOAT16"), T([1, 2], "INT8"), T([2], "FLOAT16"),
                                      NULL_T, NULL_T, NULL_T, NULL_T, I(0), T([0, 2], "FLOAT16"))
    # k = 64 and group size 32 come from the special values (dim byte 0xEA = 64, attribute byte 0xE8 = 32)
    yield "wqbmm_int4_group", seed("wqbmm", (17, 16, 2, 8), T([0, 0xEA], "BF16"), T([0xEA, 3], "INT4"),
                                   T([2, 3], "BF16"), NULL_T, NULL_T, NULL_T, NULL_T, b"\xe8", T([0, 3], "BF16"))
    yield "wqbmm_transposed_weight", seed("wqbmm", (3, 16, 8, 1), T([0, 1], "FLOAT16"), T([1, 2], "INT8", STRIDED),
                                          T([2], "FLOAT16"), T([2], "FLOAT16"), NULL_T, NULL_T, NULL_T, I(0),
                                          T([0, 2], "FLOAT16"))
    yield "wqbmm_requant_int8", seed("wqbmm", wq, T([0, 1], "FLOAT16"), T([1, 2], "INT8"), T([2], "FLOAT16"), NULL_T,
                                     T([2], "UINT64"), NULL_T, NULL_T, I(0), T([0, 2], "INT8"))
    yield "qmm_v4_m12_transposed", seed("qmm_v4", (12, 16, 8, 1), T([0, 1], "INT8"), T([2, 1], "INT8"), T([2], "BF16"),
                                        NULL_T, NULL_T, NULL_T, b"\x02", T([0, 2], "BF16"))
    yield "qmm_v4_bf16", seed("qmm_v4", wq, T([0, 1], "INT8"), T([1, 2], "INT8"), T([2], "BF16"), NULL_T, NULL_T,
                              NULL_T, b"\x00", T([0, 2], "BF16"))
    yield "qmm_v4_uint64_scale_int8", seed("qmm_v4", wq, T([0, 1], "INT8"), T([1, 2], "INT8"), T([2], "UINT64"),
                                           NULL_T, NULL_T, T([2], "INT32"), b"\x00", T([0, 2], "INT8"))
    yield "qmm_v4_pertoken_f16", seed("qmm_v4", wq, T([0, 1], "INT8"), T([1, 2], "INT8"), T([2], "FLOAT"), NULL_T,
                                      T([0], "FLOAT"), NULL_T, b"\x00", T([0, 2], "FLOAT16"))
    yield "trans_quant_param", seed("trans_quant_param", wq, T([2]), NULL_T, T([2], "UINT64"))
    # *WeightNz: the weight FRACTAL_NZ (format byte 7) with its storage dims from the stream (storage
    # mode 2: ndim 4, then pool indices / 0xE8 = 32), K 16, N 8
    nz = (16, 8, 2, 1)
    nz_flags = 0x08 | 0x20
    yield "matmul_nz_f16", seed("matmul_nz", nz, T([2, 0], "FLOAT16"),
                                T([0, 1], "FLOAT16", nz_flags, (4, 3, 3, 0, 0, 7)), T([2, 1], "FLOAT16"), I(0))
    yield "matmul_nz_transposed_bf16", seed("matmul_nz", nz, T([2, 0], "BF16"),
                                            T([0, 1], "BF16", nz_flags | STRIDED, (4, 3, 3, 0, 0, 7)),
                                            T([2, 1], "BF16"), I(0))
    yield "qmm_nz_int8", seed("qmm_nz", nz, T([2, 0], "INT8"), T([0, 1], "INT8", nz_flags, (4, 3, 3, 0, 0xE8, 7)),
                              NULL_T, T([1]), NULL_T, NULL_T, NULL_T, NULL_T, T([1], "INT32"), b"\x00", I(0),
                              T([2, 1], "FLOAT16"))
    # FRACTAL_Z_3D is not among the fuzzer's formats: the weight's format / storage checks only
    yield "qconv_nz_plain_weight", seed("qconv_nz", (2, 3, 4, 1), T([3, 0, 1, 1, 1], "INT8"),
                                        T([0, 0, 3, 3, 3], "INT8"), NULL_T, T([0]), NULL_T, DEFAULT, DEFAULT, DEFAULT,
                                        B(False), DEFAULT, I(1), I(0), T([3, 0, 1, 1, 1], "FLOAT16"))
    yield "trans_quant_param_int64", seed("trans_quant_param", wq, T([2]), T([2]), T([2], "INT64"))
    r = (3, 4, 2, 1)  # reductions / dim-wise / row ops: [3, 4] (and [3, 4, 2]) inputs
    yield "reduce_sum_dim1", seed("reduce_sum", r, T([0, 1, 2]), A([1]), B(False), DEFAULT, T([0, 2]))
    yield "reduce_sum_all_keepdim", seed("reduce_sum", r, T([0, 1, 2]), A([]), B(True), DEFAULT, T([3, 3, 3]))
    yield "reduce_sum_f16_to_f32", seed("reduce_sum", r, T([0, 1, 2], "FLOAT16", STRIDED), A([0, -1]), B(False),
                                        bytes([dt("FLOAT")]), T([1], "FLOAT"))
    yield "argmax", seed("argmax", r, T([0, 1]), I(1), B(False), T([0], "INT64"))
    yield "var_correction", seed("var_correction", r, T([0, 1]), A([1]), I(1), B(False), T([0]))
    yield "norm_p2", seed("norm", r, T([0, 1]), S(2), A([1]), B(False), T([0]))
    yield "norm_inf_keepdim", seed("norm", r, T([0, 1]), bytes([0, 2]), A([0]), B(True), T([3, 1]))
    yield "max_dim", seed("max_dim", r, T([0, 1]), I(1), B(False), T([0]), T([0], "INT64"))
    yield "softmax_last", seed("softmax", r, T([0, 1]), I(-1), T([0, 1]))
    yield "softmax_dim0_f16", seed("softmax", r, T([0, 1], "FLOAT16", STRIDED), I(0), T([0, 1], "FLOAT16"))
    yield "cumsum_int_to_int64", seed("cumsum", r, T([0, 1], "INT32"), I(1), bytes([dt("INT64")]), T([0, 1], "INT64"))
    yield "sort_stable_desc", seed("sort", r, T([0, 1]), B(True, True), I(-1), T([0, 1]), T([0, 1], "INT64"))
    yield "topk", seed("topk", r, T([0, 1]), I(2), I(1), B(True, True), T([0, 2]), T([0, 2], "INT64"))
    yield "median_dim", seed("median_dim", r, T([0, 1]), I(1), B(False), T([0]), T([0], "INT64"))
    yield "layer_norm", seed("layer_norm", r, T([0, 1]), DEFAULT, T([1]), T([1]), DEFAULT, T([0, 1]), T([0, 3]),
                             T([0, 3]))
    yield "layer_norm_no_optionals", seed("layer_norm", r, T([0, 1, 2]), A([("pool", 1), ("pool", 2)]), NULL_T,
                                          NULL_T, DEFAULT, T([0, 1, 2]), NULL_T, NULL_T)
    yield "rms_norm", seed("rms_norm", r, T([0, 1]), T([1]), DEFAULT, T([0, 1]), T([0, 3]))
    yield "rms_norm_bf16", seed("rms_norm", r, T([0, 1], "BF16"), T([1], "BF16"), DEFAULT, T([0, 1], "BF16"),
                                T([0, 3], "FLOAT"))
    # N = 3, C = 4, HxW = 2, group = 2 (= pool[2])
    yield "group_norm", seed("group_norm", r, T([0, 1, 2]), T([1]), T([1]), I(3), I(4), I(2), I(2), DEFAULT,
                             T([0, 1, 2]), T([0, 2]), T([0, 2]))
    yield "softmax_ce", seed("softmax_ce", r, T([0, 1]), T([0, 1]), T([0]), T([0, 1]))
    # device memory, repeatable executor, a workspace one byte short
    c = (2, 3, 6, 1)  # conv / pool: x [1, 3, 6, 6], 2 output channels, 3x3 kernels
    x = T([3, 1, 2, 2])
    yield "conv_3x3_pad1", seed("conv", c, x, T([0, 1, 1, 1]), T([0]), A([1, 1]), A([1, 1]), A([1, 1]), B(False),
                                A([0, 0]), I(1), T([3, 0, 2, 2]), I(0))
    yield "conv_transposed", seed("conv", c, x, T([1, 0, 1, 1]), NULL_T, A([1, 1]), A([1, 1]), A([1, 1]), B(True),
                                  A([0, 0]), I(1), T([3, 0, 2, 2]), I(0))
    yield "conv_stride2_f16", seed("conv", c, T([3, 1, 2, 2], "FLOAT16"), T([0, 1, 1, 1], "FLOAT16"), NULL_T,
                                   A([2, 2]), A([1, 1]), A([1, 1]), B(False), A([0, 0]), I(1),
                                   T([3, 0, 1, 1], "FLOAT16"), I(0))
    yield "max_pool_indices", seed("max_pool_indices", c, x, A([2, 2]), A([2, 2]), A([0, 0]), A([1, 1]), B(False),
                                   T([3, 1, 1, 1]), T([3, 1, 1, 1], "INT64"))
    yield "avg_pool_count_pad", seed("avg_pool", c, x, A([2, 2]), A([2, 2]), A([0, 0]), B(False, True), I(0), I(0),
                                     T([3, 1, 1, 1]))
    yield "adaptive_avg_pool", seed("adaptive_avg_pool", c, x, A([("pool", 1), ("pool", 1)]), T([3, 1, 1, 1]))
    yield "upsample_nearest", seed("upsample_nearest", c, T([3, 1, 1, 1]), A([("pool", 2), ("pool", 2)]), x)
    yield "im2col", seed("im2col", (1, 4, 3, 2), T([0, 0, 2, 2]), A([2, 2]), A([1, 1]), A([0, 0]), A([1, 1]),
                         T([0, 1, 1]))
    # index ops: mode bit 4 fills the index tensors with 0, 1, 2 (in range); without it they are huge
    r = (3, 4, 2, 1)
    yield "index_select", seed("index_select", r, T([0, 1]), I(0), T([2], "INT64"), T([2, 1]), mode=16)
    yield "gather", seed("gather", r, T([0, 1]), I(1), T([0, 2], "INT64"), T([0, 2]), mode=16)
    yield "scatter_add", seed("scatter_add", r, T([0, 1]), I(1), T([0, 2], "INT64"), T([0, 2]), T([0, 1]), mode=16)
    yield "embedding", seed("embedding", r, T([1, 0]), T([2], "INT64"), T([2, 0]), mode=16)
    yield "index_select_out_of_range", seed("index_select", r, T([0, 1]), I(0), T([2], "INT64"), T([2, 1]))
    yield "permute", seed("permute", r, T([0, 1, 2]), A([2, 0, 1]), T([2, 0, 1]))
    yield "constant_pad", seed("constant_pad", r, T([0, 1]), A([0, 0, 1, 0]), S(0), T([1, 1]))
    yield "repeat", seed("repeat", r, T([2, 1]), A([2, 1]), T([1, 1]))
    yield "nll_loss_mean", seed("nll_loss", r, T([0, 1]), T([0], "INT64"), T([1]), I(1), I(-1), T([]), T([]), mode=16)
    yield "mse_loss_sum", seed("mse_loss", r, T([0, 1]), T([0, 1]), I(2), T([]))
    yield "prelu", seed("prelu", r, T([0, 1, 2]), T([1]), T([0, 1, 2]))
    g = (2, 12, 3, 1)  # B 2, 4H 12, H 3
    yield "lstm_cell", seed("lstm_cell", g, T([0, 1]), T([0, 1]), T([0, 2]), T([1]), T([1]), T([0, 2]), T([0, 2]),
                            T([0, 1]))
    e = (1, 2, 3, 4)  # x [B 1, S 2, N 3, D 4], cos / sin [1, S, 1, D]
    yield "rope_half", seed("rope", e, T([0, 1, 2, 3]), T([0, 1, 0, 3]), T([0, 1, 0, 3]), I(0), T([0, 1, 2, 3]))
    yield "rope_interleaved_bf16", seed("rope", e, T([0, 1, 2, 3], "BF16"), T([0, 1, 0, 3], "BF16"),
                                        T([0, 1, 0, 3], "BF16"), I(1), T([0, 1, 2, 3], "BF16"))
    h = (2, 3, 4, 1)  # xyz1 [B 2, N 3, 2], xyz2 [2, M 4, 2]; indices 0..2 (mode bit 4)
    yield "chamfer_grad", seed("chamfer_grad", h, T([0, 1, 0]), T([0, 2, 0]), T([0, 1], "INT32"), T([0, 2], "INT32"),
                               T([0, 1]), T([0, 2]), T([0, 1, 0]), T([0, 2, 0]), mode=16)
    v = (3, 4, 2, 1)  # logits [3, V 4] covering classes [0, 4); targets 0..2 (mode bit 4)
    yield "vocab_sum_exp", seed("vocab_sum_exp", v, T([0, 1]), T([0], "INT32"), T([0]), I(0), I(4), T([0]), T([0]),
                                T([0, 1]), T([0], "INT32"), T([0], "INT32"), mode=16)
    yield "vocab_loss_softmax", seed("vocab_loss", v, T([0]), T([0]), T([0]), DEFAULT, NULL_T, NULL_T, T([0, 1]),
                                     T([0]), T([0, 1]))
    f = (3, 4, 2, 1)  # foreach entries [3, 4] and [2, 3]; per-list scalars [1] or [2]
    two = lambda dtype=None, flags=0: L(T([0, 1], dtype, flags), T([2, 0], dtype))
    yield "foreach_add_list", seed("foreach_add_list", f, two(), two(), T([3]), two())
    yield "foreach_add_list_f16_strided", seed("foreach_add_list", f, two("FLOAT16", STRIDED), two("FLOAT16"),
                                               T([3]), two("FLOAT16"), mode=1)
    yield "foreach_mul_scalar_bf16", seed("foreach_mul_scalar", f, two("BF16"), T([3]), two("BF16"))
    yield "foreach_mul_scalar_int", seed("foreach_mul_scalar", f, two("INT32"), T([3], "INT32"), two("INT32"))
    yield "foreach_add_scalar_list", seed("foreach_add_scalar_list", f, two(), L(S(2), S(3)), two())
    yield "foreach_addcmul", seed("foreach_addcmul", f, two(), two(), two(), T([2]), two())
    yield "foreach_lerp", seed("foreach_lerp", f, two(), two(), two(), two())
    yield "foreach_exp_device", seed("foreach_exp", f, two(), two(), mode=4)
    yield "sum_list", seed("sum_list", f, L(T([0, 1]), T([1]), T([3, 1], None, STRIDED)), T([0, 1]))
    yield "sum_list_int_broadcast", seed("sum_list", f, L(T([0, 1], "INT32"), T([1], "INT32")), T([0, 1], "INT32"))
    yield "foreach_exp_empty_list", seed("foreach_exp", f, L(), L())
    yield "foreach_pow_scalar_tensor", seed("foreach_pow_scalar_tensor", f, S(2), two(), two())
    yield "foreach_norm", seed("foreach_norm", f, two(), S(2), L(T([]), T([])))
    yield "foreach_unscale", seed("foreach_unscale", f, two(), T([3]), T([3]))
    yield "foreach_round_off", seed("foreach_round_off", f, two(), T([3], "INT32"), two(), mode=16, fill=1)
    yield "ema_adam", seed("ema_adam", f, T([0, 1]), T([0, 1]), T([0, 1]), T([0, 1]), T([0, 1]), T([3], "INT64"),
                           DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, I(1), B(True), DEFAULT, mode=16, fill=0x3d)
    q = (3, 4, 2, 1)  # x [3, 4]; per-column scale / offset [4]; INT8 = dstType 2
    yield "ascend_quant_round", seed("ascend_quant", q, T([0, 1]), T([1]), T([1]), B(False), bytes([0]), I(2),
                                     T([0, 1], "INT8"))
    yield "ascend_quant_f16_sqrt_floor", seed("ascend_quant", q, T([0, 1], "FLOAT16"), T([1], "FLOAT16"), T([3], "FLOAT16"),
                                              B(True), bytes([1]), I(2), T([0, 1], "INT8"))
    yield "dynamic_quant_v2", seed("dynamic_quant_v2", q, T([0, 1]), T([1]), NULL_T, I(2), T([0, 1], "INT8"), T([0]),
                                   NULL_T)
    yield "fake_quant_channel", seed("fake_quant_channel", q, T([0, 1]), T([1]), T([1], "INT32"), I(1), I(0), I(11),
                                     T([0, 1]), T([0, 1], "BOOL"), mode=16)
    yield "quantize_axis1", seed("quantize", q, T([0, 1]), T([1]), T([1], "INT32"), bytes([dt("INT8")]), I(1),
                                 T([0, 1], "INT8"), mode=16)
    yield "group_quant", seed("group_quant", q, T([0, 1]), T([2, 1]), T([2], "INT32"), NULL_T, I(2), T([0, 1], "INT8"),
                              mode=16, fill=2)
    lst = (3, 4, 2, 1)  # list optimisers: entries [3, 4] and [2, 3], one step [1] per entry
    yield "fused_adamw", seed("fused_adamw", lst, two(), two(), two(), two(), two(), L(T([3]), T([3])), NULL_T, NULL_T,
                              DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, B(False, False), fill=0xE4)
    yield "fused_adamw_amsgrad_f16", seed("fused_adamw", lst, two("FLOAT16"), two("FLOAT16"), two("FLOAT16"),
                                          two("FLOAT16"), two("FLOAT16"), L(T([3]), T([3])), NULL_T, NULL_T, DEFAULT,
                                          DEFAULT, DEFAULT, DEFAULT, DEFAULT, B(True, True), fill=0xE4)
    yield "fused_sgd", seed("fused_sgd", lst, two(), two(), two(), NULL_T, DEFAULT, DEFAULT, DEFAULT, DEFAULT,
                            B(True, False, False))
    aq = (4, 8, 2, 1)  # var [4, 8]; 256-entry code books (special dim 0xEC); blockSize 16 (0xE5): 2 blocks
    yield "apply_adamw_quant", seed("apply_adamw_quant", aq, T([0, 1]), T([0, 1]), T([0, 1], "UINT8"),
                                    T([0, 1], "UINT8"), T([0xEC]), T([0xEC]), T([2]), T([2]), T([3], "INT64"),
                                    DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, bytes([7]), bytes([0xE5]),
                                    fill=0xE4)
    sv = (3, 2, 4, 1)  # 3 sequences, 2 queries, blocks of 4, block tables [3, 4]; ids 0..2 (mode bit 4)
    yield "advance_step", seed("advance_step", sv, T([0]), T([1]), T([0]), T([0]), T([0]), T([0, 2]), I(3), I(2),
                               I(4), mode=16)
    yield "jagged_permute", seed("jagged_permute", (3, 4, 2, 1), T([2]), T([0]), T([0]), I(2), T([2]), mode=16)
    yield "inverse", seed("inverse", (2, 3, 3, 1), T([0, 1, 1]), T([0, 1, 1]), fill=0x35)
    yield "modulate", seed("modulate", (2, 3, 4, 1), T([0, 1, 2]), T([0, 2]), T([0, 2]), T([0, 1, 2]))
    tb = (3, 2, 4, 5)  # x1 [M 3, B 2, K 4] permuted (1, 0, 2), x2 [B, K, N 5], y [M, B, N]
    yield "transpose_bmm", seed("transpose_bmm", tb, T([0, 1, 2]), T([1, 2, 3]), NULL_T, NULL_T, DEFAULT, DEFAULT,
                                DEFAULT, I(0), I(1), T([0, 1, 3]))
    fm = (3, 4, 5, 1)
    yield "fused_matmul_gelu_erf", seed("fused_matmul", fm, T([0, 1]), T([1, 2]), NULL_T, NULL_T, bytes([3]), I(0),
                                        T([0, 2]))
    yield "fused_matmul_add", seed("fused_matmul", fm, T([0, 1]), T([1, 2]), T([2]), T([0, 2]), bytes([1]), I(0),
                                   T([0, 2]))
    yield "qmm_v5_pertoken", seed("qmm_v5", fm, T([0, 1], "INT8"), T([1, 2], "INT8"), T([0]), T([2]), NULL_T, NULL_T,
                                  NULL_T, NULL_T, NULL_T, B(False, False), I(0), T([0, 2], "FLOAT16"))
    sq = (3, 8, 4, 1)  # x [3, 8] -> y [3, 4] INT8 + per-row scale [3]
    yield "swiglu_quant_v2", seed("swiglu_quant_v2", sq, T([0, 1]), NULL_T, NULL_T, NULL_T, B(False), bytes([7]), I(0),
                                  I(2), T([0, 2], "INT8"), T([0]))
    yield "gelu_quant_dynamic", seed("gelu_quant", q, T([0, 1]), NULL_T, NULL_T, bytes([12]), bytes([14]), bytes([4]),
                                     I(2), T([0, 1], "INT8"), T([0]))
    yield "rms_norm_quant_f16", seed("rms_norm_quant", q, T([0, 1]), T([1]), T([1]), T([3]), T([3]), DEFAULT,
                                     T([0, 1], "INT8"))
    yield "layer_norm_quant", seed("layer_norm_quant", q, T([0, 1]), T([1]), T([1]), T([3]), NULL_T, I(0), DEFAULT,
                                   T([0, 1], "INT8"), T([0]))
    gq = (2, 4, 3, 1)  # x [N 2, C 4, L 3], 2 groups: mean / rstd [2, 2]
    yield "group_norm_silu_quant", seed("group_norm_silu_quant", gq, T([0, 1, 2]), T([1]), T([1]), T([3]), I(2),
                                        DEFAULT, B(True), T([0, 1, 2], "INT8"), T([0, 0]), T([0, 0]))
    z = (3, 4, 2, 1)  # einsum [3, 4] x [4, 2]; fused linear CE input [3, 4], weight [2, 4], 1 mask byte
    yield "einsum_matmul", seed("einsum", z, L(T([0, 1]), T([1, 2])), I(0), T([0, 2]))
    yield "einsum_diagonal", seed("einsum", z, L(T([0, 0])), I(2), T([0]))
    d = (2, 8, 1, 3)  # value [1, 8 keys, 1 head, 3 channels]; one level; location [1, 3 queries, 1, 1, 2 points, 2]
    yield "msda", seed("msda", d, T([2, 1, 2, 3]), T([2, 0], "INT32"), T([2], "INT32"), T([2, 3, 2, 2, 0, 0]),
                       T([2, 3, 2, 2, 0]), T([2, 3, 3]), mode=16)
    yield "msda_grad", seed("msda_grad", d, T([2, 1, 2, 3]), T([2, 0], "INT32"), T([2], "INT32"),
                            T([2, 3, 2, 2, 0, 0]), T([2, 3, 2, 2, 0]), T([2, 3, 3]), T([2, 1, 2, 3]),
                            T([2, 3, 2, 2, 0, 0]), T([2, 3, 2, 2, 0]), mode=16)
    yield "flce_max_sum", seed("flce_max_sum", z, T([0, 1], "BF16"), T([2, 1], "BF16"), T([0], "INT64"), I(0), I(2),
                               T([0]), T([0]), T([0]), T([3], "UINT8"), T([0], "INT64"), T([0, 2], "BF16"), mode=16)
    yield "flce_grad_softmax", seed("flce_grad", z, T([0]), T([0, 1], "BF16"), T([2, 1], "BF16"), T([3], "UINT8"),
                                    T([0], "INT64"), DEFAULT, NULL_T, NULL_T, T([0, 2]), T([0, 1], "BF16"),
                                    T([2, 1], "BF16"), mode=16, fill=0xff)
    qx = (3, 4, 5, 1)  # int8 x1 [3, 4] @ x2 [4, 5]; per-row / per-column scales
    yield "qmm_inplace_add", seed("qmm_inplace_add", qx, T([0, 1], "INT8"), T([1, 2], "INT8"), T([0]), T([2]),
                                  T([0, 2]), B(False, False), I(0))
    yield "tqbmm", seed("tqbmm", (3, 2, 4, 5), T([0, 1, 2], "INT8"), T([1, 2, 3], "INT8"), NULL_T, T([0]), T([3]),
                        I(1), I(0), DEFAULT, DEFAULT, DEFAULT, I(1), T([0, 1, 3], "FLOAT16"))
    yield "qmm_dequant_pertoken", seed("qmm_dequant", qx, T([0, 1], "FLOAT16"), T([1, 2], "INT8"), T([2]), NULL_T,
                                       NULL_T, NULL_T, NULL_T, bytes([8]), B(False), T([0, 2], "FLOAT16"))
    yield "int4_pack", seed("int4_pack", qx, T([0, 1], "INT32"), T([0, 1], "INT4"), mode=16)
    yield "wqbmm_v1", seed("wqbmm_v1", qx, T([0, 1], "FLOAT16"), T([1, 2], "INT8"), T([2], "FLOAT16"),
                           T([2], "FLOAT16"), NULL_T, B(False, False), T([0, 2], "FLOAT16"))

    # x [3, 4] -> halves [3, 2]; weight [3]; group counts INT64 [2]; clampLimit default (-1)
    yield "swiglu_group", seed("swiglu_group", q, T([0, 1]), T([0]), T([2], "INT64"), DEFAULT, T([0, 2]), mode=16)
    yield "swiglu_group_grad", seed("swiglu_group_grad", q, T([0, 2]), T([0, 1]), T([0]), T([0, 2]), T([2], "INT64"),
                                    DEFAULT, T([0, 1]), T([0]), mode=16)
    # x [3, 4] FLOAT16 in blocks of 2 x 2 -> scales [2, 2] (pool dims 2, 2); INT8; roundMode null (index 7)
    yield "dynamic_block_quant", seed("dynamic_block_quant", q, T([0, 1], "FLOAT16"), DEFAULT, bytes([7]), I(2), I(2),
                                      I(2), T([0, 1], "INT8"), T([2, 2]))
    # dy, x [3, 4]; rstd [3]; gamma [4]; scalesX, offsetX [1] (pool dim 3); quantMode "static" (string 15)
    yield "rms_norm_grad_quant", seed("rms_norm_grad_quant", q, T([0, 1]), T([0, 1]), T([0]), T([1]), T([3]),
                                      T([3], "INT32"), bytes([15]), B(True), T([0, 1], "INT8"), T([1]))
    # logits [3, 4] FLOAT16, topK INT32 [3], topP FLOAT16 [3], q FLOAT [3, 4]; isNeedLogits; topKGuess 2
    yield "top_k_top_p_sample", seed("top_k_top_p_sample", q, T([0, 1]), T([0]), T([0]), T([0, 1]), DEFAULT, B(True),
                                     I(2), T([0]), T([0, 1]))
    # x BF16 [2, 32] along the last axis in one 32-block -> y FLOAT8_E4M3FN / FLOAT4_E2M1 [2, 32], mxscale E8M0
    # [2, 1, 2] (dims 2, 32 = special 0xE8, 1, 2); roundMode null (string 7); scaleAlg 0
    mx = (2, 1, 2, 1)
    yield "dynamic_mx_quant_fp8", seed("dynamic_mx_quant", mx, T([0, 0xE8], "BF16"), I(-1), bytes([7]),
                                       bytes([dt("FLOAT8_E4M3FN")]), bytes([0xE8]), I(0), T([0, 0xE8], "FLOAT8_E4M3FN"),
                                       T([0, 1, 2], "FLOAT8_E8M0"))
    yield "dynamic_mx_quant_fp4", seed("dynamic_mx_quant", mx, T([0, 0xE8], "FLOAT16"), I(-1), bytes([7]),
                                       bytes([dt("FLOAT4_E2M1")]), bytes([0xE8]), I(0), T([0, 0xE8], "FLOAT4_E2M1"),
                                       T([0, 1, 2], "FLOAT8_E8M0"))
    yield "anti_mx_quant", seed("anti_mx_quant", mx, T([0, 0xE8], "FLOAT8_E5M2"), T([0, 1, 2], "FLOAT8_E8M0"), I(-1),
                                bytes([dt("FLOAT")]), T([0, 0xE8], "FLOAT"))
    # The gated MX quantisers: x [2, 64] (dim 0xEA = 64) halves into [2, 32] -> y FLOAT8 [2, 32], mxscale [2, 1, 2];
    # RMSNorm + MX: x BF16 [2, 32], gamma [32], no beta, rstd FLOAT [2, 1] (outputRstd)
    yield "swiglu_mx_quant", seed("swiglu_mx_quant", mx, T([0, 0xEA], "BF16"), NULL_T, I(-1), I(0), B(True), DEFAULT,
                                  DEFAULT, DEFAULT, I(0), I(-1), bytes([dt("FLOAT8_E4M3FN")]), bytes([7]), I(0),
                                  DEFAULT, T([0, 0xE8], "FLOAT8_E4M3FN"), T([0, 1, 2], "FLOAT8_E8M0"))
    yield "situ_mx_quant", seed("situ_mx_quant", mx, T([0, 0xEA], "FLOAT16"), DEFAULT, DEFAULT, B(True), I(-1),
                                bytes([dt("FLOAT8_E5M2")]), bytes([7]), T([0, 0xE8], "FLOAT8_E5M2"),
                                T([0, 1, 2], "FLOAT8_E8M0"))
    yield "rms_norm_mx_quant", seed("rms_norm_mx_quant", mx, T([0, 0xE8], "BF16"), T([0xE8], "BF16"), NULL_T, DEFAULT,
                                    I(0), bytes([7]), bytes([dt("FLOAT8_E4M3FN")]), B(True),
                                    T([0, 0xE8], "FLOAT8_E4M3FN"), T([0, 1, 2], "FLOAT8_E8M0"), T([0, 1]))
    # MatmulCompress: x FLOAT16 [2, 4] @ the stored W [2, 4] as 8 values, bias FLOAT [2], compressIndex INT8 [4]
    cm = (2, 4, 8, 1)
    yield "matmul_compress", seed("matmul_compress", cm, T([0, 1], "FLOAT16"), T([2], "FLOAT16"), T([0]),
                                  T([1], "INT8"), T([0, 0], "FLOAT16"))
    # MatmulEmuSplitWeight: x BF16 [2, 4] @ (wHigh + wLow / 256) BF16 [4, 2] -> y FLOAT [2, 2]; yDtype 0
    yield "emu_split", seed("emu_split", cm, T([0, 1], "BF16"), T([1, 0], "BF16"), T([1, 0], "BF16"), T([0, 0]),
                            DEFAULT, I(0))
    # x [2, 1] in groups ends [0, 1, 2] (mode bit 4: INT64 buffers hold 0, 1, 2); scale / amax [3] (pool dim 3)
    gm = (2, 1, 3, 1)
    yield "grouped_quant_max", seed("grouped_quant_max", gm, T([0, 1]), T([2]), T([2]), bytes([4]), DEFAULT,
                                    T([0, 1], "FLOAT8_E5M2"), T([2]), mode=16)
    yield "mm_device_repeatable", seed("mm", m, T([0, 1]), T([1, 2]), T([0, 2]), I(1), mode=1 | 2 | 4)
    yield "add_device", seed("add", p, T([0, 1]), T([1]), S(2), T([0, 1]), mode=4)
    yield "mul_wrong_launch_first", seed("mul", p, T([0, 1]), T([0, 1]), T([0, 1]), mode=8)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    os.makedirs(out, exist_ok=True)
    n = 0
    for name, data in seeds():
        with open(os.path.join(out, "seed-" + name), "wb") as f:
            f.write(data)
        n += 1
    print(f"make_corpus: {n} seeds in {out}")


if __name__ == "__main__":
    main()
