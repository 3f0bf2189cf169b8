# Every dependency is a Debian 12 package (scripts/install-deps.sh installs them).
# Required ones stop the configure step with the package to install; optional ones are reported.

find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(OpenMP REQUIRED)
find_package(simdjson REQUIRED)          # libsimdjson-dev: JSONL parsing at GB/s
find_package(nlohmann_json REQUIRED)     # nlohmann-json3-dev: manifests, receipts, --json
find_package(CLI11 REQUIRED)             # libcli11-dev: argument parsing
find_package(fmt REQUIRED)               # libfmt-dev: formatting
find_package(OpenSSL REQUIRED)           # libssl-dev: SHA-256 of inputs and receipts
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)        # libzstd-dev: .jsonl.zst
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)    # libxxhash-dev: feature hashing
pkg_check_modules(FASTTEXT REQUIRED IMPORTED_TARGET fasttext)   # libfasttext-dev: classifier

set(_found_line "")
macro(preflight_report name found detail)
  if(${found})
    message(STATUS "preflight: ${name}: found ${detail}")
  else()
    message(STATUS "preflight: ${name}: NOT found ${detail}")
  endif()
endmacro()

# BLAS for the training engine: BLIS (fastest at transformer shapes here) or OpenBLAS.
find_library(BLIS_LIBRARY NAMES blis-mt blis PATHS /usr/lib/x86_64-linux-gnu/blis-openmp)
find_path(BLIS_INCLUDE_DIR NAMES blis/cblas.h blis.h PATHS /usr/include)
find_library(OPENBLAS_LIBRARY NAMES openblas)
set(PREFLIGHT_HAVE_BLIS OFF)
set(PREFLIGHT_HAVE_OPENBLAS OFF)
if(BLIS_LIBRARY)
  set(PREFLIGHT_HAVE_BLIS ON)
endif()
if(OPENBLAS_LIBRARY)
  set(PREFLIGHT_HAVE_OPENBLAS ON)
endif()

find_package(GTest QUIET)
find_package(benchmark QUIET)
find_package(MPI QUIET COMPONENTS CXX)
find_program(CHROMIUM_EXECUTABLE NAMES chromium chromium-browser)
find_package(Python3 QUIET COMPONENTS Interpreter)

message(STATUS "preflight: required: simdjson ${simdjson_VERSION}, nlohmann_json ${nlohmann_json_VERSION}, "
               "CLI11 ${CLI11_VERSION}, fmt ${fmt_VERSION}, OpenSSL ${OPENSSL_VERSION}, "
               "zstd ${ZSTD_VERSION}, xxhash ${XXHASH_VERSION}, fastText ${FASTTEXT_VERSION}, OpenMP ${OpenMP_CXX_VERSION}")
preflight_report("BLIS" PREFLIGHT_HAVE_BLIS "(${BLIS_LIBRARY})")
preflight_report("OpenBLAS" PREFLIGHT_HAVE_OPENBLAS "(${OPENBLAS_LIBRARY})")
preflight_report("GoogleTest" GTest_FOUND "(tests)")
preflight_report("Google Benchmark" benchmark_FOUND "(bench/)")
preflight_report("OpenMPI" MPI_CXX_FOUND "(mpirun support)")
preflight_report("Chromium" CHROMIUM_EXECUTABLE "(report rendering test)")
preflight_report("Python3" Python3_FOUND "(bench peers)")

if(PREFLIGHT_TESTS AND NOT GTest_FOUND)
  message(FATAL_ERROR "GoogleTest not found: apt-get install libgtest-dev (or -DPREFLIGHT_TESTS=OFF)")
endif()
