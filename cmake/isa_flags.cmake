# Per-ISA translation units are named by suffix; each gets the flags of its instruction set and is
# only ever called after runtime CPU detection (src/core/cpu_features.h).
# With OPSNN_EMULATE_AVX512 (a test build, see src/kernels/simd/avx512_intrinsics.h) the AVX-512
# units are compiled for AVX2 with their intrinsics taken from SIMDe.
function(opsnn_apply_isa_flags)
  foreach(src IN LISTS ARGN)
    if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
      if(OPSNN_EMULATE_AVX512 AND src MATCHES "_avx512(bf16|vnni)?\\.cpp$")
        set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS
          "-mavx2;-mfma;-mf16c;-Wno-psabi")
      elseif(src MATCHES "_avx512bf16\\.cpp$")
        set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS
          "-mavx512f;-mavx512bw;-mavx512vl;-mavx512dq;-mavx512bf16;-mfma;-mf16c")
      elseif(src MATCHES "_avx512vnni\\.cpp$")
        set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS
          "-mavx512f;-mavx512bw;-mavx512vl;-mavx512dq;-mavx512vnni;-mfma;-mf16c")
      elseif(src MATCHES "_avx512\\.cpp$")
        set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS
          "-mavx512f;-mavx512bw;-mavx512vl;-mavx512dq;-mfma;-mf16c")
      elseif(src MATCHES "_avx2\\.cpp$")
        set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS "-mavx2;-mfma;-mf16c")
      endif()
      # Sanitized builds: the per-ISA SIMD units keep ASan's heap checks (every read and write
      # of a tensor) and drop what made them the slowest units of the tree for little value:
      # ASan's stack instrumentation (their locals are register tiles; conv_avx512.cpp took
      # 134 s against 37 s without it), UBSan (it checks every intrinsic-expanded operation:
      # conv_dw_rows_avx512.cpp 33 s -> 12.5 s without it and the fuzzer's coverage counters)
      # and, for the fuzzer, coverage (the fuzzer steers by the ops' argument checks, not by the
      # kernels' loops). Their portable twins, which do the same index arithmetic, keep UBSan.
      if((OPSNN_SANITIZE OR OPSNN_FUZZ) AND src MATCHES "_(avx2|avx512|avx512bf16|avx512vnni)\\.cpp$")
        if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
          set_property(SOURCE ${src} APPEND PROPERTY COMPILE_OPTIONS
            "-mllvm;-asan-stack=0;-fno-sanitize=undefined,float-cast-overflow,fuzzer-no-link")
        else()
          set_property(SOURCE ${src} APPEND PROPERTY COMPILE_OPTIONS
            "--param=asan-stack=0;-fno-sanitize=undefined,float-cast-overflow")
        endif()
      endif()
    elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64|ARM64")
      # DotProd (sdot) is optional before ARMv8.4: these units run only after runtime detection.
      if(src MATCHES "_neondot\\.cpp$")
        set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS "-march=armv8.2-a+dotprod")
      endif()
    endif()
  endforeach()
endfunction()

# Sources that only exist for another architecture are dropped from the build.
function(opsnn_filter_arch out_var)
  set(kept)
  foreach(src IN LISTS ARGN)
    if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
      if(src MATCHES "_neon(dot)?\\.cpp$")
        continue()
      endif()
    else()
      if(src MATCHES "_(avx2|avx512|avx512bf16|avx512vnni)\\.cpp$")
        continue()
      endif()
      # NEON units use A64-only intrinsics: other CPUs build the portable kernels alone.
      if(NOT CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64|ARM64" AND src MATCHES "_neon(dot)?\\.cpp$")
        continue()
      endif()
    endif()
    list(APPEND kept ${src})
  endforeach()
  set(${out_var} ${kept} PARENT_SCOPE)
endfunction()
