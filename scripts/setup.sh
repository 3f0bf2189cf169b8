#!/usr/bin/env bash
# What the demo needs on a fresh Debian 12 machine: its packages, the `preflight` binary (not the
# tests: scripts/test.sh builds those), the default corpus. Idempotent: on a ready machine it
# only rebuilds what changed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" preflight
"$root/scripts/fetch-data.sh"
