#!/usr/bin/env bash
# The whole test suite: set-up (idempotent), then every CTest test.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
cd "$root/build"
ctest --output-on-failure -j"$(nproc)"
