#!/usr/bin/env bash
# The one command a session lent a GPU passes to the device tool (bench/gpu/README.md gives the
# call, with the bundle carried: scripts/gpu-bundle.sh). bench/gpu/gpu_run.py says what it does;
# --dry-run runs the same path on the CPU. PREFLIGHT_GPU_PYTHON: the Python that runs it and, by
# default, the trainer (default: python3 on PATH, which on the lent machine has torch).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec "${PREFLIGHT_GPU_PYTHON:-python3}" -u "$here/gpu_run.py" "$@"
