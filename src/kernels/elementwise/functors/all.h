// All functor headers (see op_list.inc).
#pragma once

#include "kernels/elementwise/functors/activation.h"
#include "kernels/elementwise/functors/activation_grad.h"
#include "kernels/elementwise/functors/arith.h"
#include "kernels/elementwise/functors/binary_math.h"
#include "kernels/elementwise/functors/compare_logic.h"
#include "kernels/elementwise/functors/loss.h"
#include "kernels/elementwise/functors/math.h"
#include "kernels/elementwise/functors/ternary.h"
