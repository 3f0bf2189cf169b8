#!/usr/bin/env bash
# Does `--budget` keep its time? Runs `preflight trial --budget D` (and one `ladder --budget`) on
# the default Brown target for each D given, from empty folders, and prints the wall time each
# took against its budget (the plan promises +-20%). A measurement, never asserted in CI; the
# machine should be otherwise idle.
#   bench/budget/budget_bench.sh [DURATION ...]        # default: 60s 120s 300s
#   bench/budget/budget_bench.sh --dry-run             # one tiny round: one trial of 1 seed per
#                                                      # arm at 20s, no ladder (CI's smoke test)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/build/preflight
data=$root/data/brown
dry=0 seeds=()
if [[ "${1:-}" == "--dry-run" ]]; then
  dry=1 seeds=(--seeds 1)
  set -- 20s
fi
if [[ ! -f $data/pools/cj.jsonl ]]; then
  echo "bench/budget/budget_bench.sh: skipped: no Brown corpus in $data (scripts/setup.sh makes it)" >&2
  exit 77
fi
out=$(mktemp -d /tmp/preflight-budget-bench-XXXXXX)
trap 'rm -rf "$out"' EXIT
seconds() {  # 90s, 10m, 2h -> seconds
  local d=$1
  case $d in *s) echo "${d%s}" ;; *m) echo $((${d%m} * 60)) ;; *h) echo $((${d%h} * 3600)) ;; *) echo "$d" ;; esac
}
inputs=(--pool "$data/pools/cj.jsonl" --target-select "$data/targets/cj.select.jsonl"
        --target-eval "$data/targets/cj.eval.jsonl" --selector dsir --threads 2 --quiet
        ${seeds[@]+"${seeds[@]}"})
printf '%-8s %-7s %9s %9s %7s\n' command budget budget_s wall_s ratio
run() {  # command budget
  local cmd=$1 d=$2 start end
  start=$(date +%s.%N)
  "$bin" "$cmd" "${inputs[@]}" --budget "$d" --out "$out/$cmd-$d" --ledger "$out/ledger.jsonl" >/dev/null
  end=$(date +%s.%N)
  python3 -c "b=$(seconds "$d"); w=$end-$start; print('%-8s %-7s %9d %9.1f %7.2f' % ('$cmd', '$d', b, w, w / b))"
}
for d in "${@:-60s 120s 300s}"; do
  for one in $d; do run trial "$one"; done
done
((dry)) || run ladder 180s
echo "(this machine: $(nproc) cores; $(date -u +%F); $(git -C "$root" rev-parse --short HEAD))"
