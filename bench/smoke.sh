#!/usr/bin/env bash
# A bench script's smoke run (CTest label bench-smoke: bench/CMakeLists.txt): runs COMMAND, shows
# what it printed, and fails unless it exited 0 and printed a line matching HEADER (an extended
# regular expression: the header of its table). Exit 77 (CTest's "skipped": a peer the bench
# compares with, or its data, is absent; the script says which) passes through.
#   bench/smoke.sh HEADER COMMAND [ARGS...]
set -uo pipefail
header=$1
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if ((rc == 77)); then
  echo "bench smoke: skipped ($1 says why above)"
  exit 77
fi
if ((rc != 0)); then
  echo "bench smoke: $* exited $rc" >&2
  exit 1
fi
if ! grep -Eq -- "$header" <<<"$out"; then
  echo "bench smoke: $1 printed no line matching '$header' (its table's header)" >&2
  exit 1
fi
