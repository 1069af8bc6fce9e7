// aclnnTransMatmulWeight, aclnnCalculateMatmulWeightSize(V2) (aclnnop/aclnn_trans_matmul_weight.h).
//
// TransMatmulWeight re-lays a 2-D FLOAT / FLOAT16 / BF16 weight [K, N] in place into the GEMM
// engine's pre-packed layout (kernels/matmul/gemm.h: 16-column panels over all of K, same dtype)
// and registers the buffer address, so later matmul launches whose B is that address, with the
// same K, N and dtype, skip packing. INT8 weights and weights of more than 2 dims keep their ND
// layout (our kernels read those directly); the call is then a no-op. The buffer must hold
// aclnnCalculateMatmulWeightSizeV2 elements; our layout needs K * align(N, 16), which fits.
#include <algorithm>
#include <cstring>

#include "aclnnop/aclnn_trans_matmul_weight.h"
#include "common/error.h"
#include "core/dtype.h"
#include "core/op_builder.h"
#include "core/op_checks.h"
#include "kernels/matmul/gemm.h"
#include "kernels/matmul/gemm_elem.h"
#include "runtime/runtime.h"

using namespace opsnn;

namespace {

class TransMatmulWeightStep final : public core::Step {
 public:
  int slot = -1;
  int64_t offset_bytes = 0;
  kernels::GemmOperand src;  // the logical [K, N] view (element strides)
  int64_t k = 0, n = 0;
  core::WsKey copy_ws;  // the source copied aside (the packing writes over it)

  int run(const core::LaunchArgs &args) const override {
    char *base = static_cast<char *>(args.addrs[slot]) + offset_bytes;
    // Only device allocations are re-laid: the runtime hears when they are written, copied over
    // or freed, which ends the registry's entry. Host memory (allowed for tensors) can be freed
    // and reused behind our back, and a stale entry would make a later plain weight at the same
    // address read as packed: such a weight stays plain (the GEMM reads it as it is, same results).
    const void *alloc = nullptr;
    size_t alloc_bytes = 0;
    if (!rt::find_device_allocation(base, &alloc, &alloc_bytes)) return 0;
    const size_t es = core::dtype_size(src.dtype);
    // Copy the logical matrix out (contiguous), then write the packed layout over the buffer.
    char *copy = args.get(copy_ws);
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j)
        std::memcpy(copy + static_cast<size_t>(p * n + j) * es,
                    base + static_cast<size_t>(p * src.row_stride + j * src.col_stride) * es, es);
    kernels::GemmOperand dense{src.dtype, n, 1, 0};
    kernels::gemm_prepack_b(dense, k, n, copy, base);
    kernels::gemm_prepacked_b_register(base, k, n, src.dtype, src.row_stride, src.col_stride);
    return 0;
  }
};

int64_t align_up(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

uint64_t weight_size(const char *api, const aclIntArray *shape, aclDataType dtype) {
  core::require_not_null(shape, "tensorShape");
  const size_t nd = shape->values.size();
  if (nd < 2 || nd > 6)
    throw_error(ACLNN_ERR_PARAM_INVALID, "tensorShape must have 2 to 6 dims; it has %zu", nd);
  for (size_t i = 0; i < nd; ++i)
    if (shape->values[i] < 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "tensorShape[%zu] is %lld; dims must be >= 0", i,
                  static_cast<long long>(shape->values[i]));
  int64_t inner_align;
  switch (dtype) {
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_FLOAT: inner_align = 16; break;  // FLOAT: OpsNN extension, same formula
    case ACL_INT8: inner_align = 32; break;
    default:
      throw_error(ACLNN_ERR_PARAM_INVALID, "dataType %s is not supported; expected FLOAT16, BF16 or INT8 (or FLOAT)",
                  core::dtype_name(dtype));
  }
  (void)api;
  // Checked: a size of 2^62 elements or more is an error, never a wrapped (e.g. 0) answer.
  __int128 elems = 1;
  for (size_t i = 0; i + 2 < nd; ++i) elems = std::min<__int128>(elems * shape->values[i], __int128{1} << 62);
  const int64_t d0 = shape->values[nd - 2], d1 = shape->values[nd - 1];
  elems = std::min<__int128>(elems * align_up(std::min<int64_t>(d0, int64_t{1} << 62), 16), __int128{1} << 62);
  elems = std::min<__int128>(elems * align_up(std::min<int64_t>(d1, int64_t{1} << 62), inner_align), __int128{1} << 62);
  if (elems >= (__int128{1} << 62))
    throw_error(ACLNN_ERR_PARAM_INVALID, "tensorShape holds 2^62 elements or more once aligned");
  return static_cast<uint64_t>(elems);
}

}  // namespace

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnTransMatmulWeightGetWorkspaceSize(aclTensor *mmWeightRef,
                                                                                 uint64_t *workspaceSize,
                                                                                 aclOpExecutor **executor) {
  return core::phase1("aclnnTransMatmulWeight", workspaceSize, executor, [&](core::OpBuilder &b) {
    core::check_dtype_in(mmWeightRef, "mmWeightRef", {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_INT8});
    if (mmWeightRef->ndim < 2 || mmWeightRef->ndim > 6)
      throw_error(ACLNN_ERR_PARAM_INVALID, "mmWeightRef must have 2 to 6 dims; it has shape %s",
                  core::shape_string(*mmWeightRef).c_str());
    const int slot = b.inout(mmWeightRef);
    if (mmWeightRef->dtype == ACL_INT8 || mmWeightRef->ndim > 2 || mmWeightRef->numel() == 0) return;  // stays ND
    kernels::gemm_prepacked_b_mark_in_use();  // matmuls planned from now on also plan for packed B
    TransMatmulWeightStep &s = b.add_step<TransMatmulWeightStep>();
    s.slot = slot;
    s.offset_bytes = mmWeightRef->offset * static_cast<int64_t>(core::dtype_size(mmWeightRef->dtype));
    s.k = mmWeightRef->dims[0];
    s.n = mmWeightRef->dims[1];
    s.src = {mmWeightRef->dtype, mmWeightRef->strides[0], mmWeightRef->strides[1], 0};
    s.copy_ws =
        b.book("trans_weight.copy", static_cast<uint64_t>(s.k * s.n) * core::dtype_size(mmWeightRef->dtype));
    // The packed layout covers K * align(N, 16) elements from the view's first element: the
    // described storage (and the device allocation, checked below) must hold them.
    const __int128 packed_end = static_cast<__int128>(mmWeightRef->offset) + static_cast<__int128>(s.k) * align_up(s.n, 16);
    // The storage dims are only recorded (never bounded), so their product saturates: kCap is more
    // than any packed_end, and storage * dim stays in range.
    constexpr __int128 kCap = static_cast<__int128>(1) << 126;
    __int128 storage = 1;
    for (int i = 0; i < mmWeightRef->storage_ndim; ++i) {
      const int64_t d = mmWeightRef->storage_dims[i];  // >= 0 (aclCreateTensor)
      storage = d != 0 && storage > kCap / d ? kCap : storage * d;
    }
    if (storage < packed_end)
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "mmWeightRef's storage %s holds %lld elements; the packed weight [%lld, %lld] needs %lld from the "
                  "storage start (offset %lld + K * align(N, 16); aclnnCalculateMatmulWeightSizeV2 gives the size to "
                  "allocate)",
                  core::shape_string(mmWeightRef->storage_dims, mmWeightRef->storage_ndim).c_str(),
                  static_cast<long long>(storage), static_cast<long long>(s.k), static_cast<long long>(s.n),
                  static_cast<long long>(packed_end), static_cast<long long>(mmWeightRef->offset));
    aclTensor packed = *mmWeightRef;  // the packed extent as a flat view, against the allocation
    packed.ndim = 1;
    packed.dims[0] = static_cast<int64_t>(packed_end - mmWeightRef->offset);
    packed.strides[0] = 1;
    core::check_view_within_allocation(packed, "mmWeightRef (packed extent)");
  });
}
OPSNN_DEFINE_LAUNCH(TransMatmulWeight)

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnCalculateMatmulWeightSizeV2(const aclIntArray *tensorShape,
                                                                           aclDataType dataType,
                                                                           uint64_t *weightTensorSize) {
  static const char *kApi = "aclnnCalculateMatmulWeightSizeV2";
  return core::api_call(kApi, [&] {
    core::require_not_null(weightTensorSize, "weightTensorSize");
    *weightTensorSize = weight_size(kApi, tensorShape, dataType);
    return ACLNN_SUCCESS;
  });
}

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnCalculateMatmulWeightSize(const aclIntArray *tensorShape,
                                                                         uint64_t *weightTensorSize) {
  static const char *kApi = "aclnnCalculateMatmulWeightSize";
  return core::api_call(kApi, [&] {
    core::require_not_null(weightTensorSize, "weightTensorSize");
    *weightTensorSize = weight_size(kApi, tensorShape, ACL_FLOAT16);
    return ACLNN_SUCCESS;
  });
}
