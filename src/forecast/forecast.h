#pragma once
// A forecast: before any training step of a trial, should the trial's curated arm be trained
// (curate), or a random sample (random)? It makes the two arms the trial would make (the
// selector's quarter and a random quarter of the same bytes, from the pool and the target's
// selectable part only), measures its signals (signals.h), and maps the chosen one to a
// predicted net saving with an interval and a verdict (calibration.h).
//
// Contract
// - Never opens the held-out target file: it is not among its inputs.
// - Reads at most about `signal_bytes` of each arm (a deterministic sample of its documents).
// - Its cost is measured (CPU seconds of this process while it runs) and reported as a fraction
//   of the trial's training compute, estimated from the proxy's own measured seconds per step:
//   f * steps * 2 arms * seeds, with f timed on a few steps of the trial's model (or taken from
//   the proxy runs when they ran).
// - Deterministic: the same inputs, config and thread count give the same signals and verdict.
// - Writes only under work_dir (the two arms); with work_dir empty, under a temporary folder
//   that it removes.
// Not thread-safe (the proxy run uses every thread of the process).

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/progress.h"
#include "base/status.h"
#include "engine/config.h"
#include "forecast/calibration.h"
#include "forecast/signals.h"
#include "select/prepared.h"
#include "trial/spec.h"

namespace preflight::forecast {

// The trial it forecasts (trial/spec.h: pool, T_sel, fields, selection, pilot; a trial passes
// its own spec as one value) and the forecast's own settings.
struct ForecastConfig : trial::TrialSpec {
  // The proxy runs (off by default: on the built-in battery they cost ~4.7% of a trial and lost
  // to the byte statistics; doc/forecast.md). Their two runs together train this fraction of the
  // trial's training steps.
  bool proxy = false;
  double proxy_fraction = 0.035;
  int64_t eval_max_windows = 48;  // of T_sel, evenly spread
  // The signals read at most about this many bytes of each arm's file: an evenly spread
  // deterministic sample of its documents when the arm is larger (0: whole arms). Bounds the
  // forecast's work on a large pool, and keeps its signals measured the same way at every pool
  // size: the calibration battery's arms (about 3.8 MB) are sampled too, so a signal on an 80 MB
  // pool comes from as much text as the signals the calibration was fitted on.
  uint64_t signal_bytes = 2ull << 20;
  std::string work_dir;
  // The target's group (its corpus, in a battery): recorded so that calibrating can leave a
  // whole corpus out. Empty: the target is its own group.
  std::string group;
  // `--remeasures HASH`: this forecast measures its signals again for the finished trial whose
  // receipt has this hash, on the same inputs and settings (app/forecast_job.cc checks both), so
  // that a calibration can use signals added after the trial ran (examples.cc joins them). The
  // trial made its own arms: the selections are not charged to this forecast's cost.
  std::string remeasures;
  // `--curve-signals`: also the cross-fitted n-gram learning curves and document-level
  // target-like share (cross_fit.h; off: they did not earn their cost).
  bool curve_signals = false;
  Calibration calibration = DefaultCalibration();

  nlohmann::json ToJson() const;
};

struct ForecastOutcome {
  Prediction prediction;
  nlohmann::json signals;         // every signal, by name: {"value", "interval"}
  nlohmann::json evidence;        // the proxy curves, the arms' sizes
  nlohmann::json inputs;          // pool and target_select: path, sha256, docs, bytes
  double core_seconds = 0;        // measured: the whole forecast
  double trial_core_seconds = 0;  // estimated training compute of the trial it forecasts
  double fraction_of_trial = 0;
  double flops = 0;       // the proxy runs' training FLOPs
  nlohmann::json result;  // the receipt's result (doc/design.md's keys and the above)
};

// The two arms a forecast reads: the trial's own, or made by RunForecast.
struct ForecastArm {
  std::string path;  // JSONL
  std::string selector;
  uint64_t kept_docs = 0, kept_bytes = 0;
  double core_seconds = 0;  // what making it cost (reported; charged only as below)
};
struct ForecastArms {
  ForecastArm curated, random;
  nlohmann::json inputs;  // pool and target_select: role, path, sha256, docs, bytes
  // The pool's first pass the arms were selected from, when there is one: the cross-fitted
  // selections share it instead of reading the pool again (select/batch.h).
  std::shared_ptr<const select::PreparedInputs> pool_passes;
  // Selection cost the forecast pays for (its own arms); 0 when the trial made the arms and
  // charges them to its arms itself.
  double selection_core_seconds_charged = 0;
};

// The words for a case far smaller than a calibration of `calibration_examples` trials saw
// (Prediction::far_smaller; "" when it is not), as the forecast's reason carries them.
std::string FarSmallerNote(int calibration_examples, const std::vector<OutsideSignal>& smaller);
// Prediction::far_smaller as a forecast's result records it (coverage.far_smaller):
// [{"size", "value", "smallest_seen"}, ...].
nlohmann::json FarSmallerJson(const std::vector<OutsideSignal>& smaller);
// FarSmallerNote of a forecast's result (a receipt's, or ForecastOutcome::result): what a trial's
// summary repeats; "" for a result that records no such sizes.
std::string FarSmallerNoteOf(const nlohmann::json& result);

// The forecast of a trial whose arms are already made (the trial's own, so that each selection
// is made once per trial). Reads the arms and T_sel only. `progress` hears each stage as it
// starts (no measure: total 0), on this thread.
Result<ForecastOutcome> ForecastOnArms(const ForecastConfig& config, const ForecastArms& arms,
                                       const ProgressFn& progress = {});

// Makes the two arms (under work_dir, or a temporary folder), then ForecastOnArms.
Result<ForecastOutcome> RunForecast(const ForecastConfig& config, const ProgressFn& progress = {});

}  // namespace preflight::forecast
