// The 2:4 sparse weight of aclnnSparse4to2QuantMatmulWeightNz and aclnnTransSparse4to2Para
// (ops/matmul/sparse4to2_weight.h).
#include "ops/matmul/sparse4to2_weight.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/error.h"
#include "core/dtype.h"
#include "core/op_checks.h"
#include "ops/matmul/qmm_phase1.h"

namespace opsnn::ops {

namespace {

long long ll(int64_t v) { return static_cast<long long>(v); }

int64_t storage_elems(const aclTensor &t) {
  int64_t e = 1;
  for (int i = 0; i < t.storage_ndim; ++i) e *= t.storage_dims[i];
  return e;
}

// One operand of the pair: dtype, 2-D view (rows, cols) (or, with `blocks`, the 4-D view of the blocks
// themselves), storage of exactly `elems` elements after the view's offset, inside its allocation.
void check_part(const aclTensor *t, const char *name, aclDataType dtype, int64_t rows, int64_t cols, int64_t elems,
                const int64_t *blocks = nullptr) {
  core::check_not_null(t, name);
  if (t->dtype != dtype)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; expected %s", name, core::dtype_name(t->dtype),
                core::dtype_name(dtype));
  const bool as_blocks = blocks != nullptr && t->ndim == 4 && std::equal(blocks, blocks + 4, t->dims);
  if (!as_blocks && (t->ndim != 2 || t->dims[0] != rows || t->dims[1] != cols))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected (%lld, %lld)%s", name, core::shape_string(*t).c_str(),
                ll(rows), ll(cols),
                blocks == nullptr ? ""
                                  : (" or its blocks " + core::shape_string(blocks, 4)).c_str());
  if (storage_elems(*t) != t->offset + elems)  // the blocks from the view's start to the storage's end
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "%s's storage shape %s holds %lld elements; the blocks aclnnTransSparse4to2Para makes are %lld "
                "(after the view's offset %lld)",
                name, core::shape_string(t->storage_dims, t->storage_ndim).c_str(), ll(storage_elems(*t)), ll(elems),
                ll(t->offset));
  aclTensor flat = *t;  // the blocks as a flat view, against the allocation
  flat.ndim = 1;
  flat.dims[0] = elems;
  flat.strides[0] = 1;
  const std::string what = std::string(name) + " (storage blocks)";
  core::check_view_within_allocation(flat, what.c_str());
}

}  // namespace

void qmm_sparse_pack(const int8_t *weight, const aclIntArray *shape, int8_t **sparse_weight, int64_t **sparse_weight_dims,
                     uint64_t *sparse_weight_dims_num, uint8_t **index, int64_t **index_dims, uint64_t *index_dims_num) {
  core::check_not_null(weight, "weight");
  core::check_not_null(shape, "shape");
  core::check_not_null(sparse_weight, "sparseWeight");
  core::check_not_null(sparse_weight_dims, "sparseWeightDims");
  core::check_not_null(sparse_weight_dims_num, "sparseWeightDimsNum");
  core::check_not_null(index, "index");
  core::check_not_null(index_dims, "indexDims");
  core::check_not_null(index_dims_num, "indexDimsNum");
  if (shape->values.size() != 2)
    throw_error(ACLNN_ERR_PARAM_INVALID, "shape has %zu values; expected 2 (n, k)", shape->values.size());
  kernels::Sparse4to2Dims d;
  d.n = shape->values[0];
  d.k = shape->values[1];
  if (d.n < 1 || d.k < 1 || d.n > (int64_t{1} << 31) || d.k > (int64_t{1} << 31))
    throw_error(ACLNN_ERR_PARAM_INVALID, "shape is (%lld, %lld); n and k must be in [1, 2^31]", ll(d.n), ll(d.k));
  auto *values = static_cast<int8_t *>(std::malloc(static_cast<size_t>(d.value_bytes())));
  auto *codes = static_cast<uint8_t *>(std::malloc(static_cast<size_t>(d.code_bytes())));
  auto *vdims = static_cast<int64_t *>(std::malloc(4 * sizeof(int64_t)));
  auto *cdims = static_cast<int64_t *>(std::malloc(4 * sizeof(int64_t)));
  int64_t bad_row = 0, bad_col = 0;
  const bool allocated = values != nullptr && codes != nullptr && vdims != nullptr && cdims != nullptr;
  const bool sparse = allocated && kernels::sparse4to2_encode(weight, d, values, codes, &bad_row, &bad_col);
  if (!sparse) {
    std::free(values);
    std::free(codes);
    std::free(vdims);
    std::free(cdims);
    if (!allocated) throw_error(ACLNN_ERR_INNER, "cannot allocate the sparse weight of shape (%lld, %lld)", ll(d.n), ll(d.k));
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "weight is not 2:4 sparse: row %lld, columns %lld..%lld hold more than 2 non-zeros", ll(bad_row),
                ll(bad_col), ll(bad_col + 3));
  }
  const int64_t v[4] = {d.k_blocks(), d.n_blocks(), 16, 32}, c[4] = {d.k_blocks(), d.n_blocks(), 16, 8};
  std::memcpy(vdims, v, sizeof(v));
  std::memcpy(cdims, c, sizeof(c));
  *sparse_weight = values;
  *index = codes;
  *sparse_weight_dims = vdims;
  *index_dims = cdims;
  *sparse_weight_dims_num = 4;
  *index_dims_num = 4;
}

int64_t check_sparse4to2_weight(const aclTensor *values, const char *values_name, const aclTensor *codes,
                                const char *codes_name, int64_t k) {
  core::check_not_null(values, values_name);
  core::check_not_null(codes, codes_name);
  kernels::Sparse4to2Dims d;
  d.n = values->ndim == 2 ? values->dims[0] : 0;
  d.k = k;
  check_part(values, values_name, ACL_INT8, d.n, d.k_half(), d.value_bytes());
  // index: (n, ceil(k / 8)), or the 4-D view of its blocks an older page described.
  const int64_t blocks[4] = {d.k_blocks(), d.n_blocks(), 16, 8};
  check_part(codes, codes_name, ACL_UINT8, d.n, (k + 7) / 8, d.code_bytes(), blocks);
  return d.n;
}

aclTensor sparse4to2_dense_view(const aclTensor &values, int64_t n, int64_t k) {
  aclTensor v = values;
  v.format = ACL_FORMAT_ND;
  v.offset = 0;
  core::Shape s;
  s.ndim = 2;
  s.dims[0] = n;
  s.dims[1] = k;
  core::set_contiguous(v, s);
  return v;
}

Sparse4to2Dense::Sparse4to2Dense(int values_slot, const aclTensor &values, int codes_slot, const aclTensor &codes,
                                 int64_t n, int64_t k) {
  values_ = core::OperandRef::of_slot(values_slot, values);
  codes_ = core::OperandRef::of_slot(codes_slot, codes);
  dims_.n = n;
  dims_.k = k;
}

void Sparse4to2Dense::with(const core::LaunchArgs &args, const std::function<void(const char *)> &use) const {
  const char *v = values_.address(args), *c = codes_.address(args);
  const size_t code_bytes = static_cast<size_t>(dims_.code_bytes()), value_bytes = static_cast<size_t>(dims_.value_bytes());
  code_copy_->with(
      c, code_bytes, (code_bytes + 3) / 4, [&](float *dst) { std::memcpy(dst, c, code_bytes); },
      [&](const float *kept_codes) {
        // Codes copied again (written, freed or another buffer): the dense copy is stale too.
        const int64_t packs = code_copy_->packs();
        if (decoded_from_->exchange(packs) != packs) dense_->invalidate_if_overlaps(0, UINTPTR_MAX);
        dense_->with(
            v, value_bytes, static_cast<size_t>(dims_.n * dims_.k + 3) / 4,
            [&](float *dst) {
              kernels::sparse4to2_decode(reinterpret_cast<const int8_t *>(v), reinterpret_cast<const uint8_t *>(kept_codes),
                                         dims_, reinterpret_cast<int8_t *>(dst));
            },
            [&](const float *dense) { use(reinterpret_cast<const char *>(dense)); });
      });
}

}  // namespace opsnn::ops
