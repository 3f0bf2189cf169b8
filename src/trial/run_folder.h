#pragma once
// A trial's run folder, typed (the format is doc/trial-format.md):
//   trial.json          the manifest: version, the config (the trial's fingerprint), each arm's
//                       data record, each finished run's record, and whether the trial is done
//   arms/<arm>.jsonl    each arm's documents (+ .manifest.json, the selection's manifest)
//   runs/<arm>-s<seed>/ each run's checkpoint and curve (engine/train.h); a launched trainer's
//                       launch.json, stdout.log, stderr.log, curve and run.json (doc/trainers.md)
//   runs/init-s<seed>.bin  the engine's initial weights for seed (--trainer torch)
//   exports/<arm>/      the arms and T_eval ("eval") in trainers' formats (launched trainers)
//   result.json         the result (the receipt's "result"), written by the job on top
// trial.json is rewritten atomically after every arm and every run, so a killed trial resumes
// from the last thing it finished. Reading it is strict: a damaged or foreign file is a
// Corruption naming the file and the JSON path, never a crash.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "ledger/receipt.h"
#include "trainer/trainer.h"
#include "trial/launch_prices.h"
#include "trial/regime.h"

namespace preflight::trial {

// Version 2: typed records (every run carries its compute columns). Version 1 folders are refused.
inline constexpr int kRunFolderVersion = 2;

// One arm's data, as the selection (or the pool itself) made it.
struct ArmRecord {
  std::string data_kind;  // selector name, "random", "first" or "pool"
  std::string schedule;   // "" for data arms
  uint64_t kept_docs = 0, kept_bytes = 0, budget_bytes = 0, pool_docs = 0, pool_bytes = 0;
  double selection_core_seconds = 0;
  std::string output_sha256;
  std::vector<ledger::InputRecord> inputs;  // pool files, then target_select files
  // The regime check: byte n-gram models fitted on this arm's file, scored on T_eval's eval
  // windows (trial/regime.h). Absent in folders written before the check; a rerun adds it.
  std::optional<NgramScores> ngram;
  // How many of its documents are copies of T_eval documents (held-out text trained on:
  // trial/arm_overlap.h), counted from the regime check's read; absent in folders written before
  // it was counted (a rerun adds it).
  std::optional<uint64_t> eval_copies;
};

// One point of a run's eval curve, with the cumulative training compute before it.
struct RunPoint {
  int64_t step = 0;
  double eval_bpb = 0;
  double flops = 0, train_seconds = 0, core_seconds = 0;
  int64_t tokens = 0;  // training tokens before it (stored for launched runs only)
};

// One finished training run, with what its schedule did (ScheduleFacts: recorded for every run;
// a plain run's are those of no schedule).
struct RunRecord : trainer::ScheduleFacts {
  std::string arm;
  int seed = 0;
  std::vector<RunPoint> curve;
  double flops_per_step = 0;
  int64_t tokens_per_step = 0, steps = 0, params = 0;
  double core_seconds = 0, train_seconds = 0, tokens_per_second = 0;
  // A run of a launched trainer (torch, cmd): how it was measured and charged. Absent for the
  // builtin's runs (their JSON has no "launch" key).
  std::optional<trainer::LaunchFacts> launch;
};

struct RunFolderManifest {
  int version = kRunFolderVersion;
  nlohmann::json config;  // TrialConfig::ToJson(): what makes two trials the same
  std::map<std::string, ArmRecord> arms;
  std::map<std::string, RunRecord> runs;  // key "<arm>-s<seed>"
  // The forecast's measured cost, charged to the curated arm (the config names its receipt).
  double forecast_core_seconds = 0;
  // A launched trainer's prices as last run (unresolved, and absent from the file, for the
  // builtin and for a trial.json that records none).
  LaunchPrices prices;
  bool done = false;
};

std::string RunKey(const std::string& arm, int seed);

nlohmann::json ToJson(const ArmRecord& arm);
nlohmann::json ToJson(const RunRecord& run);
nlohmann::json ToJson(const RunFolderManifest& manifest);
// `file` names the source in error messages.
Result<RunRecord> RunRecordFromJson(const nlohmann::json& json, const std::string& file);
Result<RunFolderManifest> ManifestFromJson(const nlohmann::json& json, const std::string& file);

// The trial.json of one run folder.
class RunFolder {
 public:
  explicit RunFolder(std::string dir);

  const std::string& dir() const { return dir_; }
  std::string manifest_path() const;
  std::string ArmPath(const std::string& arm) const;  // arms/<arm>.jsonl
  std::string RunDir(const std::string& arm, int seed) const;
  std::string ResultPath() const;
  std::string ReportPath() const;

  // Reads trial.json if it exists and checks that it holds the trial `config` describes
  // (the forecast under test aside: a rerun to test a new forecast reuses arms and runs).
  // Writes nothing. InvalidArgument naming the differing keys for another trial's folder;
  // Corruption naming the file and JSON path for a damaged one.
  Status Check(const nlohmann::json& config) const;
  // Check, then loads (or starts) the manifest with `config` recorded. Writes nothing.
  Status Open(const nlohmann::json& config);
  Status Save() const;

  RunFolderManifest& manifest() { return manifest_; }
  const RunFolderManifest& manifest() const { return manifest_; }

 private:
  Result<RunFolderManifest> Read() const;
  std::string dir_;
  RunFolderManifest manifest_;
};

}  // namespace preflight::trial
