#!/usr/bin/env bash
# DSIR scoring throughput, preflight vs a plain Python implementation of the same algorithm,
# side by side on this machine. Builds a >= 1 GB pool from the Brown corpus once (data/bench/).
# Usage: bench/select/run.sh [POOL_MB=1100] [PYTHON_MB=20]
#        bench/select/run.sh --dry-run     one tiny round, 1 MB in a temporary folder (CI's smoke
#                                          test of this script: bench/CMakeLists.txt)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dry=0
if [[ "${1:-}" == "--dry-run" ]]; then
  dry=1
  shift
fi
pool_mb=${1:-1100}
py_mb=${2:-20}
data=$root/data/bench
if ((dry)); then
  pool_mb=1 py_mb=1
  data=$(mktemp -d "${TMPDIR:-/tmp}/preflight-dsir-bench.XXXXXX")
  trap 'rm -rf "$data"' EXIT
fi
pool=$data/pool-${pool_mb}mb.jsonl
target=$root/data/brown/targets/cj.select.jsonl
if [[ ! -f $root/data/brown/brown.jsonl || ! -f $target ]]; then
  echo "bench/select/run.sh: skipped: no Brown corpus in $root/data/brown (scripts/setup.sh makes it)" >&2
  exit 77
fi
mkdir -p "$data"
[[ -f $pool ]] || python3 "$root/bench/select/make_pool.py" "$root/data/brown/brown.jsonl" "$pool" "$pool_mb"
echo "# bench/select/run.sh $pool_mb $py_mb   ($(nproc) cores, $(date -u +%F))"
cpp=$("$root/build/bench/select/dsir_bench" "$pool" "$target" 1 2)
echo "$cpp"
py=$(/usr/bin/python3 "$root/bench/select/dsir_reference.py" "$pool" "$target" "$py_mb")
echo "$py"
python3 - "$cpp" "$py" <<'PY'
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines()]
ref = json.loads(sys.argv[2])
for r in rows:
    print(f"preflight dsir scoring, {r['threads']} thread(s): {r['mb_per_s_per_core']:.1f} MB/s per core "
          f"({r['mb_per_s']:.1f} MB/s total) = {r['mb_per_s_per_core'] / ref['mb_per_s_per_core']:.0f}x "
          f"the Python reference's {ref['mb_per_s_per_core']:.2f} MB/s per core")
PY
