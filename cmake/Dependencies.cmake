# Every dependency is a Debian 12 package (scripts/install-deps.sh installs them).
# Required ones stop the configure step with the package to install; optional ones are reported.

find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)  # C++ only: checking C too costs configure time
find_package(simdjson REQUIRED)          # libsimdjson-dev: JSONL parsing at GB/s
find_package(nlohmann_json REQUIRED)     # nlohmann-json3-dev: manifests, receipts, --json
find_package(CLI11 REQUIRED)             # libcli11-dev: argument parsing
find_package(fmt REQUIRED)               # libfmt-dev: formatting
pkg_check_modules(CRYPTO REQUIRED IMPORTED_TARGET libcrypto)   # libssl-dev: SHA-256 of inputs and receipts
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)        # libzstd-dev: .jsonl.zst
pkg_check_modules(ZLIB REQUIRED IMPORTED_TARGET zlib)           # zlib1g-dev: .jsonl.gz
pkg_check_modules(FASTTEXT REQUIRED IMPORTED_TARGET fasttext)   # libfasttext-dev: classifier
# Parquet pages (src/parquet): libsnappy-dev, liblz4-dev, libbrotli-dev. Brotli's decoder needs
# its common library named too, for the static link of the bundle (cmake/Bundle.cmake).
pkg_check_modules(SNAPPY REQUIRED IMPORTED_TARGET snappy)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
pkg_check_modules(BROTLIDEC REQUIRED IMPORTED_TARGET libbrotlidec libbrotlicommon)
# pkg-config's targets, under the names the modules use, so that the GPU bundle's binary can
# link their static archives (cmake/Bundle.cmake); libcrypto.a needs libdl and pthreads.
add_library(OpenSSL::Crypto ALIAS PkgConfig::CRYPTO)
add_library(ZLIB::ZLIB ALIAS PkgConfig::ZLIB)
preflight_bundle_static(PkgConfig::CRYPTO Threads::Threads ${CMAKE_DL_LIBS})
preflight_bundle_static(PkgConfig::ZSTD)
preflight_bundle_static(PkgConfig::ZLIB)
preflight_bundle_static(PkgConfig::SNAPPY)
preflight_bundle_static(PkgConfig::LZ4)
preflight_bundle_static(PkgConfig::BROTLIDEC)

set(_found_line "")
macro(preflight_report name found detail)
  if(${found})
    message(STATUS "preflight: ${name}: found ${detail}")
  else()
    message(STATUS "preflight: ${name}: NOT found ${detail}")
  endif()
endmacro()

# BLAS for the training engine: BLIS (fastest at transformer shapes here, doc/train.md) or
# OpenBLAS. Debian ships each in several threading flavours; the engine wants the OpenMP BLIS so
# that BLIS and the engine's own loops share one OpenMP thread pool. preflight::blas is the
# chosen one, with PREFLIGHT_BLAS_BLIS or PREFLIGHT_BLAS_OPENBLAS defined for src/engine/blas.cc.
find_library(BLIS_LIBRARY NAMES blis PATHS /usr/lib/x86_64-linux-gnu/blis-openmp NO_DEFAULT_PATH)
if(NOT BLIS_LIBRARY)
  find_library(BLIS_LIBRARY NAMES blis-mt blis)
endif()
find_path(BLIS_INCLUDE_DIR NAMES cblas.h
          PATHS /usr/include/x86_64-linux-gnu/blis-openmp /usr/include/blis NO_DEFAULT_PATH)
find_library(OPENBLAS_LIBRARY NAMES openblas
             PATHS /usr/lib/x86_64-linux-gnu/openblas-pthread NO_DEFAULT_PATH)
if(NOT OPENBLAS_LIBRARY)
  find_library(OPENBLAS_LIBRARY NAMES openblas)
endif()
find_path(OPENBLAS_INCLUDE_DIR NAMES cblas.h
          PATHS /usr/include/x86_64-linux-gnu/openblas-pthread /usr/include/openblas NO_DEFAULT_PATH)
set(PREFLIGHT_HAVE_BLIS OFF)
set(PREFLIGHT_HAVE_OPENBLAS OFF)
if(BLIS_LIBRARY AND BLIS_INCLUDE_DIR)
  set(PREFLIGHT_HAVE_BLIS ON)
endif()
if(OPENBLAS_LIBRARY AND OPENBLAS_INCLUDE_DIR)
  set(PREFLIGHT_HAVE_OPENBLAS ON)
endif()
add_library(preflight_blas INTERFACE)
add_library(preflight::blas ALIAS preflight_blas)
# The library file as a target that needs OpenMP, so that the link line puts it before libgomp
# (the static archive, which the GPU bundle's binary links, calls GOMP_* and must come first).
add_library(preflight_blas_library UNKNOWN IMPORTED)
set_target_properties(preflight_blas_library PROPERTIES INTERFACE_LINK_LIBRARIES OpenMP::OpenMP_CXX)
add_library(preflight_blas_archive UNKNOWN IMPORTED)
set_target_properties(preflight_blas_archive PROPERTIES
  INTERFACE_LINK_LIBRARIES "OpenMP::OpenMP_CXX;Threads::Threads;m")
if(PREFLIGHT_BLAS STREQUAL "blis" AND PREFLIGHT_HAVE_BLIS)
  target_include_directories(preflight_blas SYSTEM INTERFACE ${BLIS_INCLUDE_DIR})
  set(_blas_library ${BLIS_LIBRARY})
  target_compile_definitions(preflight_blas INTERFACE PREFLIGHT_BLAS_BLIS)
  message(STATUS "preflight: engine BLAS: BLIS (${BLIS_LIBRARY})")
elseif(PREFLIGHT_HAVE_OPENBLAS)
  target_include_directories(preflight_blas SYSTEM INTERFACE ${OPENBLAS_INCLUDE_DIR})
  set(_blas_library ${OPENBLAS_LIBRARY})
  target_compile_definitions(preflight_blas INTERFACE PREFLIGHT_BLAS_OPENBLAS)
  message(STATUS "preflight: engine BLAS: OpenBLAS (${OPENBLAS_LIBRARY})")
else()
  message(FATAL_ERROR "No BLAS for the training engine: apt-get install libblis-openmp-dev "
                      "(or libopenblas-dev and -DPREFLIGHT_BLAS=openblas)")
endif()
set_target_properties(preflight_blas_library PROPERTIES IMPORTED_LOCATION ${_blas_library})
string(REGEX REPLACE "\\.so[.0-9]*$" ".a" _blas_archive "${_blas_library}")
if(EXISTS "${_blas_archive}")
  set_target_properties(preflight_blas_archive PROPERTIES IMPORTED_LOCATION ${_blas_archive})
  target_link_libraries(preflight_blas INTERFACE
    "$<IF:${_preflight_bundle_link},preflight_blas_archive,preflight_blas_library>")
else()
  target_link_libraries(preflight_blas INTERFACE preflight_blas_library)
endif()

find_package(GTest QUIET)
find_package(benchmark QUIET)
find_package(MPI QUIET COMPONENTS CXX)  # libopenmpi-dev + openmpi-bin: mpirun support (src/mpi)
# MPI support is built into the same binary when OpenMPI is found; without mpirun the binary
# behaves as without it (src/mpi/ranks.h). -DPREFLIGHT_MPI=OFF leaves it out.
option(PREFLIGHT_MPI "Build MPI (mpirun) support into preflight (src/mpi)" ${MPI_CXX_FOUND})
if(PREFLIGHT_MPI AND NOT MPI_CXX_FOUND)
  message(FATAL_ERROR "PREFLIGHT_MPI is ON but MPI was not found: apt-get install libopenmpi-dev "
                      "openmpi-bin (or -DPREFLIGHT_MPI=OFF)")
endif()
find_program(CHROMIUM_EXECUTABLE NAMES chromium chromium-browser)
# Debian's python3 first (it is the one with python3-numpy and python3-torch, and it starts
# quickly; a pyenv shim on PATH took 25 s of a configure): -DPython3_EXECUTABLE=... overrides.
if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3)
endif()
find_package(Python3 QUIET COMPONENTS Interpreter)

message(STATUS "preflight: required: simdjson ${simdjson_VERSION}, nlohmann_json ${nlohmann_json_VERSION}, "
               "CLI11 ${CLI11_VERSION}, fmt ${fmt_VERSION}, OpenSSL ${CRYPTO_VERSION}, "
               "zstd ${ZSTD_VERSION}, zlib ${ZLIB_VERSION}, snappy ${SNAPPY_VERSION}, "
               "lz4 ${LZ4_VERSION}, brotli ${BROTLIDEC_libbrotlidec_VERSION}, fastText (found; its .pc has no version), OpenMP ${OpenMP_CXX_VERSION}")
preflight_report("BLIS" PREFLIGHT_HAVE_BLIS "(${BLIS_LIBRARY})")
preflight_report("OpenBLAS" PREFLIGHT_HAVE_OPENBLAS "(${OPENBLAS_LIBRARY})")
preflight_report("GoogleTest" GTest_FOUND "(tests)")
preflight_report("Google Benchmark" benchmark_FOUND "(bench/)")
preflight_report("OpenMPI" MPI_CXX_FOUND "(${MPI_CXX_COMPILER})")
if(PREFLIGHT_MPI)
  message(STATUS "preflight: MPI support: ON (PREFLIGHT_MPI; mpirun: ${MPIEXEC_EXECUTABLE})")
else()
  message(STATUS "preflight: MPI support: OFF (PREFLIGHT_MPI)")
endif()
preflight_report("Chromium" CHROMIUM_EXECUTABLE "(report rendering test)")
preflight_report("Python3" Python3_FOUND "(bench peers, the calibration battery's test)")

if(PREFLIGHT_TESTS AND NOT GTest_FOUND)
  message(FATAL_ERROR "GoogleTest not found: apt-get install libgtest-dev (or -DPREFLIGHT_TESTS=OFF)")
endif()
