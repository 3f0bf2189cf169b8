// preflight ladder: the same trial at >= 3 rungs of increasing compute, and whether the saving
// grows, holds or shrinks with scale (app/ladder_job.h).

#include <algorithm>
#include <cstdio>

#include "app/ladder_job.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/model_flags.h"
#include "cli/trial_flags.h"
#include "cli/trial_observer.h"
#include "ledger/ledger.h"
#include "ledger/writable.h"

namespace preflight::cli {
namespace {

struct LadderFlags {
  app::LadderRequest request;
  ModelFlags shape;  // the overrides, applied to every rung's model
  app::PriceFlags prices;
  std::string rungs;
  std::string budget;
  std::string keep;  // "0.25" or a list "0.05,0.1,0.25,0.5"
  std::string at;    // MODEL:STEPS to recommend a fraction for
  double project_to = 0;
  double at_flops = 0;
  bool json = false, quiet = false;
};

void AddFlags(CLI::App& app, LadderFlags& f) {
  f.request.ledger_path = ledger::DefaultLedgerPath();
  AddTrialDataFlags(app, f.request.base);
  // --keep takes a list here: the trial flags' one number is replaced.
  app.remove_option(app.get_option("--keep"));
  app.add_option("--keep", f.keep,
                 "fraction of the pool's bytes per arm (default 0.25); two or more, e.g. "
                 "0.05,0.1,0.25,0.5: an arm per fraction against the whole pool, and the "
                 "fraction to keep");
  AddTrainerFlags(app, f.request.base.trainer, f.prices);
  app.add_option("--rungs", f.rungs,
                 "MODEL:STEPS per rung, at least 3, in increasing compute, e.g. "
                 "tiny:150,tiny:300,tiny:600");
  app.add_option("--budget", f.budget,
                 "instead of --rungs: wall time for the whole ladder (10m, 2h); three rungs at "
                 "1/7, 2/7 and 4/7 of it, each sized compute-optimally (printed first)");
  f.shape.AddShapeOverrides(app);
  app.add_option("--project-to", f.project_to,
                 "FLOPs of one training run to project the trend to (e.g. 1e18); labelled a "
                 "projection");
  app.add_option("--at-flops", f.at_flops,
                 "with a --keep list: FLOPs of one training run to recommend a fraction for "
                 "(default: the largest rung's)");
  app.add_option("--at", f.at, "with a --keep list: MODEL:STEPS to recommend a fraction for")
      ->excludes("--at-flops");
  app.add_option("--out", f.request.out_dir, "ladder folder (resumable)")->required();
  app.add_option("--ledger", f.request.ledger_path, "receipt ledger")->capture_default_str();
  app.add_flag("--json", f.json, "print one JSON document on stdout");
  app.add_flag("--quiet", f.quiet, "no progress on stderr");
}

// --budget: three rungs planned from the budget (app/budget_plan.h), printed before training.
Status PlanRungs(LadderFlags& f) {
  PF_ASSIGN_OR_RETURN(double seconds, app::ParseDuration(f.budget));
  if (!f.quiet) std::fprintf(stderr, "ladder: timing tiny, small and medium for --budget...\n");
  PF_ASSIGN_OR_RETURN(std::vector<app::PlanCandidate> candidates,
                      MeasureBudgetCandidates(f.shape, f.request.base.threads));
  const int seeds = f.request.base.seeds;
  const int arms = 1 + static_cast<int>(std::max<size_t>(1, f.request.base.keeps.size()));
  PF_ASSIGN_OR_RETURN(std::vector<app::BudgetPlan> plans,
                      app::PlanLadderForBudget(seconds, candidates, arms, seeds));
  nlohmann::json rung_plans = nlohmann::json::array();
  for (size_t i = 0; i < plans.size(); ++i) {
    f.request.rungs.push_back({plans[i].model_name, plans[i].model, plans[i].steps});
    rung_plans.push_back(app::BudgetPlanToJson(plans[i]));
    if (!f.quiet) {
      std::fprintf(stderr, "rung %zu %s", i + 1,
                   app::BudgetPlanText(plans[i], arms * seeds).c_str());
    }
  }
  f.request.plan = {{"budget_seconds", seconds},
                    {"rule", "three rungs at 1/7, 2/7 and 4/7 of the budget, each planned alone"},
                    {"rungs", rung_plans}};
  return app::CheckRungs(f.request.rungs);
}

// --at MODEL:STEPS: that run's FLOPs, with the shape overrides.
Status ResolveAt(LadderFlags& f) {
  if (f.at_flops != 0) f.request.at_flops = f.at_flops;
  if (f.at.empty()) return Status::Ok();
  PF_ASSIGN_OR_RETURN(std::vector<app::RungSpec> at, app::ParseRungs(f.at));
  if (at.size() != 1) return Status::InvalidArgument("--at takes one MODEL:STEPS");
  ModelFlags m = f.shape;
  m.name = at[0].model_name;
  PF_ASSIGN_OR_RETURN(engine::ModelConfig model, m.Resolve());
  f.request.at_flops = app::RungFlops({at[0].model_name, model, at[0].steps});
  return Status::Ok();
}

Status Resolve(LadderFlags& f) {
  if (f.rungs.empty() == f.budget.empty()) {
    return Status::InvalidArgument("give --rungs MODEL:STEPS,... or --budget DURATION (one)");
  }
  if (f.project_to != 0) f.request.project_to = f.project_to;
  if (!f.keep.empty()) {
    PF_ASSIGN_OR_RETURN(std::vector<double> keeps, app::ParseKeeps(f.keep));
    app::SetKeeps(keeps, f.request.base);
  }
  PF_RETURN_IF_ERROR(ResolveAt(f));
  PF_RETURN_IF_ERROR(ApplyPriceFlags(f.prices, f.request.base));
  if (!f.budget.empty() && !f.request.base.trainer.IsBuiltin()) {
    return Status::InvalidArgument(
        "--budget times the builtin engine on this machine; with "
        "--trainer " +
        f.request.base.trainer.kind + " give --rungs");
  }
  if (!f.budget.empty()) return PlanRungs(f);
  PF_ASSIGN_OR_RETURN(std::vector<app::RungSpec> specs, app::ParseRungs(f.rungs));
  for (const app::RungSpec& spec : specs) {
    ModelFlags m = f.shape;
    m.name = spec.model_name;
    PF_ASSIGN_OR_RETURN(engine::ModelConfig model, m.Resolve());
    f.request.rungs.push_back({spec.model_name, model, spec.steps});
  }
  return app::CheckRungs(f.request.rungs);
}

}  // namespace

int RunLadder(int argc, char** argv) {
  CLI::App app;
  Describe(
      app, "ladder",
      "Run the same trial (the selector's quarter against a random quarter, paired seeds) at\n"
      "3 or more rungs of increasing compute, and fit how the net compute saved changes with\n"
      "log compute: slope per decade with a 95% interval, and a direction (grows, shrinks,\n"
      "holds within +-5 points per decade, else unclear). Writes OUT/rung-<i>-<model>-<steps>/\n"
      "(one trial folder per rung, each with its report and trial receipt), OUT/ladder.html,\n"
      "OUT/ladder.json and one ladder receipt.\n\n"
      "Rungs share their arms: rung 1 makes the selections, later rungs train on the same\n"
      "files (linked, not selected again); each rung's net saving still charges the\n"
      "selection's measured cost. No rung makes a forecast (run `preflight forecast` for a\n"
      "verdict), so every rung's net is charged alike. A rung that never caught up enters the\n"
      "fit at its bound (the most it saved). The fit: weighted least squares of net saving on\n"
      "log10 of one run's training FLOPs, weights from each rung's 95% interval.\n"
      "--project-to extrapolates the line to another compute, under the word PROJECTION and\n"
      "the assumption that the saving keeps changing linearly in log compute.\n"
      "Resumable: rerun the same command; finished rungs are read back, not retrained.\n"
      "--budget D instead of --rungs: tiny, small and medium are timed here first, then three\n"
      "rungs at 1/7, 2/7 and 4/7 of D are each given the largest model whose 20-tokens-per-\n"
      "parameter runs fit (Hoffmann et al. 2022) and the steps that fill the rung's share; the\n"
      "plan is printed before training and recorded in the ladder receipt's config.\n"
      "Shape overrides (--layers ... --batch) apply to every rung's model.\n\n"
      "How much to keep: --keep with two or more fractions (e.g. 0.05,0.1,0.25,0.5) makes every\n"
      "rung one keep trial: the whole pool in random order (the baseline, trained once per rung)\n"
      "beside the selector's top fraction for each value, all alike in compute. Per rung and\n"
      "fraction: compute saved against the baseline (gross, net, 95% interval), the held-out\n"
      "loss at the end of the budget and the epochs over the arm's data; per rung the best\n"
      "fraction and how sure; a trend of it against log compute and the fraction to keep at\n"
      "--at-flops X (or --at MODEL:STEPS; default the largest rung), marked when extrapolated,\n"
      "refused with its reason when every rung is uninformative or the trend is unclear.\n\n"
      "Example:\n  preflight ladder --pool data/brown/pools/cj.jsonl \\\n"
      "      --target-select data/brown/targets/cj.select.jsonl \\\n"
      "      --target-eval data/brown/targets/cj.eval.jsonl --selector dsir \\\n"
      "      --rungs tiny:150,tiny:300,tiny:600 --project-to 1e18 --out runs/cj-ladder\n\n" +
          std::string(kTrainerHelp));
  LadderFlags f;
  AddFlags(app, f);
  if (int code = Parse(app, argc, argv); code >= 0) return code;
  if (Status st = ledger::CheckLedgerAndOutFolder(f.request.ledger_path, f.request.out_dir);
      !st.ok()) {
    return Fail("ladder", st);  // before --budget times anything
  }
  if (Status st = Resolve(f); !st.ok()) return Fail("ladder", st);
  TrialProgressBar bar(f.quiet);
  auto job = app::RunLadderJob(f.request, bar.Observer());
  if (!job.ok()) {
    bar.Stop();  // not "done": the error follows
    return Fail("ladder", job.status());
  }
  if (f.json) {
    EmitJson(app::LadderJson(*job));
  } else {
    std::printf("%s", app::LadderText(*job).c_str());
  }
  return 0;
}

}  // namespace preflight::cli
