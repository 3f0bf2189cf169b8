#include "app/calibrate_job.h"

#include <fmt/format.h>

#include "app/forecast_job.h"
#include "base/file.h"
#include "ledger/ledger.h"

namespace preflight::app {
namespace {

constexpr size_t kMinExamples = 4;

// How the fit would have done on each trial had that trial been new.
std::optional<LeaveOneOutScore> ScoreLeaveOneOut(const std::vector<forecast::Example>& examples) {
  auto loo = forecast::LeaveOneOut(examples, forecast::CandidateSignals());
  if (!loo.ok()) return std::nullopt;
  LeaveOneOutScore score;
  for (size_t i = 0; i < examples.size(); ++i) {
    auto correct = forecast::Correct((*loo)[i].verdict, examples[i].net);
    if (!correct) continue;
    ++score.decided;
    score.right += *correct;
  }
  score.abstained = static_cast<int>(examples.size()) - score.decided;
  return score;
}

}  // namespace

Result<CalibrateJob> RunCalibrateJob(const std::string& ledger_path) {
  CalibrateJob job;
  job.ledger_path = ledger_path;
  std::vector<forecast::Example> examples;
  if (PathExists(ledger_path)) {
    PF_ASSIGN_OR_RETURN(std::vector<nlohmann::json> receipts, ledger::ReadAll(ledger_path));
    examples = forecast::ExamplesFromReceipts(receipts);
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
  job.saved = CalibrationPath(ledger_path);
  PF_RETURN_IF_ERROR(WriteFileAtomically(job.saved, job.calibration.ToJson().dump(2) + "\n"));
  job.leave_one_out = ScoreLeaveOneOut(examples);
  return job;
}

nlohmann::json CalibrateJson(const CalibrateJob& job) {
  nlohmann::json doc = {
      {"examples", job.examples},
      {"ledger", job.ledger_path},
      {"calibration", job.calibration.ToJson()},
      {"saved", job.saved.empty() ? nlohmann::json(nullptr) : nlohmann::json(job.saved)}};
  if (job.saved.empty()) {
    doc["message"] =
        "fewer than 4 trials in the ledger tested a forecast; forecasts use the default "
        "calibration, fitted on the built-in battery";
  }
  if (job.leave_one_out) {
    doc["leave_one_out"] = {{"right", job.leave_one_out->right},
                            {"decided", job.leave_one_out->decided},
                            {"abstained", job.leave_one_out->abstained}};
  }
  return doc;
}

std::string CalibrateText(const CalibrateJob& job) {
  const forecast::Calibration& c = job.calibration;
  if (job.saved.empty()) {
    return fmt::format(
        "calibrate: {} labelled trials in {}: too few (4 needed).\n"
        "Forecasts use the default calibration: {} ({} trials).\n",
        job.examples, job.ledger_path, c.source, c.examples);
  }
  std::string out =
      fmt::format("calibrate: learned from {} trials in {}\n", job.examples, job.ledger_path);
  out += fmt::format(
      "  verdict from the sign of {} ({}); predicted net saving = {:.2f} x {} (residual sd "
      "{:.3f})\n",
      c.signal, c.mode == "point" ? "its value" : "its interval", c.slope, c.signal, c.residual_sd);
  if (job.leave_one_out) {
    out += fmt::format("  leave-one-out: {} of {} decided right, {} abstained\n",
                       job.leave_one_out->right, job.leave_one_out->decided,
                       job.leave_one_out->abstained);
  }
  return out + fmt::format("  saved to {} (forecasts beside this ledger use it)\n", job.saved);
}

}  // namespace preflight::app
