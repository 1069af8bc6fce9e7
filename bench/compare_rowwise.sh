#!/bin/bash
# Runs bench_rowwise (OpsNN) and compare_rowwise_torch.py (PyTorch) with the same thread count and
# prints, per case, milliseconds per call of both (wall clock), the speed ratio torch / OpsNN (> 1:
# OpsNN faster), the same ratio of CPU time (with 1 thread: each op's own CPU time) and the GB/s of
# both (bytes read + written / wall time). With REPEAT=n the two programs run alternately n times
# and each case keeps its fastest run of each: on a shared machine, load changes between the two
# programs' runs otherwise decide the ratio. The bandwidth reference of the same run comes first:
# bench_rowwise's StreamCopy / StreamTriad (STREAM's kernels, 256 MiB buffers, bytes read + written)
# and StreamRead (a read-only sum), plus libc's memcpy of 64 MiB; every case's GB/s is then also
# printed as a share of the better of copy and triad ("%STREAM") and of the read-only figure ("%read").
# The two programs still run on different buffers at different moments: for the memory-bound cases
# on a shared machine, compare_rowwise_inproc.py gives the steadier ratio (one process, one buffer).
# Usage: OPSNN_NUM_THREADS=1 [REPEAT=3] bench/compare_rowwise.sh <build dir> [case regex]
#        (built with -DOPSNN_BUILD_BENCH=ON)
set -eu
build=${1:-build}
filter=${2:-.}
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for _ in $(seq "${REPEAT:-1}"); do
  "$build/bench/bench_rowwise" --benchmark_format=csv --benchmark_filter="^(Stream|Memcpy)|$filter" 2>/dev/null |
    awk -F, 'NR > 1 && $1 ~ /^"/ { gsub(/"/, "", $1); sub("/real_time$", "", $1); print $1, $3, $4, ($6 == "" ? 0 : $6) }' >>"$tmp/o_all.txt"
  /usr/bin/python3 "$here/compare_rowwise_torch.py" "$filter" >>"$tmp/t_all.txt"
done
lscpu | grep -m1 "Model name" || true
(grep -q avx512f /proc/cpuinfo && echo avx512f || echo avx2) | sed 's/^/widest ISA: /'
echo "threads: ${OPSNN_NUM_THREADS:-default}; runs: ${REPEAT:-1}; load: $(cut -d' ' -f1-3 /proc/loadavg)"
# Per case: the smallest wall and CPU times over the runs; the 4th field (torch: the bytes, the same
# every run; OpsNN: Google Benchmark's bytes per second, set by the bandwidth cases only) its largest.
best() { awk '{ if (!($1 in w) || $2 < w[$1]) w[$1] = $2; if (!($1 in c) || $3 < c[$1]) c[$1] = $3;
                if (!($1 in x) || $4 > x[$1]) x[$1] = $4 }
              END { for (k in w) print k, w[k], c[k], x[k] }' "$1" | sort; }
best "$tmp/o_all.txt" >"$tmp/o.txt"
best "$tmp/t_all.txt" >"$tmp/t.txt"
# GB/s of a bandwidth case from its wall time ("wall") or its CPU time ("cpu": on a loaded machine
# the steadier figure; with 2 threads it is the CPU time of the calling thread only).
gbs() { awk -v k="$1" -v m="$2" '$1 == k { printf "%.1f", (m == "cpu" ? $4 * $2 / $3 : $4) / 1e9 }' "$tmp/o.txt"; }
copy=$(gbs StreamCopy wall) triad=$(gbs StreamTriad wall) rd=$(gbs StreamRead wall)
copyc=$(gbs StreamCopy cpu) triadc=$(gbs StreamTriad cpu) rdc=$(gbs StreamRead cpu)
echo "STREAM (${OPSNN_NUM_THREADS:-1} thread(s)), GB/s of wall time: copy $copy, triad $triad, read-only sum $rd;" \
  "memcpy 64 MiB $(gbs MemcpyContig wall). Of CPU time: copy $copyc, triad $triadc, read-only sum $rdc," \
  "memcpy $(gbs MemcpyContig cpu)"
ref=$(awk -v a="$copy" -v b="$triad" 'BEGIN { print (a > b ? a : b) }')
refc=$(awk -v a="$copyc" -v b="$triadc" 'BEGIN { print (a > b ? a : b) }')
# %STREAM: the case's GB/s against the better of copy and triad (wall / wall); "cpu": CPU time
# against CPU time; %read: CPU time against the read-only sum's.
printf '%-16s %10s %10s %8s %8s %9s %9s %8s %6s %6s\n' case "OpsNN ms" "torch ms" ratio "cpu rat" "OpsNN GB/s" \
  "torch GB/s" "%STREAM" "cpu" "%read"
join "$tmp/o.txt" "$tmp/t.txt" |
  awk -v ref="$ref" -v refc="$refc" -v rdc="$rdc" '{ g = $7 / $2 / 1e6; gc = $7 / $3 / 1e6
    printf "%-16s %10.3f %10.3f %8.2f %8.2f %9.1f %9.1f %8.0f %6.0f %6.0f\n", $1, $2, $5, $5 / $2, $6 / $3, g,
           $7 / $5 / 1e6, (ref > 0 ? 100 * g / ref : 0), (refc > 0 ? 100 * gc / refc : 0), (rdc > 0 ? 100 * gc / rdc : 0) }'
