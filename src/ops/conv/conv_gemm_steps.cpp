// The GEMM-based convolution steps and their recording (conv_parts.h): forward, data and weight
// gradient, each chosen in phase 1 from an ordered candidate list.
#include "ops/conv/conv_parts.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "core/cpu_features.h"
#include "core/op_checks.h"
#include "core/impl_list.h"
#include "core/thread_pool.h"
#include "core/verbose.h"
#include "kernels/conv/conv_direct_rows.h"
#include "kernels/conv/conv_dw_rows.h"
#include "kernels/conv/conv_dw_in_place.h"
#include "kernels/conv/conv_pw_nchw.h"
#include "kernels/conv/conv_small.h"
#include "kernels/conv/packed_weight.h"
#include "ops/matmul/matmul_common.h"
#include "runtime/runtime.h"

namespace opsnn::ops::conv_parts {
namespace {

using core::shape_string;

enum class Mode : uint8_t { kForward, kData, kWgrad };

// What the candidate lists look at.
struct ConvDesc {
  Mode mode;
  ConvGeom g;
  int64_t groups, cbg, csg;
  bool big_flat, small_flat;
  int64_t big_sc = 0, small_sc = 0;  // channel strides (channels-last: 1)
  aclDataType big_dt = ACL_FLOAT, small_dt = ACL_FLOAT;
  int64_t batch = 1;
  int64_t big_fs = -1, small_fs = -1;  // flattened spatial strides (-1: the dims do not nest)
  int64_t small_s2 = 0;                // the output's innermost spatial stride
  int64_t big_s2 = 0;                  // the input's
};

bool unit_geometry(const ConvGeom &g) {
  for (int i = 0; i < 3; ++i)
    if (g.k[i] != 1 || g.s[i] != 1 || g.p[i] != 0 || g.big[i] != g.small[i]) return false;
  return true;
}
// The direct kernel's own conditions (both of its layouts).
bool direct_applies(const ConvDesc &d, const core::Why &why) {
  if (d.mode != Mode::kForward) return why("not a forward convolution");
  if (d.groups != 1) return why("groups=%lld", static_cast<long long>(d.groups));
  if (d.big_dt != ACL_FLOAT || d.small_dt != ACL_FLOAT) return why("not FLOAT input and output");
  return true;
}

// What the 3x3 NCHW depthwise kernels (depthwise_in_place, depthwise_row_groups) share: forward
// depthwise, not turned off by `env`=off, 2-D, 3x3, dilation 1, row stride 1 or 2, output FLOAT rows
// of unit stride at least min_width wide.
bool dw3_rows_applies(const ConvDesc &d, const core::Why &why, const char *env_name, int64_t min_width) {
  if (d.mode != Mode::kForward) return why("not a forward convolution");
  if (d.groups == 1 || d.cbg != 1)
    return why("not depthwise (groups=%lld with %lld input channels per group)", static_cast<long long>(d.groups),
               static_cast<long long>(d.cbg));
  const char *env = std::getenv(env_name);
  if (env != nullptr && std::strcmp(env, "off") == 0) return why("%s=off", env_name);
  const ConvGeom &g = d.g;
  if (g.k[0] != 1 || g.s[0] != 1 || g.p[0] != 0) return why("a 3-D kernel");
  if (g.k[1] != 3 || g.k[2] != 3)
    return why("kernel %lldx%lld", static_cast<long long>(g.k[1]), static_cast<long long>(g.k[2]));
  if (g.d[1] != 1 || g.d[2] != 1)
    return why("dilation %lldx%lld", static_cast<long long>(g.d[1]), static_cast<long long>(g.d[2]));
  if (g.s[1] > 2) return why("row stride %lld", static_cast<long long>(g.s[1]));
  if (d.small_dt != ACL_FLOAT || d.small_s2 != 1)
    return why("output not FLOAT rows of unit stride (stride %lld)", static_cast<long long>(d.small_s2));
  if (g.small[2] < min_width)
    return why("output width %lld < %lld", static_cast<long long>(g.small[2]), static_cast<long long>(min_width));
  return true;
}

// The few-input-channel kernel's padded planes of one image stay within this (L2-resident): the
// large planes of a network's stem keep the channel-vectorised direct kernel.
constexpr int64_t kSmallCinPlaneBytes = 256 << 10;
// direct_rows up to this many input channels (measured: bench_conv's stem; PERFORMANCE.md, "Stem").
constexpr int64_t kDirectRowsMaxCin = 4;

// direct_rows' rule (both variants): the direct kernel over a ring of zero-padded input rows gives
// 1..4 input channels one flat (k2, C_in) tap loop instead of the direct kernel's (tap, channel)
// loops of 1..4 iterations and edge tiles at the borders (ResNet's stem 3 -> 64 k7 s2, bench_conv:
// see PERFORMANCE.md, "Stem"). Planes small enough for small_cin stay there (the example CNN's layers).
bool direct_rows_applies(const ConvDesc &d, const core::Why &why) {
  if (!direct_applies(d, why)) return false;
  // OPSNN_CONV_DIRECT_ROWS=off turns it off, =on takes it whatever small_cin would (tests; measuring).
  const char *env = std::getenv("OPSNN_CONV_DIRECT_ROWS");
  if (env != nullptr && std::strcmp(env, "off") == 0) return why("OPSNN_CONV_DIRECT_ROWS=off");
  if (d.cbg > kDirectRowsMaxCin)
    return why("%lld input channels > %lld", static_cast<long long>(d.cbg),
               static_cast<long long>(kDirectRowsMaxCin));
  const ConvGeom &g = d.g;
  if (g.k[0] != 1 || g.p[0] != 0) return why("a 3-D kernel");
  if (g.d[2] != 1) return why("width dilation %lld", static_cast<long long>(g.d[2]));
  if (g.k[2] * d.cbg > kernels::kDirectRowsMaxRowTaps)
    return why("%lld taps per kernel row > %lld", static_cast<long long>(g.k[2] * d.cbg),
               static_cast<long long>(kernels::kDirectRowsMaxRowTaps));
  if ((g.k[1] - 1) * g.d[1] + 1 > kernels::kDirectRowsMaxRing)
    return why("%lld input rows per output row > %lld", static_cast<long long>((g.k[1] - 1) * g.d[1] + 1),
               static_cast<long long>(kernels::kDirectRowsMaxRing));
  if (unit_geometry(g) && d.big_flat && d.small_flat)
    return why("1x1 stride 1 unpadded: gemm_1x1 / direct_nhwc read it in place");
  if (env != nullptr && std::strcmp(env, "on") == 0) return true;
  const int64_t bytes = kernels::conv_small_planes(g, d.cbg).floats * 4;
  if (bytes <= kSmallCinPlaneBytes)
    return why("small_cin's padded input planes fit (%lld KiB <= %lld KiB)", static_cast<long long>(bytes >> 10),
               static_cast<long long>(kSmallCinPlaneBytes >> 10));
  return true;
}

// Forward / data: best first; the last (im2col + GEMM / GEMM + col2im) takes everything.
const core::Impl<ConvDesc> kForwardImpls[] = {
    {"depthwise_nhwc", core::kNoIsa,
     [](const ConvDesc &d, const core::Why &why) {
       if (d.mode != Mode::kForward) return why("not a forward convolution");
       if (d.groups == 1 || d.cbg != 1) return why("not depthwise (groups=%lld with %lld input channels per group)",
                                                   static_cast<long long>(d.groups), static_cast<long long>(d.cbg));
       if (d.csg != 1) return why("channel multiplier %lld", static_cast<long long>(d.csg));
       if (d.big_sc != 1 || d.small_sc != 1)
         return why("not channels-last (channel strides %lld / %lld)", static_cast<long long>(d.big_sc),
                    static_cast<long long>(d.small_sc));
       if (d.big_dt != ACL_FLOAT || d.small_dt != ACL_FLOAT) return why("not FLOAT input and output");
       if (d.g.k[0] * d.g.k[1] > 64) return why("more than 64 kernel rows");
       return true;
     }},
    // 3x3 strides 1 and 2 read in place, column strips with rolling output rows: the row groups' ring
    // copy and per-group bookkeeping left the FMA pipes mostly idle (the NCHW MobileNet layers,
    // bench_conv: see PERFORMANCE.md, "NCHW depthwise in place").
    {"depthwise_in_place", core::kNoIsa,
     [](const ConvDesc &d, const core::Why &why) {
       // OPSNN_CONV_DW_IN_PLACE=off leaves these layers to depthwise_row_groups (tests; measuring).
       if (!dw3_rows_applies(d, why, "OPSNN_CONV_DW_IN_PLACE", kernels::kDwInPlaceMinWidth)) return false;
       const ConvGeom &g = d.g;
       if (g.big[0] != 1) return why("a 3-D input");
       if (g.s[1] != g.s[2])
         return why("stride %lldx%lld", static_cast<long long>(g.s[1]), static_cast<long long>(g.s[2]));
       if (g.p[2] > kernels::kDwInPlaceMaxPad || (g.s[2] == 2 && g.p[2] != 1))
         return why("width padding %lld at stride %lld", static_cast<long long>(g.p[2]),
                    static_cast<long long>(g.s[2]));
       if (d.big_dt != ACL_FLOAT || d.big_s2 != 1)
         return why("input not FLOAT rows of unit stride (stride %lld)", static_cast<long long>(d.big_s2));
       return true;
     }},
    // depthwise_rows' ring with 3x3 output rows in groups of 4 (AVX-512) x 4 vectors: its pairs ran
    // the rows' last vectors on two latency-bound FMA chains (the NCHW MobileNet layers, bench_conv:
    // see PERFORMANCE.md, "NCHW depthwise: row groups").
    {"depthwise_row_groups", core::kNoIsa,
     [](const ConvDesc &d, const core::Why &why) {
       // OPSNN_CONV_DW_ROW_GROUPS=off leaves these layers to depthwise_rows (tests; measuring).
       return dw3_rows_applies(d, why, "OPSNN_CONV_DW_ROW_GROUPS", kernels::kDwGroupMinWidth);
     }},
    // Vectors along the output rows from a ring of padded rows, each input row copied once (the
    // NCHW MobileNet layers, bench_conv: 1.3-2.6x depthwise_direct's plane copy and border columns).
    {"depthwise_rows", core::kNoIsa,
     [](const ConvDesc &d, const core::Why &why) {
       if (d.mode != Mode::kForward) return why("not a forward convolution");
       if (d.groups == 1 || d.cbg != 1) return why("not depthwise (groups=%lld with %lld input channels per group)",
                                                   static_cast<long long>(d.groups), static_cast<long long>(d.cbg));
       if (d.g.k[0] != 1 || d.g.s[0] != 1 || d.g.p[0] != 0) return why("a 3-D kernel");
       if (d.g.k[1] > kernels::kDwRowsMaxTaps || d.g.k[2] > kernels::kDwRowsMaxTaps)
         return why("kernel %lldx%lld beyond %lld rows / columns", static_cast<long long>(d.g.k[1]),
                    static_cast<long long>(d.g.k[2]), static_cast<long long>(kernels::kDwRowsMaxTaps));
       return true;
     }},
    {"depthwise_direct", core::kNoIsa,
     [](const ConvDesc &d, const core::Why &why) {
       if (d.mode != Mode::kForward) return why("not a forward convolution");
       if (d.groups == 1 || d.cbg != 1) return why("not depthwise (groups=%lld with %lld input channels per group)",
                                                   static_cast<long long>(d.groups), static_cast<long long>(d.cbg));
       return true;
     }},
    // direct_rows with vectors along the output pixels, stored straight into channels-first output
    // planes (the stem on NCHW: the channels-last row buffer and its transposes cost ~10%; see
    // PERFORMANCE.md, "Stem on NCHW").
    {"direct_rows_nchw", core::kNoIsa,
     [](const ConvDesc &d, const core::Why &why) {
       // OPSNN_CONV_DIRECT_ROWS_NCHW=off leaves channels-first outputs to direct_rows (tests; measuring).
       const char *env = std::getenv("OPSNN_CONV_DIRECT_ROWS_NCHW");
       if (env != nullptr && std::strcmp(env, "off") == 0) return why("OPSNN_CONV_DIRECT_ROWS_NCHW=off");
       if (d.small_sc == 1) return why("channels-last output");
       if (d.small_s2 != 1) return why("output pixel stride %lld", static_cast<long long>(d.small_s2));
       return direct_rows_applies(d, why);
     }},
    {"direct_rows", core::kNoIsa, direct_rows_applies},
    // Vectors along the output pixels: 1..8 input channels fill few of the channel vectors the
    // direct kernel uses (the CNN example's [32, 1, 16, 16] * [8, 1, 3, 3]: 4x faster, its
    // [32, 8, 8, 8] * [16, 8, 3, 3]: see PERFORMANCE.md, "Framework").
    {"small_cin", core::kNoIsa,
     [](const ConvDesc &d, const core::Why &why) {
       if (!direct_applies(d, why)) return false;
       if (d.cbg > kernels::kSmallCinMax)
         return why("%lld input channels > %lld", static_cast<long long>(d.cbg),
                    static_cast<long long>(kernels::kSmallCinMax));
       if (unit_geometry(d.g) && d.big_flat && d.small_flat)
         return why("1x1 stride 1 unpadded: gemm_1x1 / direct_nhwc read it in place");
       const int64_t bytes = kernels::conv_small_planes(d.g, d.cbg).floats * 4;
       if (bytes > kSmallCinPlaneBytes)
         return why("padded input planes of %lld KiB > %lld KiB", static_cast<long long>(bytes >> 10),
                    static_cast<long long>(kSmallCinPlaneBytes >> 10));
       return true;
     }},
    // Winograd F(m x m, 3 x 3) on the GEMM engine (conv_winograd_step.cpp), where it measured
    // faster than the direct kernel (winograd_tile; OPSNN_CONV_WINOGRAD: see there).
    {"winograd", core::kNoIsa,
     [](const ConvDesc &d, const core::Why &why) {
       if (!direct_applies(d, why)) return false;
       const ConvGeom &g = d.g;
       if (g.big[0] != 1 || g.k[0] != 1 || g.p[0] != 0) return why("not 2-D");
       if (g.k[1] != 3 || g.k[2] != 3)
         return why("kernel %lldx%lld", static_cast<long long>(g.k[1]), static_cast<long long>(g.k[2]));
       if (g.s[1] != 1 || g.s[2] != 1)
         return why("stride %lldx%lld", static_cast<long long>(g.s[1]), static_cast<long long>(g.s[2]));
       if (g.d[1] != 1 || g.d[2] != 1)
         return why("dilation %lldx%lld", static_cast<long long>(g.d[1]), static_cast<long long>(g.d[2]));
       return winograd_tile(g, d.batch, d.cbg, d.csg, why) != 0;
     }},
    {"direct_nhwc", core::kNoIsa,
     [](const ConvDesc &d, const core::Why &why) {
       if (!direct_applies(d, why)) return false;
       if (d.big_sc != 1 || d.small_sc != 1)
         return why("not channels-last (channel strides %lld / %lld)", static_cast<long long>(d.big_sc),
                    static_cast<long long>(d.small_sc));
       return true;
     }},
    {"direct_nchw", core::kNoIsa,
     [](const ConvDesc &d, const core::Why &why) {
       if (!direct_applies(d, why)) return false;
       // Measured (bench_conv, ResNet's 1x1 layers on NCHW, 1 thread): the single GEMM reading
       // every operand in place is as fast at batch 1 and up to 1.1x faster at batch 8.
       if (unit_geometry(d.g) && d.big_flat && d.small_flat)
         return why("1x1 stride 1 unpadded on a channels-first tensor: gemm_1x1 reads it in place");
       return true;
     }},
    // The input read in place as the GEMM's B, the bias in the epilogue: gemm_1x1 packs the
    // activations at every launch and fills the output with the bias first (bench_conv, ResNet's
    // NCHW 1x1 layers: see PERFORMANCE.md, "NCHW depthwise and pointwise").
    {"pointwise_nchw", core::kNoIsa,
     [](const ConvDesc &d, const core::Why &why) {
       if (!direct_applies(d, why)) return false;
       if (!unit_geometry(d.g)) return why("not a 1x1 stride-1 unpadded kernel");
       if (d.big_fs != 1 || d.small_fs != 1)
         return why("flattened pixel strides %lld / %lld (not unit)", static_cast<long long>(d.big_fs),
                    static_cast<long long>(d.small_fs));
       if (d.g.small_n() < kernels::kPwNchwMinPixels)
         return why("%lld pixels per image < %lld", static_cast<long long>(d.g.small_n()),
                    static_cast<long long>(kernels::kPwNchwMinPixels));
       return true;
     }},
    {"gemm_1x1", core::kNoIsa,
     [](const ConvDesc &d, const core::Why &why) {
       if (!unit_geometry(d.g)) return why("not a 1x1 stride-1 unpadded kernel");
       if (!d.big_flat || !d.small_flat) return why("spatial dims do not nest");
       return true;
     }},
    {"im2col_gemm", core::kNoIsa, nullptr},
};

// kForwardImpls' entries by name.
enum ForwardImpl : int {
  kDepthwiseNhwc = 0,
  kDepthwiseInPlace,
  kDepthwiseRowGroups,
  kDepthwiseRows,
  kDepthwiseDirect,
  kDirectRowsNchw,
  kDirectRows,
  kSmallCin,
  kWinograd,
  kDirectNhwc,
  kDirectNchw,
  kPointwiseNchw,
  kGemm1x1,
  kIm2colGemm
};

// The direct kernels' ISA tiers (the same source auto-vectorised per unit), best first.
#if defined(__x86_64__)
const core::Impl<int> kDirectTiers[] = {
    {"avx512", static_cast<int>(core::Isa::kAvx512), nullptr},
    {"avx2", static_cast<int>(core::Isa::kAvx2), nullptr},
    {"portable", static_cast<int>(core::Isa::kPortable), nullptr},
};
const kernels::DepthwiseFn kDepthwiseFns[] = {kernels::conv_depthwise_avx512, kernels::conv_depthwise_avx2,
                                              kernels::conv_depthwise_portable};
const kernels::DepthwiseFn kDepthwiseNhwcFns[] = {kernels::conv_depthwise_nhwc_avx512,
                                                  kernels::conv_depthwise_nhwc_avx2,
                                                  kernels::conv_depthwise_nhwc_portable};
const kernels::DepthwiseFn kDwRowsFns[] = {kernels::conv_dw_rows_avx512, kernels::conv_dw_rows_avx2,
                                           kernels::conv_dw_rows_portable};
const kernels::DepthwiseFn kDwGroupsFns[] = {kernels::conv_dw_groups_avx512, kernels::conv_dw_groups_avx2,
                                             kernels::conv_dw_groups_portable};
const kernels::DepthwiseFn kDwInPlaceFns[] = {kernels::conv_dw_in_place_avx512, kernels::conv_dw_in_place_avx2,
                                         kernels::conv_dw_in_place_portable};
const kernels::DirectFn kDirectFns[] = {kernels::conv_direct_avx512, kernels::conv_direct_avx2,
                                        kernels::conv_direct_portable};
const kernels::DirectFn kPwNchwFns[] = {kernels::conv_pw_nchw_avx512, kernels::conv_pw_nchw_avx2,
                                        kernels::conv_pw_nchw_portable};
const kernels::SmallFn kSmallFns[] = {kernels::conv_small_avx512, kernels::conv_small_avx2,
                                      kernels::conv_small_portable};
const kernels::DirectRowsFn kDirectRowsFns[] = {kernels::conv_direct_rows_avx512, kernels::conv_direct_rows_avx2,
                                                kernels::conv_direct_rows_portable};
const kernels::DirectRowsFn kDirectRowsNchwFns[] = {kernels::conv_direct_rows_nchw_avx512,
                                                    kernels::conv_direct_rows_nchw_avx2,
                                                    kernels::conv_direct_rows_nchw_portable};
#else
const core::Impl<int> kDirectTiers[] = {{"portable", static_cast<int>(core::Isa::kPortable), nullptr}};
const kernels::DepthwiseFn kDepthwiseFns[] = {kernels::conv_depthwise_portable};
const kernels::DepthwiseFn kDepthwiseNhwcFns[] = {kernels::conv_depthwise_nhwc_portable};
const kernels::DepthwiseFn kDwRowsFns[] = {kernels::conv_dw_rows_portable};
const kernels::DepthwiseFn kDwGroupsFns[] = {kernels::conv_dw_groups_portable};
const kernels::DepthwiseFn kDwInPlaceFns[] = {kernels::conv_dw_in_place_portable};
const kernels::DirectFn kDirectFns[] = {kernels::conv_direct_portable};
const kernels::DirectFn kPwNchwFns[] = {kernels::conv_pw_nchw_portable};
const kernels::SmallFn kSmallFns[] = {kernels::conv_small_portable};
const kernels::DirectRowsFn kDirectRowsFns[] = {kernels::conv_direct_rows_portable};
const kernels::DirectRowsFn kDirectRowsNchwFns[] = {kernels::conv_direct_rows_nchw_portable};
#endif

// The direct kernel's output channel groups (DirectArgs::group_blocks), widest first. A group's
// packed weight slice (blocks x 16 channels x C_in x taps) is read once per tile of a few pixels
// of one row: beyond L2 every tile streams it from L3 (512x7x7 -> 512 k3: 4 blocks 2.0 ms, 2 blocks
// 1.2 ms; PERFORMANCE.md, "Direct kernel: weight groups within L2").
struct DirectGroupDesc {
  int64_t slice_floats_per_block;  // C_in * taps * 16
};
const core::Impl<DirectGroupDesc> kDirectGroups[] = {
    {"4_blocks", core::kNoIsa,
     [](const DirectGroupDesc &d, const core::Why &why) {
       const int64_t bytes = 4 * d.slice_floats_per_block * 4, l2 = static_cast<int64_t>(core::cpu_features().l2_bytes);
       if (bytes > l2)
         return why("weight slice of 64 channels %lld KiB > L2 %lld KiB", static_cast<long long>(bytes >> 10),
                    static_cast<long long>(l2 >> 10));
       return true;
     }},
    {"2_blocks", core::kNoIsa, nullptr},
};

// depthwise_nhwc's output stores, best first: non-temporal where a thread's share of the output
// cannot stay in its L2 anyway (the 3-wide tiles, AVX-512: NHWC 32x112x112 k3 12-25% faster, bench_conv;
// PERFORMANCE.md, "Stem on NCHW, NHWC depthwise stores"). OPSNN_CONV_DW_STREAM=off|on (tests; measuring).
struct DwStoresDesc {
  const ConvDesc *d;
  bool avx512;
  int64_t out_bytes_per_thread;
};
const core::Impl<DwStoresDesc> kDwNhwcStores[] = {
    {"stream_stores", core::kNoIsa,
     [](const DwStoresDesc &s, const core::Why &why) {
       const char *env = std::getenv("OPSNN_CONV_DW_STREAM");
       if (env != nullptr && std::strcmp(env, "off") == 0) return why("OPSNN_CONV_DW_STREAM=off");
       if (!s.avx512) return why("not the avx512 tier");
       const ConvGeom &g = s.d->g;
       if (g.k[2] != 3 || g.d[2] != 1 || g.s[2] > 2 || s.d->groups * s.d->csg % 16 != 0)
         return why("not the 3-wide tiles of whole 16-channel vectors");
       if (env != nullptr && std::strcmp(env, "on") == 0) return true;
       const int64_t l2 = static_cast<int64_t>(core::cpu_features().l2_bytes);
       if (s.out_bytes_per_thread <= l2)
         return why("output per thread %lld KiB fits L2 %lld KiB", static_cast<long long>(s.out_bytes_per_thread >> 10),
                    static_cast<long long>(l2 >> 10));
       return true;
     }},
    {"cached_stores", core::kNoIsa, nullptr},
};

bool choose_dw_stream(const ConvDesc &d, int tier, int threads) {
  core::ImplTrace trace;
  const bool traced = core::current_phase1_trace() != nullptr;
  const int64_t bytes = d.batch * d.groups * d.csg * d.g.small_n() * 4 / std::max(1, threads);
  const bool avx512 = std::strcmp(kDirectTiers[tier].name, "avx512") == 0;
  const int i = core::choose(kDwNhwcStores, DwStoresDesc{&d, avx512, bytes}, traced ? &trace : nullptr);
  record("dw_stores", kDwNhwcStores[i].name, traced ? &trace : nullptr);
  return i == 0;
}

int choose_direct_groups(const ConvGeom &g, int64_t c_in) {
  core::ImplTrace trace;
  const bool traced = core::current_phase1_trace() != nullptr;
  const int i = core::choose(kDirectGroups, DirectGroupDesc{c_in * g.kprod() * kernels::kDirectBlock},
                             traced ? &trace : nullptr);
  record("direct_groups", kDirectGroups[i].name, traced ? &trace : nullptr);
  return i == 0 ? 4 : 2;
}

// The best ISA tier of the direct kernels, noted in the trace as conv:<engine>/<tier>.
int choose_tier(const char *engine) {
  core::ImplTrace trace;
  const bool traced = core::current_phase1_trace() != nullptr;
  const int tier = core::choose(kDirectTiers, 0, traced ? &trace : nullptr);
  record(engine, kDirectTiers[tier].name, traced ? &trace : nullptr);
  return tier;
}

}  // namespace

void record(const char *engine, const char *name, const core::ImplTrace *trace) {
  if (core::current_phase1_trace() != nullptr) core::record_choice(std::string("conv:") + engine + "/" + name, trace);
}

void PackedConvWeight::with(const core::LaunchArgs &args, const Weight &w, const Bias &b, int64_t c_out,
                            size_t floats, const std::function<void(const char *, const char *, float *)> &pack,
                            const std::function<void(const float *)> &use) const {
  const char *wp = w.ref.address(args), *bp = b.present() ? b.ref.address(args) : nullptr;
  uintptr_t lo = 0, hi = 0;
  rt::view_byte_range(wp, 5, w.dims, w.strides, static_cast<size_t>(esz(w.dt)), &lo, &hi);  // (never empty)
  auto pack_both = [&](float *dst) { pack(wp, bp, dst); };
  if (bp != nullptr) {
    // The bias is packed with the weight: the copy is stale when either changes (the bias's own
    // copy is only its tracker: it holds nothing).
    uintptr_t blo = 0, bhi = 0;
    rt::view_byte_range(bp, 1, &c_out, &b.stride, static_cast<size_t>(esz(b.dt)), &blo, &bhi);
    bool bias_changed = false;
    bias->with(reinterpret_cast<const void *>(blo), bhi - blo, 0, [&](float *) { bias_changed = true; },
               [](const float *) {});
    if (bias_changed) weight->invalidate_if_overlaps(0, UINTPTR_MAX);
  }
  weight->with(reinterpret_cast<const void *>(lo), hi - lo, floats, pack_both, use);
}

namespace {

int choose_impl(const ConvDesc &d, const char *engine) {
  core::ImplTrace trace;
  const bool traced = core::current_phase1_trace() != nullptr;
  const int i = core::choose(kForwardImpls, d, traced ? &trace : nullptr);
  record(engine, kForwardImpls[i].name, traced ? &trace : nullptr);
  return i;
}

}  // namespace

kernels::GemmPlan plan_gemm(const kernels::GemmDesc &d) {
  kernels::GemmPlan p;
  if (!kernels::gemm_plan(d, &p))
    throw_error(ACLNN_ERR_INNER_TILING_ERROR, "GEMM planning failed: %s", last_error_message());
  return p;
}

namespace {

// ---- The im2col / col2im + GEMM step (all three modes) ----

class ConvGemmStep final : public core::Step {
 public:
  Mode mode = Mode::kForward;
  ConvGeom g;
  int64_t groups = 1, csg = 1, cbg = 1, kc = 1, batch = 0;
  Side big, small;
  Weight w;
  Bias bias;                 // forward: small-side channels; data: big-side channels
  bool pack_w = false;       // weight gathered to dense fp32 first
  bool bias_prefill = false;  // forward: the tile is filled with the bias, the GEMM adds to it (beta = 1)
  int64_t w_row = 0, w_j = 0;  // strides of the (possibly packed) weight: [C_small, j]
  aclDataType w_dt = ACL_FLOAT;
  // Small-side tiles: flat (tiles over the flattened spatial index) or row by row.
  bool flat = true;
  int64_t fs = 1, lt = 1, tail = 0;
  kernels::GemmPlan full, part;
  core::WsKey col, acc, wpack, scratch;

  int run(const core::LaunchArgs &args) const override {
    const char *wbase = w.ref.address(args);
    if (pack_w) {
      float *p = reinterpret_cast<float *>(args.get(wpack));
      kernels::conv_to_float(wbase, w.dt, 5, w.dims, w.strides, p);
      wbase = reinterpret_cast<const char *>(p);
    }
    char *bigp = big.ref.address(args), *smallp = small.ref.address(args);
    char *colp = args.get(col);
    float *accp = reinterpret_cast<float *>(acc.booked() ? args.get(acc) : nullptr);
    char *sc = args.get(scratch);
    const char *biasp = bias.present() ? bias.ref.address(args) : nullptr;
    const int64_t wes = esz(w_dt), ses = esz(small.dt);
    if (mode == Mode::kWgrad) std::fill(accp, accp + small.c * kc, 0.0f);
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t gi = 0; gi < groups; ++gi) {
        const kernels::ConvImage big_img = big.image(bigp, n, gi * cbg);
        char *small_g = smallp + ses * (n * small.sn + gi * csg * small.sc);
        const char *w_g = wbase + wes * gi * csg * w_row;
        if (mode == Mode::kData) std::fill(accp, accp + cbg * g.big_n(), 0.0f);
        const int64_t rows = flat ? 1 : g.small[0] * g.small[1];
        const int64_t span = flat ? g.small_n() : g.small[2];
        for (int64_t r = 0; r < rows; ++r) {
          for (int64_t c0 = 0; c0 < span; c0 += lt) {
            const int64_t len = std::min(lt, span - c0);
            const kernels::GemmPlan &plan = len == lt ? full : part;
            const int64_t l0 = r * span + c0;
            const int64_t off = flat ? c0 * fs
                                     : (r / g.small[1]) * small.ss[0] + (r % g.small[1]) * small.ss[1] + c0 * small.ss[2];
            char *tile = small_g + ses * off;
            switch (mode) {
              case Mode::kForward: {
                kernels::conv_im2col(g, big_img, cbg, l0, len, colp, lt);
                const char *d = biasp != nullptr ? biasp + esz(bias.dt) * gi * csg * bias.stride : nullptr;
                if (bias_prefill)
                  kernels::conv_fill_rows(tile, small.dt, csg, len, small.sc, flat ? fs : small.ss[2], d, bias.dt,
                                          bias.stride);
                kernels::gemm_run(plan, w_g, colp, tile, sc, bias_prefill ? nullptr : d);
                break;
              }
              case Mode::kData:
                kernels::gemm_run(plan, w_g, tile, colp, sc);
                kernels::conv_col2im(g, reinterpret_cast<const float *>(colp), lt, cbg, l0, len, accp);
                break;
              case Mode::kWgrad:
                kernels::conv_im2col(g, big_img, cbg, l0, len, colp, lt);
                kernels::gemm_run(plan, tile, colp, accp + gi * csg * kc, sc);
                break;
            }
          }
        }
        if (mode == Mode::kData) {
          const char *bb = biasp != nullptr ? biasp + esz(bias.dt) * gi * cbg * bias.stride : nullptr;
          kernels::ConvImage out = big_img;
          kernels::conv_store(accp, cbg, g.big, out, bb, bias.dt, bias.stride);
        }
      }
    }
    if (mode == Mode::kWgrad) {
      // gradWeight (registered as `w`) from the accumulator.
      kernels::conv_from_float(accp, 5, w.dims, w.strides, w.dt, const_cast<char *>(w.ref.address(args)));
    }
    return 0;
  }
};

// ---- The direct depthwise step ----

class DepthwiseStep final : public core::Step {
 public:
  kernels::DepthwiseFn fn = nullptr;
  kernels::DepthwiseArgs a;
  Side big, small;
  Weight w;
  Bias bias;
  core::WsKey scratch;
  int threads = 1;
  int run(const core::LaunchArgs &args) const override {
    kernels::DepthwiseArgs x = a;
    x.in = big.image(big.ref.address(args), 0, 0);
    x.out = small.image(small.ref.address(args), 0, 0);
    x.out_base = small.ref.address(args);
    x.w = w.ref.address(args);
    x.bias = bias.present() ? bias.ref.address(args) : nullptr;
    fn(x, scratch.booked() ? reinterpret_cast<float *>(args.get(scratch)) : nullptr, threads);
    return 0;
  }
};

// ---- The direct channels-last step: the weight packed once per executor, then the kernel ----

class DirectStep final : public core::Step {
 public:
  kernels::DirectFn fn = nullptr;
  kernels::DirectRowsFn rows_fn = nullptr;  // direct_rows instead of fn, with its per-thread scratch
  core::WsKey scratch;
  kernels::DirectArgs a;
  Side big, small;
  Weight w;
  Bias bias;
  int threads = 1;
  PackedConvWeight packed;  // the weight and bias packed together (kept across launches)
  int run(const core::LaunchArgs &args) const override {
    kernels::DirectArgs x = a;
    x.in = reinterpret_cast<const float *>(big.ref.address(args));
    x.out = reinterpret_cast<float *>(small.ref.address(args));
    const size_t floats = static_cast<size_t>(rows_fn != nullptr
                                                  ? kernels::conv_direct_rows_packed_floats(a.g, a.c_in, a.c_out)
                                                  : kernels::conv_direct_packed_floats(a.g, a.c_in, a.c_out));
    auto pack = [&](const char *wp, const char *bp, float *dst) {
      if (rows_fn != nullptr)
        kernels::conv_direct_rows_pack(a.g, a.c_in, a.c_out, wp, w.dt, w.strides, bp, bias.dt, bias.stride, dst);
      else
        kernels::conv_direct_pack(a.g, a.c_in, a.c_out, wp, w.dt, w.strides, bp, bias.dt, bias.stride, dst);
    };
    packed.with(args, w, bias, a.c_out, floats, pack, [&](const float *p) {
      x.w = p;
      if (rows_fn != nullptr) rows_fn(x, reinterpret_cast<float *>(args.get(scratch)), threads);
      else fn(x, threads);
    });
    return 0;
  }
};

// ---- The few-input-channel step: the weight converted at every launch (it is tiny), then the kernel ----

class SmallCinStep final : public core::Step {
 public:
  kernels::SmallFn fn = nullptr;
  kernels::SmallArgs a;
  Side big, small;
  Weight w;
  Bias bias;
  core::WsKey weights, planes;
  int threads = 1;
  int run(const core::LaunchArgs &args) const override {
    kernels::SmallArgs x = a;
    x.in = reinterpret_cast<const float *>(big.ref.address(args));
    x.out = reinterpret_cast<float *>(small.ref.address(args));
    float *wf = reinterpret_cast<float *>(args.get(weights));
    kernels::conv_small_weights(a.g, a.c_in, a.c_out, w.ref.address(args), w.dt, w.strides,
                                bias.present() ? bias.ref.address(args) : nullptr, bias.dt, bias.stride, wf);
    x.w = wf;
    x.bias = wf + a.c_out * a.c_in * a.g.kprod();
    fn(x, reinterpret_cast<float *>(args.get(planes)), threads);
    return 0;
  }
};

class BiasGradStep final : public core::Step {
 public:
  Side go;
  core::OperandRef out;
  aclDataType out_dt = ACL_FLOAT;
  int64_t out_stride = 1;
  int run(const core::LaunchArgs &args) const override {
    kernels::conv_bias_grad(go.ref.address(args), go.dt, go.n, go.c, go.sp, go.sn, go.sc, go.ss, out.address(args),
                            out_dt, out_stride);
    return 0;
  }
};


// ---- Recording ----


// The column tiling of the small side.
void set_tiles(ConvGemmStep &s, const Side &small_side) {
  const int64_t f = small_side.flat_stride();
  s.flat = f >= 0;
  s.fs = s.flat ? f : 0;
  const int64_t span = s.flat ? s.g.small_n() : s.g.small[2];
  const int64_t budget = column_budget();
  int64_t cap = budget / (s.kc * 4);
  if (cap < span) cap = budget >= (int64_t{1} << 20) ? std::max<int64_t>(16, cap / 16 * 16) : std::max<int64_t>(1, cap);
  s.lt = std::max<int64_t>(1, std::min(span, cap));
  s.tail = span % s.lt;
}

void set_weight(ConvGemmStep &s, const Weight &w, core::OpBuilder &b) {
  s.w = w;
  const int64_t j = w.j_stride();
  if (j < 0) {
    s.pack_w = true;
    s.w_row = s.kc;
    s.w_j = 1;
    s.w_dt = ACL_FLOAT;
    s.wpack = b.book("conv.weight", static_cast<uint64_t>(w.dims[0] * s.kc * 4));
  } else {
    s.w_row = w.strides[0];
    s.w_j = j;
    s.w_dt = w.dt;
  }
}

void finish_gemm_step(core::OpBuilder &b, std::unique_ptr<ConvGemmStep> s,
                      kernels::GemmDesc (*desc)(const ConvGemmStep &, int64_t)) {
  s->full = plan_gemm(desc(*s, s->lt));
  size_t ws = s->full.workspace_bytes;
  if (s->tail > 0) {
    s->part = plan_gemm(desc(*s, s->tail));
    ws = std::max(ws, s->part.workspace_bytes);
  }
  const size_t col_es = s->mode == Mode::kData ? 4 : static_cast<size_t>(esz(s->big.dt));
  s->col = b.book("conv.columns", static_cast<uint64_t>(s->kc * s->lt) * col_es);
  if (s->mode == Mode::kData) s->acc = b.book("conv.accumulator", static_cast<uint64_t>(s->cbg * s->g.big_n() * 4));
  if (s->mode == Mode::kWgrad) s->acc = b.book("conv.weight_grad", static_cast<uint64_t>(s->small.c * s->kc * 4));
  s->scratch = b.book("gemm.scratch", ws);
  b.add_step<ConvGemmStep>(std::move(*s));
}

kernels::GemmDesc forward_desc(const ConvGemmStep &s, int64_t len) {
  kernels::GemmDesc d;
  d.m = s.csg;
  d.n = len;
  d.k = s.kc;
  d.a = {s.w_dt, s.w_row, s.w_j, 0};
  d.b = {s.big.dt, s.lt, 1, 0};
  d.c = {s.small.dt, s.small.sc, s.flat ? s.fs : s.small.ss[2], 0};
  if (s.bias.present()) {
    d.beta = 1.0f;
    if (!s.bias_prefill) {
      d.has_d = true;
      d.d = {s.bias.dt, s.bias.stride, 0, 0};
    }
  }
  return d;
}

kernels::GemmDesc data_desc(const ConvGemmStep &s, int64_t len) {
  kernels::GemmDesc d;
  d.m = s.kc;
  d.n = len;
  d.k = s.csg;
  d.a = {s.w_dt, s.w_j, s.w_row, 0};
  d.b = {s.small.dt, s.small.sc, s.flat ? s.fs : s.small.ss[2], 0};
  d.c = {ACL_FLOAT, s.lt, 1, 0};
  return d;
}

kernels::GemmDesc wgrad_desc(const ConvGemmStep &s, int64_t len) {
  kernels::GemmDesc d;
  d.m = s.csg;
  d.n = s.kc;
  d.k = len;
  d.a = {s.small.dt, s.small.sc, s.flat ? s.fs : s.small.ss[2], 0};
  d.b = {s.big.dt, 1, s.lt, 0};
  d.c = {ACL_FLOAT, s.kc, 1, 0};
  d.beta = 1.0f;
  return d;
}

ConvDesc desc_of(Mode mode, const Problem &p, const Side &big, const Side &small, int64_t cbg, int64_t csg) {
  ConvDesc d{mode,     p.g,      p.groups, cbg,    csg, big.flat_stride() >= 0, small.flat_stride() >= 0,
             big.sc,   small.sc, big.dt,   small.dt, small.n};
  d.big_fs = big.flat_stride();
  d.small_fs = small.flat_stride();
  d.small_s2 = small.ss[2];
  d.big_s2 = big.ss[2];
  return d;
}

// The bias is written first and the GEMM adds its product (beta = 1) when that rounds no
// differently: the output is FLOAT or has the bias's dtype (the bias is then exact in it). The
// GEMM's addend epilogue (D) is the general way, slower on the engine's direct-C path.
bool prefill_bias(const Bias &bias, const Side &out) {
  return bias.present() && (out.dt == ACL_FLOAT || out.dt == bias.dt);
}

// Fills a registered side's channels with the bias (before a GEMM step that adds to it).
class BiasFillStep final : public core::Step {
 public:
  Side out;
  Bias bias;
  int run(const core::LaunchArgs &args) const override {
    char *o = out.ref.address(args);
    const char *bp = bias.ref.address(args);
    const int64_t es = esz(out.dt), sp = out.sp[0] * out.sp[1] * out.sp[2];
    const int64_t fs = out.flat_stride();
    core::parallel_for(out.n, 1, [&](int64_t n0, int64_t n1) {
      for (int64_t n = n0; n < n1; ++n) {
        if (fs >= 0) {
          kernels::conv_fill_rows(o + es * n * out.sn, out.dt, out.c, sp, out.sc, fs, bp, bias.dt, bias.stride);
          continue;
        }
        for (int64_t x0 = 0; x0 < out.sp[0]; ++x0)
          for (int64_t x1 = 0; x1 < out.sp[1]; ++x1)
            kernels::conv_fill_rows(o + es * (n * out.sn + x0 * out.ss[0] + x1 * out.ss[1]), out.dt, out.c, out.sp[2],
                                    out.sc, out.ss[2], bp, bias.dt, bias.stride);
      }
    });
    return 0;
  }
};

// The geometry, channels and strides of the direct kernels' arguments (DirectArgs / SmallArgs) and
// the step's operands.
template <class StepT>
void set_direct_operands(StepT &s, const Problem &p, const Side &big, const Side &small, const Weight &w,
                         const Bias &bias) {
  s.a.g = p.g;
  s.a.n = big.n;
  s.a.c_in = big.c;
  s.a.c_out = small.c;
  s.a.in_sn = big.sn;
  s.a.in_sc = big.sc;
  s.a.out_sn = small.sn;
  s.a.out_sc = small.sc;
  for (int i = 0; i < 3; ++i) s.a.in_ss[i] = big.ss[i], s.a.out_ss[i] = small.ss[i];
  s.big = big;
  s.small = small;
  s.w = w;
  s.bias = bias;
}

}  // namespace

// small = W @ im2col(big) (+ bias).
void record_forward(core::OpBuilder &b, const Problem &p, const Side &big, const Side &small, const Weight &w,
                    const Bias &bias) {
  if (small.n == 0 || p.g.small_n() == 0 || small.c == 0) return;
  const int64_t cbg = big.c / p.groups, csg = small.c / p.groups;
  const ConvDesc d = desc_of(Mode::kForward, p, big, small, cbg, csg);
  const int impl = choose_impl(d, "forward");
  if (impl == kDepthwiseNhwc || impl == kDepthwiseInPlace || impl == kDepthwiseRowGroups ||
      impl == kDepthwiseRows || impl == kDepthwiseDirect) {  // in the best ISA tier
    DepthwiseStep s;
    const int tier = choose_tier("depthwise");
    s.fn = impl == kDepthwiseNhwc        ? kDepthwiseNhwcFns[tier]
           : impl == kDepthwiseInPlace ? kDwInPlaceFns[tier]
           : impl == kDepthwiseRowGroups ? kDwGroupsFns[tier]
           : impl == kDepthwiseRows      ? kDwRowsFns[tier]
                                         : kDepthwiseFns[tier];
    s.a.g = p.g;
    s.a.n = big.n;
    s.a.c_in = big.c;
    s.a.mult = csg;
    s.a.in_sn = big.sn;
    s.a.w_dtype = w.dt;
    s.a.w_s0 = w.strides[0];
    for (int i = 0; i < 3; ++i) s.a.w_ss[i] = w.strides[2 + i];
    s.a.bias_dtype = bias.dt;
    s.a.bias_s = bias.stride;
    s.a.out_sn = small.sn;
    s.big = big;
    s.small = small;
    s.w = w;
    s.bias = bias;
    s.threads = static_cast<int>(std::min<int64_t>(core::num_threads(), std::max<int64_t>(1, big.n * big.c)));
    if (impl == kDepthwiseInPlace) {  // no scratch (s.scratch unbooked); row chunks when planes are few
      s.threads = core::num_threads();
    } else if (impl == kDepthwiseRowGroups) {  // per thread: its row ring (also when row chunks outnumber the planes)
      s.threads = core::num_threads();
      s.scratch = b.book("conv.depthwise_row_groups",
                         static_cast<uint64_t>(kernels::conv_dw_groups_scratch_floats(p.g, csg) * 4 * s.threads));
    } else if (impl == kDepthwiseRows) {  // likewise
      s.threads = core::num_threads();
      s.scratch = b.book("conv.depthwise_rows",
                         static_cast<uint64_t>(kernels::conv_dw_rows_scratch_floats(p.g, csg) * 4 * s.threads));
    } else if (impl == kDepthwiseNhwc) {  // the re-laid-out weight and bias, shared by the threads
      s.a.stream_out = choose_dw_stream(d, tier, s.threads);
      s.scratch = b.book("conv.depthwise_weight",
                         static_cast<uint64_t>(kernels::conv_depthwise_nhwc_scratch_floats(p.g, big.c) * 4));
    } else {
      s.scratch = b.book("conv.depthwise_planes",
                         static_cast<uint64_t>(kernels::conv_depthwise_scratch_floats(p.g) * 4 * s.threads));
    }
    b.add_step<DepthwiseStep>(std::move(s));
    return;
  }
  if (impl == kSmallCin) {
    SmallCinStep s;
    s.fn = kSmallFns[choose_tier("small")];
    set_direct_operands(s, p, big, small, w, bias);
    s.threads = core::num_threads();  // (the kernel uses at most one per (image, 4 channels))
    s.weights = b.book("conv.small_weights",
                       static_cast<uint64_t>(kernels::conv_small_weight_floats(p.g, big.c, small.c) * 4));
    s.planes = b.book("conv.small_planes",
                      static_cast<uint64_t>(kernels::conv_small_planes(p.g, big.c).floats * 4 * s.threads));
    b.add_step<SmallCinStep>(std::move(s));
    return;
  }
  if (impl == kWinograd) {
    const int tier = choose_tier("winograd");
    const int m = winograd_tile(p.g, small.n, cbg, csg, core::Why(nullptr, "winograd"));
    record("winograd", m == 2 ? "f2x2" : "f4x4", nullptr);
    record_winograd(b, p, big, small, w, bias, tier, m);
    return;
  }
  if (impl == kDirectNhwc || impl == kDirectNchw || impl == kPointwiseNchw) {  // the weight packed once
    DirectStep s;
    s.fn = impl == kPointwiseNchw ? kPwNchwFns[choose_tier("pointwise")] : kDirectFns[choose_tier("direct")];
    set_direct_operands(s, p, big, small, w, bias);
    if (impl != kPointwiseNchw) s.a.group_blocks = choose_direct_groups(p.g, big.c);
    s.threads = core::num_threads();
    b.add_step<DirectStep>(std::move(s));
    return;
  }
  if (impl == kDirectRows || impl == kDirectRowsNchw) {  // its own weight layout, packed once per executor the same way
    DirectStep s;
    const bool nchw = impl == kDirectRowsNchw;
    s.rows_fn = nchw ? kDirectRowsNchwFns[choose_tier("direct_rows")] : kDirectRowsFns[choose_tier("direct_rows")];
    set_direct_operands(s, p, big, small, w, bias);
    s.threads = core::num_threads();
    const int64_t floats = nchw ? kernels::conv_direct_rows_nchw_scratch_floats(p.g, big.c, small.c)
                                : kernels::conv_direct_rows_scratch_floats(p.g, big.c, small.c);
    s.scratch = b.book("conv.direct_rows", static_cast<uint64_t>(floats * 4 * s.threads));
    b.add_step<DirectStep>(std::move(s));
    return;
  }
  if (impl == kGemm1x1) {  // gemm_1x1: one GEMM per group, batched over N, reading every operand in place
    GemmCall call;
    kernels::GemmDesc &gd = call.desc;
    call.ref[kGemmA] = w.ref;
    call.ref[kGemmB] = big.ref;
    call.ref[kGemmC] = small.ref;
    gd.batch = small.n;
    gd.m = csg;
    gd.n = p.g.small_n();
    gd.k = cbg;
    gd.a = {w.dt, w.strides[0], w.strides[1], 0};
    gd.b = {big.dt, big.sc, big.flat_stride(), big.sn};
    gd.c = {small.dt, small.sc, small.flat_stride(), small.sn};
    if (prefill_bias(bias, small)) {
      BiasFillStep fill;
      fill.out = small;
      fill.bias = bias;
      b.add_step<BiasFillStep>(std::move(fill));
      gd.beta = 1.0f;
    } else if (bias.present()) {
      call.ref[kGemmD] = bias.ref;
      gd.has_d = true;
      gd.beta = 1.0f;
      gd.d = {bias.dt, bias.stride, 0, 0};
    }
    if (p.groups > 1) {
      call.outer_ndim = 1;
      call.outer_shape[0] = p.groups;
      call.outer_stride[kGemmA][0] = csg * w.strides[0] * esz(w.dt);
      call.outer_stride[kGemmB][0] = cbg * big.sc * esz(big.dt);
      call.outer_stride[kGemmC][0] = csg * small.sc * esz(small.dt);
      call.outer_stride[kGemmD][0] = csg * bias.stride * esz(bias.dt);
    }
    record_gemms(b, {call});
    return;
  }
  auto s = std::make_unique<ConvGemmStep>();
  s->mode = Mode::kForward;
  s->bias_prefill = prefill_bias(bias, small);
  s->g = p.g;
  s->groups = p.groups;
  s->csg = csg;
  s->cbg = cbg;
  s->kc = cbg * p.g.kprod();
  s->batch = small.n;
  s->big = big;
  s->small = small;
  s->bias = bias;
  set_weight(*s, w, b);
  set_tiles(*s, small);
  finish_gemm_step(b, std::move(s), forward_desc);
}

// big = col2im(W^T @ small) (+ bias on big's channels).
void record_data(core::OpBuilder &b, const Problem &p, const Side &big, const Side &small, const Weight &w,
                 const Bias &bias) {
  if (big.n == 0 || p.g.big_n() == 0 || big.c == 0) return;
  const int64_t cbg = big.c / p.groups, csg = small.c / p.groups;
  const ConvDesc d = desc_of(Mode::kData, p, big, small, cbg, csg);
  const int impl = choose_impl(d, "data");
  if (impl == kGemm1x1) {  // gemm_1x1: big_g = W_g^T @ small_g
    GemmCall call;
    kernels::GemmDesc &gd = call.desc;
    call.ref[kGemmA] = w.ref;
    call.ref[kGemmB] = small.ref;
    call.ref[kGemmC] = big.ref;
    gd.batch = big.n;
    gd.m = cbg;
    gd.n = p.g.big_n();
    gd.k = csg;
    gd.a = {w.dt, w.strides[1], w.strides[0], 0};
    gd.b = {small.dt, small.sc, small.flat_stride(), small.sn};
    gd.c = {big.dt, big.sc, big.flat_stride(), big.sn};
    if (prefill_bias(bias, big)) {
      BiasFillStep fill;
      fill.out = big;
      fill.bias = bias;
      b.add_step<BiasFillStep>(std::move(fill));
      gd.beta = 1.0f;
    } else if (bias.present()) {
      call.ref[kGemmD] = bias.ref;
      gd.has_d = true;
      gd.beta = 1.0f;
      gd.d = {bias.dt, bias.stride, 0, 0};
    }
    if (p.groups > 1) {
      call.outer_ndim = 1;
      call.outer_shape[0] = p.groups;
      call.outer_stride[kGemmA][0] = csg * w.strides[0] * esz(w.dt);
      call.outer_stride[kGemmB][0] = csg * small.sc * esz(small.dt);
      call.outer_stride[kGemmC][0] = cbg * big.sc * esz(big.dt);
      call.outer_stride[kGemmD][0] = cbg * bias.stride * esz(bias.dt);
    }
    record_gemms(b, {call});
    return;
  }
  auto s = std::make_unique<ConvGemmStep>();
  s->mode = Mode::kData;
  s->g = p.g;
  s->groups = p.groups;
  s->csg = csg;
  s->cbg = cbg;
  s->kc = cbg * p.g.kprod();
  s->batch = big.n;
  s->big = big;
  s->small = small;
  s->bias = bias;
  set_weight(*s, w, b);
  set_tiles(*s, small);
  finish_gemm_step(b, std::move(s), data_desc);
}

// gradWeight (registered as `gw`, shaped like the weight) = sum over n of small_g @ im2col(big)^T.
void record_wgrad(core::OpBuilder &b, const Problem &p, const Side &big, const Side &small, const Weight &gw) {
  const int64_t cbg = big.c / p.groups, csg = small.c / p.groups;
  record("wgrad", "im2col_gemm", nullptr);
  auto s = std::make_unique<ConvGemmStep>();
  s->mode = Mode::kWgrad;
  s->g = p.g;
  s->groups = p.groups;
  s->csg = csg;
  s->cbg = cbg;
  s->kc = cbg * p.g.kprod();
  s->batch = p.g.small_n() == 0 ? 0 : small.n;
  s->big = big;
  s->small = small;
  s->w = gw;
  s->w_dt = gw.dt;
  set_tiles(*s, small);
  if (s->lt == 0) s->lt = 1;
  finish_gemm_step(b, std::move(s), wgrad_desc);
}

void record_bias_grad(core::OpBuilder &b, const Side &go, int slot, const aclTensor &grad_bias) {
  BiasGradStep st;
  st.go = go;
  st.out = core::OperandRef::of_slot(slot, grad_bias);
  st.out_dt = grad_bias.dtype;
  st.out_stride = grad_bias.strides[0];
  b.add_step<BiasGradStep>(std::move(st));
}

}  // namespace opsnn::ops::conv_parts
