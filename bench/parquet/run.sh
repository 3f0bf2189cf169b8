#!/usr/bin/env bash
# The Parquet reader's speed side by side with zstd decompressing the same documents as JSONL
# (bench/parquet/README.md). Builds a pool of MB megabytes from the Brown corpus
# (bench/select/make_pool.py), writes it as .jsonl.zst (zstd -3) and as Parquet with arrow-rs
# (to_parquet.mjs: snappy and zstd, v1 pages, arrow-rs's default page and dictionary sizes), then
# times, best of 3, on one core (CPU seconds: user + system):
#   zstd -d -c pool.jsonl.zst > /dev/null          the peer: JSONL text out of its compression
#   preflight corpus stats pool.jsonl.zst          preflight's JSONL reading (when build/ has it)
#   sha256sum pool.zstd.parquet                    the hash a caller computes beside the read
#   parquet_bench text pool.<codec>.parquet        the text column, every row
#   parquet_bench json pool.<codec>.parquet        every column, each row written as JSON
# Usage: bench/parquet/run.sh [MB] [DIR]   (default 400 MB in /tmp/pqbench; needs build/ with
#        parquet_bench, data/brown, and (cd tests/parquet/fixtures &&
#        npm ci))
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mb=${1:-400}
dir=${2:-/tmp/pqbench}
export PATH="$root/build/bench/parquet:$root/build:$PATH"
"$root/bench/parquet/make_pools.sh" "$mb" "$dir"
cd "$dir"
text_mb=$(parquet_bench text pool.zstd.parquet 2>&1 | sed -E 's/.* ([0-9]+) text bytes.*/\1/')
# Best of 3 CPU seconds and the peak memory of a command (stdout discarded).
best() {
  local best_cpu=999999 rss=0
  for _ in 1 2 3; do
    /usr/bin/time -f "%U %S %M" -o time.txt "$@" >/dev/null 2>/dev/null
    read -r user sys kb <time.txt
    cpu=$(echo "$user + $sys" | bc)
    if (($(echo "$cpu < $best_cpu" | bc))); then best_cpu=$cpu rss=$kb; fi
  done
  printf "%-52s %6.2f CPU s  %7.0f MB/s of text  %5d MB peak\n" "$*" "$best_cpu" \
    "$(echo "$text_mb / $best_cpu / 1000000" | bc -l)" $((rss / 1024))
}
echo "$(du -m pool.jsonl | cut -f1) MB of JSONL, $((text_mb / 1000000)) MB of text; load: $(cut -d' ' -f1-3 /proc/loadavg)"
best zstd -d -c pool.jsonl.zst
# preflight reading the same documents as JSONL (parsing, hashing and counting them), when built.
if [[ -x $root/build/preflight ]]; then best preflight corpus stats --threads 1 pool.jsonl.zst; fi
# What a caller adds to a Parquet read: the file's SHA-256.
best sha256sum pool.zstd.parquet
for codec in snappy zstd; do
  best parquet_bench text "pool.$codec.parquet"
  best parquet_bench json "pool.$codec.parquet"
done
echo "(parquet_bench text: the text column alone; json: every column, each row as a JSON line)"
