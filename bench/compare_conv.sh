#!/bin/bash
# bench_conv with PyTorch's conv2d added: times PyTorch (bench/compare_conv_torch.py, same layers, same
# thread count, same clock) and then runs bench_conv --torch on those times, so one table shows OpsNN,
# oneDNN, XNNPACK and PyTorch with the ratios issue #16 asks for.
# Usage: OPSNN_NUM_THREADS=1 bench/compare_conv.sh <build dir> [bench_conv options, e.g. --cpu-time --only dw]
set -eu
build=${1:-build}
shift || true
here=$(dirname "$0")
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
cpu=0
quick=()
for a in "$@"; do
  [ "$a" = "--cpu-time" ] && cpu=1
  [ "$a" = "--quick" ] && quick=(--quick)
done
"$build/bench/bench_conv" --list-shapes | COMPARE_CPU_TIME=$cpu /usr/bin/python3 "$here/compare_conv_torch.py" "${quick[@]}" >"$tmp"
lscpu | grep -m1 "Model name" || true
"$build/bench/bench_conv" --torch "$tmp" "$@"
