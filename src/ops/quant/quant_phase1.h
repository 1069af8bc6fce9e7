// The phase 1 of the quantisation table (src/ops/quant/quant.ops, rows: tools/gen_ops_quant.py), on the
// row kernels of kernels/quant/quant_rows.h. x is read as rows along its last dim (any strides); all
// arithmetic is fp32; round = half to even unless roundMode says floor / ceil / trunc; every integer
// result saturates to its range and a NaN gives 0. Integer destinations (dstType): 2 INT8, 29 INT4 (two
// a byte, low nibble first; y has x's shape, contiguous, even last dim), 3 INT32 (eight INT4 a word,
// low nibble first; y is x's shape with last dim / 8, contiguous). dstType 34 / 35 / 36 (HIFLOAT8,
// FLOAT8_E5M2, FLOAT8_E4M3FN) and the MX formats are not supported by these ops: 161002 naming dstType (the MX
// ops are ops/quant/mx_quant_phase1.h's).
//
//  kAscendQuant  (AscendQuant, AscendQuantV3)  y = round(x * s + offset), s = scale (sqrtMode: scale^2);
//                scale / offset (offset optional, scale's dtype; FLOAT x takes any floating scale, other x
//                their own dtype) are 1-D (1 or x.shape[axis]) or x's rank with 1 everywhere but axis;
//                axis = -1 (V1) or one of x's last two dims (V3). roundMode round|floor|ceil|trunc.
//  kAntiQuant    (AscendAntiQuant)  y = (x + offset) * s (sqrtMode: s = scale^2), x INT8 / INT4 / INT32
//                (eight INT4, low nibble first); scale FLOAT / BF16 1-D of 1 or the logical last dim,
//                offset optional, like scale; dstType 1 FLOAT16 / 27 BF16 = y's dtype.
//  kQuantize     (Quantize)  y = saturate(round(x / scale) + zero_point) in the `dtype` argument (INT8,
//                UINT8, INT32), PyTorch's quantize_per_tensor / quantize_per_channel: scales FLOAT 1-D of
//                1 (per tensor) or x.shape[axis]; zeroPoints (null: 0) like scales, INT8 / UINT8 / INT32 /
//                FLOAT (a float zero point is rounded half to even).
//  kDynamic      (DynamicQuant, V2, V3, V4)  per row (pertoken; V3 / V4 also pertensor: one scale for all
//                of x, perchannel: one per last-dim column over all rows):
//                  in = x * smooth (smoothScalesOptional: [n], or [E, n] picked by groupIndexOptional)
//                  symmetric:  scale = max|in| / M,              y = round(in / scale)
//                  asymmetric: scale = (max in - min in) / (M - m), offset = M - max in / scale,
//                              y = round(in / scale + offset)
//                M, m = 127, -128 (INT8) or 7, -8 (INT4 / INT32-packed). A scale of 0 (a row of zeros, an
//                empty row, a constant row when asymmetric) gives y = 0 and offset = 0 (not NaN).
//                groupIndex (INT32 / INT64 [E]) holds cumulative row ends: row r takes smooth row
//                e = the first with r < groupIndex[e] (past the last end: E - 1). V1: y's dtype is the
//                destination; V2: offsetOut given = asymmetric; V3 / V4: isSymmetrical (offsetOut then
//                required); V4's dstTypeMax must be 0 or M (other maxima are for the FP8 outputs).
//                V2-V4 dstType 35 / 36 (FLOAT8_E5M2 / E4M3FN): the symmetric formula with M = FP8_MAX (57344 /
//                448), y = cast(in / scale) half to even, saturating (low_float.h); our reading, the docs give the
//                INT8 formula only: the asymmetric mode is refused for them (161002 naming isSymmetrical /
//                offsetOut), yOut any strides; V4's dstTypeMax 0 or FP8_MAX. 34 (HIFLOAT8, no codec): 161002.
//  kFakeTensor / kFakeChannel  (FakeQuantPerTensorAffineCachemask / PerChannel) PyTorch's
//                fake_quantize_per_{tensor,channel}_affine_cachemask: q = round(x * (1 / scale)) + zp,
//                out = (clamp(q, quantMin, quantMax) - zp) * scale, mask = quantMin <= q <= quantMax
//                (BOOL); per tensor: scale FLOAT [1] / [] and zeroPoint INT32 [1] / [], fakeQuantEnabled
//                < 1 copies self and sets the mask true; per channel: scale [C] FLOAT, zeroPoint [C]
//                INT32 / FLOAT along axis. quantMin <= quantMax.
//  kDequantBias  (DequantBias)  x INT32 [M, N]; weightScale [N] FLOAT / BF16; activateScaleOptional [M]
//                FLOAT; biasOptional [N]: INT32: y = (x + bias) * ws * as; FLOAT / FLOAT16 / BF16:
//                y = x * ws * as + bias. outputDtype 1 FLOAT16 (FLOAT weightScale) / 27 BF16 (BF16).
//  kGroupQuant   (GroupQuant)  x [S, H]; scale [E, H]; groupIndex [E] INT32 / INT64, cumulative row ends as
//                for kDynamic; offsetOptional one element (scale's dtype): y = round(x * scale[e] + offset).
//  kGeluQuant    (GeluQuant)  g = gelu(x) in fp32 (approximate "none": 0.5 x (1 + erf(x / sqrt 2)); "tanh":
//                0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))), then quantMode "static":
//                y = round(g * inputScale + inputOffset) (inputScaleOptional required; scale / offset 1 value
//                or x's last dim), or "dynamic": g *= inputScale (when given), per row scale = max|g| / 127,
//                y = round(g / scale) (a row of zeros: scale 0, y 0), outScaleOptional (FLOAT, x's shape
//                without the last dim) required. roundMode "rint" or "round" (half to even), "floor", "ceil",
//                "trunc". dstType 2 (INT8) only (FP8 / HIFLOAT8: 161002).
//  kSwiGluQuant  (SwiGluQuant, V2)  x [..., 2H] split in halves A | B along the last dim; act = silu(A) * B
//                (activateLeft) or A * silu(B); row r's group e from groupIndexOptional (INT32 / INT64 [G]:
//                cumulative row ends, or with V2's groupListType 1 row counts; rows past the last end take
//                the last group; no group index: one group). quantModeOptional "dynamic" (also for null):
//                in = act * smooth[e] (smoothScalesOptional, optional), scaleOut[r] = max|in| / M,
//                y = round(in / scale); "static": y = round(act * smooth[e] + offsets[e]) (smooth required,
//                offsets optional; scaleOut not written). smooth / offsets: [G, H] (per channel) or [G] / [G, 1]
//                (per tensor); without a group index [H] / [1, H] or [1]. y [..., H] INT8 (V2's dstType 2), or
//                INT4 (dstType 29, packed, M = 7); round half to even, saturation.
//  kDequantSwiGluQuant (DequantSwigluQuant, V2)  kSwiGluQuant after a dequantisation of x (INT32, FLOAT16,
//                BF16, FLOAT): d = x * weightScale[j] * activationScale[row] (+ biasOptional; an INT32 bias is
//                added to an INT32 x before the scales), each optional; weightScale [2H] FLOAT, activationScale
//                x's shape with the last dim 1 (or without it) FLOAT, bias [2H]. quantScaleOptional /
//                quantOffsetOptional take SwiGluQuant's smooth / offset roles (static: round(act * s + o)).
//                V2: dstType 2 / 29, roundModeOptional (null: rint), activateDim -1 or the last dim only,
//                swigluMode 0 (halves) or 1 (x_glu = d[2j], x_lin = d[2j + 1], glu clamped above and lin on both
//                sides by clampLimit, act = glu * sigmoid(gluAlpha * glu) * (lin + gluBias)).
//  kBlockQuant   (DynamicBlockQuant, V2)  x FLOAT16 / BF16 [M, N] or [B, M, N] in blocks of rowBlockSize x
//                colBlockSize (any positive sizes; the last blocks of a dim may be short): per block
//                scale = min(max|x| / 127, 1 / minScale) (minScale >= 0; 0: no cap), y = round(x / scale)
//                (half to even, saturated; scale 0 gives y 0); scaleOut FLOAT [(B,) ceil(M / rowBlockSize),
//                ceil(N / colBlockSize)]. dstType 2 (INT8), or 35 / 36 (FLOAT8_E5M2 / E4M3FN: 127 becomes FP8_MAX,
//                57344 / 448, and y = cast(x / scale) half to even, saturating, yOut any strides; the docs name the
//                FP8 max only as Amax(DType): our reading); 34 (HIFLOAT8, no codec): 161002; roundModeOptional null
//                or "rint" ("round" is documented for HIFLOAT8 only); V2's dstTypeMax 0 or 127 (FLOAT8: its max).
//                DequantSituQuant (the row given beta / linearBeta): the same dequantisation (x INT8: weightScale
//                required, no activationScale; INT32: weightScale and activationScale [1] required, no quant
//                scale / offset; FLOAT16 / BF16: no weightScale / activationScale / bias), weightScale / bias [2H]
//                or [1]; then act = beta tanh(g / beta) sigmoid(g) * (linearBeta > 0 ? linearBeta tanh(u /
//                linearBeta) : u), g the first half when activateLeft (else the second), u the other; quantTypeOptional
//                "static": y = trunc(act / quantScale + quantOffset) (quantScale required, [H] or [1]); "dynamic"
//                (also null): in = act * quantScale (when given), scale = max|in| / 127, y = trunc(in / scale); y INT8
//                (x's shape, last dim halved); beta 0 and a groupIndexOptional (its meaning is not documented) are 161002.
//  kGroupedBlockQuant (GroupedDynamicBlockQuant, V2)  kBlockQuant inside row groups: groupList (INT32 [g], g >= 1)
//                holds cumulative row ends along M (groupListType 0, the only documented type; non-negative,
//                non-decreasing, the last = M: checked at launch, 161002 before any write); blocks of rowBlockSize
//                rows start at each group's first row and never cross its end. scaleOut FLOAT [(B,) M / rowBlockSize
//                + g, ceil(N / colBlockSize)] (M / rowBlockSize floored): group i's k-th block row writes scale row
//                start_i / rowBlockSize + i + k (the documented shape leaves room for every group's short last
//                block); rows no block writes are set to 0 (our reading: the docs do not say). The docs list only
//                HIFLOAT8 / FLOAT8 yOut: FLOAT8 (35 / 36) as DynamicBlockQuant computes it, HIFLOAT8 (34) refused
//                with 161002 naming dstType; we also take dstType 2 (INT8) as DynamicBlockQuant does (scale =
//                min(max|x| / 127, 1 / minScale)). rowBlockSize 1 / 128 / 256 / 512, colBlockSize 64 / 128 / 192 /
//                256 (documented); V2's dstTypeMax is for HIFLOAT8: 0 or the destination's max here.
//  kFlatQuant    (FlatQuant)  x FLOAT16 / BF16 [K, M, N], kroneckerP1 [M, M], kroneckerP2 [N, N] of x's dtype: per k,
//                x'' = P1 @ x[k] @ P2 (fp32 products and sums), quantScale[k] = max|x''| * clipRatio / 7 (FLOAT [K];
//                clipRatio in (0, 1]), out = round_half_even(x'' / quantScale[k]) saturated to [-8, 7], INT4 (x's
//                shape) or INT32 (eight INT4 a word: last dim N / 8); a slice of zeros gives 0. FLOAT4_E2M1 out
//                (the per-group MX mode) is not supported (161002). K in [1, 262144], M and N in [1, 256]
//                (documented). V2 / V3's dstTypeMax applies to FLOAT4_E2M1 only: 0 here. V3's groupListOptional
//                (INT64, G <= 1024) splits the K slices into groups: groupListType 0 cumulative ends ([G],
//                non-decreasing), 1 counts ([G]), 2 (index, count) pairs ([G, 2]); values non-negative and the
//                total (the last end, or the sum of counts) <= K, checked at launch (161002 before any write).
//                Every group shares P1 / P2, so grouping only bounds the slices computed: slices at and after
//                the total are written as out 0 and quantScale 0 (our reading: the docs leave them undefined).
//                groupListType is not read without a groupList.
//  kQuantMax     (QuantMax, GroupedQuantMax)  y = cast(x * scale) to dstType 35 FLOAT8_E5M2 / 36 FLOAT8_E4M3FN as
//                aclnnCast does it (the product in fp32, half to even, not saturating: E5M2 overflows to inf, E4M3FN to
//                NaN; roundMode "rint"), amax = max |x| in x's dtype (NaN if any element is); x FLOAT / FLOAT16 / BF16,
//                1-8 dims (grouped: 2-8), any strides; y x's shape, any strides. QuantMax: scale FLOAT [1], amax [1].
//                GroupedQuantMax: groupList INT64 [G] (1 <= G <= 384) of cumulative dim-0 ends read at launch
//                (non-decreasing, >= 0, the last = x.shape[0]: our reading of "greater than 0 and increasing"; else the
//                launch fails with 161002 before writing); slice i of dim 0 takes group g with ends[g-1] <= i < ends[g],
//                scale[g] (FLOAT [G]) and amax[g] ([G]; an empty group: 0). dstType 34 (HIFLOAT8): 161002.
// Errors: 161001 for a null required argument, else 161002 naming the argument.
#pragma once

#include <cstdint>

#include "core/dtype.h"
#include "core/op_builder.h"
#include "core/op_checks.h"

namespace opsnn::ops {

enum class QuantKind : uint8_t {
  kAscendQuant,
  kAntiQuant,
  kQuantize,
  kDynamic,
  kFakeTensor,
  kFakeChannel,
  kDequantBias,
  kGroupQuant,
  kQuantMax,
  kGeluQuant,
  kSwiGluQuant,
  kDequantSwiGluQuant,
  kBlockQuant,
  kGroupedBlockQuant,
  kFlatQuant
};

struct QuantRule {
  QuantKind kind;
  core::DtypeMask dtypes;  // x's
};

struct QuantCall {
  core::NamedTensor x, scale, offset, smooth, group, act_scale, bias, y, scale_out, offset_out, mask, amax, p1, p2;
  bool sqrt_mode = false, symmetric = true, activate_left = false;
  const char *round_mode = nullptr, *quant_mode = nullptr, *approximate = nullptr;
  int64_t dst_type = 0, axis = -1, quant_min = 0, quant_max = 0, group_list_type = 0, activate_dim = -1,
          swiglu_mode = 0;
  double clamp_limit = 0.0, glu_alpha = 1.0, glu_bias = 0.0;
  aclDataType dst_dtype = ACL_DT_UNDEFINED;
  double dst_type_max = 0.0, enabled = 1.0;
  double min_scale = 0.0;
  int64_t row_block = 1, col_block = 1;
  double situ_beta = 4.0, situ_linear_beta = 25.0;  // DequantSituQuant
  double clip_ratio = 1.0;                          // FlatQuant
  // Which attributes the prototype has (the generated entry sets them).
  struct {
    bool sqrt_mode = false, round_mode = false, dst_type = false, dst_dtype = false, axis = false, symmetric = false,
         quant_mode = false, dst_type_max = false, approximate = false, group_list_type = false,
         activate_left = false, activate_dim = false, swiglu_mode = false, clamp_limit = false, glu_alpha = false,
         glu_bias = false, enabled = false, quant_min = false, quant_max = false, min_scale = false,
         row_block = false, col_block = false, situ_beta = false, situ_linear_beta = false,
         clip_ratio = false;
  } given;
};

void quant_phase1(core::OpBuilder &b, const QuantRule &rule, const QuantCall &c);

}  // namespace opsnn::ops
