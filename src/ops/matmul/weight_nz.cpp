// The FRACTAL_NZ weights of the *WeightNz rows (weight_nz.h).
#include "ops/matmul/weight_nz.h"

#include <memory>

#include "common/error.h"
#include "core/fractal_layout.h"
#include "core/op_checks.h"
#include "kernels/matmul/gemm.h"

namespace opsnn::ops {

WeightNzCopy::WeightNzCopy(int slot, const aclTensor &w) {
  src_ = core::OperandRef::of_slot(slot, w);
  esz_ = static_cast<int64_t>(core::dtype_size(w.dtype));
  rows_ = w.dims[w.ndim - 2];
  cols_ = w.dims[w.ndim - 1];
  batch_ = rows_ * cols_ == 0 ? 0 : w.numel() / (rows_ * cols_);
  transposed_ = core::fractal_nz_transposed(w);
  int64_t storage = 1;  // the blocks: check_fractal_nz made storage_dims the NZ shape
  for (int i = 0; i < w.storage_ndim; ++i) storage *= w.storage_dims[i];
  storage_bytes_ = storage * esz_;
}

void WeightNzCopy::with(const core::LaunchArgs &args, const std::function<void(const char *)> &use) const {
  const char *s = src_.address(args);
  const size_t floats = static_cast<size_t>((batch_ * rows_ * cols_ * esz_ + 3) / 4);
  copy_->with(
      s, static_cast<size_t>(storage_bytes_), floats,
      [&](float *dst) { core::fractal_nz_to_dense(s, esz_, batch_, rows_, cols_, transposed_, reinterpret_cast<char *>(dst)); },
      [&](const float *dense) { use(reinterpret_cast<const char *>(dense)); });
}

bool check_weight_nz(const aclTensor *w, const char *name, std::initializer_list<aclDataType> dtypes) {
  if (w != nullptr && core::is_plain_format(w->format)) {
    core::check_dtype_in(w, name, dtypes);
    return false;
  }
  core::check_not_null(w, name);
  aclTensor as_plain = *w;  // the dtype check alone (check_dtype_in also wants a plain format)
  as_plain.format = ACL_FORMAT_ND;
  core::check_dtype_in(&as_plain, name, dtypes);
  core::check_fractal_nz(w, name);
  return true;
}

bool weight_nz_is_prepacked_layout(const aclTensor &w) {
  return w.ndim == 2 && !core::fractal_nz_transposed(w) && core::fractal_c0(w.dtype) == kernels::kPrepackWidth &&
         w.dims[0] % core::kFractalRows == 0;
}

aclTensor weight_nz_logical(const aclTensor &w) {
  aclTensor v = w;
  v.format = ACL_FORMAT_ND;
  core::set_contiguous(v, core::Shape::of(w));
  return v;
}

}  // namespace opsnn::ops
