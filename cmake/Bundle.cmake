# preflight-bundle: the binary of the GPU bundle (scripts/gpu-bundle.sh; doc/torch-trainer.md,
# "The GPU bundle"), a `preflight` that runs on a bare x86-64 Linux with glibc and nothing else of
# Debian's. It is linked in this build from the very objects `preflight` is made of, so making it
# costs a link, not a second build of the sources:
# - every library Debian ships a static archive (.a) of (zstd, zlib, crypto, BLIS or OpenBLAS,
#   lbfgs) is linked from that archive, so only the SHA-256, codec and BLAS code preflight calls
#   is in it: preflight_bundle_static() makes a dependency's link take its archive in a target
#   whose PREFLIGHT_BUNDLE_LINK property is on, and its shared library everywhere else;
# - the rest stays shared (fmt, simdjson and fastText ship no .a) and is copied beside the binary
#   by the script; the binary looks for it in $ORIGIN/lib. DT_RPATH (--disable-new-dtags), not
#   DT_RUNPATH, because only DT_RPATH also serves the libraries' own needs (libfasttext.so's
#   libstdc++.so.6), so nothing is looked up in the system's folders;
# - libstdc++ and libgcc_s stay shared too, copied beside it: fmt, simdjson and fastText are C++
#   libraries that need libstdc++.so.6 themselves, and a -static-libstdc++ binary would then hold
#   a second C++ runtime beside theirs, passing std::string and streams between the two;
# - OpenMP (libgomp) stays shared, copied beside it: one OpenMP runtime for BLIS and the engine;
# - MPI is left out (src/mpi/CMakeLists.txt links the module's MPI-less twin into it): the lent
#   machine has no mpirun, and OpenMPI's libraries pull in a dozen more.

set(_preflight_bundle_link "$<BOOL:$<TARGET_PROPERTY:PREFLIGHT_BUNDLE_LINK>>")

# preflight_bundle_static(TARGET [EXTRA...]): TARGET, an INTERFACE target listing shared libraries
# by path (pkg-config's IMPORTED_TARGET), links each one's static archive beside it (libx.so ->
# libx.a) into the bundle's binary, with EXTRA after them (what the archives need that the shared
# libraries brought themselves). A library without an archive stays shared there too.
function(preflight_bundle_static target)
  get_target_property(_libs ${target} INTERFACE_LINK_LIBRARIES)
  set(_shared)
  set(_static)
  foreach(lib IN LISTS _libs)
    string(REGEX REPLACE "\\.so$" ".a" _archive "${lib}")
    list(APPEND _shared "${lib}")
    if(NOT _archive STREQUAL lib AND EXISTS "${_archive}")
      list(APPEND _static "${_archive}")
    else()
      list(APPEND _static "${lib}")
    endif()
  endforeach()
  list(APPEND _static ${ARGN})
  set_property(TARGET ${target} PROPERTY INTERFACE_LINK_LIBRARIES
               "$<IF:${_preflight_bundle_link},${_static},${_shared}>")
endfunction()

# The target itself, once `preflight` and every library under it are defined (CMakeLists.txt).
# Not part of `all`: scripts/gpu-bundle.sh builds it.
function(preflight_add_bundle_target)
  add_executable(preflight-bundle EXCLUDE_FROM_ALL $<TARGET_OBJECTS:preflight>)
  get_target_property(_libs preflight LINK_LIBRARIES)
  target_link_libraries(preflight-bundle PRIVATE ${_libs})
  target_link_options(preflight-bundle PRIVATE LINKER:--disable-new-dtags)
  set_target_properties(preflight-bundle PROPERTIES
    PREFLIGHT_BUNDLE_LINK ON
    BUILD_RPATH "$ORIGIN/lib"
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
endfunction()
