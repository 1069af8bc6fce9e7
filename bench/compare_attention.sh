#!/bin/bash
# Runs bench_attention (OpsNN) and compare_attention_torch.py (PyTorch) with the same thread count
# and prints milliseconds per call of both and the speed ratio torch / OpsNN (> 1: OpsNN faster), for
# wall clock and for CPU time (OpsNN: the benchmark's CPU time, i.e. the calling thread's: with one
# thread the launch runs inline; torch: its process time), then OpsNN's counters (GFLOP/s, KV GB/s,
# workspace MB). Cases OpsNN has and torch does not (BF16, StreamRead) print OpsNN only.
# Usage: OPSNN_NUM_THREADS=1 bench/compare_attention.sh <build dir> [case regex]
#        (built with -DOPSNN_BUILD_BENCH=ON)
set -eu
build=${1:-build}
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
filter=${2:-.}
"$build/bench/bench_attention" --benchmark_format=csv --benchmark_filter="$filter" 2>/dev/null >"$tmp/opsnn.csv"
/usr/bin/python3 "$here/compare_attention_torch.py" >"$tmp/torch.txt"
lscpu | grep -m1 "Model name" || true
echo "threads: ${OPSNN_NUM_THREADS:-default}; load: $(cut -d' ' -f1-3 /proc/loadavg)"
# csv: name,iterations,real_time,cpu_time,time_unit,...
# csv columns after time_unit: the counters in name order (GFLOP/s, KV_GB/s, ws_MB)
awk -F, 'NR > 1 && $1 ~ /^"/ { gsub(/"/, "", $1); sub("/.*$", "", $1); print $1, $3, $4, $11, $12, $13 }' \
  "$tmp/opsnn.csv" | sort >"$tmp/o.txt"
sort "$tmp/torch.txt" >"$tmp/t.txt"
printf '%-18s %10s %10s %8s %8s %9s %8s %8s\n' case "OpsNN ms" "torch ms" "wall x" "cpu x" "GFLOP/s" "KV GB/s" "ws MB"
join -a 1 "$tmp/o.txt" "$tmp/t.txt" | awk '{ if (NF >= 8) printf "%-18s %10.3f %10.3f %8.2f %8.2f %9.1f %8.2f %8.3f\n", $1, $2, $7, $7 / $2, $8 / $3, $4, $5, $6;
  else printf "%-18s %10.3f %10s %8s %8s %9.1f %8.2f %8.3f\n", $1, $2, "-", "-", "-", $4, $5, $6 }'
