#!/usr/bin/env bash
# The GPU bundle (doc/torch-trainer.md, "The GPU bundle"): one folder, under 48 MiB, that runs
# on a bare x86-64 Linux with glibc and nothing else of Debian's (the lent GPU machine: python3
# with torch, none of the libraries preflight links, no package registry). bench/gpu/run.sh runs
# it there.
#   scripts/gpu-bundle.sh [--out DIR] [--battery DIR]
# --out: the folder (default gpu-bundle/, git-ignored); --battery: a built calibration battery
# (default data/calibration, built by scripts/calibration-battery.sh when missing).
# 1. preflight, linked with -DPREFLIGHT_BUNDLE=ON (cmake/Bundle.cmake) in build-bundle/: static
#    archives where Debian ships them, MPI off. Through ccache when there is one (the objects of
#    build/ are reused: same flags, same relative paths), else one unity build of the binary.
# 2. scripts/gpu_bundle.py assembles the folder (its docstring gives the layout): only what
#    changed is copied or compressed again, so a second run takes seconds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/gpu-bundle
battery=$root/data/calibration
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --battery) battery=$2; shift 2 ;;
    *) echo "usage: scripts/gpu-bundle.sh [--out DIR] [--battery DIR]" >&2; exit 2 ;;
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

build=$root/build-bundle
args=(-DCMAKE_BUILD_TYPE=Release -DPREFLIGHT_BUNDLE=ON -DPREFLIGHT_MPI=OFF
      -DPREFLIGHT_TESTS=OFF -DPREFLIGHT_BENCH=OFF)
if command -v ccache >/dev/null && [[ -z "${CCACHE_DISABLE:-}" ]]; then
  args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DPREFLIGHT_UNITY=OFF)
else
  args+=(-DPREFLIGHT_UNITY=ON)
fi
if [[ ! -f $build/CMakeCache.txt ]] || ! grep -qx "PREFLIGHT_BUNDLE:BOOL=ON" "$build/CMakeCache.txt"; then
  mkdir -p "$build"
  cmake -S "$root" -B "$build" "${args[@]}" >"$build/configure.log" 2>&1 ||
    { cat "$build/configure.log"; exit 1; }
fi
cmake --build "$build" -j"$(nproc)" --target preflight >"$build/build.log" 2>&1 ||
  { tail -40 "$build/build.log"; echo "gpu-bundle: the build failed ($build/build.log)" >&2; exit 1; }
[[ -x $build/preflight ]] || { echo "gpu-bundle: the build made no $build/preflight" >&2; exit 1; }
exec python3 "$root/scripts/gpu_bundle.py" --binary "$build/preflight" --out "$out" \
  --battery "$battery" --brown "$root/data/brown"
