// libFuzzer target: random descriptors, scalars and attributes for a spread of ops, both phases.
//
// Property checked on every input (abort = a finding):
//   - no crash, no ASan / UBSan report (the build: OPSNN_FUZZ=ON, tools/run_tests.sh stage 2);
//   - no access outside the larger of a tensor's described storage and its view's extent: every
//     host buffer is malloc'ed with exactly that many bytes, so ASan sees one byte more;
//   - the workspace is exactly the size phase 1 asked for (malloc'ed, so ASan sees past it);
//   - every status is in the documented set (0, 161001, 161002, 361001, 561xxx) and every failing
//     call (aclCreateTensor / aclCreateScalar returning null included) leaves a non-empty
//     aclGetRecentErrMsg();
//   - no hang: libFuzzer's -timeout. The fuzzer bounds the work it asks for (see kMaxElems):
//     phase 1 always runs; phase 2 runs only when phase 1 succeeded AND the descriptors describe
//     little work (element counts, and for the matmul family element counts times the largest
//     dim) and small buffers. A slow input is therefore the library's doing, not the fuzzer's.
//
// Input format (tests/fuzz/make_corpus.py writes seeds in it). Bytes are read front to back; a
// missing byte reads as 0, and 0 always means the common case (so short inputs are valid):
//   op        u8   index into kOps (mod the count)
//   mode      u8   bit0: make the executor repeatable and launch twice; bit1: first launch with a
//                  workspace one byte short (must fail cleanly); bit2: buffers from aclrtMalloc
//                  (device memory, exact size) instead of malloc; bit3: first launch through
//                  another op's phase 2 (must fail cleanly); bit4: INT32 / INT64 buffers hold 0, 1, 2
//                  (index ops' success path)
//   fill      u8   buffer contents: byte i of every buffer is (i * (2 * fill + 1) + fill) mod 256
//   pool      4 x u8   dim values (mod 20) that dims refer to, so shapes can agree across tensors
//   then, per argument of the op in prototype order:
//   tensor    flags u8: bits0-1 strides (0 none = contiguous, 1 explicit contiguous, 2 last two
//                  dims transposed, 3 one stride per dim from the stream), bits2-3 storage dims
//                  (0 none, 1 [view extent], 2 ndim + dims from the stream, 3 [view extent +- k]),
//                  bit4 offset from the stream, bit5 format from the stream (else ND), bits6-7:
//                  1 = share the buffer of an earlier tensor (index from the stream), 2 = data
//                  pointer null, 3 = null tensor
//              dtype u8 (0 = the role's usual dtype, else kDtypes[(b-1) % n]: every enum value and
//                  invalid ones), ndim u8 (0 = the role's usual ndim, else (b-1) % 10: 0..9),
//              dims u8 each (b < 0xE0: pool[b % 4], else kSpecial: 0, 1, 2^31, 2^32, 2^62, ...),
//              then what the flags ask for (strides, storage dims, offset, format, alias index).
//   scalar    dtype u8 (0xFF = null, 0 = the role's dtype, else kDtypes), mode u8 (value: small
//                  int from the next byte, NaN, +-inf, special doubles, 8 raw bytes, special int64s)
//   int attr  u8 (b < 0xE0: b % 16 as 0..11, -4..-1, else kSpecial), or 8 raw bytes where the op says so
//   int array count u8 (0 = the role's usual array, 0xFF = null, else (b-1) % 9 elements: 0 = empty
//                  .. 8), then per element u8: as an int attr (so duplicates, negative and huge
//                  values), except 0xD0..0xDF = pool[b % 4] (to agree with a shape)
//   bool attrs u8  one byte per op, read where its first bool argument is; bit i = the i-th bool
//                  argument in prototype order
//   double attr u8 (0 = the role's usual value, else kDoubles[b % 16], NaN, +-inf, 0, -1)
//   tensor list count u8 (0 = the role's usual 2 entries, 0xFF = null list, else (b-1) % 5: 0..4
//                  entries), then one tensor per entry as above (a null entry makes
//                  aclCreateTensorList fail, which must say why; the op then gets a null list)
//   scalar list count u8 as a tensor list's, then one scalar per entry
//   string    u8: kStrings[b % n] (the documented values, other spellings, empty, null)
#include <acl/acl.h>
#include <aclnnop/aclnn_adaptive_avg_pool2d.h>
#include <aclnnop/aclnn_add.h>
#include <aclnnop/aclnn_addmm.h>
#include <aclnnop/aclnn_advance_step.h>
#include <aclnnop/aclnn_advance_step_v2.h>
#include <aclnnop/aclnn_anti_mx_quant.h>
#include <aclnnop/aclnn_apply_adam_w_quant.h>
#include <aclnnop/aclnn_apply_fused_ema_adam.h>
#include <aclnnop/aclnn_argmax.h>
#include <aclnnop/aclnn_ascend_quant.h>
#include <aclnnop/aclnn_avgpool2d.h>
#include <aclnnop/aclnn_batch_matmul.h>
#include <aclnnop/aclnn_cast.h>
#include <aclnnop/aclnn_chamfer_distance_backward.h>
#include <aclnnop/aclnn_clamp.h>
#include <aclnnop/aclnn_constant_pad_nd.h>
#include <aclnnop/aclnn_convolution.h>
#include <aclnnop/aclnn_copy.h>
#include <aclnnop/aclnn_cross_entropy_sum_exp_and_index_logit.h>
#include <aclnnop/aclnn_cumsum.h>
#include <aclnnop/aclnn_div.h>
#include <aclnnop/aclnn_dynamic_block_quant.h>
#include <aclnnop/aclnn_dynamic_mx_quant.h>
#include <aclnnop/aclnn_dynamic_quant_v2.h>
#include <aclnnop/aclnn_einsum.h>
#include <aclnnop/aclnn_embedding.h>
#include <aclnnop/aclnn_eq_tensor.h>
#include <aclnnop/aclnn_exp.h>
#include <aclnnop/aclnn_expand_into_jagged_permute.h>
#include <aclnnop/aclnn_fake_quant_per_channel_affine_cachemask.h>
#include <aclnnop/aclnn_fill_scalar.h>
#include <aclnnop/aclnn_foreach_add_list.h>
#include <aclnnop/aclnn_foreach_add_scalar_list.h>
#include <aclnnop/aclnn_foreach_addcmul_scalar_list.h>
#include <aclnnop/aclnn_foreach_exp.h>
#include <aclnnop/aclnn_foreach_lerp_list.h>
#include <aclnnop/aclnn_foreach_mul_scalar.h>
#include <aclnnop/aclnn_foreach_non_finite_check_and_unscale.h>
#include <aclnnop/aclnn_foreach_norm.h>
#include <aclnnop/aclnn_foreach_pow_scalar_and_tensor.h>
#include <aclnnop/aclnn_foreach_round_off_number.h>
#include <aclnnop/aclnn_fused_adamw.h>
#include <aclnnop/aclnn_fused_cross_entropy_loss_with_max_sum.h>
#include <aclnnop/aclnn_fused_linear_cross_entropy_loss_grad.h>
#include <aclnnop/aclnn_fused_linear_online_max_sum.h>
#include <aclnnop/aclnn_fused_matmul.h>
#include <aclnnop/aclnn_fused_sgd.h>
#include <aclnnop/aclnn_gather.h>
#include <aclnnop/aclnn_gelu_backward.h>
#include <aclnnop/aclnn_gelu_quant.h>
#include <aclnnop/aclnn_gelu_v2.h>
#include <aclnnop/aclnn_glu.h>
#include <aclnnop/aclnn_group_norm.h>
#include <aclnnop/aclnn_group_norm_silu_quant.h>
#include <aclnnop/aclnn_group_quant.h>
#include <aclnnop/aclnn_grouped_dynamic_block_quant.h>
#include <aclnnop/aclnn_grouped_quant_max.h>
#include <aclnnop/aclnn_im2col.h>
#include <aclnnop/aclnn_index_select.h>
#include <aclnnop/aclnn_inverse.h>
#include <aclnnop/aclnn_layer_norm.h>
#include <aclnnop/aclnn_layer_norm_quant.h>
#include <aclnnop/aclnn_leaky_relu.h>
#include <aclnnop/aclnn_masked_fill_scalar.h>
#include <aclnnop/aclnn_matmul.h>
#include <aclnnop/aclnn_matmul_compress.h>
#include <aclnnop/aclnn_matmul_emu_split_weight.h>
#include <aclnnop/aclnn_max_dim.h>
#include <aclnnop/aclnn_max_pool2d_with_indices.h>
#include <aclnnop/aclnn_maximum.h>
#include <aclnnop/aclnn_median.h>
#include <aclnnop/aclnn_mm.h>
#include <aclnnop/aclnn_modulate.h>
#include <aclnnop/aclnn_mse_loss.h>
#include <aclnnop/aclnn_mul.h>
#include <aclnnop/aclnn_multi_scale_deformable_attention_grad.h>
#include <aclnnop/aclnn_multi_scale_deformable_attn_function.h>
#include <aclnnop/aclnn_nll_loss.h>
#include <aclnnop/aclnn_norm.h>
#include <aclnnop/aclnn_permute.h>
#include <aclnnop/aclnn_pow.h>
#include <aclnnop/aclnn_prelu.h>
#include <aclnnop/aclnn_quant_convolution.h>
#include <aclnnop/aclnn_convert_weight_to_int4_pack.h>
#include <aclnnop/aclnn_quant_batch_matmul_inplace_add.h>
#include <aclnnop/aclnn_quant_matmul_dequant.h>
#include <aclnnop/aclnn_quant_matmul_reduce_sum.h>
#include <aclnnop/aclnn_quant_scatter.h>
#include <aclnnop/aclnn_rms_norm_dynamic_mx_quant.h>
#include <aclnnop/aclnn_rotate_quant.h>
#include <aclnnop/aclnn_situ_mx_quant.h>
#include <aclnnop/aclnn_sparse4to2quant_matmul_weight_nz.h>
#include <aclnnop/aclnn_swiglu_group_quant.h>
#include <aclnnop/aclnn_swiglu_mx_quant.h>
#include <aclnnop/aclnn_top_k_top_p_sample.h>
#include <aclnnop/aclnn_weight_quant_batch_matmul.h>
#include <aclnnop/aclnn_quant_matmul_v4.h>
#include <aclnnop/aclnn_quant_matmul_v5.h>

#include <aclnnop/aclnn_transpose_quant_batch_mat_mul.h>
#include <aclnnop/aclnn_quant_matmul_weight_nz.h>
#include <aclnnop/aclnn_quantize.h>
#include <aclnnop/aclnn_reduce_sum.h>
#include <aclnnop/aclnn_remainder.h>
#include <aclnnop/aclnn_repeat.h>
#include <aclnnop/aclnn_rms_norm.h>
#include <aclnnop/aclnn_rms_norm_quant.h>

#include <aclnnop/aclnn_rms_norm_grad_quant.h>
#include <aclnnop/aclnn_rotary_position_embedding.h>
#include <aclnnop/aclnn_round.h>
#include <aclnnop/aclnn_s_where.h>
#include <aclnnop/aclnn_scatter_add.h>
#include <aclnnop/aclnn_softmax.h>
#include <aclnnop/aclnn_softmax_cross_entropy_with_logits.h>
#include <aclnnop/aclnn_softplus.h>
#include <aclnnop/aclnn_sort.h>
#include <aclnnop/aclnn_sum.h>
#include <aclnnop/aclnn_dual_level_quant_matmul_nz.h>
#include <aclnnop/aclnn_quant_matmul_activation_quant_weight_nz.h>
#include <aclnnop/aclnn_swi_glu.h>
#include <aclnnop/aclnn_swi_glu_quant_v2.h>

#include <aclnnop/aclnn_swiglu_group.h>
#include <aclnnop/aclnn_swiglu_group_grad.h>
#include <aclnnop/aclnn_thnn_fused_lstm_cell.h>
#include <aclnnop/aclnn_topk.h>
#include <aclnnop/aclnn_trans_matmul_weight.h>
#include <aclnnop/aclnn_trans_quant_param_v2.h>
#include <aclnnop/aclnn_transpose_batch_mat_mul.h>
#include <aclnnop/aclnn_upsample_nearest_2d.h>
#include <aclnnop/aclnn_var.h>
#include <aclnnop/aclnn_weight_quant_batch_matmul_v2.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <vector>

namespace {

// ---- bounds on the work one input may ask of phase 2 (see the header comment).
constexpr int64_t kMaxElems = int64_t{1} << 18;       // sum of the numel of all tensors
constexpr int64_t kMaxMatmulWork = int64_t{1} << 22;  // matmul family: that sum x the largest dim
constexpr int64_t kMaxBufferBytes = int64_t{1} << 20; // one tensor's buffer
constexpr uint64_t kMaxWorkspace = uint64_t{1} << 26;

aclrtStream g_stream = nullptr;

[[noreturn]] void fail(const char *what, const char *op, long long code) {
  std::fprintf(stderr, "fuzz_ops: PROPERTY VIOLATED: %s (op %s, status %lld)\n", what, op, code);
  std::abort();
}

bool documented_status(long long s) {
  return s == 0 || s == ACLNN_ERR_PARAM_NULLPTR || s == ACLNN_ERR_PARAM_INVALID || s == ACLNN_ERR_RUNTIME_ERROR ||
         (s >= 561000 && s <= 561999);
}

// A failing call must say why.
void check_failure_message(const char *op, long long status) {
  const char *m = aclGetRecentErrMsg();
  if (m == nullptr || m[0] == '\0') fail("failing call left no aclGetRecentErrMsg()", op, status);
}

void check_status(const char *op, long long status) {
  if (!documented_status(status)) fail("status outside the documented set", op, status);
  if (status != 0) check_failure_message(op, status);
}

const aclDataType kDtypes[] = {
    ACL_FLOAT,        ACL_FLOAT16,       ACL_BF16,          ACL_DOUBLE,         ACL_INT8,
    ACL_UINT8,        ACL_INT16,         ACL_UINT16,        ACL_INT32,          ACL_UINT32,
    ACL_INT64,        ACL_UINT64,        ACL_BOOL,          ACL_INT4,           ACL_STRING,
    ACL_COMPLEX64,    ACL_COMPLEX128,    ACL_UINT1,         ACL_COMPLEX32,      ACL_HIFLOAT8,
    ACL_FLOAT8_E5M2,  ACL_FLOAT8_E4M3FN, ACL_FLOAT8_E8M0,   ACL_FLOAT6_E3M2,    ACL_FLOAT6_E2M3,
    ACL_FLOAT4_E2M1,  ACL_FLOAT4_E1M2,   ACL_DT_UNDEFINED,  aclDataType(5),     aclDataType(14),
    aclDataType(15),  aclDataType(18),   aclDataType(26),   aclDataType(28),    aclDataType(31),
    aclDataType(42),  aclDataType(255),  aclDataType(INT32_MIN), aclDataType(INT32_MAX)};
constexpr int kNumDtypes = sizeof(kDtypes) / sizeof(kDtypes[0]);

const aclFormat kFormats[] = {ACL_FORMAT_ND,         ACL_FORMAT_NCHW,       ACL_FORMAT_NHWC,  ACL_FORMAT_NC1HWC0,
                              ACL_FORMAT_FRACTAL_Z,  ACL_FORMAT_HWCN,       ACL_FORMAT_NDHWC, ACL_FORMAT_FRACTAL_NZ,
                              ACL_FORMAT_NCDHW,      ACL_FORMAT_NC,         ACL_FORMAT_NCL,   ACL_FORMAT_UNDEFINED,
                              aclFormat(5),          aclFormat(100),        aclFormat(-7)};
constexpr int kNumFormats = sizeof(kFormats) / sizeof(kFormats[0]);

// 32 special int64 values for dims, strides, offsets and attributes.
const int64_t kSpecial[32] = {0,
                              1,
                              2,
                              3,
                              15,
                              16,
                              17,
                              31,
                              32,
                              33,
                              64,
                              255,
                              256,
                              4095,
                              65536,
                              int64_t{1} << 20,
                              (int64_t{1} << 31) - 1,
                              int64_t{1} << 31,
                              int64_t{1} << 32,
                              (int64_t{1} << 32) + 1,
                              int64_t{1} << 40,
                              int64_t{1} << 61,
                              (int64_t{1} << 62) - 1,
                              int64_t{1} << 62,
                              std::numeric_limits<int64_t>::max(),
                              std::numeric_limits<int64_t>::max() / 3,
                              -1,
                              -2,
                              std::numeric_limits<int32_t>::min(),
                              std::numeric_limits<int64_t>::min(),
                              -(int64_t{1} << 32),
                              9};

// Special doubles for scalars and double attributes.
const double kDoubles[16] = {1e300, -1e300, 9223372036854775808.0, -9223372036854775808.0,
                             18446744073709551616.0, 65504.0, 65520.0, 3.4028234663852886e38,
                             3.5e38, 1.401298464324817e-45, 2147483648.0, -2147483649.0,
                             0.5, -0.0, 255.5, 1e-310};

// Bits per element of the dtypes whose size is unambiguous; 0 = unknown here (no launch).
int dtype_bits(aclDataType dt) {
  switch (dt) {
    case ACL_FLOAT: case ACL_INT32: case ACL_UINT32: case ACL_COMPLEX32: return 32;
    case ACL_FLOAT16: case ACL_BF16: case ACL_INT16: case ACL_UINT16: return 16;
    case ACL_INT8: case ACL_UINT8: case ACL_BOOL: case ACL_HIFLOAT8: case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN: case ACL_FLOAT8_E8M0: return 8;
    case ACL_INT64: case ACL_UINT64: case ACL_DOUBLE: case ACL_COMPLEX64: return 64;
    case ACL_COMPLEX128: return 128;
    case ACL_INT4: case ACL_FLOAT4_E2M1: case ACL_FLOAT4_E1M2: return 4;
    default: return 0;
  }
}

struct Reader {
  const uint8_t *p;
  size_t n, i = 0;
  uint8_t u8() { return i < n ? p[i++] : 0; }
  uint64_t u64() {
    uint64_t v = 0;
    for (int k = 0; k < 8; ++k) v |= uint64_t(u8()) << (8 * k);
    return v;
  }
};

struct Desc {
  bool null_tensor = false, null_data = false;
  bool in_list = false;  // a member of a tensor list that was created: the list owns (destroys) it
  aclDataType dt = ACL_FLOAT;
  int nd = 0;
  int64_t dims[9] = {}, strides[9] = {};
  bool has_strides = false;
  int64_t offset = 0;
  aclFormat fmt = ACL_FORMAT_ND;
  int snd = 0;
  int64_t sdims[9] = {};
  bool has_storage = false;
  int alias = -1;       // index of the earlier tensor whose buffer this one shares
  __int128 need = 0;    // bytes: max(described storage, view extent); -1 = not computable
  int buffer = -1;      // index into Ctx::buffers
  aclTensor *t = nullptr;
};

struct Scal {
  bool null = false;
  bool in_list = false;  // a member of a scalar list that was created: the list owns it
  aclDataType dt = ACL_FLOAT;
  alignas(16) unsigned char value[16] = {};
  aclScalar *s = nullptr;
};

struct IntArr {
  bool null = false;
  std::vector<int64_t> v;
  aclIntArray *a = nullptr;
};

// A tensor list / scalar list argument: its members are entries of Ctx::ts / Ctx::ss.
struct List {
  bool null = false;
  std::vector<int> members;
  void *l = nullptr;  // aclTensorList * or aclScalarList *
};

struct Buffer {
  __int128 need = 0;
  void *host = nullptr;  // malloc'ed (or aclrtMalloc'ed in device mode), exactly `bytes`
  size_t bytes = 0;
  bool ok = true;        // allocated with the size every member needs
  aclDataType dt = ACL_DT_UNDEFINED;  // the dtype of the tensor that made it (small-index fill)
};

uint16_t float_to_half_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return uint16_t(sign | 0x7e00u);
  if (ax >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // >= 65520 (and inf)
  if (ax < 0x38800000u) {                                  // subnormal or zero in half
    float a;
    std::memcpy(&a, &ax, 4);
    return uint16_t(sign | uint32_t(a * 16777216.0f));     // a / 2^-24, truncated
  }
  return uint16_t(sign | ((ax - 0x38000000u) >> 13));
}

int64_t double_to_i64_saturated(double d) {
  if (std::isnan(d)) return 0;
  if (d >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (d <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return int64_t(d);
}

struct Ctx {
  Reader r;
  int64_t pool[4] = {};
  bool device_mem = false;
  bool small_ints = false;
  uint8_t fill = 0;

  // INT32 / INT64 buffers as elements 0, 1, 2 (from the fill byte): indices that are in range for
  // most shapes, so index ops reach their success path (the byte pattern makes them all huge).
  void fill_small_ints(unsigned char *dst, size_t bytes, aclDataType dt) const {
    const size_t esize = dt == ACL_INT64 ? 8 : 4;
    for (size_t i = 0; i + esize <= bytes; i += esize) {
      const int64_t v = int64_t((i / esize) * (2u * fill + 1u) + fill) % 3;
      if (esize == 8) std::memcpy(dst + i, &v, 8);
      else {
        const int32_t v32 = int32_t(v);
        std::memcpy(dst + i, &v32, 4);
      }
    }
  }
  std::vector<Desc> ts;
  std::vector<Scal> ss;
  std::vector<IntArr> as;
  std::vector<List> tls, sls;
  std::vector<Buffer> bufs;
  bool launchable = true;
  bool matmul = false;
  const char *op = "?";

  int64_t dim() {
    const uint8_t b = r.u8();
    return b < 0xE0 ? pool[b & 3] : kSpecial[b - 0xE0];
  }
  static int64_t attr(uint8_t b) {
    const int v = b % 16;
    return b < 0xE0 ? (v < 12 ? v : v - 16) : kSpecial[b - 0xE0];
  }
  int64_t i64() { return attr(r.u8()); }
  // A const char * attribute (roundMode, quantMode): documented values, near misses, null.
  const char *str() {
    static const char *const kStrings[] = {"round", "floor", "ceil", "trunc", "rint", "ROUND", "",
                                           nullptr, "pertoken", "pertensor", "perchannel", "round\x01",
                                           "none", "tanh", "dynamic", "static"};
    return kStrings[r.u8() % (sizeof(kStrings) / sizeof(kStrings[0]))];
  }
  // One byte of bool arguments: bit i = the i-th bool of the op.
  uint8_t bools() { return r.u8(); }
  double f64(double def) {
    const uint8_t b = r.u8();
    if (b == 0) return def;
    switch ((b - 1) % 21) {
      case 16: return std::numeric_limits<double>::quiet_NaN();
      case 17: return std::numeric_limits<double>::infinity();
      case 18: return -std::numeric_limits<double>::infinity();
      case 19: return 0.0;
      case 20: return -1.0;
      default: return kDoubles[(b - 1) % 21];
    }
  }
  // An aclIntArray argument (dims, normalizedShape): the role's usual values, null, or 0..8
  // elements, each an int attribute or a pool dim.
  int intarray(std::initializer_list<int64_t> def) {
    IntArr a;
    const uint8_t b = r.u8();
    if (b == 0) {
      a.v.assign(def);
    } else if (b == 0xFF) {
      a.null = true;
    } else {
      const int n = (b - 1) % 9;
      for (int i = 0; i < n; ++i) {
        const uint8_t e = r.u8();
        a.v.push_back(e >= 0xD0 && e < 0xE0 ? pool[e & 3] : attr(e));
      }
    }
    as.push_back(a);
    return int(as.size()) - 1;
  }
  aclDataType dtype(aclDataType def) {
    const uint8_t b = r.u8();
    return b == 0 ? def : kDtypes[(b - 1) % kNumDtypes];
  }

  int tensor(aclDataType def_dt, int def_nd) {
    Desc d;
    const uint8_t flags = r.u8();
    d.dt = dtype(def_dt);
    const uint8_t nb = r.u8();
    d.nd = nb == 0 ? def_nd : (nb - 1) % 10;
    for (int i = 0; i < d.nd; ++i) d.dims[i] = dim();
    // Contiguous strides, saturated (only to describe; huge dims are rejected by the library).
    int64_t contig[9];
    {
      __int128 s = 1;
      for (int i = d.nd - 1; i >= 0; --i) {
        contig[i] = s > (__int128(1) << 62) ? (int64_t(1) << 62) : int64_t(s);
        s *= d.dims[i] > 0 ? d.dims[i] : 1;
        if (s > (__int128(1) << 63)) s = __int128(1) << 63;
      }
    }
    switch (flags & 3) {
      case 0: break;
      case 1:
        d.has_strides = true;
        for (int i = 0; i < d.nd; ++i) d.strides[i] = contig[i];
        break;
      case 2:
        d.has_strides = true;
        for (int i = 0; i < d.nd; ++i) d.strides[i] = contig[i];
        if (d.nd >= 2) {  // a transposed matrix: [.., a, b] with strides [.., 1, a]
          d.strides[d.nd - 1] = d.dims[d.nd - 2] > 0 ? d.dims[d.nd - 2] : 1;
          d.strides[d.nd - 2] = 1;
          __int128 s = __int128(d.dims[d.nd - 1] > 0 ? d.dims[d.nd - 1] : 1) * d.strides[d.nd - 1];
          if (s > (__int128(1) << 63)) s = __int128(1) << 63;
          for (int i = d.nd - 3; i >= 0; --i) {
            d.strides[i] = s > (__int128(1) << 62) ? (int64_t(1) << 62) : int64_t(s);
            s *= d.dims[i] > 0 ? d.dims[i] : 1;
            if (s > (__int128(1) << 63)) s = __int128(1) << 63;
          }
        }
        break;
      case 3:
        d.has_strides = true;
        for (int i = 0; i < d.nd; ++i) {
          const uint8_t b = r.u8();
          if (b < 0x80) {  // 0 (broadcast), 1x, 2x, 3x the contiguous stride
            const __int128 v = __int128(contig[i]) * (b % 4);
            d.strides[i] = v > std::numeric_limits<int64_t>::max() ? std::numeric_limits<int64_t>::max() : int64_t(v);
          }
          else if (b < 0xE0) d.strides[i] = int64_t(b % 10);
          else d.strides[i] = kSpecial[b - 0xE0];
        }
        break;
    }
    const int storage_mode = (flags >> 2) & 3;
    if (storage_mode == 2) {
      d.has_storage = true;
      d.snd = r.u8() % 10;
      for (int i = 0; i < d.snd; ++i) d.sdims[i] = dim();
    }
    if (flags & 0x10) {
      const uint8_t b = r.u8();
      d.offset = b < 0xE0 ? int64_t(b % 16) : kSpecial[b - 0xE0];
    }
    if (flags & 0x20) d.fmt = kFormats[r.u8() % kNumFormats];
    switch (flags >> 6) {
      case 1:
        if (!ts.empty()) d.alias = int(r.u8() % ts.size());
        break;
      case 2: d.null_data = true; break;
      case 3: d.null_tensor = true; break;
    }
    // Bytes the view reaches, and the described storage.
    const __int128 kHuge = __int128(1) << 63;  // saturation: products of two stay in __int128
    const int bits = dtype_bits(d.dt);
    __int128 view_elems = 0;
    bool bad = d.offset < 0;
    bool empty = false;
    for (int i = 0; i < d.nd; ++i) {
      if (d.dims[i] < 0) bad = true;
      if (d.dims[i] == 0) empty = true;
    }
    if (!bad && !empty) {
      __int128 last = d.offset;
      for (int i = 0; i < d.nd; ++i) {
        const int64_t s = d.has_strides ? d.strides[i] : contig[i];
        if (s < 0) {
          bad = true;
          break;
        }
        last += __int128(d.dims[i] - 1) * s;
        if (last > kHuge) last = kHuge;
      }
      view_elems = last + 1;
    }
    if (storage_mode == 1 || storage_mode == 3) {
      d.has_storage = true;
      d.snd = 1;
      __int128 e = view_elems;
      if (storage_mode == 3) e += int64_t(r.u8() % 8) - 4;
      if (e < 0) e = 0;
      d.sdims[0] = e > (__int128(1) << 62) ? (int64_t(1) << 62) : int64_t(e);
    }
    __int128 storage_elems = 0;
    if (d.has_storage) {
      storage_elems = 1;
      for (int i = 0; i < d.snd; ++i) {
        if (d.sdims[i] < 0) bad = true;
        storage_elems *= d.sdims[i] < 0 ? 0 : d.sdims[i];
        if (storage_elems > kHuge) storage_elems = kHuge;
      }
    }
    const __int128 elems = view_elems > storage_elems ? view_elems : storage_elems;
    if (bad || bits == 0) d.need = -1;
    else d.need = (elems * bits + 7) / 8;
    ts.push_back(d);
    return int(ts.size()) - 1;
  }

  // The entry count of a tensor / scalar list (see the header comment); -1 = a null list.
  int list_count() {
    const uint8_t b = r.u8();
    return b == 0 ? 2 : b == 0xFF ? -1 : (b - 1) % 5;
  }
  int tensor_list(aclDataType def_dt, int def_nd) {
    List l;
    const int n = list_count();
    l.null = n < 0;
    for (int i = 0; i < n; ++i) l.members.push_back(tensor(def_dt, def_nd));
    tls.push_back(l);
    return int(tls.size()) - 1;
  }
  int scalar_list(aclDataType def_dt) {
    List l;
    const int n = list_count();
    l.null = n < 0;
    for (int i = 0; i < n; ++i) l.members.push_back(scalar(def_dt));
    sls.push_back(l);
    return int(sls.size()) - 1;
  }

  int scalar(aclDataType def_dt) {
    Scal s;
    const uint8_t b = r.u8();
    if (b == 0xFF) s.null = true;
    s.dt = b == 0 ? def_dt : kDtypes[(b - 1) % kNumDtypes];
    double d = 0;
    uint64_t raw = 0;
    bool use_raw = false;
    switch (r.u8() % 8) {
      case 0: d = double(int8_t(r.u8())); break;
      case 1: d = std::numeric_limits<double>::quiet_NaN(); break;
      case 2: d = std::numeric_limits<double>::infinity(); break;
      case 3: d = -std::numeric_limits<double>::infinity(); break;
      case 4: d = kDoubles[r.u8() % 16]; break;
      case 5: raw = r.u64(); use_raw = true; break;
      case 6: {
        const int64_t v = kSpecial[r.u8() % 32];
        d = double(v);
        raw = uint64_t(v);
        use_raw = true;
        // integer dtypes take the exact int64 bits; floating ones the double
        if (dtype_bits(s.dt) == 0 || s.dt == ACL_FLOAT || s.dt == ACL_DOUBLE || s.dt == ACL_FLOAT16 ||
            s.dt == ACL_BF16 || s.dt == ACL_COMPLEX64 || s.dt == ACL_COMPLEX128)
          use_raw = false;
        break;
      }
      default: d = double(r.u8()) / 16.0; break;
    }
    if (use_raw) {
      std::memcpy(s.value, &raw, 8);
    } else {
      const float f = std::isnan(d) ? std::numeric_limits<float>::quiet_NaN()
                      : d > 3.4028234663852886e38 ? std::numeric_limits<float>::infinity()
                      : d < -3.4028234663852886e38 ? -std::numeric_limits<float>::infinity()
                                                   : float(d);
      const int64_t i = double_to_i64_saturated(d);
      switch (s.dt) {
        case ACL_FLOAT: std::memcpy(s.value, &f, 4); break;
        case ACL_DOUBLE: std::memcpy(s.value, &d, 8); break;
        case ACL_COMPLEX64: std::memcpy(s.value, &f, 4); break;
        case ACL_COMPLEX128: std::memcpy(s.value, &d, 8); break;
        case ACL_FLOAT16: {
          const uint16_t h = float_to_half_bits(f);
          std::memcpy(s.value, &h, 2);
          break;
        }
        case ACL_BF16: {
          uint32_t x;
          std::memcpy(&x, &f, 4);
          const uint16_t h = uint16_t(x >> 16);
          std::memcpy(s.value, &h, 2);
          break;
        }
        case ACL_BOOL: s.value[0] = i != 0; break;
        default: std::memcpy(s.value, &i, 8); break;  // little-endian: narrower ints take the low bytes
      }
    }
    ss.push_back(s);
    return int(ss.size()) - 1;
  }

  // Allocates the buffers and creates the ACL objects; decides whether phase 2 may run.
  void materialize() {
    for (Desc &d : ts) {
      if (d.null_tensor || d.null_data) continue;
      if (d.alias >= 0 && ts[d.alias].buffer >= 0) {
        d.buffer = ts[d.alias].buffer;
        Buffer &b = bufs[d.buffer];
        if (d.need < 0 || b.need < 0) b.need = -1;
        else if (d.need > b.need) b.need = d.need;
      } else {
        bufs.push_back(Buffer{d.need});
        bufs.back().dt = d.dt;
        d.buffer = int(bufs.size()) - 1;
      }
    }
    for (Buffer &b : bufs) {
      b.ok = b.need >= 0 && b.need <= kMaxBufferBytes;
      b.bytes = b.ok ? size_t(b.need) : 1;  // a 1-byte stand-in: phase 1 never reads data
      if (device_mem && b.ok && b.bytes > 0) {
        if (aclrtMalloc(&b.host, b.bytes, ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS) b.host = nullptr;
      } else {
        b.host = std::malloc(b.bytes > 0 ? b.bytes : 1);
      }
      if (!b.host) {
        b.ok = false;
        b.host = std::malloc(1);
        b.bytes = 1;
        b.need = -1;
      }
      // Contents from the fill byte (all byte patterns: NaN, inf, denormals, BOOL bytes > 1, ...).
      if (b.ok && b.bytes > 0) {
        unsigned char pattern[256];
        for (size_t i = 0; i < 256; ++i) pattern[i] = (unsigned char)(i * (2u * fill + 1u) + fill);
        std::vector<unsigned char> staging(device_mem ? b.bytes : 0);
        unsigned char *dst = device_mem ? staging.data() : static_cast<unsigned char *>(b.host);
        for (size_t i = 0; i < b.bytes; i += 256) std::memcpy(dst + i, pattern, b.bytes - i < 256 ? b.bytes - i : 256);
        if (small_ints && (b.dt == ACL_INT64 || b.dt == ACL_INT32)) fill_small_ints(dst, b.bytes, b.dt);
        if (device_mem) aclrtMemcpy(b.host, b.bytes, dst, b.bytes, ACL_MEMCPY_HOST_TO_DEVICE);
      }
    }
    __int128 elems = 0;
    int64_t maxdim = 0;
    for (Desc &d : ts) {
      if (d.null_tensor) continue;
      void *data = d.null_data ? nullptr : bufs[d.buffer].host;
      if (!d.null_data && !bufs[d.buffer].ok) launchable = false;
      if (std::getenv("FUZZ_OPS_VERBOSE")) {
        std::fprintf(stderr, "fuzz_ops: tensor dtype %d fmt %d dims [", int(d.dt), int(d.fmt));
        for (int i = 0; i < d.nd; ++i) std::fprintf(stderr, "%s%lld", i ? ", " : "", (long long)d.dims[i]);
        std::fprintf(stderr, "] strides ");
        if (d.has_strides)
          for (int i = 0; i < d.nd; ++i) std::fprintf(stderr, "%s%lld", i ? ", " : "[", (long long)d.strides[i]);
        std::fprintf(stderr, "%s offset %lld storage ", d.has_strides ? (d.nd ? "]" : "[]") : "-", (long long)d.offset);
        if (d.has_storage)
          for (int i = 0; i < d.snd; ++i) std::fprintf(stderr, "%s%lld", i ? ", " : "[", (long long)d.sdims[i]);
        std::fprintf(stderr, "%s data %p (buffer %d, %zu bytes)\n", d.has_storage ? (d.snd ? "]" : "[]") : "-", data,
                     d.buffer, d.buffer >= 0 ? bufs[d.buffer].bytes : size_t(0));
      }
      d.t = aclCreateTensor(d.dims, uint64_t(d.nd), d.dt, d.has_strides ? d.strides : nullptr, d.offset, d.fmt,
                            d.has_storage ? d.sdims : nullptr, uint64_t(d.snd), data);
      if (!d.t) {
        check_failure_message("aclCreateTensor", -1);
        continue;
      }
      __int128 n = 1;
      for (int i = 0; i < d.nd; ++i) {
        n *= d.dims[i];
        if (n > (__int128(1) << 62)) n = __int128(1) << 62;
        if (d.dims[i] > maxdim) maxdim = d.dims[i];
      }
      elems += n;
      // A null data pointer on a non-empty tensor is still launched: phase 2 must refuse it.
    }
    if (elems > kMaxElems) launchable = false;
    else if (matmul && elems * (__int128(maxdim) + 1) > kMaxMatmulWork) launchable = false;
    for (Scal &s : ss) {
      if (s.null) continue;
      s.s = aclCreateScalar(s.value, s.dt);
      if (!s.s) check_failure_message("aclCreateScalar", -1);
    }
    for (IntArr &a : as) {
      if (a.null) continue;
      a.a = aclCreateIntArray(a.v.data(), uint64_t(a.v.size()));
      if (!a.a) check_failure_message("aclCreateIntArray", -1);
    }
    // Lists last: a created list owns its members (destroy() then skips them).
    for (List &l : tls) {
      if (l.null) continue;
      std::vector<const aclTensor *> v;
      for (int m : l.members) v.push_back(ts[m].t);
      l.l = aclCreateTensorList(v.data(), uint64_t(v.size()));
      if (!l.l) check_failure_message("aclCreateTensorList", -1);
      else for (int m : l.members) ts[m].in_list = true;
    }
    for (List &l : sls) {
      if (l.null) continue;
      std::vector<const aclScalar *> v;
      for (int m : l.members) v.push_back(ss[m].s);
      l.l = aclCreateScalarList(v.data(), uint64_t(v.size()));
      if (!l.l) check_failure_message("aclCreateScalarList", -1);
      else for (int m : l.members) ss[m].in_list = true;
    }
  }

  aclTensor *T(int i) { return ts[i].t; }
  aclScalar *S(int i) { return ss[i].s; }
  aclIntArray *A(int i) { return as[i].a; }
  aclTensorList *TL(int i) { return static_cast<aclTensorList *>(tls[i].l); }
  aclScalarList *SL(int i) { return static_cast<aclScalarList *>(sls[i].l); }

  void destroy() {
    for (List &l : tls)
      if (l.l) check_status("aclDestroyTensorList", aclDestroyTensorList(static_cast<aclTensorList *>(l.l)));
    for (List &l : sls)
      if (l.l) check_status("aclDestroyScalarList", aclDestroyScalarList(static_cast<aclScalarList *>(l.l)));
    for (Desc &d : ts)
      if (d.t && !d.in_list) check_status("aclDestroyTensor", aclDestroyTensor(d.t));
    for (Scal &s : ss)
      if (s.s && !s.in_list) check_status("aclDestroyScalar", aclDestroyScalar(s.s));
    for (IntArr &a : as)
      if (a.a) check_status("aclDestroyIntArray", aclDestroyIntArray(a.a));
    for (Buffer &b : bufs) {
      if (device_mem && b.ok && b.bytes > 0) aclrtFree(b.host);
      else std::free(b.host);
    }
  }
};

using Phase2 = aclnnStatus (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);
using OpFn = aclnnStatus (*)(Ctx &, uint64_t *, aclOpExecutor **, Phase2 *);

#define P1(name, ...)           \
  (c.op = "aclnn" #name,        \
   *p2 = aclnn##name,           \
   aclnn##name##GetWorkspaceSize(__VA_ARGS__, ws, ex))

constexpr aclDataType F = ACL_FLOAT;
constexpr aclDataType I8 = ACL_INT8;

aclnnStatus op_exp(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2), o = c.tensor(F, 2);
  c.materialize();
  return P1(Exp, c.T(a), c.T(o));
}
aclnnStatus op_inplace_exp(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2);
  c.materialize();
  return P1(InplaceExp, c.T(a));
}
aclnnStatus op_gelu_v2(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2);
  int64_t approx = c.i64();
  int o = c.tensor(F, 2);
  c.materialize();
  return P1(GeluV2, c.T(a), approx, c.T(o));
}
aclnnStatus op_softplus(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2), beta = c.scalar(F), thr = c.scalar(F), o = c.tensor(F, 2);
  c.materialize();
  return P1(Softplus, c.T(a), c.S(beta), c.S(thr), c.T(o));
}
aclnnStatus op_add(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2), b = c.tensor(F, 2), alpha = c.scalar(F), o = c.tensor(F, 2);
  c.materialize();
  return P1(Add, c.T(a), c.T(b), c.S(alpha), c.T(o));
}
aclnnStatus op_inplace_add(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2), b = c.tensor(F, 2), alpha = c.scalar(F);
  c.materialize();
  return P1(InplaceAdd, c.T(a), c.T(b), c.S(alpha));
}
aclnnStatus op_mul(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2), b = c.tensor(F, 2), o = c.tensor(F, 2);
  c.materialize();
  return P1(Mul, c.T(a), c.T(b), c.T(o));
}
aclnnStatus op_divs(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2), s = c.scalar(F), o = c.tensor(F, 2);
  c.materialize();
  return P1(Divs, c.T(a), c.S(s), c.T(o));
}
aclnnStatus op_divmod(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(ACL_INT32, 2), b = c.tensor(ACL_INT32, 2);
  int mode = int(c.i64());
  int o = c.tensor(ACL_INT32, 2);
  c.materialize();
  return P1(DivMod, c.T(a), c.T(b), mode, c.T(o));
}
aclnnStatus op_eq(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2), b = c.tensor(F, 2), o = c.tensor(ACL_BOOL, 2);
  c.materialize();
  return P1(EqTensor, c.T(a), c.T(b), c.T(o));
}
aclnnStatus op_maximum(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2), b = c.tensor(F, 2), o = c.tensor(F, 2);
  c.materialize();
  return P1(Maximum, c.T(a), c.T(b), c.T(o));
}
aclnnStatus op_remainder(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(ACL_INT64, 2), b = c.tensor(ACL_INT64, 2), o = c.tensor(ACL_INT64, 2);
  c.materialize();
  return P1(RemainderTensorTensor, c.T(a), c.T(b), c.T(o));
}
aclnnStatus op_pow(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(ACL_INT32, 2), e = c.scalar(ACL_INT64), o = c.tensor(ACL_INT32, 2);
  c.materialize();
  return P1(PowTensorScalar, c.T(a), c.S(e), c.T(o));
}
aclnnStatus op_cast(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2);
  aclDataType to = c.dtype(ACL_INT8);
  int o = c.tensor(ACL_INT8, 2);
  c.materialize();
  return P1(Cast, c.T(a), to, c.T(o));
}
aclnnStatus op_copy(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2), b = c.tensor(ACL_FLOAT16, 2);
  c.materialize();
  return P1(InplaceCopy, c.T(a), c.T(b));
}
aclnnStatus op_fill(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(ACL_INT16, 2), v = c.scalar(F);
  c.materialize();
  return P1(InplaceFillScalar, c.T(a), c.S(v));
}
aclnnStatus op_clamp(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2), lo = c.scalar(F), hi = c.scalar(F), o = c.tensor(F, 2);
  c.materialize();
  return P1(Clamp, c.T(a), c.S(lo), c.S(hi), c.T(o));
}
aclnnStatus op_where(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int cond = c.tensor(ACL_BOOL, 2), a = c.tensor(F, 2), b = c.tensor(F, 2), o = c.tensor(F, 2);
  c.materialize();
  return P1(SWhere, c.T(cond), c.T(a), c.T(b), c.T(o));
}
aclnnStatus op_masked_fill(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2), m = c.tensor(ACL_BOOL, 2), v = c.scalar(F);
  c.materialize();
  return P1(InplaceMaskedFillScalar, c.T(a), c.T(m), c.S(v));
}
aclnnStatus op_round_decimals(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2);
  int64_t dec = c.i64();
  int o = c.tensor(F, 2);
  c.materialize();
  return P1(RoundDecimals, c.T(a), dec, c.T(o));
}
aclnnStatus op_leaky_relu(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(ACL_BF16, 2), s = c.scalar(F);
  c.materialize();
  return P1(InplaceLeakyRelu, c.T(a), c.S(s));
}
aclnnStatus op_gelu_backward(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int g = c.tensor(F, 2), a = c.tensor(F, 2), o = c.tensor(F, 2);
  c.materialize();
  return P1(GeluBackward, c.T(g), c.T(a), c.T(o));
}
aclnnStatus op_swiglu(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2);
  int64_t dim = c.i64();
  int o = c.tensor(F, 2);
  c.materialize();
  return P1(SwiGlu, c.T(a), dim, c.T(o));
}
aclnnStatus op_glu(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(ACL_FLOAT16, 3);
  int64_t dim = c.i64();
  int o = c.tensor(ACL_FLOAT16, 3);
  c.materialize();
  return P1(Glu, c.T(a), dim, c.T(o));
}
// ---- matmul family (work bounded by elements x the largest dim)
aclnnStatus op_mm(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  c.matmul = true;
  int a = c.tensor(F, 2), b = c.tensor(F, 2), o = c.tensor(F, 2);
  int8_t cube = int8_t(c.i64());
  c.materialize();
  return P1(Mm, c.T(a), c.T(b), c.T(o), cube);
}
aclnnStatus op_matmul(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  c.matmul = true;
  int a = c.tensor(ACL_FLOAT16, 3), b = c.tensor(ACL_FLOAT16, 2), o = c.tensor(ACL_FLOAT16, 3);
  int8_t cube = int8_t(c.i64());
  c.materialize();
  return P1(Matmul, c.T(a), c.T(b), c.T(o), cube);
}
aclnnStatus op_addmm(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  c.matmul = true;
  int s = c.tensor(F, 1), a = c.tensor(F, 2), b = c.tensor(F, 2), beta = c.scalar(F), alpha = c.scalar(F),
      o = c.tensor(F, 2);
  int8_t cube = int8_t(c.i64());
  c.materialize();
  return P1(Addmm, c.T(s), c.T(a), c.T(b), c.S(beta), c.S(alpha), c.T(o), cube);
}
aclnnStatus op_bmm(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  c.matmul = true;
  int a = c.tensor(ACL_BF16, 3), b = c.tensor(ACL_BF16, 3), o = c.tensor(ACL_BF16, 3);
  int8_t cube = int8_t(c.i64());
  c.materialize();
  return P1(BatchMatMul, c.T(a), c.T(b), c.T(o), cube);
}
aclnnStatus op_trans_weight(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  c.matmul = true;
  int w = c.tensor(ACL_FLOAT16, 2);
  c.materialize();
  return P1(TransMatmulWeight, c.T(w));
}
aclnnStatus op_wqbmm(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  c.matmul = true;
  int x = c.tensor(ACL_FLOAT16, 2), w = c.tensor(I8, 2), sc = c.tensor(ACL_FLOAT16, 1), off = c.tensor(ACL_FLOAT16, 1),
      qs = c.tensor(ACL_UINT64, 1), qo = c.tensor(F, 1), bias = c.tensor(ACL_FLOAT16, 1);
  int group = int(c.i64());
  int y = c.tensor(ACL_FLOAT16, 2);
  c.materialize();
  return P1(WeightQuantBatchMatmulV2, c.T(x), c.T(w), c.T(sc), c.T(off), c.T(qs), c.T(qo), c.T(bias), group,
            c.T(y));
}
aclnnStatus op_qmm_v4(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  c.matmul = true;
  int x1 = c.tensor(I8, 2), x2 = c.tensor(I8, 2), sc = c.tensor(F, 1), off = c.tensor(F, 1), pt = c.tensor(F, 1),
      bias = c.tensor(ACL_INT32, 1);
  const uint8_t t = c.r.u8();
  int o = c.tensor(ACL_FLOAT16, 2);
  c.materialize();
  return P1(QuantMatmulV4, c.T(x1), c.T(x2), c.T(sc), c.T(off), c.T(pt), c.T(bias), (t & 1) != 0, (t & 2) != 0,
            c.T(o));
}
// The *WeightNz forms: the weight's format and storage dims come from the stream (format byte 7:
// FRACTAL_NZ), so the blocked-layout checks meet storage shapes of every kind.
aclnnStatus op_matmul_nz(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  c.matmul = true;
  int a = c.tensor(ACL_FLOAT16, 2), b = c.tensor(ACL_FLOAT16, 2), o = c.tensor(ACL_FLOAT16, 2);
  int8_t cube = int8_t(c.i64());
  c.materialize();
  return P1(MatmulWeightNz, c.T(a), c.T(b), c.T(o), cube);
}
aclnnStatus op_qmm_nz(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  c.matmul = true;
  int x1 = c.tensor(I8, 2), x2 = c.tensor(I8, 2), x1s = c.tensor(F, 1), x2s = c.tensor(F, 1),
      ys = c.tensor(ACL_UINT64, 2), x1o = c.tensor(F, 1), x2o = c.tensor(F, 1), yo = c.tensor(F, 1),
      bias = c.tensor(ACL_INT32, 1);
  const uint8_t t = c.r.u8();
  const int64_t group = c.i64();
  int o = c.tensor(ACL_FLOAT16, 2);
  c.materialize();
  return P1(QuantMatmulWeightNz, c.T(x1), c.T(x2), c.T(x1s), c.T(x2s), c.T(ys), c.T(x1o), c.T(x2o), c.T(yo),
            c.T(bias), (t & 1) != 0, (t & 2) != 0, group, c.T(o));
}
aclnnStatus op_qconv_nz(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  c.matmul = true;
  int x = c.tensor(I8, 5), w = c.tensor(I8, 5), b = c.tensor(F, 1), s = c.tensor(F, 1), off = c.tensor(F, 1);
  int st = c.intarray({1, 1, 1}), pad = c.intarray({0, 0, 0}), dil = c.intarray({1, 1, 1});
  const uint8_t bl = c.bools();
  int opad = c.intarray({0, 0, 0});
  const int64_t groups = c.i64(), offsetx = c.i64();
  int o = c.tensor(ACL_FLOAT16, 5);
  c.materialize();
  return P1(QuantConvolutionWeightNz, c.T(x), c.T(w), c.T(b), c.T(s), c.T(off), c.A(st), c.A(pad), c.A(dil),
            (bl & 1) != 0, c.A(opad), groups, int32_t(offsetx), nullptr, c.T(o));
}
aclnnStatus op_trans_quant_param(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int sc = c.tensor(F, 1), off = c.tensor(F, 1), o = c.tensor(ACL_UINT64, 1);
  c.materialize();
  return P1(TransQuantParamV2, c.T(sc), c.T(off), c.T(o));
}

// ---- reductions (aclIntArray dims, keepdim, dtype)
aclnnStatus op_reduce_sum(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 3), dims = c.intarray({1});
  const uint8_t b = c.bools();
  aclDataType dt = c.dtype(F);
  int o = c.tensor(F, 2);
  c.materialize();
  return P1(ReduceSum, c.T(a), c.A(dims), (b & 1) != 0, dt, c.T(o));
}
aclnnStatus op_argmax(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2);
  int64_t dim = c.i64();
  const uint8_t b = c.bools();
  int o = c.tensor(ACL_INT64, 1);
  c.materialize();
  return P1(ArgMax, c.T(a), dim, (b & 1) != 0, c.T(o));
}
aclnnStatus op_var_correction(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2), dims = c.intarray({-1});
  int64_t corr = c.i64();
  const uint8_t b = c.bools();
  int o = c.tensor(F, 1);
  c.materialize();
  return P1(VarCorrection, c.T(a), c.A(dims), corr, (b & 1) != 0, c.T(o));
}
aclnnStatus op_norm(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2), pv = c.scalar(F), dims = c.intarray({-1});
  const uint8_t b = c.bools();
  int o = c.tensor(F, 1);
  c.materialize();
  return P1(Norm, c.T(a), c.S(pv), c.A(dims), (b & 1) != 0, c.T(o));
}
aclnnStatus op_max_dim(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2);
  int64_t dim = c.i64();
  const uint8_t b = c.bools();
  int o = c.tensor(F, 1), idx = c.tensor(ACL_INT64, 1);
  c.materialize();
  return P1(MaxDim, c.T(a), dim, (b & 1) != 0, c.T(o), c.T(idx));
}
// ---- dim-wise ops
aclnnStatus op_softmax(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2);
  int64_t dim = c.i64();
  int o = c.tensor(F, 2);
  c.materialize();
  return P1(Softmax, c.T(a), dim, c.T(o));
}
aclnnStatus op_cumsum(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2);
  int64_t dim = c.i64();
  aclDataType dt = c.dtype(F);
  int o = c.tensor(F, 2);
  c.materialize();
  return P1(Cumsum, c.T(a), dim, dt, c.T(o));
}
aclnnStatus op_sort(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2);
  const uint8_t b = c.bools();
  int64_t dim = c.i64();
  int v = c.tensor(F, 2), idx = c.tensor(ACL_INT64, 2);
  c.materialize();
  return P1(Sort, c.T(a), (b & 1) != 0, dim, (b & 2) != 0, c.T(v), c.T(idx));
}
aclnnStatus op_topk(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2);
  int64_t k = c.i64(), dim = c.i64();
  const uint8_t b = c.bools();
  int v = c.tensor(F, 2), idx = c.tensor(ACL_INT64, 2);
  c.materialize();
  return P1(Topk, c.T(a), k, dim, (b & 1) != 0, (b & 2) != 0, c.T(v), c.T(idx));
}
aclnnStatus op_median_dim(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2);
  int64_t dim = c.i64();
  const uint8_t b = c.bools();
  int v = c.tensor(F, 1), idx = c.tensor(ACL_INT64, 1);
  c.materialize();
  return P1(MedianDim, c.T(a), dim, (b & 1) != 0, c.T(v), c.T(idx));
}
// ---- row ops (normalisations, optional tensors)
aclnnStatus op_layer_norm(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2), shape = c.intarray({c.pool[1]}), w = c.tensor(F, 1), bias = c.tensor(F, 1);
  double eps = c.f64(1e-5);
  int o = c.tensor(F, 2), mean = c.tensor(F, 2), rstd = c.tensor(F, 2);
  c.materialize();
  return P1(LayerNorm, c.T(a), c.A(shape), c.T(w), c.T(bias), eps, c.T(o), c.T(mean), c.T(rstd));
}
aclnnStatus op_rms_norm(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(F, 2), g = c.tensor(F, 1);
  double eps = c.f64(1e-6);
  int y = c.tensor(F, 2), rstd = c.tensor(F, 2);
  c.materialize();
  return P1(RmsNorm, c.T(x), c.T(g), eps, c.T(y), c.T(rstd));
}
aclnnStatus op_group_norm(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(F, 3), g = c.tensor(F, 1), beta = c.tensor(F, 1);
  int64_t n = c.i64(), ch = c.i64(), hxw = c.i64(), group = c.i64();
  double eps = c.f64(1e-5);
  int o = c.tensor(F, 3), mean = c.tensor(F, 2), rstd = c.tensor(F, 2);
  c.materialize();
  return P1(GroupNorm, c.T(x), c.T(g), c.T(beta), n, ch, hxw, group, eps, c.T(o), c.T(mean), c.T(rstd));
}
aclnnStatus op_softmax_ce(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int f = c.tensor(F, 2), l = c.tensor(F, 2), loss = c.tensor(F, 1), bp = c.tensor(F, 2);
  c.materialize();
  return P1(SoftmaxCrossEntropyWithLogits, c.T(f), c.T(l), c.T(loss), c.T(bp));
}

// ---- convolution, pooling, resize (work bounded like the matmul family: a window is a small
// reduction per output element)
aclnnStatus op_conv(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  c.matmul = true;
  int x = c.tensor(F, 4), w = c.tensor(F, 4), b = c.tensor(F, 1);
  int st = c.intarray({1, 1}), pad = c.intarray({0, 0}), dil = c.intarray({1, 1});
  const uint8_t bl = c.bools();
  int opad = c.intarray({0, 0});
  int64_t groups = c.i64();
  int o = c.tensor(F, 4);
  int8_t cube = int8_t(c.i64());
  c.materialize();
  return P1(Convolution, c.T(x), c.T(w), c.T(b), c.A(st), c.A(pad), c.A(dil), (bl & 1) != 0, c.A(opad), groups,
            c.T(o), cube);
}
aclnnStatus op_max_pool_indices(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  c.matmul = true;
  int x = c.tensor(F, 4), k = c.intarray({2, 2}), st = c.intarray({2, 2}), pad = c.intarray({0, 0}),
      dil = c.intarray({1, 1});
  const uint8_t bl = c.bools();
  int o = c.tensor(F, 4), idx = c.tensor(ACL_INT64, 4);
  c.materialize();
  return P1(MaxPool2dWithIndices, c.T(x), c.A(k), c.A(st), c.A(pad), c.A(dil), (bl & 1) != 0, c.T(o), c.T(idx));
}
aclnnStatus op_avg_pool(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  c.matmul = true;
  int x = c.tensor(F, 4), k = c.intarray({2, 2}), st = c.intarray({2, 2}), pad = c.intarray({0, 0});
  const uint8_t bl = c.bools();
  int64_t divisor = c.i64();
  int8_t cube = int8_t(c.i64());
  int o = c.tensor(F, 4);
  c.materialize();
  return P1(AvgPool2d, c.T(x), c.A(k), c.A(st), c.A(pad), (bl & 1) != 0, (bl & 2) != 0, divisor, cube, c.T(o));
}
aclnnStatus op_adaptive_avg_pool(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  c.matmul = true;
  int x = c.tensor(F, 4), size = c.intarray({2, 2}), o = c.tensor(F, 4);
  c.materialize();
  return P1(AdaptiveAvgPool2d, c.T(x), c.A(size), c.T(o));
}
aclnnStatus op_upsample_nearest(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(F, 4), size = c.intarray({4, 4}), o = c.tensor(F, 4);
  c.materialize();
  return P1(UpsampleNearest2d, c.T(x), c.A(size), c.T(o));
}
aclnnStatus op_im2col(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  c.matmul = true;
  int x = c.tensor(F, 4), k = c.intarray({2, 2}), dil = c.intarray({1, 1}), pad = c.intarray({0, 0}),
      st = c.intarray({1, 1}), o = c.tensor(F, 3);
  c.materialize();
  return P1(Im2col, c.T(x), c.A(k), c.A(dil), c.A(pad), c.A(st), c.T(o));
}
// ---- index ops (out-of-range indices from the fill byte: an error, never a read outside)
aclnnStatus op_index_select(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2);
  int64_t dim = c.i64();
  int idx = c.tensor(ACL_INT64, 1), o = c.tensor(F, 2);
  c.materialize();
  return P1(IndexSelect, c.T(a), dim, c.T(idx), c.T(o));
}
aclnnStatus op_gather(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2);
  int64_t dim = c.i64();
  int idx = c.tensor(ACL_INT64, 2), o = c.tensor(F, 2);
  c.materialize();
  return P1(Gather, c.T(a), dim, c.T(idx), c.T(o));
}
aclnnStatus op_scatter_add(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2);
  int64_t dim = c.i64();
  int idx = c.tensor(ACL_INT64, 2), src = c.tensor(F, 2), o = c.tensor(F, 2);
  c.materialize();
  return P1(ScatterAdd, c.T(a), dim, c.T(idx), c.T(src), c.T(o));
}
aclnnStatus op_embedding(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int w = c.tensor(F, 2), idx = c.tensor(ACL_INT64, 1), o = c.tensor(F, 2);
  c.materialize();
  return P1(Embedding, c.T(w), c.T(idx), c.T(o));
}
// ---- layout copies
aclnnStatus op_permute(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 3), dims = c.intarray({2, 0, 1}), o = c.tensor(F, 3);
  c.materialize();
  return P1(Permute, c.T(a), c.A(dims), c.T(o));
}
aclnnStatus op_constant_pad(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2), pad = c.intarray({1, 1}), v = c.scalar(F), o = c.tensor(F, 2);
  c.materialize();
  return P1(ConstantPadNd, c.T(a), c.A(pad), c.S(v), c.T(o));
}
aclnnStatus op_repeat(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 2), reps = c.intarray({2, 1}), o = c.tensor(F, 2);
  c.materialize();
  return P1(Repeat, c.T(a), c.A(reps), c.T(o));
}
// ---- losses, channel activations, recurrent cell, rotary embedding
aclnnStatus op_nll_loss(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(F, 2), t = c.tensor(ACL_INT64, 1), w = c.tensor(F, 1);
  int64_t reduction = c.i64(), ignore = c.i64();
  int o = c.tensor(F, 0), tw = c.tensor(F, 0);
  c.materialize();
  return P1(NLLLoss, c.T(x), c.T(t), c.T(w), reduction, ignore, c.T(o), c.T(tw));
}
aclnnStatus op_chamfer_grad(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x1 = c.tensor(F, 3), x2 = c.tensor(F, 3), i1 = c.tensor(ACL_INT32, 2), i2 = c.tensor(ACL_INT32, 2);
  int g1 = c.tensor(F, 2), g2 = c.tensor(F, 2), o1 = c.tensor(F, 3), o2 = c.tensor(F, 3);
  c.materialize();
  return P1(ChamferDistanceBackward, c.T(x1), c.T(x2), c.T(i1), c.T(i2), c.T(g1), c.T(g2), c.T(o1), c.T(o2));
}
aclnnStatus op_vocab_sum_exp(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(F, 2), t = c.tensor(ACL_INT32, 1), m = c.tensor(F, 1);
  int64_t start = c.i64(), end = c.i64();
  int p = c.tensor(F, 1), s = c.tensor(F, 1), e = c.tensor(F, 2), off = c.tensor(ACL_INT32, 1),
      mask = c.tensor(ACL_INT32, 1);
  c.materialize();
  return P1(CrossEntropySumExpAndIndexLogit, c.T(x), c.T(t), c.T(m), start, end, c.T(p), c.T(s), c.T(e), c.T(off),
            c.T(mask));
}
aclnnStatus op_vocab_loss(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int m = c.tensor(F, 1), s = c.tensor(F, 1), p = c.tensor(F, 1);
  const float smoothing = static_cast<float>(c.f64(0));
  int in = c.tensor(F, 2), w = c.tensor(F, 2), x = c.tensor(F, 2), l = c.tensor(F, 1), sm = c.tensor(F, 2);
  c.materialize();
  return P1(FusedCrossEntropyLossWithMaxSum, c.T(m), c.T(s), c.T(p), smoothing, c.T(in), c.T(w), c.T(x), c.T(l),
            c.T(sm));
}
aclnnStatus op_mse_loss(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(F, 2), t = c.tensor(F, 2);
  int64_t reduction = c.i64();
  int o = c.tensor(F, 0);
  c.materialize();
  return P1(MseLoss, c.T(x), c.T(t), reduction, c.T(o));
}
aclnnStatus op_prelu(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(F, 3), w = c.tensor(F, 1), o = c.tensor(F, 3);
  c.materialize();
  return P1(Prelu, c.T(x), c.T(w), c.T(o));
}
aclnnStatus op_lstm_cell(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int ig = c.tensor(F, 2), hg = c.tensor(F, 2), cx = c.tensor(F, 2), ib = c.tensor(F, 1), hb = c.tensor(F, 1),
      hy = c.tensor(F, 2), cy = c.tensor(F, 2), storage = c.tensor(F, 2);
  c.materialize();
  return P1(ThnnFusedLstmCell, c.T(ig), c.T(hg), c.T(cx), c.T(ib), c.T(hb), c.T(hy), c.T(cy), c.T(storage));
}
aclnnStatus op_rope(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(F, 4), cs = c.tensor(F, 4), sn = c.tensor(F, 4);
  int64_t mode = c.i64();
  int o = c.tensor(F, 4);
  c.materialize();
  return P1(RotaryPositionEmbedding, c.T(x), c.T(cs), c.T(sn), mode, c.T(o));
}
// The foreach family: tensor lists (2 entries unless the input says otherwise), [N, C] entries.
aclnnStatus op_foreach_add_list(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x1 = c.tensor_list(F, 2), x2 = c.tensor_list(F, 2), alpha = c.tensor(F, 1), o = c.tensor_list(F, 2);
  c.materialize();
  return P1(ForeachAddList, c.TL(x1), c.TL(x2), c.T(alpha), c.TL(o));
}
aclnnStatus op_foreach_mul_scalar(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor_list(F, 2), s = c.tensor(F, 1), o = c.tensor_list(F, 2);
  c.materialize();
  return P1(ForeachMulScalar, c.TL(x), c.T(s), c.TL(o));
}
aclnnStatus op_foreach_add_scalar_list(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor_list(F, 2), s = c.scalar_list(F), o = c.tensor_list(F, 2);
  c.materialize();
  return P1(ForeachAddScalarList, c.TL(x), c.SL(s), c.TL(o));
}
aclnnStatus op_foreach_addcmul(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x1 = c.tensor_list(F, 2), x2 = c.tensor_list(F, 2), x3 = c.tensor_list(F, 2), s = c.tensor(F, 1),
      o = c.tensor_list(F, 2);
  c.materialize();
  return P1(ForeachAddcmulScalarList, c.TL(x1), c.TL(x2), c.TL(x3), c.T(s), c.TL(o));
}
aclnnStatus op_foreach_lerp(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x1 = c.tensor_list(F, 2), x2 = c.tensor_list(F, 2), w = c.tensor_list(F, 2), o = c.tensor_list(F, 2);
  c.materialize();
  return P1(ForeachLerpList, c.TL(x1), c.TL(x2), c.TL(w), c.TL(o));
}
aclnnStatus op_foreach_exp(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor_list(F, 2), o = c.tensor_list(F, 2);
  c.materialize();
  return P1(ForeachExp, c.TL(x), c.TL(o));
}
aclnnStatus op_foreach_pow_scalar_tensor(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int s = c.scalar(F), x = c.tensor_list(F, 2), o = c.tensor_list(F, 2);
  c.materialize();
  return P1(ForeachPowScalarAndTensor, c.S(s), c.TL(x), c.TL(o));
}
aclnnStatus op_foreach_norm(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor_list(F, 2), p = c.scalar(F), o = c.tensor_list(F, 1);
  c.materialize();
  return P1(ForeachNorm, c.TL(x), c.S(p), c.TL(o));
}
aclnnStatus op_foreach_unscale(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int g = c.tensor_list(F, 2), found = c.tensor(F, 1), inv = c.tensor(F, 1);
  c.materialize();
  return P1(ForeachNonFiniteCheckAndUnscale, c.TL(g), c.T(found), c.T(inv));
}
aclnnStatus op_foreach_round_off(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor_list(F, 2), mode = c.tensor(ACL_INT8, 1), o = c.tensor_list(F, 2);
  c.materialize();
  return P1(ForeachRoundOffNumber, c.TL(x), c.T(mode), c.TL(o));
}
aclnnStatus op_ema_adam(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int g = c.tensor(F, 2), var = c.tensor(F, 2), m = c.tensor(F, 2), v = c.tensor(F, 2), s = c.tensor(F, 2),
      step = c.tensor(ACL_INT64, 1);
  const double lr = c.f64(1e-3), decay = c.f64(0.9999), b1 = c.f64(0.9), b2 = c.f64(0.999), eps = c.f64(1e-8);
  const int64_t mode = c.i64();
  const bool bias_correction = c.bools() & 1;
  const double wd = c.f64(0.0);
  c.materialize();
  return P1(ApplyFusedEmaAdam, c.T(g), c.T(var), c.T(m), c.T(v), c.T(s), c.T(step), lr, decay, b1, b2, eps, mode,
            bias_correction, wd);
}
// The quant family: int8 / packed int4 outputs from float rows.
aclnnStatus op_ascend_quant(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(F, 2), scale = c.tensor(F, 1), offset = c.tensor(F, 1);
  const bool sqrt_mode = c.bools() & 1;
  const char *round_mode = c.str();
  const int32_t dst = int32_t(c.i64());
  int y = c.tensor(ACL_INT8, 2);
  c.materialize();
  return P1(AscendQuant, c.T(x), c.T(scale), c.T(offset), sqrt_mode, round_mode, dst, c.T(y));
}
aclnnStatus op_dynamic_quant_v2(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(ACL_FLOAT16, 2), smooth = c.tensor(ACL_FLOAT16, 1), group = c.tensor(ACL_INT32, 1);
  const int64_t dst = c.i64();
  int y = c.tensor(ACL_INT8, 2), scale = c.tensor(F, 1), offset = c.tensor(F, 1);
  c.materialize();
  return P1(DynamicQuantV2, c.T(x), c.T(smooth), c.T(group), dst, c.T(y), c.T(scale), c.T(offset));
}
aclnnStatus op_fake_quant_channel(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(F, 2), scale = c.tensor(F, 1), zp = c.tensor(ACL_INT32, 1);
  const int64_t axis = c.i64(), qmin = c.i64(), qmax = c.i64();
  int o = c.tensor(F, 2), mask = c.tensor(ACL_BOOL, 2);
  c.materialize();
  return P1(FakeQuantPerChannelAffineCachemask, c.T(x), c.T(scale), c.T(zp), axis, qmin, qmax, c.T(o), c.T(mask));
}
aclnnStatus op_quantize(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(F, 2), scales = c.tensor(F, 1), zp = c.tensor(ACL_INT32, 1);
  const aclDataType dt = c.dtype(ACL_INT8);
  const int32_t axis = int32_t(c.i64());
  int o = c.tensor(ACL_INT8, 2);
  c.materialize();
  return P1(Quantize, c.T(x), c.T(scales), c.T(zp), dt, axis, c.T(o));
}
aclnnStatus op_group_quant(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(F, 2), scale = c.tensor(F, 2), group = c.tensor(ACL_INT32, 1), offset = c.tensor(F, 1);
  const int32_t dst = int32_t(c.i64());
  int y = c.tensor(ACL_INT8, 2);
  c.materialize();
  return P1(GroupQuant, c.T(x), c.T(scale), c.T(group), c.T(offset), dst, c.T(y));
}

// ---- List optimisers, serving, linalg, vfusion and the fused quantising ops.
aclnnStatus op_fused_adamw(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int p = c.tensor_list(F, 2), g = c.tensor_list(F, 2), m = c.tensor_list(F, 2), v = c.tensor_list(F, 2),
      vmax = c.tensor_list(F, 2), steps = c.tensor_list(F, 1), scale = c.tensor(F, 1), inf = c.tensor(F, 1);
  const double lr = c.f64(1e-3), b1 = c.f64(0.9), b2 = c.f64(0.999), wd = c.f64(1e-2), eps = c.f64(1e-8);
  const uint8_t b = c.bools();
  c.materialize();
  return P1(FusedAdamw, c.TL(p), c.TL(g), c.TL(m), c.TL(v), c.TL(vmax), c.TL(steps), c.T(scale), c.T(inf), lr, b1,
            b2, wd, eps, (b & 1) != 0, (b & 2) != 0);
}
aclnnStatus op_fused_sgd(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int p = c.tensor_list(F, 2), g = c.tensor_list(F, 2), buf = c.tensor_list(F, 2), scale = c.tensor(F, 1);
  const double wd = c.f64(1e-2), momentum = c.f64(0.9), lr = c.f64(1e-2), damp = c.f64(0.0);
  const uint8_t b = c.bools();
  c.materialize();
  return P1(FusedSgd, c.TL(p), c.TL(g), c.TL(buf), c.T(scale), float(wd), float(momentum), float(lr), float(damp),
            (b & 1) != 0, (b & 2) != 0, (b & 4) != 0);
}
aclnnStatus op_apply_adamw_quant(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int var = c.tensor(F, 2), g = c.tensor(F, 2), m = c.tensor(ACL_UINT8, 2), v = c.tensor(ACL_UINT8, 2),
      qm = c.tensor(F, 1), qv = c.tensor(F, 1), am = c.tensor(F, 1), av = c.tensor(F, 1),
      step = c.tensor(ACL_INT64, 1);
  const double lr = c.f64(1e-3), b1 = c.f64(0.9), b2 = c.f64(0.999), wd = c.f64(1e-2), eps = c.f64(1e-8),
               gnorm = c.f64(1.0);
  const char *mode = c.str();
  const int64_t block = c.i64();
  c.materialize();
  return P1(ApplyAdamWQuant, c.T(var), c.T(g), c.T(m), c.T(v), c.T(qm), c.T(qv), c.T(am), c.T(av), c.T(step), lr,
            b1, b2, wd, eps, gnorm, const_cast<char *>(mode), block);
}
// Index values read at launch (checked there before any write): bit4 of the mode fills them with 0..2.
aclnnStatus op_advance_step(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  const aclDataType L = ACL_INT64;
  int tokens = c.tensor(L, 1), sampled = c.tensor(L, 1), pos = c.tensor(L, 1), lens = c.tensor(L, 1),
      slots = c.tensor(L, 1), tables = c.tensor(L, 2);
  const int64_t seqs = c.i64(), queries = c.i64(), block = c.i64();
  c.materialize();
  return P1(AdvanceStep, c.T(tokens), c.T(sampled), c.T(pos), c.T(lens), c.T(slots), c.T(tables), seqs, queries,
            block);
}
aclnnStatus op_jagged_permute(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int perm = c.tensor(ACL_INT32, 1), in_off = c.tensor(ACL_INT32, 1), out_off = c.tensor(ACL_INT32, 1);
  const int64_t size = c.i64();
  int o = c.tensor(ACL_INT32, 1);
  c.materialize();
  return P1(ExpandIntoJaggedPermute, c.T(perm), c.T(in_off), c.T(out_off), size, c.T(o));
}
aclnnStatus op_inverse(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int a = c.tensor(F, 3), o = c.tensor(F, 3);
  c.materialize();
  return P1(Inverse, c.T(a), c.T(o));
}
aclnnStatus op_modulate(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(F, 3), scale = c.tensor(F, 2), shift = c.tensor(F, 2), o = c.tensor(F, 3);
  c.materialize();
  return P1(Modulate, c.T(x), c.T(scale), c.T(shift), c.T(o));
}
aclnnStatus op_transpose_bmm(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  c.matmul = true;
  int x1 = c.tensor(F, 3), x2 = c.tensor(F, 3), bias = c.tensor(F, 1), scale = c.tensor(ACL_INT64, 1),
      p1 = c.intarray({1, 0, 2}), px2 = c.intarray({0, 1, 2}), py = c.intarray({1, 0, 2});
  const int64_t math = c.i64(), split = c.i64();
  int o = c.tensor(F, 3);
  c.materialize();
  return P1(TransposeBatchMatMul, c.T(x1), c.T(x2), c.T(bias), c.T(scale), c.A(p1), c.A(px2), c.A(py),
            int8_t(math), int32_t(split), c.T(o));
}
aclnnStatus op_fused_matmul(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  c.matmul = true;
  int x1 = c.tensor(F, 2), x2 = c.tensor(F, 2), bias = c.tensor(F, 1), x3 = c.tensor(F, 2);
  static const char *const kTypes[] = {"", "add", "mul", "gelu_erf", "gelu_tanh", "relu", "Add", nullptr};
  const char *type = kTypes[c.r.u8() % 8];
  const int64_t math = c.i64();
  int o = c.tensor(F, 2);
  c.materialize();
  return P1(FusedMatmul, c.T(x1), c.T(x2), c.T(bias), c.T(x3), type, int8_t(math), c.T(o));
}
aclnnStatus op_qmm_v5(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  c.matmul = true;
  int x1 = c.tensor(I8, 2), x2 = c.tensor(I8, 2), s1 = c.tensor(F, 1), s2 = c.tensor(F, 1), ys = c.tensor(F, 1),
      o1 = c.tensor(F, 1), o2 = c.tensor(F, 1), yo = c.tensor(F, 1), bias = c.tensor(ACL_INT32, 1);
  const uint8_t t = c.bools();
  const int64_t group = c.i64();
  int o = c.tensor(ACL_FLOAT16, 2);
  c.materialize();
  return P1(QuantMatmulV5, c.T(x1), c.T(x2), c.T(s1), c.T(s2), c.T(ys), c.T(o1), c.T(o2), c.T(yo), c.T(bias),
            (t & 1) != 0, (t & 2) != 0, group, c.T(o));
}
aclnnStatus op_swiglu_quant_v2(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(F, 2), smooth = c.tensor(F, 1), offsets = c.tensor(F, 1), group = c.tensor(ACL_INT64, 1);
  const uint8_t b = c.bools();
  const char *mode = c.str();
  const int64_t list_type = c.i64(), dst = c.i64();
  int y = c.tensor(I8, 2), scale = c.tensor(F, 1);
  c.materialize();
  return P1(SwiGluQuantV2, c.T(x), c.T(smooth), c.T(offsets), c.T(group), (b & 1) != 0, const_cast<char *>(mode),
            list_type, dst, c.T(y), c.T(scale));
}
aclnnStatus op_gelu_quant(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(F, 2), scale = c.tensor(F, 1), offset = c.tensor(F, 1);
  const char *approx = c.str(), *mode = c.str(), *round = c.str();
  const int64_t dst = c.i64();
  int y = c.tensor(I8, 2), out_scale = c.tensor(F, 1);
  c.materialize();
  return P1(GeluQuant, c.T(x), c.T(scale), c.T(offset), approx, mode, round, dst, c.T(y), c.T(out_scale));
}
aclnnStatus op_rms_norm_quant(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(ACL_FLOAT16, 2), gamma = c.tensor(ACL_FLOAT16, 1), beta = c.tensor(ACL_FLOAT16, 1),
      scale = c.tensor(ACL_FLOAT16, 1), offset = c.tensor(I8, 1);
  const double eps = c.f64(1e-6);
  int y = c.tensor(I8, 2);
  c.materialize();
  return P1(RmsNormQuant, c.T(x), c.T(gamma), c.T(beta), c.T(scale), c.T(offset), eps, c.T(y));
}
aclnnStatus op_layer_norm_quant(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(F, 2), gamma = c.tensor(F, 1), beta = c.tensor(F, 1), scale = c.tensor(F, 1),
      zp = c.tensor(F, 1);
  const int64_t mode = c.i64();
  const double eps = c.f64(1e-5);
  int y = c.tensor(I8, 2), scale_out = c.tensor(F, 1);
  c.materialize();
  return P1(LayerNormQuant, c.T(x), c.T(gamma), c.T(beta), c.T(scale), c.T(zp), int(mode), eps, c.T(y),
            c.T(scale_out));
}
aclnnStatus op_group_norm_silu_quant(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(F, 3), gamma = c.tensor(F, 1), beta = c.tensor(F, 1), qs = c.tensor(F, 1);
  const int64_t group = c.i64();
  const double eps = c.f64(1e-5);
  const uint8_t b = c.bools();
  int y = c.tensor(I8, 3), mean = c.tensor(F, 2), rstd = c.tensor(F, 2);
  c.materialize();
  return P1(GroupNormSiluQuant, c.T(x), c.T(gamma), c.T(beta), c.T(qs), group, eps, (b & 1) != 0, c.T(y), c.T(mean),
            c.T(rstd));
}
// Einsum: two operands (or as the input says) and an equation from a few valid and malformed ones.
aclnnStatus op_einsum(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  static const char *const kEquations[] = {"ij,jk->ik", "bij,bjk->bik", "ii->i", "...ij,...jk", "i,i",
                                           "ij->",      "i.j,jk",       "ij,jk->zz", nullptr, "iij,jk->ik"};
  int l = c.tensor_list(F, 2);
  const char *eq = kEquations[static_cast<uint64_t>(c.i64()) % (sizeof(kEquations) / sizeof(kEquations[0]))];
  int o = c.tensor(F, 2);
  c.matmul = true;
  c.materialize();
  return P1(Einsum, c.TL(l), eq, c.T(o));
}
// Multi-scale deformable attention: value [bs, keys, heads, C], the INT32 level table, location, weights.
aclnnStatus op_msda(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int v = c.tensor(F, 4), shp = c.tensor(ACL_INT32, 2), st = c.tensor(ACL_INT32, 1), loc = c.tensor(F, 6),
      w = c.tensor(F, 5), o = c.tensor(F, 3);
  c.matmul = true;
  c.materialize();
  return P1(MultiScaleDeformableAttnFunction, c.T(v), c.T(shp), c.T(st), c.T(loc), c.T(w), c.T(o));
}
aclnnStatus op_msda_grad(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int v = c.tensor(F, 4), shp = c.tensor(ACL_INT32, 2), st = c.tensor(ACL_INT32, 1), loc = c.tensor(F, 6),
      w = c.tensor(F, 5), dy = c.tensor(F, 3), dv = c.tensor(F, 4), dl = c.tensor(F, 6), dw = c.tensor(F, 5);
  c.matmul = true;
  c.materialize();
  return P1(MultiScaleDeformableAttentionGrad, c.T(v), c.T(shp), c.T(st), c.T(loc), c.T(w), c.T(dy), c.T(dv),
            c.T(dl), c.T(dw));
}
// The fused linear cross-entropy pieces: input [BT, H], weight [V, H].
aclnnStatus op_flce_max_sum(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(ACL_BF16, 2), w = c.tensor(ACL_BF16, 2), t = c.tensor(ACL_INT64, 1);
  const int64_t start = c.i64(), end = c.i64();
  int m = c.tensor(F, 1), s = c.tensor(F, 1), p = c.tensor(F, 1), mask = c.tensor(ACL_UINT8, 1),
      mt = c.tensor(ACL_INT64, 1), lg = c.tensor(ACL_BF16, 2);
  c.matmul = true;
  c.materialize();
  return P1(FusedLinearOnlineMaxSum, c.T(x), c.T(w), c.T(t), start, end, c.T(m), c.T(s), c.T(p), c.T(mask), c.T(mt),
            c.T(lg));
}
aclnnStatus op_flce_grad(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int g = c.tensor(F, 1), x = c.tensor(ACL_BF16, 2), w = c.tensor(ACL_BF16, 2), mask = c.tensor(ACL_UINT8, 1),
      mt = c.tensor(ACL_INT64, 1);
  const float smoothing = static_cast<float>(c.f64(0));
  int m = c.tensor(F, 1), s = c.tensor(F, 1), sm = c.tensor(F, 2), dx = c.tensor(ACL_BF16, 2),
      dw = c.tensor(ACL_BF16, 2);
  c.matmul = true;
  c.materialize();
  return P1(FusedLinearCrossEntropyLossGrad, c.T(g), c.T(x), c.T(w), c.T(mask), c.T(mt), smoothing, c.T(m), c.T(s),
            c.T(sm), c.T(dx), c.T(dw));
}

// The quantised matmul rows with a yRef, permutations, an on-the-fly quantised x, and INT4 packing.
aclnnStatus op_qmm_inplace_add(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  c.matmul = true;
  int x1 = c.tensor(I8, 2), x2 = c.tensor(I8, 2), s1 = c.tensor(F, 1), s2 = c.tensor(F, 1), y = c.tensor(F, 2);
  const uint8_t t = c.bools();
  const int64_t group = c.i64();
  c.materialize();
  return P1(QuantBatchMatmulInplaceAdd, c.T(x1), c.T(x2), c.T(s1), c.T(s2), c.T(y), (t & 1) != 0, (t & 2) != 0,
            group);
}
aclnnStatus op_tqbmm(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  c.matmul = true;
  int x1 = c.tensor(I8, 3), x2 = c.tensor(I8, 3), bias = c.tensor(F, 1), s1 = c.tensor(F, 1), s2 = c.tensor(F, 1);
  const int32_t dtype = int32_t(c.i64());
  const int64_t group = c.i64();
  const int p1 = c.intarray({1, 0, 2}), pb = c.intarray({0, 1, 2}), py = c.intarray({1, 0, 2});
  const int32_t split = int32_t(c.i64());
  int o = c.tensor(ACL_FLOAT16, 3);
  c.materialize();
  return P1(TransposeQuantBatchMatMul, c.T(x1), c.T(x2), c.T(bias), c.T(s1), c.T(s2), dtype, group, c.A(p1),
            c.A(pb), c.A(py), split, c.T(o));
}
aclnnStatus op_qmm_dequant(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  c.matmul = true;
  int x = c.tensor(ACL_FLOAT16, 2), w = c.tensor(I8, 2), wsc = c.tensor(F, 1), bias = c.tensor(ACL_INT32, 1),
      xs = c.tensor(F, 1), xo = c.tensor(F, 1), sm = c.tensor(ACL_FLOAT16, 1);
  const char *mode = c.str();
  static thread_local char buf[32];
  if (mode != nullptr) std::snprintf(buf, sizeof(buf), "%s", mode);
  const bool trans = c.bools() & 1;
  int o = c.tensor(ACL_FLOAT16, 2);
  c.materialize();
  return P1(QuantMatmulDequant, c.T(x), c.T(w), c.T(wsc), c.T(bias), c.T(xs), c.T(xo), c.T(sm),
            mode != nullptr ? buf : nullptr, trans, c.T(o));
}
aclnnStatus op_qmm_reduce_sum(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  c.matmul = true;
  int x1 = c.tensor(I8, 3), x2 = c.tensor(I8, 3), s1 = c.tensor(F, 2), s2 = c.tensor(ACL_BF16, 1),
      bias = c.tensor(ACL_INT32, 1);
  const uint8_t t = c.bools();
  const int64_t group = c.i64();
  const int dims = c.intarray({0});
  int o = c.tensor(ACL_BF16, 2);
  c.materialize();
  return P1(QuantMatmulReduceSumWeightNz, c.T(x1), c.T(x2), c.T(s1), c.T(s2), nullptr, nullptr, nullptr, nullptr,
            c.T(bias), (t & 1) != 0, (t & 2) != 0, group, c.A(dims), (t & 4) != 0, c.T(o));
}
aclnnStatus op_wqbmm_v1(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  c.matmul = true;
  int x1 = c.tensor(ACL_FLOAT16, 2), x2 = c.tensor(I8, 2), add = c.tensor(ACL_FLOAT16, 1),
      mul = c.tensor(ACL_FLOAT16, 1), bias = c.tensor(F, 1);
  const uint8_t t = c.bools();
  int o = c.tensor(ACL_FLOAT16, 2);
  c.materialize();
  return P1(WeightQuantBatchMatmul, c.T(x1), c.T(x2), nullptr, nullptr, nullptr, c.T(add), c.T(mul), c.T(bias),
            (t & 1) != 0, (t & 2) != 0, 1.0f, 0.0f, c.T(o));
}
aclnnStatus op_int4_pack(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int w = c.tensor(ACL_INT32, 2), o = c.tensor(ACL_INT4, 2);
  c.materialize();
  return P1(ConvertWeightToINT4Pack, c.T(w), c.T(o));
}
aclnnStatus op_swiglu_group(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(F, 2), w = c.tensor(F, 1), g = c.tensor(ACL_INT64, 1);
  const double lim = c.f64(-1.0);
  int o = c.tensor(F, 2);
  c.materialize();
  return P1(SwigluGroup, c.T(x), c.T(w), c.T(g), lim, c.T(o));
}
aclnnStatus op_swiglu_group_grad(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int dy = c.tensor(F, 2), x = c.tensor(F, 2), w = c.tensor(F, 1), yo = c.tensor(F, 2), g = c.tensor(ACL_INT64, 1);
  const float lim = float(c.f64(-1.0));
  int dx = c.tensor(F, 2), dw = c.tensor(F, 1);
  c.materialize();
  return P1(SwigluGroupGrad, c.T(dy), c.T(x), c.T(w), c.T(yo), c.T(g), lim, c.T(dx), c.T(dw));
}

aclnnStatus op_dynamic_block_quant(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(ACL_FLOAT16, 2);
  const double min_scale = c.f64(0.0);
  char *round_mode = const_cast<char *>(c.str());
  const int64_t dst = c.i64(), rb = c.i64(), cb = c.i64();
  int y = c.tensor(ACL_INT8, 2), s = c.tensor(F, 2);
  c.materialize();
  return P1(DynamicBlockQuant, c.T(x), min_scale, round_mode, dst, rb, cb, c.T(y), c.T(s));
}
aclnnStatus op_rms_norm_grad_quant(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int dy = c.tensor(F, 2), x = c.tensor(F, 2), rstd = c.tensor(F, 1), g = c.tensor(F, 1), s = c.tensor(F, 1),
      o = c.tensor(ACL_INT32, 1);
  const char *mode = c.str();
  const bool div = c.bools() & 1;
  int dx = c.tensor(ACL_INT8, 2), dg = c.tensor(F, 1);
  c.materialize();
  return P1(RmsNormGradQuant, c.T(dy), c.T(x), c.T(rstd), c.T(g), c.T(s), c.T(o), mode, div, c.T(dx), c.T(dg));
}

aclnnStatus op_top_k_top_p_sample(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int logits = c.tensor(ACL_FLOAT16, 2), k = c.tensor(ACL_INT32, 1), p = c.tensor(ACL_FLOAT16, 1),
      q = c.tensor(F, 2);
  const double eps = c.f64(1e-8);
  const bool need_logits = c.bools() & 1;
  const int64_t guess = c.i64();
  int idx = c.tensor(ACL_INT64, 1), out = c.tensor(F, 2);
  c.materialize();
  return P1(TopKTopPSample, c.T(logits), c.T(k), c.T(p), c.T(q), eps, need_logits, guess, c.T(idx), c.T(out));
}
// Indices read at launch (checked there before any write): mode bit4 fills them with 0..2.
aclnnStatus op_inplace_quant_scatter(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int self = c.tensor(ACL_INT8, 3), idx = c.tensor(ACL_INT32, 1), upd = c.tensor(ACL_BF16, 3),
      sc = c.tensor(ACL_BF16, 1), zp = c.tensor(ACL_BF16, 1);
  const int64_t axis = c.i64(), qaxis = c.i64(), red = c.i64();
  c.materialize();
  return P1(InplaceQuantScatter, c.T(self), c.T(idx), c.T(upd), c.T(sc), c.T(zp), axis, qaxis, red);
}
aclnnStatus op_advance_step_v2(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  const aclDataType L = ACL_INT64;
  int tokens = c.tensor(L, 1), sampled = c.tensor(L, 2), pos = c.tensor(L, 1), lens = c.tensor(L, 1),
      slots = c.tensor(L, 1), tables = c.tensor(L, 2), spec = c.tensor(L, 2), acc = c.tensor(L, 1);
  const int64_t seqs = c.i64(), queries = c.i64(), block = c.i64();
  c.materialize();
  return P1(AdvanceStepV2, c.T(tokens), c.T(sampled), c.T(pos), c.T(lens), c.T(slots), c.T(tables), c.T(spec),
            c.T(acc), seqs, queries, block);
}
aclnnStatus op_grouped_dynamic_block_quant(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(ACL_FLOAT16, 2), g = c.tensor(ACL_INT64, 1);
  const double min_scale = c.f64(0.0);
  char *round_mode = const_cast<char *>(c.str());
  const int64_t dst = c.i64(), rb = c.i64(), cb = c.i64(), gtype = c.i64();
  int y = c.tensor(ACL_INT8, 2), s = c.tensor(F, 2);
  c.materialize();
  return P1(GroupedDynamicBlockQuant, c.T(x), c.T(g), min_scale, round_mode, dst, rb, cb, gtype, c.T(y), c.T(s));
}
aclnnStatus op_rotate_quant(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(ACL_FLOAT16, 2), rot = c.tensor(ACL_FLOAT16, 2), alpha = c.tensor(F, 1);
  const int64_t axis = c.i64();
  char *round_mode = const_cast<char *>(c.str());
  const int64_t alg = c.i64();
  const double dst_max = c.f64(0.0);
  const bool trans = c.bools() & 1;
  int y = c.tensor(ACL_INT8, 2), s = c.tensor(F, 1);
  c.materialize();
  return P1(RotateQuant, c.T(x), c.T(rot), c.T(alpha), axis, round_mode, alg, dst_max, trans, c.T(y), c.T(s));
}
aclnnStatus op_swiglu_group_quant(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(F, 2), w = c.tensor(F, 1), g = c.tensor(ACL_INT64, 1), sc = c.tensor(F, 1);
  const int64_t dst = c.i64(), mode = c.i64(), block = c.i64();
  const uint8_t b = c.bools();
  const double lim = c.f64(-1.0), dst_max = c.f64(0.0);
  int y = c.tensor(ACL_INT8, 2), ys = c.tensor(F, 2), yo = c.tensor(F, 2);
  c.materialize();
  return P1(SwigluGroupQuant, c.T(x), c.T(w), c.T(g), c.T(sc), dst, mode, block, (b & 1) != 0, lim, dst_max,
            (b & 2) != 0, c.T(y), c.T(ys), c.T(yo));
}

// dstType as a dtype byte (0 = the role's FLOAT8_E4M3FN): every FLOAT8 / FLOAT4 enum value is reachable.
aclnnStatus op_dynamic_mx_quant(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(ACL_BF16, 2);
  const int64_t axis = c.i64();
  char *round_mode = const_cast<char *>(c.str());
  const int64_t dst = c.dtype(ACL_FLOAT8_E4M3FN), block = c.i64(), alg = c.i64();
  int y = c.tensor(ACL_FLOAT8_E4M3FN, 2), s = c.tensor(ACL_FLOAT8_E8M0, 3);
  c.materialize();
  return P1(DynamicMxQuant, c.T(x), axis, round_mode, dst, block, alg, c.T(y), c.T(s));
}
aclnnStatus op_anti_mx_quant(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(ACL_FLOAT8_E4M3FN, 2), s = c.tensor(ACL_FLOAT8_E8M0, 3);
  const int64_t axis = c.i64(), dst = c.dtype(ACL_BF16);
  int y = c.tensor(ACL_BF16, 2);
  c.materialize();
  return P1(AntiMxQuant, c.T(x), c.T(s), axis, dst, c.T(y));
}
// Group ends read at launch (checked there before any write): mode bit4 fills them with 0..2.
aclnnStatus op_grouped_quant_max(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(F, 2), s = c.tensor(F, 1), g = c.tensor(ACL_INT64, 1);
  const char *round_mode = c.str();
  const int64_t dst = c.dtype(ACL_FLOAT8_E5M2);
  int y = c.tensor(ACL_FLOAT8_E5M2, 2), amax = c.tensor(F, 1);
  c.materialize();
  return P1(GroupedQuantMax, c.T(x), c.T(s), c.T(g), round_mode, dst, c.T(y), c.T(amax));
}

// The gated MX quantisers and the RMSNorm one: x along the last dim into 32-blocks (defaults: the docs'
// clampLimit 7, gluAlpha 1.702, gluBias 1; SituMxQuant's beta / linearBeta 1; RMSNorm's epsilon 1e-6).
aclnnStatus op_swiglu_mx_quant(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(ACL_BF16, 2), groups = c.tensor(ACL_INT64, 1);
  const int64_t act_dim = c.i64(), mode = c.i64();
  const uint8_t b = c.bools();
  const double clamp = c.f64(7.0), alpha = c.f64(1.702), bias = c.f64(1.0);
  const int64_t group_mode = c.i64(), axis = c.i64(), dst = c.dtype(ACL_FLOAT8_E4M3FN);
  char *round_mode = const_cast<char *>(c.str());
  const int64_t alg = c.i64();
  const double dst_max = c.f64(0.0);
  int y = c.tensor(ACL_FLOAT8_E4M3FN, 2), s = c.tensor(ACL_FLOAT8_E8M0, 3);
  c.materialize();
  return P1(SwigluMxQuant, c.T(x), c.T(groups), act_dim, (b & 1) != 0, mode, clamp, alpha, bias, group_mode, axis,
            dst, round_mode, alg, dst_max, c.T(y), c.T(s));
}
aclnnStatus op_situ_mx_quant(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(ACL_FLOAT16, 2);
  const double beta = c.f64(1.0), linear_beta = c.f64(1.0);
  const uint8_t b = c.bools();
  const int64_t axis = c.i64(), dst = c.dtype(ACL_FLOAT8_E4M3FN);
  char *round_mode = const_cast<char *>(c.str());
  int y = c.tensor(ACL_FLOAT8_E4M3FN, 2), s = c.tensor(ACL_FLOAT8_E8M0, 3);
  c.materialize();
  return P1(SituMxQuant, c.T(x), float(beta), float(linear_beta), (b & 1) != 0, axis, dst, round_mode, c.T(y),
            c.T(s));
}
aclnnStatus op_rms_norm_mx_quant(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(ACL_BF16, 2), gamma = c.tensor(ACL_BF16, 1), beta = c.tensor(ACL_BF16, 1);
  const double eps = c.f64(1e-6);
  const int64_t alg = c.i64();
  char *round_mode = const_cast<char *>(c.str());
  const int64_t dst = c.dtype(ACL_FLOAT8_E4M3FN);
  const uint8_t b = c.bools();
  int y = c.tensor(ACL_FLOAT8_E4M3FN, 2), s = c.tensor(ACL_FLOAT8_E8M0, 3), rstd = c.tensor(F, 2);
  c.materialize();
  return P1(RmsNormDynamicMxQuant, c.T(x), c.T(gamma), c.T(beta), eps, alg, round_mode, dst, (b & 1) != 0, c.T(y),
            c.T(s), c.T(rstd));
}

// MatmulCompress reads the stored (uncompressed) weight, 1-D of n * k; Sparse4to2's weight blocks must
// fill their storage exactly (the fuzzer's storage flags reach that) and the index codes are any bytes.
aclnnStatus op_matmul_compress(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(ACL_FLOAT16, 2), w = c.tensor(ACL_FLOAT16, 1), bias = c.tensor(F, 1), idx = c.tensor(ACL_INT8, 1);
  int out = c.tensor(ACL_FLOAT16, 2);
  c.materialize();
  return P1(MatmulCompress, c.T(x), c.T(w), c.T(bias), c.T(idx), c.T(out));
}
aclnnStatus op_sparse4to2_qmm(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(ACL_INT8, 2), w = c.tensor(ACL_INT8, 2), idx = c.tensor(ACL_UINT8, 2), xs = c.tensor(F, 1);
  int wsc = c.tensor(F, 1), bias = c.tensor(ACL_BF16, 1), out = c.tensor(ACL_BF16, 2);
  c.materialize();
  return P1(Sparse4to2QuantMatmulWeightNz, c.T(x), c.T(w), c.T(idx), c.T(xs), c.T(wsc), c.T(bias), c.T(out));
}

// aclnnSum: a list of 0..4 tensors (broadcast to out) added in list order.
aclnnStatus op_sum_list(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int l = c.tensor_list(F, 2), o = c.tensor(F, 2);
  c.materialize();
  return P1(Sum, c.TL(l), c.T(o));
}

// The block-scaled / emulated matmuls (ops/matmul/mxmm_phase1.h): MX operands with E8M0 block scales, a
// two-level FP4 product, a BF16 split weight (wLowScale defaults to the required 1/256).
aclnnStatus op_qmm_act_quant(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x1 = c.tensor(ACL_FLOAT8_E4M3FN, 2), x2 = c.tensor(ACL_FLOAT8_E4M3FN, 2), s1 = c.tensor(ACL_FLOAT8_E8M0, 3);
  int s2 = c.tensor(ACL_FLOAT8_E8M0, 3), bias = c.tensor(F, 1);
  const uint8_t b = c.bools();
  const int64_t group = c.i64();
  const char *act = c.str(), *mode = c.str(), *round_mode = c.str();
  const int64_t alg = c.i64();
  const double dst_max = c.f64(0.0);
  int y = c.tensor(ACL_FLOAT8_E4M3FN, 2), ys = c.tensor(ACL_FLOAT8_E8M0, 3);
  c.materialize();
  return P1(QuantMatmulActivationQuantWeightNz, c.T(x1), c.T(x2), c.T(s1), c.T(s2), c.T(bias), (b & 1) != 0,
            (b & 2) != 0, group, act, mode, round_mode, alg, dst_max, c.T(y), c.T(ys));
}
aclnnStatus op_dual_level_qmm(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x1 = c.tensor(ACL_FLOAT4_E2M1, 2), x2 = c.tensor(ACL_FLOAT4_E2M1, 2), l0a = c.tensor(F, 2), l0b = c.tensor(F, 2);
  int l1a = c.tensor(ACL_FLOAT8_E8M0, 3), l1b = c.tensor(ACL_FLOAT8_E8M0, 3), bias = c.tensor(F, 1);
  const uint8_t b = c.bools();
  const int64_t g0 = c.i64(), g1 = c.i64();
  int out = c.tensor(ACL_BF16, 2);
  c.materialize();
  return P1(DualLevelQuantMatmulWeightNz, c.T(x1), c.T(x2), c.T(l0a), c.T(l0b), c.T(l1a), c.T(l1b), c.T(bias),
            (b & 1) != 0, (b & 2) != 0, g0, g1, c.T(out));
}
aclnnStatus op_emu_split(Ctx &c, uint64_t *ws, aclOpExecutor **ex, Phase2 *p2) {
  int x = c.tensor(ACL_BF16, 2), hi = c.tensor(ACL_BF16, 2), lo = c.tensor(ACL_BF16, 2), y = c.tensor(F, 2);
  const double scale = c.f64(1.0 / 256);
  const int64_t y_dtype = c.i64();
  c.materialize();
  return P1(MatmulEmuSplitWeight, c.T(x), c.T(hi), c.T(lo), c.T(y), float(scale), static_cast<int8_t>(y_dtype));
}

const OpFn kOps[] = {op_exp,      op_inplace_exp, op_gelu_v2,   op_softplus,       op_add,
                     op_inplace_add, op_mul,      op_divs,      op_divmod,         op_eq,
                     op_maximum,  op_remainder,   op_pow,       op_cast,           op_copy,
                     op_fill,     op_clamp,       op_where,     op_masked_fill,    op_round_decimals,
                     op_leaky_relu, op_gelu_backward, op_swiglu, op_glu,           op_mm,
                     op_matmul,   op_addmm,       op_bmm,       op_trans_weight,   op_wqbmm,
                     op_qmm_v4,   op_trans_quant_param,
                     op_reduce_sum, op_argmax,    op_var_correction, op_norm,       op_max_dim,
                     op_softmax,  op_cumsum,      op_sort,      op_topk,           op_median_dim,
                     op_layer_norm, op_rms_norm,  op_group_norm, op_softmax_ce,
                     op_conv,     op_max_pool_indices, op_avg_pool, op_adaptive_avg_pool, op_upsample_nearest,
                     op_im2col,   op_index_select, op_gather,  op_scatter_add,    op_embedding,
                     op_permute,  op_constant_pad, op_repeat,  op_nll_loss,       op_mse_loss,
                     op_prelu,    op_lstm_cell,   op_rope,    op_chamfer_grad,   op_vocab_sum_exp,
                     op_vocab_loss, op_matmul_nz, op_qmm_nz,  op_qconv_nz,
                     op_foreach_add_list, op_foreach_mul_scalar, op_foreach_add_scalar_list, op_foreach_addcmul,
                     op_foreach_lerp, op_foreach_exp, op_foreach_pow_scalar_tensor, op_foreach_norm,
                     op_foreach_unscale, op_foreach_round_off, op_ema_adam,
                     op_ascend_quant, op_dynamic_quant_v2, op_fake_quant_channel, op_quantize, op_group_quant,
                     op_fused_adamw, op_fused_sgd, op_apply_adamw_quant, op_advance_step, op_jagged_permute,
                     op_inverse, op_modulate, op_transpose_bmm, op_fused_matmul, op_qmm_v5, op_swiglu_quant_v2,
                     op_gelu_quant, op_rms_norm_quant, op_layer_norm_quant, op_group_norm_silu_quant,
                     op_einsum, op_msda, op_msda_grad, op_flce_max_sum, op_flce_grad,
                     op_qmm_inplace_add, op_tqbmm, op_qmm_dequant, op_int4_pack, op_qmm_reduce_sum, op_wqbmm_v1,
                     op_swiglu_group, op_swiglu_group_grad, op_dynamic_block_quant, op_rms_norm_grad_quant,
                     op_top_k_top_p_sample, op_inplace_quant_scatter, op_advance_step_v2,
                     op_grouped_dynamic_block_quant, op_rotate_quant, op_swiglu_group_quant,
                     op_dynamic_mx_quant, op_anti_mx_quant, op_grouped_quant_max,
                     op_swiglu_mx_quant, op_situ_mx_quant, op_rms_norm_mx_quant,
                     op_matmul_compress, op_sparse4to2_qmm, op_sum_list,
                     op_qmm_act_quant, op_dual_level_qmm, op_emu_split};
constexpr int kNumOps = sizeof(kOps) / sizeof(kOps[0]);

void launch(Ctx &c, Phase2 p2, aclOpExecutor *ex, uint64_t ws, uint8_t mode) {
  // The workspace: exactly the size phase 1 asked for (ASan sees a byte past it).
  void *wbuf = ws > 0 ? std::malloc(ws) : nullptr;
  if (ws > 0 && !wbuf) return;
  const bool repeatable = mode & 1;
  if (repeatable) check_status("aclSetAclOpExecutorRepeatable", aclSetAclOpExecutorRepeatable(ex));
  if (mode & 8) {
    // Another op's phase 2: must be refused (and leave the executor usable).
    const Phase2 other = p2 == aclnnMul ? Phase2(aclnnAdd) : Phase2(aclnnMul);
    const aclnnStatus st = other(wbuf, ws, ex, g_stream);
    check_status(c.op, st);
    if (st == 0) fail("another op's phase 2 accepted the executor", c.op, st);
  }
  if ((mode & 2) && ws > 0) {
    // One byte short: must be refused (and the executor stays usable for the real launch).
    const aclnnStatus st = p2(wbuf, ws - 1, ex, g_stream);
    check_status(c.op, st);
    if (st == 0) fail("phase 2 accepted a workspace smaller than phase 1 asked for", c.op, st);
  }
  for (int round = 0; round < (repeatable ? 2 : 1); ++round) {
    const aclnnStatus st = p2(wbuf, ws, ex, g_stream);
    check_status(c.op, st);
    const aclError se = aclrtSynchronizeStream(g_stream);
    check_status("aclrtSynchronizeStream", se);
    if (std::getenv("FUZZ_OPS_VERBOSE"))
      std::fprintf(stderr, "fuzz_ops:   phase 2 -> %d, synchronize -> %d\n", int(st), int(se));
    if (st != 0) break;
  }
  if (repeatable) check_status("aclDestroyAclOpExecutor", aclDestroyAclOpExecutor(ex));
  std::free(wbuf);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  // One compute thread unless told otherwise: inputs per second count most on CI's 2 cores (the
  // thread split is planned in phase 1 for any count; OPSNN_NUM_THREADS=2 fuzzes parallel runs).
  setenv("OPSNN_NUM_THREADS", "1", 0);
  setenv("OPSNN_LOG", "off", 0);
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
      aclrtCreateStream(&g_stream) != ACL_SUCCESS) {
    std::fprintf(stderr, "fuzz_ops: runtime set-up failed: %s\n", aclGetRecentErrMsg());
    std::abort();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Ctx c;
  c.r = Reader{data, size, 0};
  const OpFn op = kOps[c.r.u8() % kNumOps];
  const uint8_t mode = c.r.u8();
  c.device_mem = (mode & 4) != 0;
  c.small_ints = (mode & 16) != 0;
  c.fill = c.r.u8();
  for (int64_t &p : c.pool) p = c.r.u8() % 20;

  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  Phase2 p2 = nullptr;
  const aclnnStatus st = op(c, &ws, &ex, &p2);
  check_status(c.op, st);
  static const bool verbose = std::getenv("FUZZ_OPS_VERBOSE") != nullptr;
  if (verbose)
    std::fprintf(stderr, "fuzz_ops: %s phase 1 -> %d%s%s (workspace %llu, %s)\n", c.op, int(st), st ? ": " : "",
                 st ? aclGetRecentErrMsg() : "", (unsigned long long)ws,
                 st == 0 && c.launchable && ws <= kMaxWorkspace ? "launched" : "not launched");
  if (st == 0) {
    if (ex == nullptr) fail("phase 1 succeeded without an executor", c.op, st);
    if (c.launchable && ws <= kMaxWorkspace) {
      launch(c, p2, ex, ws, mode);
    } else {
      check_status("aclDestroyAclOpExecutor", aclDestroyAclOpExecutor(ex));
    }
  }
  c.destroy();
  return 0;
}
