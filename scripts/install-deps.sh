#!/usr/bin/env bash
# Installs preflight's Debian 12 dependencies. Idempotent: when every package is already
# installed it touches nothing and returns in well under a second.
# Why each package is here: README.md, "Dependencies".
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config git
  libsimdjson-dev nlohmann-json3-dev libcli11-dev libfmt-dev libssl-dev
  libzstd-dev zstd zlib1g-dev libfasttext-dev
  libblis-dev libblis-openmp-dev libopenblas-dev
  libgtest-dev libbenchmark-dev
  clang libclang-rt-14-dev libomp-dev
  nodejs npm
  python3 python3-numpy
  libopenmpi-dev openmpi-bin
  liblbfgs-dev
  chromium
)
if [[ "${PREFLIGHT_EXTRA_PACKAGES:-}" != "" ]]; then
  read -r -a extra <<<"$PREFLIGHT_EXTRA_PACKAGES"
  PACKAGES+=("${extra[@]}")
fi

missing=()
for p in "${PACKAGES[@]}"; do
  # A package counts as present when dpkg knows it as installed, or (for node/npm/python3,
  # which some machines ship outside Debian) when its command is on PATH.
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    continue
  fi
  case "$p" in
    nodejs) command -v node >/dev/null && continue ;;
    npm) command -v npm >/dev/null && continue ;;
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
