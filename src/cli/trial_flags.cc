#include "cli/trial_flags.h"

namespace preflight::cli {

void AddTrialDataFlags(CLI::App& app, trial::TrialConfig& c) {
  app.add_option("--pool", c.pool, "pool files or folders (JSONL)")->required();
  app.add_option("--target-select", c.target_select, "target documents the selector may read")
      ->required();
  app.add_option("--target-eval", c.target_eval, "held-out target documents (evaluation only)")
      ->required();
  app.add_option("--target-name", c.target_name, "a name for the target in the lab record");
  app.add_option("--text-field", c.text_field, "the documents' text field in every input")
      ->capture_default_str();
  app.add_option("--id-field", c.id_field, "the documents' id field (default: <file>:<line>)")
      ->capture_default_str();
  app.add_option("--selector", c.selector, "dsir | classifier | first")->capture_default_str();
  app.add_option("--keep", c.keep, "fraction of the pool's bytes per arm")->capture_default_str();
  app.add_option("--selection-seed", c.selection_seed, "seed of the selections")
      ->capture_default_str();
  app.add_option("--seeds", c.seeds, "runs per arm (seeds 1..N, paired across arms)")
      ->capture_default_str();
  app.add_option("--eval-every", c.eval_every, "steps between evals (0 = steps/20)")
      ->capture_default_str();
  app.add_option("--eval-windows", c.eval_max_windows, "eval windows (0 = all of the eval file)")
      ->capture_default_str();
  app.add_option("--lr", c.lr, "peak learning rate")->capture_default_str();
  app.add_option("--threads", c.threads, "threads")->capture_default_str();
}

Result<std::vector<app::PlanCandidate>> MeasureBudgetCandidates(const ModelFlags& shape,
                                                                int threads) {
  return app::MeasureCandidates(threads, [&](const std::string& name) {
    ModelFlags m = shape;
    m.name = name;
    return m.Resolve();
  });
}

}  // namespace preflight::cli
