#!/usr/bin/env bash
# The whole test suite: set-up (idempotent), every CTest test of the Release build, then every
# module's tests again under AddressSanitizer and UBSan (an optimised build with debug info in
# build-asan/, so that the engine's tests on the tiny and micro models stay quick; set
# PREFLIGHT_SKIP_ASAN=1 to skip it), then the fuzzers briefly when clang is there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
jobs=$(nproc)
(cd "$root/build" && ctest --output-on-failure -j"$jobs")
if [[ "${PREFLIGHT_SKIP_ASAN:-0}" != "1" ]]; then
  echo "test: AddressSanitizer + UBSan build (every module)"
  launcher=()
  if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  cmake -S "$root" -B "$root/build-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPREFLIGHT_SANITIZE=ON \
    -DPREFLIGHT_BENCH=OFF "${launcher[@]}" >/dev/null
  cmake --build "$root/build-asan" -j"$jobs" >/dev/null
  # The 64 MiB document test is slow under ASan and adds nothing the Release run does not check.
  # OpenMPI's own allocations are not ours to fix: leak checking is off for the mpirun tests.
  (cd "$root/build-asan" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest --output-on-failure -j"$jobs" -E "DocumentOver64MiB|Dist")
  (cd "$root/build-asan" && ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest --output-on-failure -j"$jobs" -R "Dist")
fi
# The readers and the ledger parser under libFuzzer, briefly (a bench run of 10^6 inputs per
# harness is `scripts/fuzz.sh 1000000`).
if [[ "${PREFLIGHT_SKIP_FUZZ:-0}" != "1" ]]; then
  echo "test: fuzzing the JSONL, gzip and zstd readers and the ledger parser (5000 inputs each)"
  "$root/scripts/fuzz.sh" 5000
fi
