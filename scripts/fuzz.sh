#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/: the JSONL, gzip and zstd readers, the Parquet reader, the
# ledger parser and the curve readers of every format) with clang, ASan and UBSan in build-fuzz/, and runs each for
# RUNS inputs (default 20000) from a seed corpus made here on the fly. Fails on any crash,
# sanitizer report, leak or hang (an input taking over 10 s); the input that did it is left in
# build-fuzz/fuzz-artifacts/.
#
# Usage: scripts/fuzz.sh [RUNS] [HARNESS...]    (harnesses: jsonl gzip zstd parquet ledger
#        curve_jsonl curve_csv curve_llmc curve_hf curve_nanogpt; default all)
# Needs: clang libclang-rt-14-dev libomp-dev (scripts/install-deps.sh installs them).
set -euo pipefail

runs=${1:-20000}
shift || true
harnesses=("$@")
[[ ${#harnesses[@]} -eq 0 ]] &&
  harnesses=(jsonl gzip zstd parquet ledger curve_jsonl curve_csv curve_llmc curve_hf curve_nanogpt)
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PREFLIGHT_FUZZ_BUILD:-$root/build-fuzz}

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
mkdir -p "$build"
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPREFLIGHT_FUZZ=ON -DPREFLIGHT_TESTS=OFF -DPREFLIGHT_BENCH=OFF -DPREFLIGHT_MPI=OFF \
  -DPREFLIGHT_MODULES="base;parquet;corpus;ledger" "${launcher[@]}" >"$build/configure.log" 2>&1 ||
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
# Curves as trainers write them (doc/trainers.md), a resumed run's repeated steps, and a NaN.
mkdir -p "$seeds"/curve_{jsonl,csv,llmc,hf,nanogpt}
printf '{"step":0,"tokens":0,"eval_bpb":8.0}\n\n{"step":10,"tokens":640,"eval_loss":2.0,"eval_tokens":50}\n' \
  >"$seeds/curve_jsonl/basic"
printf '{"step":0,"eval_bpb":5}\n{"step":4,"eval_bpb":NaN}\n{"step":8,"eval_loss":-Infinity}\n' \
  >"$seeds/curve_jsonl/nonfinite"
printf 'step,val_loss,bpb,tokens\n0,2.5,3.6,0\n10,,,640\n20,2.1,3.0,1280\n' >"$seeds/curve_csv/basic"
printf 'iter,step,train_loss,val_loss\r\n1,0,2.6,\r\n1,0,,2.5\r\n11,10,nan,inf\r\n' >"$seeds/curve_csv/litgpt"
printf 's:0 trl:5.1\ns:0 tel:5.0\ns:10 trl:4.2\ns:10 tel:4.0\ns:10 tel:3.9\n' >"$seeds/curve_llmc/basic"
printf '{"log_history":[{"step":0,"eval_loss":5.0,"num_input_tokens_seen":0},{"step":10,"loss":4.5},' \
  >"$seeds/curve_hf/basic"
printf '{"step":10,"eval_loss":4.0,"num_input_tokens_seen":640}],"global_step":10}\n' \
  >>"$seeds/curve_hf/basic"
printf 'step 0: train loss 5.1000, val loss 5.0000\niter 0: loss 5.1\nstep 10: train loss 4.0, val loss 4.1\n' \
  >"$seeds/curve_nanogpt/basic"

# Parquet: the committed fixtures that independent writers made (tests/parquet/fixtures), up to
# the harness's input size.
mkdir -p "$seeds/parquet"
find "$root/tests/parquet/fixtures/files" -name '*.parquet' -size -16k -exec cp {} "$seeds/parquet/" \;

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
  max_len=4096
  [[ $h == parquet ]] && max_len=16384  # a whole small file: footer, pages and all
  if "$build/fuzz/fuzz_$h" -runs="$runs" -max_len=$max_len -timeout=10 -rss_limit_mb=2048 \
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
