#!/bin/bash
# The client sequence of issue #13: one decode step of L Llama-style blocks at batch 1, OpsNN
# one-shot (bench_decode_step: descriptors, phase 1, launch per op, one synchronise per step) against
# PyTorch 1.13 eager (compare_decode_step_torch.py), in the same run, alternating OpsNN and torch
# --rounds times; prints each round and the median ratio torch / OpsNN (> 1: OpsNN faster), then
# OpsNN's per-phase split and the replay (kept executors) time.
# Usage: bench/compare_decode_step.sh <build dir> [tiny|small] [rounds]   (OPSNN_NUM_THREADS applies to both)
set -eu
build=${1:-build}
config=${2:-tiny}
rounds=${3:-3}
here=$(dirname "$0")
bin="$build/bench/bench_decode_step"
lscpu | grep -m1 "Model name" || true
echo "isa: $(grep -o -w -E 'avx512_bf16|avx512f|avx2' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo "threads: ${OPSNN_NUM_THREADS:-default}   load: $(cut -d' ' -f1-3 /proc/loadavg)"
ratios=()
for r in $(seq "$rounds"); do
  o=$("$bin" --config "$config" --mode oneshot)
  t=$(/usr/bin/python3 "$here/compare_decode_step_torch.py" --config "$config")
  ous=$(awk '/^opsnn_step_us/ { print $2 }' <<<"$o")
  tus=$(awk '/^torch_step_us/ { print $2 }' <<<"$t")
  ratio=$(awk -v a="$tus" -v b="$ous" 'BEGIN { printf "%.2f", a / b }')
  ratios+=("$ratio")
  echo "round $r: OpsNN one-shot ${ous} us/step, torch eager ${tus} us/step, torch/OpsNN ${ratio}"
  split=$(grep '^split_us' <<<"$o")
done
echo "median torch/OpsNN: $(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')"
echo "$(head -n 1 <<<"$o")"
echo "one-shot $split"
"$bin" --config "$config" --mode oneshot-queued | grep -E '^(opsnn_step_us|split_us)' | sed 's/^/queued: /'
"$bin" --config "$config" --mode replay | grep '^opsnn_step_us' | sed 's/^/replay (kept executors): /'
