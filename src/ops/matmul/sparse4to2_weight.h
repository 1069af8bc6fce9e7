// The 2:4 sparse INT8 weight of aclnnSparse4to2QuantMatmulWeightNz (layout: kernels/quant/sparse4to2.h)
// (its one-shot encoder aclnnTransSparse4to2Para: ops::qmm_sparse_pack, qmm_phase1.h).
//
// The matmul reads the weight as a dense [n, k] INT8 matrix decoded from sparseWeight + index at
// the first launch and kept (two kernels::PackedWeight copies: the codes, and the dense weight;
// either buffer seen written or freed by the runtime makes the dense copy again), then runs the
// int8 GEMM (kernels/matmul/igemm.h) with the int8_dequant scheme's epilogue, as
// QuantMatmulWeightNz does with its dense copy.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "core/op_builder.h"
#include "kernels/conv/packed_weight.h"
#include "kernels/quant/sparse4to2.h"
#include "ops/matmul/matmul_common.h"

namespace opsnn::ops {

// Checks sparseWeight (INT8 [n, k_half]) and index (UINT8 [n, ceil(k / 8)]), whose storage must
// hold exactly the documented blocks after the view's offset (any format), against x's k. Returns n.
int64_t check_sparse4to2_weight(const aclTensor *values, const char *values_name, const aclTensor *codes,
                                const char *codes_name, int64_t k);

// The dense [n, k] INT8 view the int8 GEMM is planned with (contiguous, offset 0).
aclTensor sparse4to2_dense_view(const aclTensor &values, int64_t n, int64_t k);

class Sparse4to2Dense final : public OperandSource {
 public:
  Sparse4to2Dense(int values_slot, const aclTensor &values, int codes_slot, const aclTensor &codes, int64_t n, int64_t k);
  void with(const core::LaunchArgs &args, const std::function<void(const char *)> &use) const override;

 private:
  core::OperandRef values_, codes_;
  kernels::Sparse4to2Dims dims_;
  std::shared_ptr<kernels::PackedWeight> code_copy_ = std::make_shared<kernels::PackedWeight>();
  std::shared_ptr<kernels::PackedWeight> dense_ = std::make_shared<kernels::PackedWeight>();
  // The code copy's pack count the dense copy was decoded from (a new one decodes again).
  std::shared_ptr<std::atomic<int64_t>> decoded_from_ = std::make_shared<std::atomic<int64_t>>(-1);
};

}  // namespace opsnn::ops
