#!/bin/bash
# Runs bench_einsum, bench_fused_linear_ce and bench_msda (OpsNN) and compare_einsum_torch.py (PyTorch: torch.einsum, and
# the unfused sequences of the fused linear cross-entropy pieces, the grid_sample composite of MSDeformAttn) with the same thread count and prints
# milliseconds per call of both and the ratio torch / OpsNN (> 1: OpsNN faster).
# Usage: OPSNN_NUM_THREADS=2 bench/compare_einsum.sh <build dir> [case regex]
set -eu
build=${1:-build}
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
filter=${2:-.}
for prog in bench_einsum bench_fused_linear_ce bench_msda; do
  "$build/bench/$prog" --benchmark_format=csv --benchmark_filter="$filter" 2>/dev/null | tail -n +2
done >"$tmp/opsnn.csv"
/usr/bin/python3 "$here/compare_einsum_torch.py" >"$tmp/torch.txt"
lscpu | grep -m1 "Model name" || true
echo "threads: ${OPSNN_NUM_THREADS:-default}; load: $(cut -d' ' -f1-3 /proc/loadavg)"
awk -F, '$1 ~ /^"/ { gsub(/"/, "", $1); sub("/.*$", "", $1); print $1, $3 }' "$tmp/opsnn.csv" | sort >"$tmp/o.txt"
sort "$tmp/torch.txt" >"$tmp/t.txt"
printf '%-26s %10s %10s %8s\n' case "OpsNN ms" "torch ms" "torch/OpsNN"
join "$tmp/o.txt" "$tmp/t.txt" | awk '{ printf "%-26s %10.3f %10.3f %8.2f\n", $1, $2, $3, $3 / $2 }'
