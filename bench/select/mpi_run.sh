#!/usr/bin/env bash
# DSIR selection throughput on MPI ranks: the same >= 1 GB pool as bench/select/run.sh, selected by
# one process and by mpirun -np 2 (one thread per rank), and per rank and phase the bytes sent and
# wall seconds (the manifest's cost.mpi block). Every run's output is checked to be the same bytes.
# Usage: bench/select/mpi_run.sh [POOL_MB=1100] [BUILD=build]
#        bench/select/mpi_run.sh --dry-run [BUILD]   one tiny round, a 1 MB pool in the temporary
#                                                    folder (CI's smoke test of this script)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dry=0
if [[ "${1:-}" == "--dry-run" ]]; then
  dry=1
  shift
  set -- 1 "$@"
fi
pool_mb=${1:-1100}
build=${2:-$root/build}
bin=$build/preflight
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
data=$root/data/bench
((dry)) && data=$out
pool=$data/pool-${pool_mb}mb.jsonl
target=$root/data/brown/targets/cj.select.jsonl
skip() {
  echo "bench/select/mpi_run.sh: skipped: $*" >&2
  exit 77
}
[[ -f $root/data/brown/brown.jsonl && -f $target ]] ||
  skip "no Brown corpus in $root/data/brown (scripts/setup.sh makes it)"
command -v mpirun >/dev/null || skip "no mpirun, the peer it compares with (openmpi-bin)"
grep -qx 'PREFLIGHT_MPI:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null ||
  skip "$bin was built without MPI (libopenmpi-dev, then scripts/build.sh)"
mkdir -p "$data"
[[ -f $pool ]] || python3 "$root/bench/select/make_pool.py" "$root/data/brown/brown.jsonl" "$pool" "$pool_mb"
# --bind-to none: OpenMPI binds each rank to one core by default, which would also pin the
# threads of a multi-threaded rank to that core.
mpirun=(mpirun --allow-run-as-root --oversubscribe --bind-to none)
echo "# bench/select/mpi_run.sh $pool_mb   ($(nproc) cores, $(date -u +%FT%TZ), pool $(stat -c %s "$pool") bytes)"
run() {  # name, launcher words..., -- select flags...
  local name=$1; shift
  local launcher=()
  while [[ $1 != -- ]]; do launcher+=("$1"); shift; done; shift
  local start end
  start=$(date +%s.%N)
  "${launcher[@]}" "$bin" select --pool "$pool" --target "$target" --selector dsir --keep 0.25 \
    --seed 1 --out "$out/$name.jsonl" --ledger "$out/ledger.jsonl" --quiet "$@" >/dev/null
  end=$(date +%s.%N)
  python3 - "$name" "$start" "$end" "$pool" "$out/$name.jsonl.manifest.json" <<'PY'
import json, os, sys
name, start, end, pool, manifest = sys.argv[1:]
m = json.load(open(manifest))
wall = float(end) - float(start)
mb = os.path.getsize(pool) / 1e6
row = {"run": name, "wall_s": round(wall, 2), "mb_per_s": round(mb / wall, 1),
       "core_s": round(m["cost"]["core_seconds"], 2), "threads_per_rank": m["cost"]["threads"],
       "ranks": m["cost"].get("mpi", {}).get("ranks", 1), "output_sha256": m["output"]["sha256"]}
print(json.dumps(row))
for r, phases in enumerate(m["cost"].get("mpi", {}).get("phases_by_rank", [])):
    print("   rank %d: " % r + ", ".join("%s %d B %.2f s" % (p["phase"], p["bytes_sent"], p["seconds"])
                                        for p in phases))
PY
}
run plain-1thread -- --threads 1
run mpi-np2-radix "${mpirun[@]}" -np 2 -- --threads 1
run mpi-np2-gather "${mpirun[@]}" -np 2 -- --threads 1 --mpi-cut gather
run plain-2threads -- --threads 2
for f in "$out"/*.jsonl.manifest.json; do python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['output']['sha256'])" "$f"; done | sort -u | wc -l | xargs -I{} echo "distinct outputs: {} (1 = every run kept the same bytes)"
