#pragma once
// The selection manifest (doc/select.md): what was asked, what was read, what was kept, and what
// it cost. Everything but the "cost" block (and output.path) is a function of the inputs, flags
// and seed.

#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"
#include "corpus/record.h"
#include "select/output.h"
#include "select/pool_pass.h"
#include "select/selector.h"

namespace preflight::select {

// The manifest without its "cost" block; `outputs` has assembled the outputs.
nlohmann::json BuildManifest(const SelectOptions& options, const nlohmann::json& params,
                             const corpus::ScanSummary& pool, const corpus::ScanSummary& target,
                             const SelectionResult& result, const SelectionOutputs& outputs);

// A reader's bad-line message ("<input>:<line>: <why>", or "<folder>/<file>: <why>") as a
// SkippedLine; `inputs` are the paths read (the longest that starts the message is its file).
SkippedLine ParseSkippedLine(const std::string& message, const std::vector<std::string>& inputs);

// The skipped lines of the pool then the target, at most kSkippedListed.
std::vector<SkippedLine> SkippedLines(const corpus::ScanSummary& pool,
                                      const corpus::ScanSummary& target,
                                      const std::vector<std::string>& inputs);

// The "cost" block: this run's measurement (in a group, with every rank's phases), and how
// often it read each pool input (`passes`, from PassesJson).
nlohmann::json CostJson(const SelectionResult& result, int threads, const nlohmann::json& mpi,
                        const nlohmann::json& passes);

// Per pool input, the bytes this selection read of it over its bytes on disk: 3 for dsir (the
// first pass, scoring, writing), 2 for random and first, 1 for a rerun that found every pass
// done (a hash check). On the leader. Collective.
Result<nlohmann::json> PassesJson(const SelectionContext& ctx, const PoolPass& pool);

// In a group: every rank's per-phase communication, on the leader (null alone). Collective.
Result<nlohmann::json> GatherMpiCosts(const SelectionContext& ctx);

}  // namespace preflight::select
