#!/usr/bin/env bash
# README command 1: build OpsNN (Release), install it into ./dist, then build the examples the
# way an outside client does — against ./dist ONLY — and run them:
#   examples/matmul_loop (the repeatable-executor demo, prints its timing table) and
#   examples/add_basic; plus a find_package(OpsNN) consumer and a pkg-config consumer.
# Works on a fresh Debian 12 (installs missing packages). Exits non-zero on any failure.
#
#   bash tools/main_job.sh              everything above
#   bash tools/main_job.sh --deps-only  only install missing build packages
#   bash tools/main_job.sh --test-deps  the same plus the test-only packages (SIMDe, the aarch64
#                                       cross compiler and qemu-user, clang-14 + libclang-rt-14-dev)
#   bash tools/main_job.sh --bench-deps the build packages plus the peers bench/ compares with
#                                       (oneDNN, OpenBLAS, XNNPACK + pthreadpool, PyTorch)
#
# Environment: BUILD_DIR (default build), DIST_DIR (default dist), JOBS (default nproc).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR="${BUILD_DIR:-build}"
DIST_DIR="${DIST_DIR:-dist}"
EX_DIR="build-examples"
JOBS="${JOBS:-$(nproc)}"

say() { printf '\n==> %s\n' "$*"; }

install_deps() {
  local pkgs=(cmake ninja-build g++ python3 libgtest-dev libbenchmark-dev pkg-config)
  # The framework's Python package (pybind11 + Python headers) and its pytest suite (numpy references;
  # PyTorch 1.13 for the comparisons issue #17 asks for: without it pytest would skip them).
  if [ "${1:-}" = "--test-deps" ]; then pkgs+=(pybind11-dev python3-dev python3-pytest python3-numpy python3-torch); fi
  # SIMDe: only the test stage that runs the AVX-512 kernels emulated (tools/run_tests.sh) needs it.
  # The aarch64 cross compiler, qemu-user and GoogleTest's sources: the aarch64 stage (x86-64 hosts).
  # clang-14 and its runtime libraries (libFuzzer, ASan, UBSan): the fuzzing stage (x86-64 hosts).
  if [ "${1:-}" = "--bench-deps" ]; then
    pkgs+=(libdnnl-dev libopenblas-dev libxnnpack-dev libpthreadpool-dev python3-torch python3-numpy)
  fi
  if [ "${1:-}" = "--test-deps" ]; then
    pkgs+=(libsimde-dev googletest)
    if [ "$(uname -m)" = "x86_64" ]; then pkgs+=(g++-aarch64-linux-gnu qemu-user clang-14 libclang-rt-14-dev); fi
  fi
  if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "main_job: not a Debian system; assuming ${pkgs[*]} are installed"
    return 0
  fi
  local missing=() p
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]} == 0)); then
    echo "main_job: build packages present"
    return 0
  fi
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo=(sudo); else
      echo "main_job: missing packages (${missing[*]}) and not root, no sudo" >&2
      return 1
    fi
  fi
  say "installing ${missing[*]}"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

install_deps "${1:-}"
if [ "${1:-}" = "--deps-only" ] || [ "${1:-}" = "--test-deps" ] || [ "${1:-}" = "--bench-deps" ]; then exit 0; fi

# ---- Build. A fresh build dir gets a lean configuration (no tests, no benchmarks); an existing
# one (e.g. made by tools/run_tests.sh) is reused as it is configured.
if [ -f "$BUILD_DIR/CMakeCache.txt" ]; then
  say "configure $BUILD_DIR (existing)"
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release
else
  say "configure $BUILD_DIR (Release)"
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DOPSNN_BUILD_TESTS=OFF -DOPSNN_BUILD_BENCH=OFF
fi
say "build"
cmake --build "$BUILD_DIR" -j "$JOBS"

# ---- Install into a clean tree.
say "install into $DIST_DIR"
rm -rf "$DIST_DIR"
mkdir -p "$DIST_DIR"
DIST="$(cd "$DIST_DIR" && pwd -P)"
cmake --install "$BUILD_DIR" --prefix "$DIST" >"$BUILD_DIR/install.log"

say "check the install tree"
incomplete=0
expect() { if [ ! -e "$DIST/$1" ]; then echo "  MISSING: $1"; incomplete=1; fi; }
for f in include/acl/acl.h include/acl/acl_base.h include/acl/acl_rt.h \
         include/aclnn/acl_meta.h include/aclnn/aclnn_base.h include/aclnnop/aclnn_util.h \
         include/aclnnop/aclnn_mm.h include/aclnnop/aclnn_add.h \
         include/aclnnop/level2/aclnn_mm.h include/aclnnop/level2/aclnn_add.h \
         acllib/include/acl/acl.h set_env.sh \
         lib64/cmake/OpsNN/OpsNNConfig.cmake lib64/cmake/OpsNN/OpsNNConfigVersion.cmake \
         lib64/cmake/OpsNN/OpsNNTargets.cmake lib64/pkgconfig/opsnn.pc lib64/libopsnn.so; do
  expect "$f"
done
for lib in opsnn ascendcl nnopbase opapi acl_op_compiler opapi_nn opapi_math runtime \
           opapi_transformer opapi_cv; do
  expect "lib64/lib$lib.so"
done
if [ "$incomplete" -ne 0 ]; then echo "main_job: install tree incomplete" >&2; exit 1; fi
n_l2=$(find "$DIST/include/aclnnop/level2" -name '*.h' | wc -l)
echo "  install tree complete ($n_l2 level2 headers; aliases -> $(readlink "$DIST/lib64/libascendcl.so"))"

# Every installed header through the legacy paths: level2/ headers from the acllib/include
# root, as C11 and C++17, warnings as errors.
mkdir -p "$BUILD_DIR/install-check"
tu="$BUILD_DIR/install-check/all_headers"
{
  echo '#include "acl/acl.h"'
  for h in "$DIST"/include/aclnnop/level2/*.h; do echo "#include \"aclnnop/level2/$(basename "$h")\""; done
  echo 'int main(void) { return 0; }'
} >"$tu.c"
cp "$tu.c" "$tu.cpp"
cc -std=c11 -Wall -Wextra -Werror -I"$DIST/acllib/include" -c "$tu.c" -o "$tu.c.o"
c++ -std=c++17 -Wall -Wextra -Werror -I"$DIST/acllib/include" -c "$tu.cpp" -o "$tu.cpp.o"
echo "  level2 headers compile from acllib/include (C11, C++17, -Werror)"

# ---- Examples, built from the install tree alone (1): CMake cache variable CANN_INSTALL_DIR.
# The client environment is cleared of toolkit variables so only -DCANN_INSTALL_DIR counts.
rm -rf "$EX_DIR"
say "examples via -DCANN_INSTALL_DIR=$DIST"
env -u ASCEND_TOOLKIT_HOME -u ASCEND_HOME -u ASCEND_HOME_PATH \
  cmake -S examples -B "$EX_DIR/cache-var" -G Ninja -DCANN_INSTALL_DIR="$DIST"
cmake --build "$EX_DIR/cache-var" -j "$JOBS"
if readelf -d "$EX_DIR/cache-var/matmul_loop" | grep -q 'NEEDED.*libopsnn'; then
  echo "  matmul_loop NEEDs: $(readelf -d "$EX_DIR/cache-var/matmul_loop" | grep -o 'lib[a-z_]*\.so[.0-9]*' | sort -u | tr '\n' ' ')"
fi

say "run examples/add_basic"
"$EX_DIR/cache-var/add_basic"

say "run examples/matmul_loop (the demo)"
"$EX_DIR/cache-var/matmul_loop"

# The framework layer (built when pybind11-dev / python3-dev are installed): its C++ core and the
# Python package from the install tree.
if [ -x "$EX_DIR/cache-var/framework_tensor" ]; then
  say "run examples/framework_tensor (framework C++ core)"
  "$EX_DIR/cache-var/framework_tensor"
fi
if [ -d "$DIST/python/opsnn" ] && /usr/bin/python3 -c "import numpy" 2>/dev/null; then
  say "run examples/train_mlp.py (import opsnn from $DIST_DIR/python)"
  PYTHONPATH="$DIST/python" /usr/bin/python3 examples/train_mlp.py --steps 100
  say "run examples/train_cnn.py (a small CNN on drawn shapes, ~3 s)"
  PYTHONPATH="$DIST/python" /usr/bin/python3 examples/train_cnn.py --steps 200
fi

# ---- (2): environment from set_env.sh (ASCEND_TOOLKIT_HOME, LD_LIBRARY_PATH, CMAKE_PREFIX_PATH,
# PKG_CONFIG_PATH), in a subshell so this script's environment stays clean.
say "examples via 'source $DIST_DIR/set_env.sh' (ASCEND_TOOLKIT_HOME), find_package, pkg-config"
(
  # shellcheck disable=SC1091
  source "$DIST/set_env.sh"
  [ "$ASCEND_TOOLKIT_HOME" = "$DIST" ] || { echo "set_env.sh: ASCEND_TOOLKIT_HOME=$ASCEND_TOOLKIT_HOME, want $DIST" >&2; exit 1; }
  cmake -S examples -B "$EX_DIR/env" -G Ninja >/dev/null
  cmake --build "$EX_DIR/env" -j "$JOBS"
  "$EX_DIR/env/add_basic" >/dev/null
  echo "  examples built from ASCEND_TOOLKIT_HOME: add_basic OK"

  cmake -S examples/consumers -B "$EX_DIR/find-package" -G Ninja >/dev/null
  cmake --build "$EX_DIR/find-package" -j "$JOBS"
  "$EX_DIR/find-package/consumer" | sed 's/^/  find_package(OpsNN): /'

  # shellcheck disable=SC2046
  cc -std=c11 -Wall -Wextra -Werror examples/consumers/consumer.c \
    $(pkg-config --cflags opsnn) $(pkg-config --libs opsnn) -o "$EX_DIR/pkgconfig-consumer"
  "$EX_DIR/pkgconfig-consumer" | sed 's/^/  pkg-config opsnn: /'
)

say "main_job: OK (install tree $DIST_DIR/, examples built from it alone and passed)"
