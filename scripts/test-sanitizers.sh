#!/usr/bin/env bash
# The slow half of CI (.ci/run runs it after scripts/test.sh): every module's tests again under
# AddressSanitizer and UBSan (an optimised build with debug info in build-asan/, so that the
# engine's tests on the tiny and micro models stay quick), then the fuzzers briefly
# (scripts/fuzz.sh, 5,000 inputs per harness). PREFLIGHT_SKIP_FUZZ=1 leaves the fuzzers out.
# Needs the test packages: scripts/install-deps.sh --tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
"$root/scripts/install-deps.sh" --tests
echo "test-sanitizers: AddressSanitizer + UBSan build (every module)"
# As scripts/build.sh: through ccache when there is one, else a unity build.
how=(-DPREFLIGHT_UNITY=ON)
if command -v ccache >/dev/null && [[ -z "${CCACHE_DISABLE:-}" ]]; then
  how=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DPREFLIGHT_UNITY=OFF)
fi
cmake -S "$root" -B "$root/build-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPREFLIGHT_SANITIZE=ON \
  -DPREFLIGHT_BENCH=OFF "${how[@]}" >/dev/null
cmake --build "$root/build-asan" -j"$jobs" >/dev/null
# The 64 MiB document test is slow under ASan and adds nothing the Release run does not check.
# OpenMPI's own allocations are not ours to fix: leak checking is off for the mpirun tests.
(cd "$root/build-asan" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --output-on-failure -j"$jobs" -E "DocumentOver64MiB|Dist")
(cd "$root/build-asan" && ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --output-on-failure -j"$jobs" -R "Dist")
# The readers and the ledger parser under libFuzzer, briefly (a bench run of 10^6 inputs per
# harness is `scripts/fuzz.sh 1000000`).
if [[ "${PREFLIGHT_SKIP_FUZZ:-0}" != "1" ]]; then
  echo "test-sanitizers: fuzzing the JSONL, gzip and zstd readers and the ledger parser (5000 inputs each)"
  "$root/scripts/fuzz.sh" 5000
fi
