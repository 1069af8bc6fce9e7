// The intrinsics of the *_avx512*.cpp kernel units. A test build configured with
// -DOPSNN_EMULATE_AVX512=ON takes the same names from SIMDe (Debian's libsimde-dev), which
// implements them with AVX2 code, and reports AVX-512F/BW/VL/DQ, BF16 and VNNI as present
// (core/cpu_features.cpp). The AVX-512 kernels then run, and are tested, on CPUs without AVX-512.
// Only the arithmetic is checked that way: speed, and the exact instructions GCC picks, need the
// real hardware.
#pragma once

#if defined(OPSNN_EMULATE_AVX512)
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>
#else
#include <immintrin.h>
#endif
