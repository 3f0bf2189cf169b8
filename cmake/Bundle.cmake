# PREFLIGHT_BUNDLE: the link scripts/gpu-bundle.sh asks for (doc/torch-trainer.md, "The GPU
# bundle"): a `preflight` that runs on a bare x86-64 Linux with glibc and nothing else of Debian's.
# Included before cmake/Dependencies.cmake, because it changes how libraries are found:
# - every find_library (find_package's, pkg_check_modules', BLIS's) takes a library's static
#   archive (.a) where Debian ships one (zstd, zlib, crypto, BLIS, OpenBLAS, lbfgs), so only the
#   SHA-256, codec and BLAS code preflight calls is linked in;
# - the rest stays shared (fmt, simdjson and fastText ship no .a) and is copied beside the binary
#   by the script; the binary looks for it in $ORIGIN/lib. DT_RPATH (--disable-new-dtags), not
#   DT_RUNPATH, because only DT_RPATH also serves the libraries' own needs (libfasttext.so's
#   libstdc++.so.6), so nothing is looked up in the system's folders;
# - libstdc++ and libgcc_s stay shared too, copied beside it: fmt, simdjson and fastText are C++
#   libraries that need libstdc++.so.6 themselves, and a -static-libstdc++ binary would then hold
#   a second C++ runtime beside theirs, passing std::string and streams between the two;
# - OpenMP (libgomp) stays shared, copied beside it: one OpenMP runtime for BLIS and the engine;
# - MPI is off: the lent machine has no mpirun, and OpenMPI's libraries pull in a dozen more.
option(PREFLIGHT_BUNDLE "Link for scripts/gpu-bundle.sh (static where Debian ships .a, MPI off)"
       OFF)
if(PREFLIGHT_BUNDLE)
  if(DEFINED PREFLIGHT_MPI AND PREFLIGHT_MPI)
    message(FATAL_ERROR "PREFLIGHT_BUNDLE needs -DPREFLIGHT_MPI=OFF (no mpirun where it runs)")
  endif()
  set(PREFLIGHT_MPI OFF CACHE BOOL "Build MPI (mpirun) support into preflight (src/mpi)")
  set(CMAKE_FIND_LIBRARY_SUFFIXES .a .so)
  set(OPENSSL_USE_STATIC_LIBS TRUE)
  set(CMAKE_BUILD_RPATH "$ORIGIN/lib")
  add_link_options(LINKER:--disable-new-dtags)
  message(STATUS "preflight: bundle link: static archives first, rpath $ORIGIN/lib, MPI off")
endif()
