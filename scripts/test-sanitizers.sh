#!/usr/bin/env bash
# The slow half of CI (.ci/run runs it after scripts/test.sh): every module's tests again under
# AddressSanitizer and UBSan (an -O1 build with line tables in build-asan/, quick to build, and
# quick enough for the engine's tests on the tiny and micro models), then the fuzzers briefly
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
# -O1 with line tables only (-g1: file and line in every sanitizer stack, no variable info):
# one heavy file (src/app/trial_job.cc) compiles in 14 s of CPU against 47 s at -O2 -g.
cmake -S "$root" -B "$root/build-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DPREFLIGHT_SANITIZE=ON \
  -DPREFLIGHT_BENCH=OFF "${how[@]}" >/dev/null
cmake --build "$root/build-asan" -j"$jobs" >/dev/null
# The 64 MiB document test is slow under ASan and adds nothing the Release run does not check;
# nor do the PyTorch trainer's own tests (TrainerTorch: Python, which ASan does not instrument;
# the C++ side of a launched trainer is TrainerCli's, which runs here).
# OpenMPI's own allocations are not ours to fix: leak checking is off for the tests that run
# mpirun (the suites Dist and TrainerMpi).
(cd "$root/build-asan" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --output-on-failure -j"$jobs" -E "DocumentOver64MiB|TrainerTorch|Dist|Mpi")
(cd "$root/build-asan" && ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --output-on-failure -j"$jobs" -R "Dist|Mpi")
# The readers and the ledger parser under libFuzzer, briefly (a bench run of 10^6 inputs per
# harness is `scripts/fuzz.sh 1000000`).
if [[ "${PREFLIGHT_SKIP_FUZZ:-0}" != "1" ]]; then
  echo "test-sanitizers: fuzzing the corpus readers, the ledger parser and the curve readers (5000 inputs each)"
  "$root/scripts/fuzz.sh" 5000
fi
