#!/usr/bin/env bash
# Installs preflight's Debian 12 dependencies, in two groups:
#   scripts/install-deps.sh           what the `preflight` binary and the demo need (the compiler,
#                                     the libraries, GoogleTest for the configure step, Node.js
#                                     for the corpus): scripts/setup.sh
#   scripts/install-deps.sh --tests   that and what the test suite needs too (OpenMPI, OpenBLAS,
#                                     clang for the fuzzers, Chromium, Python with NumPy and
#                                     Debian's PyTorch): scripts/test.sh
# The demo's group is kept small because a bare machine pays for every package: OpenMPI (54
# packages), OpenBLAS and npm (363 packages of Node modules) are not needed to build the binary
# or run the demo, and were most of the 538 packages that group once installed. Without OpenMPI
# the binary is built without mpirun support; scripts/build.sh configures again, MPI included,
# once the test group has installed it.
# Idempotent: when every package is already installed it touches nothing and returns in well
# under a second; otherwise one `apt-get update` and one `apt-get install` of the missing ones.
# PREFLIGHT_EXTRA_PACKAGES="a b" adds packages. Why each package is here: README.md,
# "Dependencies".
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config git ninja-build
  libsimdjson-dev nlohmann-json3-dev libcli11-dev libfmt-dev libssl-dev
  libzstd-dev zlib1g-dev libfasttext-dev
  libsnappy-dev liblz4-dev libbrotli-dev
  libblis-openmp-dev
  liblbfgs-dev
  libgtest-dev
  nodejs
)
TEST_PACKAGES=(
  libopenmpi-dev openmpi-bin
  libopenblas-dev
  libbenchmark-dev
  zstd
  clang libclang-rt-14-dev libomp-dev
  python3 python3-numpy python3-torch
  chromium
)
case "${1:-}" in
  --tests) PACKAGES+=("${TEST_PACKAGES[@]}") ;;
  "") ;;
  *) echo "usage: scripts/install-deps.sh [--tests]" >&2; exit 2 ;;
esac
if [[ "${PREFLIGHT_EXTRA_PACKAGES:-}" != "" ]]; then
  read -r -a extra <<<"$PREFLIGHT_EXTRA_PACKAGES"
  PACKAGES+=("${extra[@]}")
fi

# One dpkg-query for all of them (one per package costs a second on a slow machine).
declare -A installed=()
while read -r name status; do
  [[ $status == "installed" ]] && installed[${name%%:*}]=1
done < <(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${PACKAGES[@]}" 2>/dev/null || true)

missing=()
for p in "${PACKAGES[@]}"; do
  [[ -n ${installed[$p]:-} ]] && continue
  # node and python3 count as present when their command is on PATH (some machines ship them
  # outside Debian).
  case "$p" in
    nodejs) command -v node >/dev/null && continue ;;
    python3) command -v python3 >/dev/null && continue ;;
  esac
  missing+=("$p")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
