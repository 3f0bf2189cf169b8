#pragma once
// A keep ladder's rung (`ladder --keep 0.05,0.1,0.25,0.5`, doc/ladder.md "How much to keep"):
// its trial is a keep trial (trial/runner.h, TrialConfig::keeps), one baseline (the whole pool
// in random order, keep 1) beside the selector's top fraction for each value, all trained alike.
// From the rung's trial this reads, per fraction, the compute saved against the baseline (the
// trial's own comparison, gross and net of the fraction's selection with its 95% interval), the
// end-of-budget held-out loss (mean over seeds and its sd), the epochs each arm made over its
// data and its own regime margin; then the rung's best fraction (trial/keep_choice.h).

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "trial/keep_choice.h"
#include "trial/runner.h"

namespace preflight::app {

struct KeepArmOutcome {
  double keep = 0;  // 1: the baseline
  std::string arm;  // "random", "keep-0.05"
  // Against the baseline (the fractions only): the trial's comparison.
  double gross = 0, net = 0;
  double ci_lo = 0, ci_hi = 0;  // the net's 95% interval; -inf: never caught up at that end
  bool caught_up = false;
  double net_bound = 0;  // never caught up: the most it saved (trial/ladder_trend.h)
  // The end-of-budget held-out loss (bits per byte): per seed, mean and sample sd.
  std::vector<double> end_losses;
  double end_loss = 0, end_loss_sd = 0;
  // Epochs: the tokens one run trained on over the tokens of the arm's data (its text bytes and
  // one boundary token per document).
  double tokens_trained = 0, data_tokens = 0, epochs = 0;
  // Its own regime margin: the best byte n-gram model of its data on T_eval minus its best mean
  // loss; absent without n-gram scores.
  std::optional<double> margin;
  std::optional<bool> informative;
};

struct KeepRung {
  KeepArmOutcome baseline;
  std::vector<KeepArmOutcome> keeps;  // the selector's fractions, in increasing order
  trial::BestKeep best;               // over the baseline (as keep 1) and the fractions
  // The fraction of lowest end loss among the selector's (an index into keeps): the one whose
  // saving the rung's compute_saved and the ladder's saving trend report.
  size_t saving_arm = 0;
};

// The rung's numbers from its finished keep trial; InvalidArgument for another trial.
Result<KeepRung> KeepRungOf(const trial::TrialOutcome& outcome);

// {"baseline":{"keep","end_loss","end_loss_sd","epochs",...},"keeps":[{"keep","gross","net",
//  "net_ci95","caught_up","net_bound","end_loss","end_loss_sd","epochs","tokens","data_tokens",
//  "regime":{"margin","informative"}}],"best_keep","best":{"keep","share","resamples",
//  "seeds_best","seeds","log10_sd"},"saving_keep"}: merged into the rung's object.
nlohmann::json KeepRungJson(const KeepRung& rung);

// The rung's fractions as table rows for the terminal, indented.
std::string KeepRungText(const KeepRung& rung);

}  // namespace preflight::app
