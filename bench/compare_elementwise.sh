#!/bin/bash
# Runs bench_elementwise (OpsNN, 1 thread) and compare_elementwise_torch.py (PyTorch, 1 thread)
# and prints GB/s of both and the ratio OpsNN / PyTorch per case.
# Usage: bench/compare_elementwise.sh <build dir>   (built with -DOPSNN_BUILD_BENCH=ON)
set -eu
build=${1:-build}
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
OPSNN_NUM_THREADS=1 "$build/bench/bench_elementwise" --benchmark_format=csv --benchmark_filter='Unary|Binary|Copy' \
  2>/dev/null >"$tmp/opsnn.csv"
/usr/bin/python3 "$here/compare_elementwise_torch.py" >"$tmp/torch.txt"
# csv: name,iterations,real_time,cpu_time,time_unit,bytes_per_second,...
awk -F, 'NR > 1 && $1 ~ /^"/ { gsub(/"/, "", $1); sub("/real_time$", "", $1); split($1, p, "/"); n = p[length(p)]; name = $1; sub("/" n "$", "", name);
                  printf "%s %s %.2f\n", name, n, $6 / 1e9 }' "$tmp/opsnn.csv" | sort >"$tmp/o.txt"
sort "$tmp/torch.txt" >"$tmp/t.txt"
printf '%-12s %10s %12s %12s %8s\n' case elements "OpsNN GB/s" "torch GB/s" ratio
join -j 1 <(awk '{print $1"@"$2, $3}' "$tmp/o.txt") <(awk '{print $1"@"$2, $3}' "$tmp/t.txt") 2>/dev/null |
  awk '{ split($1, k, "@"); printf "%-12s %10s %12.2f %12.2f %8.2f\n", k[1], k[2], $2, $3, $2 / $3 }'
