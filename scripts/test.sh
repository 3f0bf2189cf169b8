#!/usr/bin/env bash
# The whole test suite: set-up (idempotent), every CTest test of the Release build, then the
# library and CLI tests of the modules that need no training again under AddressSanitizer and
# UBSan (a Debug build in build-asan/; set PREFLIGHT_SKIP_ASAN=1 to skip it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
jobs=$(nproc)
(cd "$root/build" && ctest --output-on-failure -j"$jobs")
if [[ "${PREFLIGHT_SKIP_ASAN:-0}" != "1" ]]; then
  echo "test: AddressSanitizer + UBSan build (base, corpus, select, ledger, cost)"
  cmake -S "$root" -B "$root/build-asan" -DCMAKE_BUILD_TYPE=Debug -DPREFLIGHT_SANITIZE=ON \
    -DPREFLIGHT_BENCH=OFF -DPREFLIGHT_MODULES="base;corpus;select;ledger;cost" >/dev/null
  cmake --build "$root/build-asan" -j"$jobs" >/dev/null
  # The 64 MiB document test is slow under ASan and adds nothing the Release run does not check.
  (cd "$root/build-asan" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest --output-on-failure -j"$jobs" -E "DocumentOver64MiB")
fi
