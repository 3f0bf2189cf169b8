#!/usr/bin/env bash
# The Parquet benches' pool, made once per folder (bench/parquet/run.sh, bench/select/parquet_run.sh):
# MB megabytes of the Brown corpus with variation (bench/select/make_pool.py) as pool.jsonl, the
# same as pool.jsonl.zst (zstd -3), and as pool.snappy.parquet and pool.zstd.parquet written by
# arrow-rs (to_parquet.mjs). Files already in DIR are kept.
#   bench/parquet/make_pools.sh MB DIR   (needs data/brown: scripts/setup.sh, and for the Parquet
#                                         files (cd tests/parquet/fixtures && npm ci))
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mb=$1
dir=$2
brown=$root/data/brown/brown.jsonl
if [[ ! -f $dir/pool.jsonl && ! -f $brown ]]; then
  echo "bench/parquet/make_pools.sh: no Brown corpus at $brown (scripts/setup.sh makes it)" >&2
  exit 2
fi
mkdir -p "$dir"
cd "$dir"
[[ -f pool.jsonl ]] || python3 "$root/bench/select/make_pool.py" "$brown" pool.jsonl "$mb"
[[ -f pool.jsonl.zst ]] || zstd -q -3 -T1 pool.jsonl -o pool.jsonl.zst
for codec in snappy zstd; do
  [[ -f pool.$codec.parquet ]] ||
    node --max-old-space-size=8000 "$root/bench/parquet/to_parquet.mjs" pool.jsonl "pool.$codec.parquet" "$codec"
done
