#!/usr/bin/env bash
# The GPU bundle (doc/torch-trainer.md, "The GPU bundle"): one folder, under 48 MiB, that runs
# on a bare x86-64 Linux with glibc and nothing else of Debian's (the lent GPU machine: python3
# with torch, none of the libraries preflight links, no package registry). bench/gpu/run.sh runs
# it there.
#   scripts/gpu-bundle.sh [--out DIR] [--battery DIR] [--build DIR]
# --out: the folder (default gpu-bundle/, git-ignored); --battery: a built calibration battery
# (default data/calibration, built by scripts/calibration-battery.sh when missing); --build: the
# build folder to take the binary from (default build/, built by scripts/build.sh).
# 1. preflight-bundle (cmake/Bundle.cmake): the objects of build/'s preflight linked again with
#    static archives where Debian ships them and MPI left out; a link, not a second build.
# 2. scripts/gpu_bundle.py assembles the folder (its docstring gives the layout): only what
#    changed is copied or compressed again, so a second run takes seconds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/gpu-bundle
battery=$root/data/calibration
build=$root/build
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --battery) battery=$2; shift 2 ;;
    --build)
      [[ -d $2 ]] || { echo "gpu-bundle: --build $2 is not a build folder" >&2; exit 2; }
      build=$(cd "$2" && pwd); shift 2 ;;
    *) echo "usage: scripts/gpu-bundle.sh [--out DIR] [--battery DIR] [--build DIR]" >&2; exit 2 ;;
  esac
done
for tool in zstd strip ldd python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "gpu-bundle: $tool is missing: scripts/install-deps.sh --tests installs it" >&2
    exit 2
  fi
done
if [[ ! -f $root/data/brown/pools/cj.jsonl ]]; then
  echo "gpu-bundle: data/brown is missing: run scripts/fetch-data.sh" >&2
  exit 2
fi
if [[ ! -f $battery/battery.json ]]; then
  if [[ $battery != "$root/data/calibration" ]]; then
    echo "gpu-bundle: $battery/battery.json is missing (scripts/calibration-battery.sh DIR)" >&2
    exit 2
  fi
  "$root/scripts/calibration-battery.sh" "$battery"
fi

log=$build/gpu-bundle-build.log
mkdir -p "$build"
if [[ $build == "$root/build" ]]; then
  made() { "$root/scripts/build.sh" preflight-bundle; }
else
  made() {  # as scripts/build.sh does: Make learns of a new target once it regenerates
    if grep -qx "CMAKE_GENERATOR:INTERNAL=Unix Makefiles" "$build/CMakeCache.txt"; then
      cmake --build "$build" --target cmake_check_build_system
    fi
    cmake --build "$build" -j"$(nproc)" --target preflight-bundle
  }
fi
made >"$log" 2>&1 ||
  { tail -40 "$log"; echo "gpu-bundle: the build failed ($log)" >&2; exit 1; }
binary=$build/preflight-bundle
[[ -x $binary ]] || { echo "gpu-bundle: the build made no $binary" >&2; exit 1; }
exec python3 "$root/scripts/gpu_bundle.py" --binary "$binary" --out "$out" \
  --battery "$battery" --brown "$root/data/brown"
