# The modules with no hot loop (the jobs, the CLI, the words, the pages, the receipts, the
# dollars, the launches and curve readers) are compiled at -O1 in Release builds: they spend
# their time in the modules they call, and -O1 compiles them about a quarter faster than -O3,
# which a fresh machine's set-up feels (bench/results.md). The engine, the selectors, the corpus
# readers, the forecast's signals and the trial's metrics and n-gram scores keep -O3. Numbers do
# not change: with no FP contraction (ISO C++: -std=c++20, not gnu++20) IEEE arithmetic gives
# the same bits at every optimisation level, and the golden tests check it.
foreach(target preflight preflight_app preflight_cli_support preflight_narrate preflight_report
               preflight_ledger preflight_cost preflight_trainer)
  if(TARGET ${target})
    target_compile_options(${target} PRIVATE $<$<CONFIG:Release>:-O1>)
  endif()
endforeach()
