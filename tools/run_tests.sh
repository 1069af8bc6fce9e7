#!/usr/bin/env bash
# README command 2 (and CI's, via .ci/run): the whole test suite.
#   1. Release build with tests (build/), ctest
#   2. sanitizer build (build-asan/: ASan + UBSan; runtime, api, core suites and a sample of the ops
#      files), ctest in the checked mode; then libFuzzer (tests/fuzz/fuzz_ops.cpp) from the same
#      tree: the seed corpus tests/fuzz/corpus/ then OPSNN_FUZZ_TIME seconds (default 90) of
#      fuzzing; any crash, sanitizer report, timeout (10 s per input) or leak fails the run. With
#      clang-14 on x86-64 (libFuzzer); elsewhere g++ ASan + UBSan and no fuzzing. The per-ISA
#      SIMD kernel units keep only ASan's heap checks (cmake/isa_flags.cmake: stack checks, UBSan
#      and coverage tripled their compile time); their portable twins keep UBSan.
#   2b. The x86 tier step 1 did not take. On a CPU with AVX-512F/BW/VL/DQ, BF16 and VNNI: the
#       kernels and ops suites of build/ again with OPSNN_MAX_ISA=avx2 (no build). Elsewhere: the
#       AVX-512 emulated build (build-avx512emu/: the AVX-512 kernels run through SIMDe on an AVX2
#       CPU; the kernels suite + the ops files of OPSNN_ISA_OPS), ctest. Skipped where the CPU has
#       no AVX2 (non-x86).
#   2c. aarch64 cross build (build-arm64/: NEON kernels; runtime, api, core, kernels suites + the
#       ops files of OPSNN_ISA_OPS), ctest through qemu-aarch64 (OPSNN_TEST_THIN=4: the vmath
#       sweeps keep every 4th input). x86-64 hosts only.
#   3. tools/main_job.sh: install into dist/, build the examples from dist/ alone, run them
# Installs missing Debian packages first. Exits non-zero on any failure.
# Environment: JOBS (default nproc), OPSNN_SKIP_SANITIZE=1 skips step 2, OPSNN_SKIP_EMULATED=1
# skips step 2b (OPSNN_FORCE_EMULATED=1 takes its emulated build on any CPU), OPSNN_SKIP_ARM64=1 step 2c, OPSNN_SKIP_FUZZ=1 the fuzzing of step 2 (local use);
# OPSNN_FUZZ_TIME (seconds, default 90) bounds that fuzzing; OPSNN_FUZZ_SEED (default 1) fixes its random
# seed, so CI explores the same inputs each run (set another seed locally to explore more).
# The op tables' generic harness cases (Tables/OpTable*, thousands of them) run whole in step 1;
# steps 2, 2b and 2c run disjoint samples of them (OPSNN_TABLE_SAMPLE=3:0 / 3:1 / 6:2: a third,
# a third, a sixth — qemu is the slow one; see tests/common/op_table_harness.h; override with
# OPSNN_TABLE_SAMPLE_ASAN / _EMU / _ARM64, "1" = all)
# next to their whole kernel / runtime / core suites; step 2 builds only the ops files named in
# OPSNN_ASAN_OPS (compiling every ops test under the sanitizers cost CI ~10 minutes).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
JOBS="${JOBS:-$(nproc)}"
LOGS="build-logs"
mkdir -p "$LOGS"
start=$(date +%s)

# Each step's header shows the wall time so far and the CPU time of the finished child processes
# (compilers, tests: /proc/$$/stat cutime + cstime), which a loaded machine does not inflate.
say() {
  local ticks cpu
  ticks=$(getconf CLK_TCK)
  cpu=$(awk -v t="$ticks" '{ printf "%d", ($16 + $17) / t }' "/proc/$$/stat" 2>/dev/null || echo "?")
  printf '\n==> [+%ss wall, %s CPU-s] %s\n' "$(( $(date +%s) - start ))" "$cpu" "$*"
}

# The sampled stages (2, 2b, 2c) may leave a parameterized suite of an op table with no case (a
# kind with fewer cases than the sample's period): GoogleTest then reports it as an
# "uninstantiated suite" test. That check means something only when every case is registered,
# in step 1, which runs it; the sampled stages leave it out.
SAMPLED_EXCLUDE='^GoogleTestVerification\.UninstantiatedParameterizedTestSuite'

# Adds up a ctest log: "X tests failed out of Y" and the tests reported ***Skipped (tests that
# need an instruction set this CPU lacks).
PASSED=0
FAILED=0
SKIPPED=0
count_ctest() {
  local line total failed skipped
  line=$(grep -E 'tests? failed out of [0-9]+' "$1" | tail -n 1 || true)
  if [ -z "$line" ]; then return 0; fi
  total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line")
  failed=$(sed -E 's/.*, ([0-9]+) tests? failed.*/\1/' <<<"$line")
  skipped=$(grep -cE 'Test +#[0-9]+: .*\*\*\*Skipped' "$1" || true)
  PASSED=$((PASSED + total - failed - skipped))
  FAILED=$((FAILED + failed))
  SKIPPED=$((SKIPPED + skipped))
}

bash tools/main_job.sh --test-deps
# The pytest suite's PyTorch comparisons use importorskip: without torch they would pass as skips.
if ! /usr/bin/python3 -c 'import torch' >/dev/null 2>&1; then
  echo "run_tests: /usr/bin/python3 cannot import torch (python3-torch): the PyTorch comparisons would be skipped" >&2
  exit 1
fi

# ---- 1. Release build and full test suite.
say "configure build/ (Release, tests on)"
if [ -f build/CMakeCache.txt ]; then gen=(); else gen=(-G Ninja); fi
cmake -S . -B build "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DOPSNN_BUILD_TESTS=ON \
  -DOPSNN_SANITIZE=OFF "-DOPSNN_TEST_SUITES="
say "build build/"
cmake --build build -j "$JOBS"
say "ctest build/"
status=0
ctest --test-dir build --output-on-failure -j "$JOBS" 2>&1 | tee "$LOGS/ctest-release.log" || status=$?
count_ctest "$LOGS/ctest-release.log"
if [ "$status" -ne 0 ]; then echo "run_tests: Release tests failed" >&2; echo "summary: $PASSED passed, $((FAILED > 0 ? FAILED : 1)) failed"; exit 1; fi

# ---- 2. Sanitizers and fuzzing, one build tree (build-asan/): ASan + UBSan over the library, the
# runtime / api / core suites and a sample of the ops files (OPSNN_ASAN_OPS below), run in the
# checked mode; then libFuzzer over the ops (tests/fuzz/fuzz_ops.cpp) from the same objects.
# With clang-14 (x86-64) the tree is built with OPSNN_FUZZ (sanitizers + coverage instrumentation,
# the tests link without libFuzzer's main); without it, with g++ and OPSNN_SANITIZE, and no fuzzing.
# -g1: line tables for the sanitizers' stack traces, not full debug info (half the compile time).
OPSNN_ASAN_OPS="ops/test_misuse;ops/test_op_table_qmm;ops/test_matmul;ops/test_op_table_matmul;ops/test_op_table_unary"
OPSNN_ASAN_OPS+=";ops/test_op_table_conv;ops/test_op_table_pool;ops/test_op_table_attention"
OPSNN_ASAN_OPS+=";ops/test_op_table_closs;ops/test_op_table_cnorm;ops/test_op_table_ngrad;ops/test_op_table_ctc"
OPSNN_ASAN_OPS+=";ops/test_op_table_embed;ops/test_op_table_dyn;ops/test_op_table_gmm;ops/test_op_table_dimwise"
# Steps 2b and 2c build the ops test files whose ops reach ISA-specific kernels (element-wise,
# reductions, dim-wise lines, GEMM, convolution, pooling, attention); the rest of the ops files
# test table-driven shape, dtype and error logic that step 1 covers and no ISA changes.
OPSNN_ISA_OPS="ops/test_op_table_unary;ops/test_op_table_nary;ops/test_op_table_reduce;ops/test_op_table_rows"
OPSNN_ISA_OPS+=";ops/test_op_table_dimwise;ops/test_matmul;ops/test_op_table_matmul;ops/test_op_table_qmm"
OPSNN_ISA_OPS+=";ops/test_op_table_conv;ops/test_op_table_pool;ops/test_op_table_attention"
OPSNN_ISA_OPS+=";ops/test_op_table_cnorm;ops/test_op_table_gated;ops/test_op_table_channel"
if [ "${OPSNN_SKIP_SANITIZE:-0}" != "1" ]; then
  fuzz=0
  if [ "${OPSNN_SKIP_FUZZ:-0}" != "1" ] && [ "$(uname -m)" = "x86_64" ] && command -v clang++-14 >/dev/null; then
    fuzz=1
  fi
  launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  if [ -f build-asan/CMakeCache.txt ]; then
    is_clang=0; if grep -q '^CMAKE_CXX_COMPILER:.*clang' build-asan/CMakeCache.txt; then is_clang=1; fi
    if [ "$is_clang" != "$fuzz" ]; then rm -rf build-asan; fi  # CMake cannot switch a tree's compiler
  fi
  if [ -f build-asan/CMakeCache.txt ]; then gen=(); else gen=(-G Ninja); fi
  if [ "$fuzz" = 1 ]; then
    say "configure build-asan/ (clang-14, ASan + UBSan + libFuzzer coverage, core tests + an ops sample)"
    san=(-DOPSNN_FUZZ=ON -DOPSNN_SANITIZE=OFF)
    export CC=clang-14 CXX=clang++-14
  else
    say "configure build-asan/ (g++, ASan + UBSan, core tests + an ops sample)"
    san=(-DOPSNN_FUZZ=OFF -DOPSNN_SANITIZE=ON)
  fi
  cmake -S . -B build-asan "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" "${san[@]}" "${launcher[@]}" \
    "-DOPSNN_TEST_SUITES=runtime;api;core;$OPSNN_ASAN_OPS" -DOPSNN_BUILD_BENCH=OFF -DOPSNN_BUILD_TESTS=ON -DOPSNN_BUILD_PYTHON=OFF
  unset CC CXX
  say "build build-asan/"
  asan_build_start=$(date +%s)
  cmake --build build-asan -j "$JOBS"
  echo "  built in $(( $(date +%s) - asan_build_start ))s"
  say "ctest build-asan/"
  status=0
  # OPSNN_CHECKED=1: exact-size device allocations with poisoned guard zones, no block reuse,
  # every launch's tensors checked against live allocations (README, "Environment variables").
  OPSNN_TABLE_SAMPLE="${OPSNN_TABLE_SAMPLE_ASAN:-3:0}" OPSNN_CHECKED=1 ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" \
  UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
    ctest --test-dir build-asan --output-on-failure -E "$SAMPLED_EXCLUDE" -j "$JOBS" 2>&1 | tee "$LOGS/ctest-asan.log" || status=$?
  count_ctest "$LOGS/ctest-asan.log"
  if [ "$status" -ne 0 ]; then echo "run_tests: sanitizer tests failed" >&2; echo "summary: $PASSED passed, $((FAILED > 0 ? FAILED : 1)) failed"; exit 1; fi

  # libFuzzer: random descriptors / scalars / attributes through both phases of the ops in
  # tests/fuzz/fuzz_ops.cpp, every host buffer exactly as large as described. Runs the kept corpus
  # first (seeds and past findings: a regression fails here), then fuzzes for OPSNN_FUZZ_TIME
  # seconds. New inputs go to build-asan/fuzz-corpus-work/ (not committed); findings to
  # build-asan/fuzz-artifacts/ (add them to tests/fuzz/corpus/ once fixed).
  if [ "$fuzz" = 1 ]; then
    fuzz_time="${OPSNN_FUZZ_TIME:-90}"
    say "fuzz: tests/fuzz/corpus/ then ${fuzz_time}s (build-asan/tests/fuzz/opsnn_fuzz_ops)"
    mkdir -p build-asan/fuzz-corpus-work build-asan/fuzz-artifacts
    status=0
    ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" \
    UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
      build-asan/tests/fuzz/opsnn_fuzz_ops build-asan/fuzz-corpus-work tests/fuzz/corpus \
      -max_total_time="$fuzz_time" -seed="${OPSNN_FUZZ_SEED:-1}" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
      -artifact_prefix=build-asan/fuzz-artifacts/ >"$LOGS/fuzz.log" 2>&1 || status=$?
    # libFuzzer's progress lines (NEW, REDUCE, pulse, NEW_FUNC) and its recommended dictionary stay
    # in the log; the rest (start, findings, final stats) is shown.
    grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)|^[[:space:]]+NEW_FUNC|^".*" # Uses: [0-9]+$|^###### ' "$LOGS/fuzz.log" | tail -n 80
    if [ "$status" -ne 0 ] || ! grep -q '^stat::number_of_executed_units' "$LOGS/fuzz.log"; then
      echo "run_tests: the fuzzer found a failure (log: $LOGS/fuzz.log, input: build-asan/fuzz-artifacts/)" >&2
      echo "summary: $PASSED passed, $((FAILED + 1)) failed"
      exit 1
    fi
    echo "  fuzz: $(grep '^stat::number_of_executed_units' "$LOGS/fuzz.log" | awk '{print $2}') inputs run, no finding"
    PASSED=$((PASSED + 1))
  else
    say "fuzz pass skipped (OPSNN_SKIP_FUZZ=1, not x86-64, or no clang++-14)"
  fi
else
  say "sanitizer and fuzz passes skipped (OPSNN_SKIP_SANITIZE=1)"
fi

# ---- 2b. The x86 tier step 1 did not run. On a CPU with every AVX-512 extension the kernels use
# (F/BW/VL/DQ, BF16, VNNI), step 1 ran the AVX-512 kernels natively: the kernels and ops suites of
# build/ run again capped at AVX2 (OPSNN_MAX_ISA=avx2), with no new build. Elsewhere (AVX2-only
# CPUs), the AVX-512 kernels run emulated through SIMDe in build-avx512emu/ (the kernels suite +
# the ops files of OPSNN_ISA_OPS). OPSNN_FORCE_EMULATED=1 takes the emulated build on any CPU.
native_avx512=1
for flag in avx512f avx512bw avx512vl avx512dq avx512_bf16 avx512_vnni; do
  grep -qw "$flag" /proc/cpuinfo 2>/dev/null || native_avx512=0
done
if [ "${OPSNN_FORCE_EMULATED:-0}" = "1" ]; then native_avx512=0; fi
if [ "${OPSNN_SKIP_EMULATED:-0}" != "1" ] && [ "$native_avx512" = 1 ]; then
  say "ctest build/ kernels + ops suites capped at AVX2 (OPSNN_MAX_ISA=avx2; AVX-512 ran natively in step 1)"
  status=0
  OPSNN_MAX_ISA=avx2 OPSNN_TABLE_SAMPLE="${OPSNN_TABLE_SAMPLE_EMU:-3:1}" \
    ctest --test-dir build --output-on-failure -L '^suite_(kernels|ops)$' -E "$SAMPLED_EXCLUDE" -j "$JOBS" 2>&1 |
    tee "$LOGS/ctest-avx2.log" || status=$?
  count_ctest "$LOGS/ctest-avx2.log"
  if [ "$status" -ne 0 ]; then echo "run_tests: AVX2-capped tests failed" >&2; echo "summary: $PASSED passed, $((FAILED > 0 ? FAILED : 1)) failed"; exit 1; fi
elif [ "${OPSNN_SKIP_EMULATED:-0}" != "1" ] && grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
  say "configure build-avx512emu/ (Release, AVX-512 through SIMDe, kernels + ops suites)"
  if [ -f build-avx512emu/CMakeCache.txt ]; then gen=(); else gen=(-G Ninja); fi
  cmake -S . -B build-avx512emu "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DOPSNN_EMULATE_AVX512=ON \
    -DOPSNN_BUILD_BENCH=OFF -DOPSNN_BUILD_TESTS=ON -DOPSNN_BUILD_PYTHON=OFF "-DOPSNN_TEST_SUITES=kernels;$OPSNN_ISA_OPS"
  say "build build-avx512emu/"
  cmake --build build-avx512emu -j "$JOBS"
  say "ctest build-avx512emu/"
  status=0
  OPSNN_TABLE_SAMPLE="${OPSNN_TABLE_SAMPLE_EMU:-3:1}" \
    ctest --test-dir build-avx512emu --output-on-failure -E "$SAMPLED_EXCLUDE" -j "$JOBS" 2>&1 | tee "$LOGS/ctest-avx512emu.log" || status=$?
  count_ctest "$LOGS/ctest-avx512emu.log"
  if [ "$status" -ne 0 ]; then echo "run_tests: AVX-512 emulated tests failed" >&2; echo "summary: $PASSED passed, $((FAILED > 0 ? FAILED : 1)) failed"; exit 1; fi
else
  say "AVX-512 emulated pass skipped"
fi

# ---- 2c. aarch64: cross build, every test suite run through qemu-user. Checks the NEON kernels
# and the portable paths an Arm machine takes (no Arm hardware needed; timings mean nothing there).
if [ "${OPSNN_SKIP_ARM64:-0}" != "1" ] && [ "$(uname -m)" = "x86_64" ] && command -v aarch64-linux-gnu-g++ >/dev/null &&
  command -v qemu-aarch64 >/dev/null; then
  say "configure build-arm64/ (Release, aarch64 cross build, tests through qemu-aarch64)"
  if [ -f build-arm64/CMakeCache.txt ]; then gen=(); else gen=(-G Ninja); fi
  cmake -S . -B build-arm64 "${gen[@]}" -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
    -DCMAKE_BUILD_TYPE=Release -DOPSNN_BUILD_BENCH=OFF -DOPSNN_BUILD_TESTS=ON \
    "-DOPSNN_TEST_SUITES=runtime;api;core;kernels;$OPSNN_ISA_OPS"
  say "build build-arm64/"
  cmake --build build-arm64 -j "$JOBS"
  say "ctest build-arm64/ (qemu-aarch64)"
  status=0
  OPSNN_TABLE_SAMPLE="${OPSNN_TABLE_SAMPLE_ARM64:-6:2}" OPSNN_TEST_THIN="${OPSNN_TEST_THIN:-4}" \
    ctest --test-dir build-arm64 --output-on-failure -E "$SAMPLED_EXCLUDE" -j "$JOBS" --timeout 1500 2>&1 | tee "$LOGS/ctest-arm64.log" || status=$?
  count_ctest "$LOGS/ctest-arm64.log"
  if [ "$status" -ne 0 ]; then echo "run_tests: aarch64 tests failed" >&2; echo "summary: $PASSED passed, $((FAILED > 0 ? FAILED : 1)) failed"; exit 1; fi
  # qemu's default CPU has DotProd; a Cortex-A72 has not: the int8 engine's portable tier on Arm.
  say "ctest build-arm64/ int8 tests without DotProd (QEMU_CPU=cortex-a72)"
  status=0
  QEMU_CPU=cortex-a72 ctest --test-dir build-arm64 --output-on-failure -j "$JOBS" --timeout 1500 -R "Igemm|Quant" \
    2>&1 | tee "$LOGS/ctest-arm64-nodotprod.log" || status=$?
  count_ctest "$LOGS/ctest-arm64-nodotprod.log"
  if [ "$status" -ne 0 ]; then echo "run_tests: aarch64 tests without DotProd failed" >&2; echo "summary: $PASSED passed, $((FAILED > 0 ? FAILED : 1)) failed"; exit 1; fi
else
  say "aarch64 pass skipped"
fi

# ---- 3. Install tree + examples built from it alone (reuses build/).
say "install + examples (tools/main_job.sh)"
status=0
bash tools/main_job.sh 2>&1 | tee "$LOGS/main_job.log" || status=$?
if [ "$status" -ne 0 ]; then echo "run_tests: install/examples failed" >&2; echo "summary: $PASSED passed, $((FAILED + 1)) failed"; exit 1; fi
# add_basic, matmul_loop, add_basic via set_env.sh, find_package consumer, pkg-config consumer
PASSED=$((PASSED + 5))

elapsed=$(( $(date +%s) - start ))
echo
say "done"
echo "run_tests: all passed in ${elapsed}s (ctest Release + sanitizer suites + fuzzing + AVX-512 emulated + aarch64 under qemu + install tree & examples)"
echo "summary: $PASSED passed, $FAILED failed, $SKIPPED skipped"
