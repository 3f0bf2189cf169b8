#pragma once
// `preflight score`: runs a user made elsewhere (one curve file per seed and arm, paired by
// order), scored with the trial's own arithmetic (trial/metrics.h: L*, t_R, t_C, compute saved,
// the bootstrap interval; trial/regime.h where the arms' data are given). Writes OUT/result.json,
// OUT/report.html and appends a "score" receipt, each saying that preflight did not make the arms
// or train the runs: it read the curves and computed the numbers.
//
// Units: a curve's losses per token become bits per byte through the eval set's token and byte
// counts (--eval-tokens, --eval-bytes, or the byte tokens of --eval-data; doc/trainers.md). Without
// a byte count they stay in bits per token: the saving does not depend on the unit (it compares
// steps), the regime check does and is then not made.
// Net: only when the cost is stated (--selection-core-seconds with --step-seconds); otherwise the
// net saving is reported as not stated (null), never as equal to the gross.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "ledger/receipt.h"
#include "trial/metrics.h"
#include "trial/regime.h"

namespace preflight::app {

struct ScoreRequest {
  std::vector<std::string> curated, random;  // curve files, one per seed, paired by order
  std::string curve_format = "auto";
  std::string curve_columns;
  int64_t eval_tokens = 0;  // the eval set in the trainer's tokens; 0 = eval_bytes (byte-level)
  int64_t eval_bytes = 0;   // in byte tokens; 0 = from eval_data, else unknown
  int64_t steps = 0;        // S; 0 = the first curve's last step
  // The cost, for the net saving: each arm's production in core-seconds and one step's seconds.
  std::optional<double> selection_core_seconds, random_core_seconds, step_seconds;
  // The arms' documents and the eval set (JSONL), for the regime check (all three or none).
  // text_field: the arms' documents'; eval_text_field: the eval set's ("" = text_field).
  std::string curated_data, random_data, eval_data, text_field = "text", eval_text_field;
  int context = 0;           // the regime's windows: 0 = every eval position (trial/regime.h)
  int64_t eval_windows = 0;  // with context > 0: that many windows (0 = all)
  std::string name;          // what was compared, for the page ("" = the curves' folder)
  std::string out_dir, ledger_path;
};

struct ScoreJob {
  ScoreRequest request;
  std::vector<trial::Arm> arms;  // random (the baseline), curated
  trial::TrialResult result;
  std::optional<trial::Regime> regime;
  bool net_stated = false;
  std::string unit;                         // "bits per byte" or "bits per token"
  int64_t tokens_per_step = 0;              // from the curves' tokens (0 when they state none)
  std::vector<ledger::InputRecord> inputs;  // every curve file, then the data files given
  double core_seconds = 0;                  // of scoring
  std::string report_path, receipt_hash;
};

Result<ScoreJob> RunScoreJob(const ScoreRequest& request);

// result.json and the receipt's result: the trial's keys (trial/result_json.h), "made_by":
// "elsewhere", a plain "note", the units, the curves and the regime.
nlohmann::json ScoreResultJson(const ScoreJob& job);
// The --json document: ScoreResultJson with "report" and "receipt".
nlohmann::json ScoreJson(const ScoreJob& job);
std::string ScoreText(const ScoreJob& job);

}  // namespace preflight::app
