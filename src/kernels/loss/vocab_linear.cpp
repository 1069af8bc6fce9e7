#include "kernels/loss/vocab_linear.h"

#include "aclnn/aclnn_base.h"
#include "common/error.h"
#include "core/thread_pool.h"

namespace opsnn::kernels {
namespace {

int64_t load_index(aclDataType dt, const char *base, int64_t off) {
  return dt == ACL_INT32 ? reinterpret_cast<const int32_t *>(base)[off] : reinterpret_cast<const int64_t *>(base)[off];
}

bool bit(const uint8_t *mask, int64_t stride, int64_t r) { return (mask[(r >> 3) * stride] >> (r & 7)) & 1; }

}  // namespace

void vocab_pack_mask(const char *target, aclDataType target_dtype, int64_t target_stride, int64_t rows,
                     int64_t start, int64_t end, uint8_t *out, int64_t out_stride) {
  for (int64_t k = 0; k < (rows + 7) / 8; ++k) {
    unsigned byte = 0;
    for (int64_t j = 0; j < 8; ++j) {
      const int64_t r = 8 * k + j;
      bool outside = true;
      if (r < rows) {
        const int64_t t = load_index(target_dtype, target, r * target_stride);
        outside = t < start || t >= end;
      }
      byte |= static_cast<unsigned>(outside) << j;
    }
    out[k * out_stride] = static_cast<uint8_t>(byte);
  }
}

int vocab_grad_rows(const VocabGradRows &a, float *g) {
  for (int64_t r = 0; r < a.rows; ++r) {
    if (bit(a.mask, a.mask_stride, r)) continue;
    const int64_t t = load_index(a.target_dtype, a.target, r * a.target_stride);
    if (t < 0 || t >= a.vocab)
      return fail(ACLNN_ERR_PARAM_INVALID,
                  "maskedTarget[%lld] = %lld is outside the shard's %lld classes while targetMask marks it inside",
                  static_cast<long long>(r), static_cast<long long>(t), static_cast<long long>(a.vocab));
  }
  core::parallel_for(a.rows, 16, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      float *row = g + r * a.ld;
      if (!bit(a.mask, a.mask_stride, r)) row[load_index(a.target_dtype, a.target, r * a.target_stride)] -= 1.0f;
      const float s = reinterpret_cast<const float *>(a.grad)[r * a.grad_stride];
      for (int64_t j = 0; j < a.vocab; ++j) row[j] *= s;
    }
  });
  return 0;
}

}  // namespace opsnn::kernels
