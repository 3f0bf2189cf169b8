#!/usr/bin/env bash
# Everything a fresh Debian 12 machine needs: packages, build, default corpus.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
"$root/scripts/fetch-data.sh"
