#!/usr/bin/env bash
# How much to keep on the demo's Brown corpus (doc/ladder.md, "How much to keep"): a keep ladder
# on the default target (cj), the DSIR selector's top 1%, 5% and 25% of the pool against the
# whole pool in random order, at three rungs of the tiny model (4 seeds each), the fraction
# recommended for tiny:4800. Prints the ladder's table and writes OUT/cj-keep/ladder.html and
# ladder.json. A measurement, never asserted in CI; about 7 minutes on the 2-core machine.
#   bench/keep/brown_keep_ladder.sh [OUT]        # default: a new folder under /tmp
#   bench/keep/brown_keep_ladder.sh --dry-run    # one tiny round (rungs of 4-16 steps, 1 seed, a
#                                                # temporary folder): CI's smoke test of it
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/build/preflight
data=$root/data/brown
rungs=tiny:75,tiny:300,tiny:1200 seeds=4 at=tiny:4800
if [[ "${1:-}" == "--dry-run" ]]; then
  shift
  rungs=tiny:4,tiny:8,tiny:16 seeds=1 at=tiny:64
  tmp=$(mktemp -d /tmp/preflight-keep-XXXXXX)
  trap 'rm -rf "$tmp"' EXIT
  set -- "$tmp"
fi
if [[ ! -f $data/pools/cj.jsonl ]]; then
  echo "bench/keep/brown_keep_ladder.sh: skipped: no Brown corpus in $data (scripts/setup.sh makes it)" >&2
  exit 77
fi
out=${1:-$(mktemp -d /tmp/preflight-keep-XXXXXX)}
mkdir -p "$out"
time "$bin" ladder --pool "$data/pools/cj.jsonl" --target-select "$data/targets/cj.select.jsonl" \
  --target-eval "$data/targets/cj.eval.jsonl" --selector dsir --keep 0.01,0.05,0.25 \
  --rungs "$rungs" --seeds "$seeds" --at "$at" --ledger "$out/ledger.jsonl" \
  --out "$out/cj-keep" --quiet
echo "page: $out/cj-keep/ladder.html"
