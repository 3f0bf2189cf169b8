#include "app/calibrate_job.h"

#include <fmt/format.h>

#include <algorithm>

#include "app/forecast_job.h"
#include "base/file.h"
#include "forecast/example_set.h"
#include "forecast/held_out.h"
#include "ledger/ledger.h"
#include "ledger/writable.h"

namespace preflight::app {
namespace {

constexpr size_t kMinExamples = 4;

}  // namespace

Result<CalibrateJob> RunCalibrateJob(const std::string& ledger_path, bool save) {
  CalibrateJob job;
  job.ledger_path = ledger_path;
  if (save) {  // the calibration is saved beside the ledger: checked before the fit
    PF_RETURN_IF_ERROR(ledger::CheckWritableFile(CalibrationPath(ledger_path), "--ledger"));
  }
  std::vector<forecast::Example> examples;
  if (PathExists(ledger_path)) {
    PF_ASSIGN_OR_RETURN(std::vector<nlohmann::json> receipts, ledger::ReadAll(ledger_path));
    forecast::ExampleSet set = forecast::SelectExamples(forecast::ExamplesFromReceipts(receipts));
    examples = std::move(set.kept);
    job.set_aside = std::move(set.set_aside);
    job.lacking = std::move(set.missing);
  }
  job.examples = examples.size();
  if (examples.size() < kMinExamples) {
    job.calibration = forecast::DefaultCalibration();
    return job;
  }
  PF_ASSIGN_OR_RETURN(
      job.calibration,
      forecast::Calibrate(examples, forecast::CandidateSignals(),
                          fmt::format("ledger {}: {} trials", ledger_path, examples.size())));
  if (save) {
    job.saved = CalibrationPath(ledger_path);
    PF_RETURN_IF_ERROR(WriteFileAtomically(job.saved, job.calibration.ToJson().dump(2) + "\n"));
  }
  auto held_out =
      forecast::EvaluateHeldOut(examples, forecast::CandidateSignals(), forecast::GainSignals());
  if (held_out.ok()) {
    job.held_out = std::move(held_out).value();
  } else {
    job.held_out_error = held_out.status().message();
  }
  return job;
}

nlohmann::json CalibrateJson(const CalibrateJob& job) {
  nlohmann::json doc = {
      {"examples", job.examples},
      {"ledger", job.ledger_path},
      {"calibration", job.calibration.ToJson()},
      {"saved", job.saved.empty() ? nlohmann::json(nullptr) : nlohmann::json(job.saved)},
      {"held_out", job.held_out}};
  if (job.examples < kMinExamples) {
    doc["message"] =
        "fewer than 4 trials in the ledger tested a forecast; forecasts use the default "
        "calibration, fitted on the calibration battery";
  }
  if (!job.held_out_error.empty()) doc["held_out_error"] = job.held_out_error;
  if (!job.set_aside.empty()) {
    doc["set_aside"] = {{"trials", job.set_aside}, {"lacking", job.lacking}};
  }
  return doc;
}

std::string CalibrateText(const CalibrateJob& job) {
  const forecast::Calibration& c = job.calibration;
  if (job.examples < kMinExamples) {
    return fmt::format(
        "calibrate: {} labelled trials in {}: too few (4 needed).\n"
        "Forecasts use the default calibration: {} ({} trials).\n",
        job.examples, job.ledger_path, c.source, c.examples);
  }
  std::string out = fmt::format("calibrate: learned from {} trials ({} corpus groups) in {}\n",
                                job.examples, c.groups, job.ledger_path);
  if (!job.set_aside.empty()) {
    std::string lacking;
    for (const std::string& s : job.lacking) lacking += (lacking.empty() ? "" : ", ") + s;
    out += fmt::format(
        "  set aside: {} trials whose forecasts lack {} (measured on most trials): re-measure "
        "them (`forecast --remeasures HASH`) or run them again\n",
        job.set_aside.size(), lacking);
  }
  out += fmt::format(
      "  chosen signal {} (smallest out-of-corpus error); net saving as a non-decreasing curve "
      "of it, at most 0 where it is <= 0 (knots x: y):\n   ",
      c.signal);
  for (const forecast::Knot& k : c.curve) out += fmt::format(" {:+.4f}: {:+.3f}", k.x, k.y);
  double lo = 0, hi = 0;
  for (const forecast::Residual& r : c.residuals) lo = std::min(lo, r.r), hi = std::max(hi, r.r);
  out += fmt::format(
      "\n  out-of-corpus misses {:+.3f} .. {:+.3f}; a forecast reads the {} "
      "nearest in {}\n",
      lo, hi, c.Neighbours(), c.signal);
  out += fmt::format(
      "  pilot scale: {}, {} steps, {:.0f} tokens per run; {} of {} trials "
      "informative by the regime check\n",
      c.scale.model, c.scale.steps, c.scale.tokens, c.scale.informative, c.scale.trials);
  if (!job.held_out.is_null()) {
    out += forecast::FormatHeldOut(job.held_out);
  } else {
    out += "  leave-one-corpus-out: not run (" + job.held_out_error + ")\n";
  }
  if (job.saved.empty()) return out + "  not saved (--no-save)\n";
  return out + fmt::format("  saved to {} (forecasts beside this ledger use it)\n", job.saved);
}

}  // namespace preflight::app
