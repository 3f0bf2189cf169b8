#pragma once
// A trial's config (TrialConfig): everything that defines a trial, and its JSON both ways (the
// fingerprint in trial.json, doc/trial-format.md).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "trainer/trainer_spec.h"
#include "trial/launch_prices.h"
#include "trial/spec.h"

namespace preflight::trial {

// The trial's spec (spec.h: pool, T_sel, fields, selection, pilot) and what only the trial has:
// the held-out target, the evaluation, its folder, the forecast it tests, schedules, the trainer.
struct TrialConfig : TrialSpec {
  std::string target_eval;  // T_eval: held out; read only by the evaluation of training runs
  std::string target_name;  // for the lab record, e.g. "brown:cj (learned)"
  std::string baseline;     // "" or "first": adds the first quarter as a third arm
  int64_t eval_every = 0;   // 0 = steps / 20
  // Eval windows, evenly spread over the held-out file: a fixed set, the same for every run and
  // every eval point. 256 windows keep an eval at about 16 training steps' worth of forward work.
  int64_t eval_max_windows = 256;
  // Builtin runs trained at once in this process, each on one thread (trial/concurrent_runs.h):
  // 0 = auto. Not part of the fingerprint: the results are the same whichever it is.
  int runs_at_once = 0;
  std::string out_dir;
  // The forecast receipt (hash) this trial tests, and the forecast's cost, charged to the curated
  // arm when the forecast is what chose it. Empty when no forecast was made.
  std::string forecast_hash;
  double forecast_core_seconds = 0;
  // A schedule trial (doc/schedules.md) when not empty: a plain baseline arm against one arm per
  // schedule (canonical spelling, engine/schedule.h), all trained on the same data, chosen by
  // schedule_data: "random" (a random `keep` of the pool), "curated" (the selector's) or "pool"
  // (the single pool file as it is).
  std::vector<std::string> schedules;
  std::string schedule_data = "random";
  // A keep trial (a ladder's --keep LIST, doc/ladder.md) when not empty: two or more fractions
  // in (0, 1), increasing; one arm per fraction, the selector's top fraction (named by
  // KeepArmName), against one baseline, "random": a random order over the whole pool (keep 1;
  // `keep` is then 1). Each arm's selection is charged the pool's first pass too, as that
  // fraction's selection alone would pay it. Empty for every other trial, whose fingerprint then
  // has no "keeps".
  std::vector<double> keeps;
  // Who trains the runs (doc/trainers.md): the builtin engine in this process by default, or a
  // launched trainer (torch, cmd) that reads the arms' exports and writes curves back.
  trainer::TrainerSpec trainer;
  // What a launched trainer's net is counted in (launch_prices.h; resolved by the job on top).
  // Not part of the fingerprint; unused by the builtin, whose net stays in core-seconds.
  LaunchPrices prices;

  bool IsScheduleTrial() const { return !schedules.empty(); }
  bool IsKeepTrial() const { return !keeps.empty(); }
  // Everything that defines the trial (the fingerprint). Keys that only some trials have are
  // left out where they do not apply, so a folder of a trial without them resumes: "trainer"
  // (TrainerSpec::ToJson) only for a launched trainer, "schedules" and "schedule_data" only for a
  // schedule trial, "keeps" only for a keep trial; target fields only where they differ from the
  // pool's.
  nlohmann::json ToJson() const;
};

// A keep trial's arm for `keep`: "keep-" and the fraction's shortest round-trip spelling
// ("keep-0.05").
std::string KeepArmName(double keep);

// The inverse of ToJson, for a run folder read back (`preflight report`).
Result<TrialConfig> TrialConfigFromJson(const nlohmann::json& json, const std::string& file);

}  // namespace preflight::trial
