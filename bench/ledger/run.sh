#!/usr/bin/env bash
# What an append's chain check costs on a 100k-line ledger made of the committed calibration
# ledger's receipts (about 9.6 kB a line): bench/ledger/append_bench.cc. Needs the build (build/).
#   bench/ledger/run.sh [LINES]        (CI's smoke test runs it with 300 lines)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$root/build/bench-ledger
mkdir -p "$work"
zstd -q -d -c "$root/bench/calibration/ledger-tiny-300-2026-12-05.jsonl.zst" >"$work/source.jsonl"
"$root/build/bench/ledger/append_bench" "$work/source.jsonl" "$work" "${1:-100000}"
rm -rf "$work"
