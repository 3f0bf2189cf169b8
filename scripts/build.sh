#!/usr/bin/env bash
# Configures build/ (Release) and builds the given targets, or everything (the binary, every
# test and the benchmarks) when none is given:
#   scripts/build.sh                 everything (scripts/test.sh)
#   scripts/build.sh preflight       only the binary (scripts/setup.sh: what the demo needs)
# With ccache (installed and not disabled by CCACHE_DISABLE) files are compiled one by one
# through it, which makes rebuilds quick; without it (a fresh machine, CI) the build is a unity
# build (PREFLIGHT_UNITY, CMakeLists.txt), which makes the one build quick.
# PREFLIGHT_CMAKE_ARGS="-DX=Y ..." adds configure arguments.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
args=(-DCMAKE_BUILD_TYPE=Release)
unity=ON
if command -v ccache >/dev/null && [[ -z "${CCACHE_DISABLE:-}" ]]; then
  unity=OFF
  args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
args+=(-DPREFLIGHT_UNITY=$unity)
if [[ "${PREFLIGHT_CMAKE_ARGS:-}" != "" ]]; then
  read -r -a extra <<<"$PREFLIGHT_CMAKE_ARGS"
  args+=("${extra[@]}")
fi
# Configure a new build folder, or one configured otherwise; an existing one is reconfigured by
# the build itself when a CMakeLists.txt changed (a configure costs seconds on a busy machine).
cache=$root/build/CMakeCache.txt
# What the configure step finds depends on the optional packages installed (OpenMPI, OpenBLAS,
# GoogleTest, Google Benchmark, Chromium, Python: cmake/Dependencies.cmake). scripts/setup.sh
# installs the demo's group only; when the test group adds some of them later, the folder is
# configured again with the cached answers about them dropped, so that the MPI support and the
# tests they enable are built (a stale cache would leave them out without a word).
stamp=$root/build/optional-packages.txt
optional=$(dpkg-query -W -f='${Package}:${db:Status-Status} ' libopenmpi-dev openmpi-bin \
  libopenblas-dev libgtest-dev libbenchmark-dev chromium python3 2>/dev/null || true)
forget=()
if [[ -f $cache && "$(cat "$stamp" 2>/dev/null)" != "$optional" ]]; then
  forget=(-UPREFLIGHT_MPI '-UMPI_*' '-UOPENBLAS_*' -UCHROMIUM_EXECUTABLE '-UGTEST_*' '-UGTest_*'
    -Ubenchmark_DIR '-U_Python3_*' '-UPython3_*')
fi
if [[ ! -f $cache || -n "${PREFLIGHT_CMAKE_ARGS:-}" || ${#forget[@]} -gt 0 ]] ||
  ! grep -qx "PREFLIGHT_UNITY:BOOL=$unity" "$cache" ||
  ! grep -qx "CMAKE_BUILD_TYPE:STRING=Release" "$cache"; then
  # A new folder is built by Ninja where it is installed (it starts the next compile sooner than
  # Make's recursive makefiles); a folder keeps the generator it was made with.
  generator=()
  if [[ ! -f $cache ]] && command -v ninja >/dev/null; then
    generator=(-G Ninja)
  fi
  mkdir -p "$root/build"
  cmake -S "$root" -B "$root/build" ${generator[@]+"${generator[@]}"} "${forget[@]}" "${args[@]}" \
    >"$root/build/configure.log" 2>&1 ||
    { cat "$root/build/configure.log"; exit 1; }
  echo "$optional" >"$stamp"
fi
targets=()
for t in "$@"; do targets+=(--target "$t"); done
# A target a changed CMakeLists.txt adds is known to Make only once the build files are generated
# again, which Make does on its own only when it builds a target it already knows.
if [[ ${#targets[@]} -gt 0 ]] && grep -qx "CMAKE_GENERATOR:INTERNAL=Unix Makefiles" "$cache"; then
  cmake --build "$root/build" --target cmake_check_build_system >/dev/null
fi
cmake --build "$root/build" -j"$(nproc)" "${targets[@]}"
