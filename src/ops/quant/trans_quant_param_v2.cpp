// aclnnTransQuantParamV2 (aclnnop/aclnn_trans_quant_param_v2.h): packs fp32 quantisation scales (and
// optional offsets) into the 64-bit words the quantised matmuls take as `scale`:
//   out[j] = (bits(scale[j]) & 0xFFFFE000) | (1 << 46)                 (the scale's top 19 bits)
//   with offset: o = clamp(round(offset[j]), -256, 255); out[j] |= (uint64(o) & 0x1FF) << 37
// round() is half away from zero (the documentation writes Round without saying which; OpsNN's
// choice), a NaN offset packs as 0 (the caller is asked to pass none).
// scale FLOAT (t,) or (1, n), offset optional FLOAT of the same forms, t = 1 or n (a count-1 operand
// broadcasts). out UINT64 or INT64 (the same bits): 1-D scale -> out (max(t_scale, t_offset),);
// 2-D scale -> out has scale's shape. Any strides.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "aclnnop/aclnn_trans_quant_param_v2.h"
#include "common/error.h"
#include "core/dtype.h"
#include "core/op_builder.h"
#include "core/op_checks.h"

using namespace opsnn;

namespace {

uint64_t encode(float scale, bool has_offset, float offset) {
  uint32_t bits;
  std::memcpy(&bits, &scale, 4);
  uint64_t word = static_cast<uint64_t>(bits & 0xFFFFE000u) | (uint64_t{1} << 46);
  if (has_offset) {
    float r = std::round(offset);
    r = r != r ? 0.0f : r;
    r = r < -256.0f ? -256.0f : r > 255.0f ? 255.0f : r;
    word |= (static_cast<uint64_t>(static_cast<int64_t>(r)) & 0x1FFu) << 37;
  }
  return word;
}

class TransQuantParamStep final : public core::Step {
 public:
  int scale_slot = -1, offset_slot = -1, out_slot = -1;
  int64_t scale_off = 0, offset_off = 0, out_off = 0;  // bytes
  int64_t count = 0, scale_stride = 0, offset_stride = 0, out_stride = 0;  // elements

  int run(const core::LaunchArgs &args) const override {
    const float *s = reinterpret_cast<const float *>(static_cast<const char *>(args.addrs[scale_slot]) + scale_off);
    const float *o = offset_slot < 0 ? nullptr
                                     : reinterpret_cast<const float *>(
                                           static_cast<const char *>(args.addrs[offset_slot]) + offset_off);
    uint64_t *y = reinterpret_cast<uint64_t *>(static_cast<char *>(args.addrs[out_slot]) + out_off);
    for (int64_t j = 0; j < count; ++j)
      y[j * out_stride] = encode(s[j * scale_stride], o != nullptr, o != nullptr ? o[j * offset_stride] : 0.0f);
    return 0;
  }
};

// (t,) or (1, t): t and the element stride along t.
void param_shape(const aclTensor *t, const char *name, int64_t *count, int64_t *stride) {
  const bool ok = t->ndim == 1 || (t->ndim == 2 && t->dims[0] == 1);
  if (!ok || t->numel() == 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected (t,) or (1, t) with t >= 1", name,
                core::shape_string(*t).c_str());
  *count = t->dims[t->ndim - 1];
  *stride = *count == 1 ? 0 : t->strides[t->ndim - 1];
}

}  // namespace

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnTransQuantParamV2GetWorkspaceSize(const aclTensor *scale,
                                                                                 const aclTensor *offset,
                                                                                 const aclTensor *out,
                                                                                 uint64_t *workspaceSize,
                                                                                 aclOpExecutor **executor) {
  return core::phase1("aclnnTransQuantParamV2", workspaceSize, executor, [&](core::OpBuilder &b) {
    core::check_not_null(scale, "scale");
    core::check_not_null(out, "out");
    core::check_dtype_in(scale, "scale", {ACL_FLOAT});
    if (offset != nullptr) core::check_dtype_in(offset, "offset", {ACL_FLOAT});
    core::check_dtype_in(out, "out", {ACL_UINT64, ACL_INT64});

    TransQuantParamStep &st = b.add_step<TransQuantParamStep>();
    int64_t ns = 0, no = 1;
    param_shape(scale, "scale", &ns, &st.scale_stride);
    if (offset != nullptr) param_shape(offset, "offset", &no, &st.offset_stride);
    if (ns != no && ns != 1 && no != 1)
      throw_error(ACLNN_ERR_PARAM_INVALID, "scale %s and offset %s: their lengths must be equal, or one of them 1",
                  core::shape_string(*scale).c_str(), core::shape_string(*offset).c_str());
    st.count = std::max(ns, no);
    if (scale->ndim == 2 && st.count != ns)
      throw_error(ACLNN_ERR_PARAM_INVALID, "a 2-D scale %s gives out its shape; offset %s is longer",
                  core::shape_string(*scale).c_str(), core::shape_string(*offset).c_str());
    core::Shape want;
    want.ndim = scale->ndim;
    want.dims[0] = scale->ndim == 2 ? 1 : st.count;
    want.dims[1] = st.count;
    core::check_shape_equals(*out, "out", want);
    core::check_no_internal_overlap(*out, "out");
    st.out_stride = out->strides[out->ndim - 1];

    st.scale_slot = b.input(scale);
    st.scale_off = scale->offset * 4;
    st.offset_slot = b.input(offset);
    if (offset != nullptr) st.offset_off = offset->offset * 4;
    st.out_slot = b.output(out);
    st.out_off = out->offset * 8;
  });
}
OPSNN_DEFINE_LAUNCH(TransQuantParamV2)
