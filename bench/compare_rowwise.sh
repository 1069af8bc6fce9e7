#!/bin/bash
# Runs bench_rowwise (OpsNN) and compare_rowwise_torch.py (PyTorch) with the same thread count and
# prints, per case, milliseconds per call of both (wall clock), the speed ratio torch / OpsNN (> 1:
# OpsNN faster), the same ratio of CPU time (with 1 thread: each op's own CPU time) and the GB/s of
# both (bytes read + written / wall time). With REPEAT=n the two programs run alternately n times
# and each case keeps its fastest run of each: on a shared machine, load changes between the two
# programs' runs otherwise decide the ratio.
# Usage: OPSNN_NUM_THREADS=1 [REPEAT=3] bench/compare_rowwise.sh <build dir> [case regex]
#        (built with -DOPSNN_BUILD_BENCH=ON)
set -eu
build=${1:-build}
filter=${2:-.}
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for _ in $(seq "${REPEAT:-1}"); do
  "$build/bench/bench_rowwise" --benchmark_format=csv --benchmark_filter="$filter" 2>/dev/null |
    awk -F, 'NR > 1 && $1 ~ /^"/ { gsub(/"/, "", $1); sub("/real_time$", "", $1); print $1, $3, $4 }' >>"$tmp/o_all.txt"
  /usr/bin/python3 "$here/compare_rowwise_torch.py" "$filter" >>"$tmp/t_all.txt"
done
lscpu | grep -m1 "Model name" || true
(grep -q avx512f /proc/cpuinfo && echo avx512f || echo avx2) | sed 's/^/widest ISA: /'
echo "threads: ${OPSNN_NUM_THREADS:-default}; runs: ${REPEAT:-1}; load: $(cut -d' ' -f1-3 /proc/loadavg)"
# Per case: the smallest wall and CPU times over the runs (the bytes are the same every run).
best() { awk '{ if (!($1 in w) || $2 < w[$1]) w[$1] = $2; if (!($1 in c) || $3 < c[$1]) c[$1] = $3; x[$1] = $4 }
              END { for (k in w) print k, w[k], c[k], x[k] }' "$1" | sort; }
best "$tmp/o_all.txt" >"$tmp/o.txt"
best "$tmp/t_all.txt" >"$tmp/t.txt"
printf '%-16s %10s %10s %8s %8s %9s %9s\n' case "OpsNN ms" "torch ms" ratio "cpu rat" "OpsNN GB/s" "torch GB/s"
join "$tmp/o.txt" "$tmp/t.txt" |
  awk '{ printf "%-16s %10.3f %10.3f %8.2f %8.2f %9.1f %9.1f\n", $1, $2, $4, $4 / $2, $5 / $3, $6 / $2 / 1e6, $6 / $4 / 1e6 }'
