#!/usr/bin/env bash
# DSIR scoring throughput, preflight vs a plain Python implementation of the same algorithm,
# side by side on this machine. Builds a >= 1 GB pool from the Brown corpus once (data/bench/).
# Usage: bench/select/run.sh [POOL_MB=1100] [PYTHON_MB=20]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
pool_mb=${1:-1100}
py_mb=${2:-20}
pool=$root/data/bench/pool-${pool_mb}mb.jsonl
target=$root/data/brown/targets/cj.select.jsonl
mkdir -p "$root/data/bench"
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
