#!/usr/bin/env bash
# A selection from a Parquet pool beside the same documents as .jsonl.zst (issue 40's speed
# check), side by side in one run: `preflight select --selector dsir --keep 0.25` toward Brown's
# cj target, to a .jsonl.zst output, best of 3 rounds (the pools in turn in each round), CPU
# seconds (user + system) and wall seconds, on --threads 1 (per core) and 2. The kept ids are
# hashed: the formats must select the same documents. The pool is bench/parquet/run.sh's
# (make_pool.py's Brown with variation, as .jsonl.zst with zstd -3, and as Parquet by arrow-rs
# with snappy and zstd pages), made here when DIR lacks it.
# Usage: bench/select/parquet_run.sh [MB=400] [DIR=/tmp/pqbench]   (needs build/preflight,
#        data/brown, and for a new pool (cd tests/parquet/fixtures &&
#        npm ci))
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mb=${1:-400}
dir=${2:-/tmp/pqbench}
preflight=$root/build/preflight
target=$root/data/brown/targets/cj.select.jsonl
"$root/bench/parquet/make_pools.sh" "$mb" "$dir"
cd "$dir"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# The kept documents' ids, hashed: equal for every pool and thread count.
ids() { zstd -dc "$1" | python3 -c '
import hashlib, json, sys
h = hashlib.sha256()
n = 0
for line in sys.stdin:
    h.update(json.loads(line)["id"].encode() + b"\n")
    n += 1
print(n, h.hexdigest()[:16])'; }
# One selection: "CPU_SECONDS WALL_SECONDS PEAK_KB".
run() {
  /usr/bin/time -f "%U %S %e %M" -o "$out/time.txt" "$preflight" select --pool "$1" \
    --target "$target" --selector dsir --keep 0.25 --seed 1 --threads "$2" \
    --out "$out/kept.$1.$2.jsonl.zst" --ledger "$out/ledger.jsonl" --quiet >/dev/null
  read -r user sys el kb <"$out/time.txt"
  echo "$(echo "$user + $sys" | bc) $el $kb"
}
text_mb=$(python3 -c '
import json, sys
print(sum(len(json.loads(l)["text"].encode()) for l in open(sys.argv[1])) / 1e6)' pool.jsonl)
pools=(pool.jsonl.zst pool.snappy.parquet pool.zstd.parquet)
echo "# bench/select/parquet_run.sh $mb $dir   ($(nproc) cores, $(date -u +%F), $text_mb MB of text)"
echo "# uptime: $(uptime)"
# Rounds of every pool in turn, so that a change in the machine's load falls on all of them; the
# best (least CPU) of the rounds is kept.
declare -A best
for threads in 1 2; do
  for round in 1 2 3; do
    for pool in "${pools[@]}"; do
      r=$(run "$pool" "$threads")
      key=$pool.$threads
      if [[ -z ${best[$key]:-} ]] || (($(echo "${r%% *} < ${best[$key]%% *}" | bc))); then
        best[$key]=$r
      fi
    done
  done
  for pool in "${pools[@]}"; do
    read -r cpu wall kb <<<"${best[$pool.$threads]}"
    printf "%-22s %d thread(s) %6.2f CPU s %6.1f MB/s per core %6.2f wall s %5d MB peak  kept %s\n" \
      "$pool" "$threads" "$cpu" "$(echo "$text_mb / $cpu" | bc -l)" "$wall" $((kb / 1024)) \
      "$(ids "$out/kept.$pool.$threads.jsonl.zst")"
  done
done
echo "# uptime: $(uptime)"
