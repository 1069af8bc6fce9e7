#!/usr/bin/env bash
# README command 2 (and CI's, via .ci/run): the whole test suite.
#   1. Release build with tests (build/), ctest
#   2. sanitizer build (build-asan/: ASan + UBSan, core test suites), ctest
#   3. tools/main_job.sh: install into dist/, build the examples from dist/ alone, run them
# Installs missing Debian packages first. Exits non-zero on any failure.
# Environment: JOBS (default nproc), OPSNN_SKIP_SANITIZE=1 skips step 2 (local use).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
JOBS="${JOBS:-$(nproc)}"
LOGS="build-logs"
mkdir -p "$LOGS"
start=$(date +%s)

say() { printf '\n==> %s\n' "$*"; }

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

bash tools/main_job.sh --deps-only

# ---- 1. Release build and full test suite.
say "configure build/ (Release, tests on)"
if [ -f build/CMakeCache.txt ]; then gen=(); else gen=(-G Ninja); fi
cmake -S . -B build "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DOPSNN_BUILD_TESTS=ON \
  -DOPSNN_SANITIZE=OFF -DOPSNN_CORE_TESTS_ONLY=OFF
say "build build/"
cmake --build build -j "$JOBS"
say "ctest build/"
status=0
ctest --test-dir build --output-on-failure -j "$JOBS" 2>&1 | tee "$LOGS/ctest-release.log" || status=$?
count_ctest "$LOGS/ctest-release.log"
if [ "$status" -ne 0 ]; then echo "run_tests: Release tests failed" >&2; echo "summary: $PASSED passed, $((FAILED > 0 ? FAILED : 1)) failed"; exit 1; fi

# ---- 2. Sanitizers (core suites only, to keep CI time down).
if [ "${OPSNN_SKIP_SANITIZE:-0}" != "1" ]; then
  say "configure build-asan/ (RelWithDebInfo, ASan+UBSan, core tests)"
  if [ -f build-asan/CMakeCache.txt ]; then gen=(); else gen=(-G Ninja); fi
  cmake -S . -B build-asan "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPSNN_SANITIZE=ON \
    -DOPSNN_CORE_TESTS_ONLY=ON -DOPSNN_BUILD_BENCH=OFF -DOPSNN_BUILD_TESTS=ON
  say "build build-asan/"
  cmake --build build-asan -j "$JOBS"
  say "ctest build-asan/"
  status=0
  ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" \
  UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
    ctest --test-dir build-asan --output-on-failure -j "$JOBS" 2>&1 | tee "$LOGS/ctest-asan.log" || status=$?
  count_ctest "$LOGS/ctest-asan.log"
  if [ "$status" -ne 0 ]; then echo "run_tests: sanitizer tests failed" >&2; echo "summary: $PASSED passed, $((FAILED > 0 ? FAILED : 1)) failed"; exit 1; fi
else
  say "sanitizer pass skipped (OPSNN_SKIP_SANITIZE=1)"
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
echo "run_tests: all passed in ${elapsed}s (ctest Release + sanitizer suites + install tree & examples)"
echo "summary: $PASSED passed, $FAILED failed, $SKIPPED skipped"
