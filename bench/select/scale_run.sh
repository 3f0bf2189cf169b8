#!/usr/bin/env bash
# Selection end to end at pretraining scale, side by side on this machine: a pool of zstd JSONL
# shards (bench/select/make_shards.py, made once under data/bench/) selected with dsir to a
# quarter, read to kept shards on disk, with 1 and 2 threads, with mpirun -np 2 (one thread per
# rank) when OpenMPI is there, and the plain-Python reference DSIR (dsir_reference.py, the same
# algorithm) on a slice of the same text for scale. Prints one line per run: wall seconds, MB/s
# of JSONL (end to end and per core), speed-up over one thread, peak memory (GNU time).
#
# Usage: bench/select/scale_run.sh [TOTAL_GB=19.3] [SHARDS=40] [ROUNDS=1] [PY_MB=20]
#   bench/select/scale_run.sh 1 8          a 1 GB check
#   bench/select/scale_run.sh --dry-run    one tiny round (CI's smoke test of this script)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dry=0
if [[ "${1:-}" == "--dry-run" ]]; then
  dry=1
  shift
fi
total_gb=${1:-19.3}
shards=${2:-40}
rounds=${3:-1}
py_mb=${4:-20}
if ((dry)); then total_gb=0.004 shards=4 py_mb=1; fi
bin=${PREFLIGHT_BIN:-$root/build/preflight}
target=$root/data/brown/targets/cj.select.jsonl
data=${PREFLIGHT_BENCH_DATA:-$root/data/bench}
pool=$data/shards-${total_gb}g-$shards
if [[ ! -f $root/data/brown/brown.jsonl || ! -f $target ]]; then
  echo "bench/select/scale_run.sh: skipped: no Brown corpus in $root/data/brown (scripts/setup.sh makes it)" >&2
  exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/preflight-scale.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$data"
python3 "$root/bench/select/make_shards.py" "$root/data/brown/brown.jsonl" "$pool" "$total_gb" \
  "$shards" 2>/dev/null
# The pool's JSONL bytes: zstd's streamed frames carry no content size, so the shards are
# decompressed once and the sum kept beside the pool (not inside it, where it would be read).
size_file=$pool.jsonl-bytes
if [[ ! -s $size_file ]]; then
  total=0
  for f in "$pool"/*.jsonl.zst; do total=$((total + $(zstd -dc "$f" | wc -c))); done
  echo "$total" >"$size_file"
fi
jsonl_bytes=$(cat "$size_file")
echo "# bench/select/scale_run.sh $total_gb $shards $rounds $py_mb   ($(nproc) cores, $(date -u +%F), load $(cut -d' ' -f1 /proc/loadavg))"
echo "# pool: $shards zstd shards, $((jsonl_bytes / 1000000)) MB of JSONL, $(du -sm "$pool" | cut -f1) MB on disk"

# One run: its label, then the command; prints wall, MB/s, MB/s per core, peak RSS.
run() {
  local label=$1 cores=$2
  shift 2
  rm -rf "$work/out" "$work/out.manifest.json" "$work/out.partial"
  local t0 t1
  t0=$(date +%s.%N)
  /usr/bin/time -f "%M" -o "$work/rss" "$@" >/dev/null 2>"$work/err" || { cat "$work/err"; exit 1; }
  t1=$(date +%s.%N)
  python3 - "$label" "$cores" "$t0" "$t1" "$jsonl_bytes" "$(cat "$work/rss")" <<'PY'
import sys
label, cores, t0, t1, size, rss = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
wall = t1 - t0
print(f"{label:34s} wall {wall:8.1f} s  {size / wall / 1e6:7.1f} MB/s  {size / wall / 1e6 / cores:7.1f} MB/s per core  peak {rss / 1024:6.0f} MB")
PY
}

select_args=(select --pool "$pool/" --target "$target" --selector dsir --keep 0.25 --seed 1
             --out "$work/out/" --ledger "$work/ledger.jsonl" --quiet)
for ((r = 0; r < rounds; ++r)); do
  run "preflight, 1 thread" 1 "$bin" "${select_args[@]}" --threads 1
  run "preflight, 2 threads" 2 "$bin" "${select_args[@]}" --threads 2
  if command -v mpirun >/dev/null && ldd "$bin" | grep -q libmpi; then
    run "preflight, mpirun -np 2 x 1 thread" 2 mpirun --allow-run-as-root --oversubscribe \
      --bind-to none -np 2 "$bin" "${select_args[@]}" --threads 1
  fi
done
# The plain-Python reference (one process) on the first PY_MB of the same text.
# (zstd is cut off by head: its SIGPIPE is expected, not a failure of the script)
{ zstd -dc "$pool/part-00000.jsonl.zst" 2>/dev/null || true; } | head -c $((py_mb * 1000000)) |
  sed '$d' >"$work/slice.jsonl"
/usr/bin/python3 "$root/bench/select/dsir_reference.py" "$work/slice.jsonl" "$target" "$py_mb" |
  python3 -c "import json,sys; r=json.load(sys.stdin); print(f\"{'Python reference DSIR, 1 process':34s} {r['mb_per_s_per_core']:36.2f} MB/s per core (scoring a {r['pool_mb']:.0f} MB slice)\")"
