// The phase 1 of the table-driven optimiser updates (src/ops/optim/optim.ops): ApplyAdamW and
// ApplyAdam, ApplyAdamWV2, ApplyFusedEmaAdam on kernels/optim/adam; the tensor-list updates FusedAdamw
// (kernels/optim/adam per entry) and FusedSgd (kernels/optim/sgd) in optim_lists_phase1.cpp
// (semantics at the top of the table).
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"

namespace opsnn::ops {

enum class OptimKind { kAdamW, kAdam, kAdamWV2, kEmaAdam, kFusedAdamw, kFusedSgd, kAdamWQuant };

struct OptimRule {
  OptimKind kind;
  core::DtypeMask dtypes;  // var's dtypes (m, v, grad, maxGradNorm: var's dtype)
};

struct OptimCall {
  const aclTensor *var = nullptr, *m = nullptr, *v = nullptr, *b1p = nullptr, *b2p = nullptr, *lr = nullptr,
                  *wd = nullptr, *b1 = nullptr, *b2 = nullptr, *eps = nullptr, *grad = nullptr, *max_v = nullptr;
  const char *var_name = "varRef", *m_name = "m", *v_name = "v", *b1p_name = "beta1Power", *b2p_name = "beta2Power",
             *lr_name = "lr", *wd_name = "weightDecay", *b1_name = "beta1", *b2_name = "beta2", *eps_name = "eps",
             *grad_name = "grad", *max_v_name = "maxGradNormOptional";
  bool amsgrad = false, maximize = false, locking = false, nesterov = false;
  // ApplyAdamWV2: the step tensor (one INT64 / FLOAT element) and the float hyper-parameters.
  const aclTensor *step = nullptr;
  const char *step_name = "step";
  double lr_f = 0, b1_f = 0, b2_f = 0, wd_f = 0, eps_f = 0;
  // ApplyFusedEmaAdam: the EMA of var (written), its decay, the weight-decay mode, bias correction.
  const aclTensor *s = nullptr;
  const char *s_name = "sRef";
  double ema_f = 0;
  int64_t mode = 0;
  bool bias_corr = false;
  // FusedAdamw / FusedSgd: the tensor lists (one entry per parameter), gradScale / foundInf (one FLOAT
  // element each, optional) and SGD's momentum, dampening and first-step flag.
  const aclTensorList *params = nullptr, *grads = nullptr, *exp_avgs = nullptr, *exp_avg_sqs = nullptr,
                      *max_exp_avg_sqs = nullptr, *steps = nullptr, *momenta = nullptr;
  const char *params_name = "paramsRef", *grads_name = "grads", *exp_avgs_name = "expAvgsRef",
             *exp_avg_sqs_name = "expAvgSqsRef", *max_exp_avg_sqs_name = "maxExpAvgSqsRef",
             *steps_name = "stateSteps", *momenta_name = "momentumBufferListOptionalRef";
  const aclTensor *grad_scale = nullptr, *found_inf = nullptr;
  const char *grad_scale_name = "gradScaleOptional", *found_inf_name = "foundInfOptional";
  double momentum_f = 0, dampening_f = 0;
  bool first_step = false;
  // ApplyAdamWQuant: the UINT8 code states' code books and per-block absmax (FLOAT), the gradient's scale,
  // the quantisation mode (null or "BLOCKWISE") and the block size.
  const aclTensor *qmap_m = nullptr, *qmap_v = nullptr, *absmax_m = nullptr, *absmax_v = nullptr;
  const char *qmap_m_name = "qmapM", *qmap_v_name = "qmapV", *absmax_m_name = "absmaxMRef",
             *absmax_v_name = "absmaxVRef";
  double gnorm_f = 1;
  const char *quant_mode = nullptr;
  int64_t block_size = 0;
};

void optim_phase1(core::OpBuilder &b, const OptimRule &rule, const OptimCall &c);

// The tensor-list rules (optim_lists_phase1.cpp) and the state checks they share with the others:
// var / m / v / grad (/ maxGradNorm, / s) of var's shape, the written ones without internal overlap
// and the state tensors not sharing memory (max_written: maxGradNorm is one of them).
void optim_lists_phase1(core::OpBuilder &b, const OptimRule &rule, const OptimCall &c);
void check_optim_state(const OptimCall &c, bool check_max, bool max_written);
void adamw_quant_phase1(core::OpBuilder &b, const OptimRule &rule, const OptimCall &c);  // optim_quant_phase1.cpp

}  // namespace opsnn::ops
