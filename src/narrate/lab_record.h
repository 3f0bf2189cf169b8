#pragma once
// A data trial's lab record: the question, what would prove curation wrong (fixed before
// training), the finding, what the trial does not show, and a plain summary first. Narration of
// trial/metrics.h's numbers; nothing here computes a saving.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "trial/metrics.h"

namespace preflight::narrate {

// What the trial asks, known before training. The falsifier is built from this alone.
struct LabQuestion {
  std::string target;    // the target's name, e.g. "brown:news"
  std::string pool;      // the pool, e.g. "bundled pool (12.3 MB)"
  std::string selector;  // e.g. "dsir"
  double keep = 0.25;    // keep fraction of the pool's bytes
  std::string model;     // model name, e.g. "tiny"
  int64_t model_params = 0;
  int64_t steps = 0;  // S
  int seeds = 0;      // per arm
  int64_t pool_bytes = 0;
  int64_t eval_bytes = 0;  // bytes of the held-out T_eval
  // A launched trainer (torch, cmd) prices a step at each run's charged seconds, not the
  // engine's measured core-seconds (doc/trainers.md, "What a launched run costs").
  bool launched = false;
  // The baseline is the whole pool in random order (a keep trial, doc/ladder.md), not a random
  // sample of the same bytes.
  bool whole_pool_baseline = false;
};

// "the tiny model (100,096 parameters)", or "the tiny model" when params <= 0.
std::string ModelPhrase(const std::string& model, int64_t params);

// "The curated arm does not reach L* within S steps", with S filled in; fixed before training.
std::string Falsifier(const LabQuestion& question);

// The receipt's lab record: {summary, question, falsifier, finding, does_not_show[...]},
// all in plain language, for the primary comparison of `result`.
nlohmann::json BuildLabRecord(const LabQuestion& question, const trial::TrialResult& result);

// A lab record (of either kind of trial) as text, summary first, wrapped at 100 columns.
std::string LabRecordText(const nlohmann::json& record);

}  // namespace preflight::narrate
