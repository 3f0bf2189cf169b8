#pragma once
// What a trial's data shares with its targets, found without another read of anything:
//   - an arm's documents that are exact copies of T_eval documents (by a 64-bit hash of the
//     text; a false match is about 1 in 10^19 per pair): its runs train on the held-out text.
//     Counted once per arm from the read the regime check makes of it (runner.cc) and kept in
//     trial.json (ArmRecord::eval_copies);
//   - a --target-select file that is byte for byte a --pool file (the SHA-256 the arm records
//     already hold): the selector has nothing to tell apart.
// Each becomes a warning sentence that the trial's receipt and result.json record ("warnings")
// and the trial prints. Neither makes the numbers meaningless (arms that are the same documents
// are refused instead: runner.cc), but each makes them mean less than they seem to.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trial/run_folder.h"

namespace preflight::trial {

// How many of `docs` are copies of one of `eval`.
uint64_t CountCopies(const std::vector<std::string>& docs, const std::vector<std::string>& eval);

// One sentence per finding over the arms (by name); empty when there is none.
std::vector<std::string> OverlapWarnings(const std::map<std::string, ArmRecord>& arms);

}  // namespace preflight::trial
