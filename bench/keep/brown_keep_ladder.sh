#!/usr/bin/env bash
# How much to keep on the demo's Brown corpus (doc/ladder.md, "How much to keep"): a keep ladder
# on the default target (cj), the DSIR selector's top 1%, 5% and 25% of the pool against the
# whole pool in random order, at three rungs of the tiny model (4 seeds each), the fraction
# recommended for tiny:4800. Prints the ladder's table and writes OUT/cj-keep/ladder.html and
# ladder.json. A measurement, never asserted in CI; about 7 minutes on the 2-core machine.
#   bench/keep/brown_keep_ladder.sh [OUT]        # default: a new folder under /tmp
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/build/preflight
data=$root/data/brown
out=${1:-$(mktemp -d /tmp/preflight-keep-XXXXXX)}
mkdir -p "$out"
time "$bin" ladder --pool "$data/pools/cj.jsonl" --target-select "$data/targets/cj.select.jsonl" \
  --target-eval "$data/targets/cj.eval.jsonl" --selector dsir --keep 0.01,0.05,0.25 \
  --rungs tiny:75,tiny:300,tiny:1200 --seeds 4 --at tiny:4800 --ledger "$out/ledger.jsonl" \
  --out "$out/cj-keep" --quiet
echo "page: $out/cj-keep/ladder.html"
