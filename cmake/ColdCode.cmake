# The modules with no hot loop (the jobs, the CLI, the words, the pages, the receipts, the
# dollars, the launches and curve readers) are compiled at -O1 in Release builds: they spend
# their time in the modules they call, and -O1 compiles them about a quarter faster than -O3,
# which a fresh machine's set-up feels (bench/results.md). The engine, the selectors, the corpus
# readers, the forecast's signals and the trial's metrics and n-gram scores keep -O3. GCC fuses
# a*b+c into one rounding (-mfma) from -O2 up, ISO C++ or not, so code at -O1 may round such an
# expression otherwise than at -O3: the golden tests hold what these modules print to their
# files, byte for byte.
foreach(target preflight preflight_app preflight_cli_support preflight_narrate preflight_report
               preflight_ledger preflight_cost preflight_trainer)
  if(TARGET ${target})
    target_compile_options(${target} PRIVATE $<$<CONFIG:Release>:-O1>)
  endif()
endforeach()
# The test programs (preflight_test, CMakeLists.txt) too: their own code makes inputs and
# compares outputs, the work is done in the libraries they call, which keep their level. -O1
# compiles a test batch about a third faster than -O3 (bench/results.md), and the tests are
# half of what a fresh machine compiles. Not the golden test: its inputs are computed in the
# test itself (tests/trial/golden_inputs.h) and must have the bits the golden files were written
# from, and GCC fuses a*b+c into one rounding only from -O2 up.
get_property(_preflight_dirs DIRECTORY ${CMAKE_SOURCE_DIR} PROPERTY SUBDIRECTORIES)
foreach(dir IN LISTS _preflight_dirs)
  if(dir MATCHES "^${CMAKE_SOURCE_DIR}/tests/")
    get_property(_targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target IN LISTS _targets)
      get_target_property(_test_libs ${target} LINK_LIBRARIES)
      if(_test_libs MATCHES "GTest::gtest" AND NOT target STREQUAL "trial_golden_test")
        target_compile_options(${target} PRIVATE $<$<CONFIG:Release>:-O1>)
      endif()
    endforeach()
  endif()
endforeach()
