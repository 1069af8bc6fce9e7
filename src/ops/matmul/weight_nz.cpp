// The FRACTAL_NZ weights of the *WeightNz rows (weight_nz.h).
#include "ops/matmul/weight_nz.h"

#include <memory>

#include "common/error.h"
#include "core/fractal_layout.h"
#include "core/op_checks.h"

namespace opsnn::ops {
namespace {

// Re-lays every matrix of a FRACTAL_NZ weight into its dense row-major copy in the workspace.
class WeightNzUnpackStep final : public core::Step {
 public:
  core::OperandRef src;
  core::WsKey dst;
  int64_t esz = 2, batch = 1, rows = 0, cols = 0;
  bool transposed = false;
  int run(const core::LaunchArgs &args) const override {
    core::fractal_nz_to_dense(src.address(args), esz, batch, rows, cols, transposed, args.get(dst));
    return 0;
  }
};

}  // namespace

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

core::WsKey record_weight_nz_unpack(core::OpBuilder &b, int slot, const aclTensor &w, aclTensor *dense) {
  *dense = w;
  dense->format = ACL_FORMAT_ND;
  dense->offset = 0;
  core::set_contiguous(*dense, core::Shape::of(w));
  const int64_t esz = static_cast<int64_t>(core::dtype_size(w.dtype));
  const core::WsKey key = b.book("weight_nz.dense", static_cast<uint64_t>(w.numel() * esz));
  auto st = std::make_unique<WeightNzUnpackStep>();
  st->src = core::OperandRef::of_slot(slot, w);
  st->dst = key;
  st->esz = esz;
  st->rows = w.dims[w.ndim - 2];
  st->cols = w.dims[w.ndim - 1];
  st->batch = st->rows * st->cols == 0 ? 0 : w.numel() / (st->rows * st->cols);
  st->transposed = core::fractal_nz_transposed(w);
  b.add_step<WeightNzUnpackStep>(std::move(*st));
  return key;
}

}  // namespace opsnn::ops
