#!/bin/bash
# Token sampling on [8, 152064] logits: OpsNN (bench_sampling) against the PyTorch 1.13 composite
# (compare_sampling_torch.py) in the same run, at OPSNN_NUM_THREADS (default 1) threads for both.
# Usage: bench/compare_sampling.sh <build dir>
set -eu
build=${1:-build}
here=$(dirname "$0")
export OPSNN_NUM_THREADS=${OPSNN_NUM_THREADS:-1}
lscpu | grep -m1 "Model name" || true
echo "isa: $(grep -o -w -E 'avx512_bf16|avx512f|avx2' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo "threads: $OPSNN_NUM_THREADS   load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "--- OpsNN (ms, median of repetitions)"
"$build/bench/bench_sampling" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true 2>/dev/null |
  awk '/_median/ { sub("_median", "", $1); print $1, $2 }'
echo "--- torch composite (ms, median)"
/usr/bin/python3 "$here/compare_sampling_torch.py"
