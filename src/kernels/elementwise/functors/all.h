// All functor headers (see op_list.inc).
#pragma once

#include "kernels/elementwise/functors/activation.h"
#include "kernels/elementwise/functors/arith.h"
