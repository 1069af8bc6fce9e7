// The per-ISA entry points of the dim-wise line kernels (dimwise_lines_<tier>.cpp, each compiled
// with its tier's flags from dimwise_lines_impl.h): lines [l0, l1) of a planned loop.
#pragma once

#include <cstdint>

#include "kernels/dimwise/dimwise.h"

namespace opsnn::kernels {

using DimwiseLinesFn = void (*)(const DimwiseLoop &, const char *const *, char *const *, char *, int64_t, int64_t);

void dimwise_lines_portable(const DimwiseLoop &L, const char *const *in, char *const *out, char *scratch, int64_t l0,
                            int64_t l1);
#if defined(__x86_64__)
void dimwise_lines_avx2(const DimwiseLoop &L, const char *const *in, char *const *out, char *scratch, int64_t l0,
                        int64_t l1);
void dimwise_lines_avx512(const DimwiseLoop &L, const char *const *in, char *const *out, char *scratch, int64_t l0,
                          int64_t l1);
#endif

}  // namespace opsnn::kernels
