#!/bin/bash
# Runs bench_rowwise (OpsNN) and compare_rowwise_torch.py (PyTorch) with the same thread count and
# prints, per case, milliseconds per call of both (wall clock), the speed ratio torch / OpsNN (> 1:
# OpsNN faster), the same ratio of CPU time (with 1 thread: each op's own CPU time, the steadier
# measure on a shared machine) and the GB/s of both (bytes read + written / wall time).
# Usage: OPSNN_NUM_THREADS=1 bench/compare_rowwise.sh <build dir> [benchmark filter regex]
#        (built with -DOPSNN_BUILD_BENCH=ON)
set -eu
build=${1:-build}
filter=${2:-.}
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/bench/bench_rowwise" --benchmark_format=csv --benchmark_filter="$filter" 2>/dev/null >"$tmp/opsnn.csv"
/usr/bin/python3 "$here/compare_rowwise_torch.py" >"$tmp/torch.txt"
lscpu | grep -m1 "Model name" || true
(grep -q avx512f /proc/cpuinfo && echo avx512f || echo avx2) | sed 's/^/widest ISA: /' || true
echo "threads: ${OPSNN_NUM_THREADS:-default}; load: $(cut -d' ' -f1-3 /proc/loadavg)"
# csv: name,iterations,real_time,cpu_time,time_unit,...
awk -F, 'NR > 1 && $1 ~ /^"/ { gsub(/"/, "", $1); sub("/real_time$", "", $1); print $1, $3, $4 }' "$tmp/opsnn.csv" |
  sort >"$tmp/o.txt"
sort "$tmp/torch.txt" >"$tmp/t.txt"
printf '%-16s %10s %10s %8s %8s %9s %9s\n' case "OpsNN ms" "torch ms" ratio "cpu rat" "OpsNN GB/s" "torch GB/s"
join "$tmp/o.txt" "$tmp/t.txt" |
  awk '{ printf "%-16s %10.3f %10.3f %8.2f %8.2f %9.1f %9.1f\n", $1, $2, $4, $4 / $2, $5 / $3, $6 / $2 / 1e6, $6 / $4 / 1e6 }'
