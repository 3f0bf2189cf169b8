#!/usr/bin/env bash
# The test suite (README): set-up (idempotent; the test packages too), every target of the
# Release build (the binary, every test, the benchmarks), then every CTest test. The sanitizer
# pass and the fuzzers are scripts/test-sanitizers.sh; CI (.ci/run) runs both.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh" --tests
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
(cd "$root/build" && ctest --output-on-failure -j"$(nproc)")
