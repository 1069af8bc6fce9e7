#!/bin/bash
# Decode against memory bandwidth, in one run: bench_attention's decode cases and their StreamRead
# reference (a vectorised sum over as many bytes as the K + V of the FLOAT case, on the same thread
# pool) run alternately REPEAT times; each case keeps its fastest wall and CPU time. Prints GB/s of
# K + V and the percentage of the reference's GB/s, by wall clock and by CPU time (with one thread
# the launch runs inline, so the CPU time is the kernel's; with more, only the calling thread's
# share is counted, so the CPU column is meaningful for 1 thread only).
# Usage: OPSNN_NUM_THREADS=1 [REPEAT=3] bench/decode_bandwidth.sh <build dir>
set -eu
build=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for _ in $(seq "${REPEAT:-3}"); do
  "$build/bench/bench_attention" --benchmark_format=csv --benchmark_filter='Decode|StreamRead' 2>/dev/null |
    awk -F, 'NR > 1 && $1 ~ /^"/ { gsub(/"/, "", $1); sub("/.*$", "", $1); print $1, $3, $4 }' >>"$tmp/all.txt"
done
lscpu | grep -m1 "Model name" || true
echo "threads: ${OPSNN_NUM_THREADS:-default}; runs: ${REPEAT:-3}; load: $(cut -d' ' -f1-3 /proc/loadavg)"
# K + V bytes per case (B = 1, 32 query heads, Skv = 4096, D = 128) and the reference it is held to.
awk 'BEGIN {
       mib = 1048576
       bytes["Decode4096"] = 32 * mib; ref["Decode4096"] = "StreamRead32"
       bytes["Decode4096Bf16"] = 16 * mib; ref["Decode4096Bf16"] = "StreamRead32"
       bytes["Decode4096F16"] = 16 * mib; ref["Decode4096F16"] = "StreamRead32"
       bytes["Decode4096Mha"] = 128 * mib; ref["Decode4096Mha"] = "StreamRead128"
       bytes["Decode4096MhaBf16"] = 64 * mib; ref["Decode4096MhaBf16"] = "StreamRead128"
       bytes["StreamRead32"] = 32 * mib; bytes["StreamRead128"] = 128 * mib
     }
     { if (!($1 in w) || $2 < w[$1]) w[$1] = $2; if (!($1 in c) || $3 < c[$1]) c[$1] = $3 }
     END {
       printf "%-18s %9s %9s %10s %10s %9s %9s\n", "case", "wall ms", "CPU ms", "GB/s wall", "GB/s CPU", "% bw wall", "% bw CPU"
       n = split("StreamRead32 StreamRead128 Decode4096 Decode4096Bf16 Decode4096F16 Decode4096Mha Decode4096MhaBf16", order, " ")
       for (i = 1; i <= n; ++i) {
         k = order[i]
         if (!(k in w)) continue
         gw = bytes[k] / w[k] / 1e6; gc = bytes[k] / c[k] / 1e6
         if (k in ref) {
           r = ref[k]
           printf "%-18s %9.3f %9.3f %10.2f %10.2f %8.0f%% %8.0f%%\n", k, w[k], c[k], gw, gc,
                  100 * gw / (bytes[r] / w[r] / 1e6), 100 * gc / (bytes[r] / c[r] / 1e6)
         } else {
           printf "%-18s %9.3f %9.3f %10.2f %10.2f %9s %9s\n", k, w[k], c[k], gw, gc, "(ref)", "(ref)"
         }
       }
     }' "$tmp/all.txt"
