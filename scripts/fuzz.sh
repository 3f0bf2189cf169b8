#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/: the JSONL, gzip and zstd readers and the ledger parser)
# with clang, ASan and UBSan in build-fuzz/, and runs each for RUNS inputs (default 20000) from a
# seed corpus made here on the fly. Fails on any crash, sanitizer report, leak or hang (an input
# taking over 10 s); the input that did it is left in build-fuzz/fuzz-artifacts/.
#
# Usage: scripts/fuzz.sh [RUNS] [HARNESS...]    (harnesses: jsonl gzip zstd ledger; default all)
# Needs: clang libclang-rt-14-dev libomp-dev (scripts/install-deps.sh installs them).
set -euo pipefail

runs=${1:-20000}
shift || true
harnesses=("$@")
[[ ${#harnesses[@]} -eq 0 ]] && harnesses=(jsonl gzip zstd ledger)
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PREFLIGHT_FUZZ_BUILD:-$root/build-fuzz}

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
mkdir -p "$build"
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPREFLIGHT_FUZZ=ON -DPREFLIGHT_TESTS=OFF -DPREFLIGHT_BENCH=OFF -DPREFLIGHT_MPI=OFF \
  -DPREFLIGHT_MODULES="base;corpus;ledger" "${launcher[@]}" >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
targets=()
for h in "${harnesses[@]}"; do targets+=(--target "fuzz_$h"); done
cmake --build "$build" -j"${JOBS:-2}" "${targets[@]}"

# Seeds: a few JSONL files with the shapes that matter (blank lines, a BOM, escapes, bad lines,
# no final newline, a long line), raw and (for gzip/zstd) in the harness's mode-byte framing.
seeds=$build/fuzz-seeds
rm -rf "$seeds"
mkdir -p "$seeds/jsonl" "$seeds/gzip" "$seeds/zstd" "$seeds/ledger" "$build/fuzz-artifacts"
printf '{"id":1,"text":"alpha"}\n\n{"text":"be\\u00e9ta","genre":"x"}\n{"text":""}' \
  >"$seeds/jsonl/basic"
printf '\xef\xbb\xbf{"text":"with a byte-order mark"}\r\n{"text":7}\n{oops\n[1,2]\n' \
  >"$seeds/jsonl/bad"
printf '{"text":"%s"}\n{"text":"short"}\n' "$(head -c 2000 /dev/zero | tr '\0' 'x')" \
  >"$seeds/jsonl/long"
printf '{"text":"caf\xc3\xa9 \\ud83d\\ude00 \\"q\\""}\n{"text":"bad \xff"}\n' >"$seeds/jsonl/utf8"
for f in "$seeds"/jsonl/*; do
  n=$(basename "$f")
  { printf '\x01'; cat "$f"; } >"$seeds/gzip/$n.packed"
  { printf '\x00'; gzip -c "$f" | tail -c +3; } >"$seeds/gzip/$n.raw"
  { printf '\x01'; cat "$f"; } >"$seeds/zstd/$n.packed"
  { printf '\x00'; zstd -q -c "$f" | tail -c +5; } >"$seeds/zstd/$n.raw"
done
if [[ " ${harnesses[*]} " == *" ledger "* ]]; then
  # A valid ledger of one and of two receipts: the harness appends one to each input it reads.
  tmp=$(mktemp -d)
  : >"$seeds/ledger/empty"
  for n in 1 2; do
    PREFLIGHT_FUZZ_TMP=$tmp "$build/fuzz/fuzz_ledger" -runs=1 \
      "$seeds/ledger/$([[ $n == 1 ]] && echo empty || echo one)" >/dev/null 2>&1
    cp "$tmp"/preflight-fuzz.*.ledger.jsonl "$seeds/ledger/$([[ $n == 1 ]] && echo one || echo two)"
    rm -f "$tmp"/preflight-fuzz.*
  done
  rmdir "$tmp"
fi

status=0
for h in "${harnesses[@]}"; do
  corpus=$build/fuzz-corpus/$h
  mkdir -p "$corpus"
  log=$build/fuzz-$h.log
  echo "fuzz: $h: $runs inputs (log: $log)"
  if "$build/fuzz/fuzz_$h" -runs="$runs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$build/fuzz-artifacts/$h-" -print_final_stats=1 \
      "$corpus" "$seeds/$h" >"$log" 2>&1; then
    echo "fuzz: $h: ok ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') inputs run)"
  else
    status=1
    echo "fuzz: $h: FAILED; the end of $log:"
    tail -40 "$log"
  fi
done
exit $status
