#!/bin/bash
# Runs bench_pool (OpsNN) and compare_pool_torch.py (PyTorch) with the same thread count
# and prints milliseconds per call of both and the speed ratio torch / OpsNN (> 1: OpsNN faster).
# Usage: OPSNN_NUM_THREADS=1 bench/compare_pool.sh <build dir>   (built with -DOPSNN_BUILD_BENCH=ON)
set -eu
build=${1:-build}
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/bench/bench_pool" --benchmark_format=csv 2>/dev/null >"$tmp/opsnn.csv"
/usr/bin/python3 "$here/compare_pool_torch.py" >"$tmp/torch.txt"
lscpu | grep -m1 "Model name" || true
echo "threads: ${OPSNN_NUM_THREADS:-default}"
# csv: name,iterations,real_time,cpu_time,time_unit,...
awk -F, 'NR > 1 && $1 ~ /^"/ { gsub(/"/, "", $1); sub("/real_time$", "", $1); print $1, $3 }' "$tmp/opsnn.csv" |
  sort >"$tmp/o.txt"
sort "$tmp/torch.txt" >"$tmp/t.txt"
printf '%-34s %12s %12s %14s\n' case "OpsNN ms" "torch ms" "torch/OpsNN"
join "$tmp/o.txt" "$tmp/t.txt" | awk '{ printf "%-34s %12.3f %12.3f %14.2f\n", $1, $2, $3, $3 / $2 }'
