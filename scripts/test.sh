#!/usr/bin/env bash
# The test suite (README): set-up (idempotent; the test packages too), every target of the
# Release build (the binary, every test, the benchmarks), then every CTest test. The sanitizer
# pass and the fuzzers are scripts/test-sanitizers.sh; CI (.ci/run) runs both.
#   scripts/test.sh                  everything
#   scripts/test.sh --module select  one folder of tests/: its test programs and the binary are
#                                    built, then its tests run (CTest label, CMakeLists.txt)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
module=
if [[ $# -gt 0 ]]; then
  if [[ $# -ne 2 || $1 != --module ]]; then
    echo "usage: scripts/test.sh [--module NAME]" >&2
    exit 2
  fi
  module=$2
  if [[ ! -f $root/tests/$module/CMakeLists.txt ]]; then
    known=$(cd "$root/tests" && for f in */CMakeLists.txt; do printf '%s ' "${f%%/*}"; done)
    echo "test.sh: no tests/$module/CMakeLists.txt; folders with tests: $known" >&2
    exit 2
  fi
fi
"$root/scripts/install-deps.sh" --tests
"$root/scripts/setup.sh"
# One test more than the cores: many tests wait on a child (a kill, a time limit, a launched
# trainer), which leaves a core idle (ctest -j2 kept 2 cores 85% busy).
jobs=$(($(nproc) + 1))
if [[ -z $module ]]; then
  "$root/scripts/build.sh"
  (cd "$root/build" && ctest --output-on-failure -j"$jobs")
else
  "$root/scripts/build.sh" "tests-$module"
  (cd "$root/build" && ctest --output-on-failure -j"$jobs" -L "^$module\$")
fi
