// preflight trial: train the curated and the random arm, four seeds each, and measure the
// compute the curated arm saved, net of what the selection cost (app/trial_job.h).

#include <cstdio>

#include "app/trial_job.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/model_flags.h"
#include "cli/trial_flags.h"
#include "cli/trial_observer.h"
#include "mpi/ranks.h"
#include "ledger/ledger.h"
#include "ledger/writable.h"
#include "engine/schedule.h"
#include "trial/arm_specs.h"

namespace preflight::cli {
namespace {

struct TrialFlags {
  trial::TrialConfig config;
  ModelFlags model;
  std::vector<std::string> arm_b;
  std::string sweep;
  std::string budget;
  nlohmann::json plan = nullptr;
  app::PriceFlags prices;
  std::string ledger_path = ledger::DefaultLedgerPath();
  bool json = false, quiet = false;
};

void AddFlags(CLI::App& app, TrialFlags& f) {
  trial::TrialConfig& c = f.config;
  AddTrialDataFlags(app, c);
  AddTrainerFlags(app, c.trainer, f.prices);
  app.add_option("--baseline", c.baseline, "'first': add the first quarter as a third arm");
  f.model.Add(app);
  app.add_option("--steps", c.steps, "training steps per run (S)")->capture_default_str();
  app.add_option("--budget", f.budget,
                 "wall time for the whole trial (90s, 10m, 2h): picks the model and steps "
                 "(compute-optimal, 20 tokens per parameter; the plan is printed first)");
  app.add_option("--arm-b", f.arm_b,
                 "a schedule arm against a plain baseline on the same data (repeatable), e.g. "
                 "'freeze:blocks=0-1@0.7', 'earlystop:patience=3'");
  app.add_option("--sweep", f.sweep,
                 "fixed freeze steps to sweep, one arm each: 'freeze:<parts>@f1,f2,...'");
  app.add_option("--data", c.schedule_data,
                 "schedule trials: what both arms train on: random | curated | pool")
      ->capture_default_str();
  app.add_option("--out", c.out_dir, "run folder (resumable)")->required();
  app.add_option("--ledger", f.ledger_path, "receipt ledger")->capture_default_str();
  app.add_flag("--json", f.json, "print one JSON document on stdout");
  app.add_flag("--quiet", f.quiet, "no progress on stderr");
}

// --budget: the model and steps from a plan (app/budget_plan.h), printed before training.
Status ApplyBudget(const CLI::App& app, TrialFlags& f) {
  trial::TrialConfig& c = f.config;
  if (!c.trainer.IsBuiltin()) {
    return Status::InvalidArgument(
        "--budget times the builtin engine on this machine; with --trainer " + c.trainer.kind +
        " give --model and --steps");
  }
  if (app.count("--model") || app.count("--steps")) {
    return Status::InvalidArgument("--budget picks the model and steps: drop --model and --steps");
  }
  if (mpi::Size() > 1) {  // each rank would time its own steps and plan a different trial
    return Status::InvalidArgument(
        "--budget times this machine and does not run under mpirun; give --model and --steps");
  }
  PF_ASSIGN_OR_RETURN(double seconds, app::ParseDuration(f.budget));
  if (!f.quiet) std::fprintf(stderr, "trial: timing tiny, small and medium for --budget...\n");
  PF_ASSIGN_OR_RETURN(std::vector<app::PlanCandidate> candidates,
                      MeasureBudgetCandidates(f.model, c.threads));
  const int arms = static_cast<int>(trial::TrialArmSpecs(c).size());
  PF_ASSIGN_OR_RETURN(app::BudgetPlan plan, app::PlanForBudget(seconds, candidates, arms, c.seeds));
  c.model_name = plan.model_name;
  c.model = plan.model;
  c.steps = plan.steps;
  f.plan = app::BudgetPlanToJson(plan);
  if (!f.quiet) std::fprintf(stderr, "%s", app::BudgetPlanText(plan, arms * c.seeds).c_str());
  return Status::Ok();
}

// The model, the schedule arms and a launched trainer's prices from their flags.
Status Resolve(const CLI::App& app, TrialFlags& f) {
  trial::TrialConfig& c = f.config;
  PF_ASSIGN_OR_RETURN(c.model, f.model.Resolve());
  c.model_name = f.model.name;
  if (!f.budget.empty()) PF_RETURN_IF_ERROR(ApplyBudget(app, f));
  for (const std::string& spec : f.arm_b) {
    PF_ASSIGN_OR_RETURN(engine::Schedule s, engine::ParseSchedule(spec, c.model.layers));
    if (s.empty()) return Status::InvalidArgument("--arm-b needs a schedule");
    c.schedules.push_back(s.ToString());
  }
  if (!f.sweep.empty()) {
    PF_ASSIGN_OR_RETURN(std::vector<std::string> specs,
                        engine::ExpandSweep(f.sweep, c.model.layers));
    c.schedules.insert(c.schedules.end(), specs.begin(), specs.end());
  }
  return ApplyPriceFlags(f.prices, c);
}

}  // namespace

int RunTrial(int argc, char** argv) {
  CLI::App app;
  Describe(
      app, "trial",
      "Train both arms (the selector's quarter and a random quarter of the same bytes) with\n"
      "paired seeds, the same model and budget, and measure compute saved: the training the\n"
      "curated arm needed to reach the best held-out loss the random arm ever reached (L*),\n"
      "net of the selection's measured cost. Writes OUT/report.html and a receipt.\n"
      "Resumable: rerun the same command after an interruption.\n\n"
      "Example:\n  preflight trial --pool data/brown/pools/cj.jsonl \\\n"
      "      --target-select data/brown/targets/cj.select.jsonl \\\n"
      "      --target-eval data/brown/targets/cj.eval.jsonl --selector dsir --model tiny \\\n"
      "      --steps 300 --out runs/cj-dsir\n\n"
      "Schedule trials (doc/schedules.md): with --arm-b and/or --sweep, a plain baseline\n"
      "is compared with arms that change the training schedule, all on the same data\n"
      "(--data: random = a random --keep of the pool, the default; curated = the\n"
      "selector's; pool = the one --pool file as it is), same seeds, paired. Compute saved\n"
      "is on the FLOPs actually spent (and measured core-seconds and wall time) to reach\n"
      "the baseline's best loss, net of the adaptive trigger's own cost. Schedules:\n"
      "  freeze:<parts>@<fraction>       parts stop learning after that fraction of the steps\n"
      "  freeze:<parts>@adaptive:threshold=X[,window=W]\n"
      "                                  ... once their relative weight change over W steps\n"
      "                                  (default: the eval interval) falls below X\n"
      "  earlystop:patience=P[,min_delta=D]  stop after P evals without improvement\n"
      "  <parts>: embeddings | blocks=A-B | attn=A-B | mlp=A-B, joined by '+';\n"
      "  blocks=0-K also freezes the embeddings (the backward then stops at block K+1).\n"
      "Example:\n  preflight trial --pool data/brown/pools/cj.jsonl \\\n"
      "      --target-select data/brown/targets/cj.select.jsonl \\\n"
      "      --target-eval data/brown/targets/cj.eval.jsonl --model small --steps 300 \\\n"
      "      --sweep 'freeze:blocks=0-1@0.5,0.7,0.9' \\\n"
      "      --arm-b 'freeze:blocks=0-1@adaptive:threshold=0.02' --out runs/cj-freeze\n\n" +
          std::string(kTrainerHelp));
  TrialFlags f;
  AddFlags(app, f);
  if (int code = Parse(app, argc, argv); code >= 0) return code;
  if (Status st = ledger::CheckLedgerAndOutFolder(f.ledger_path, f.config.out_dir); !st.ok()) {
    return Fail("trial", st);  // before --budget or the estimate times anything
  }
  if (Status st = Resolve(app, f); !st.ok()) return Fail("trial", st);
  if (!f.quiet && f.budget.empty() && f.config.trainer.IsBuiltin()) {
    if (Status st = PrintTrialEstimate(f.config, "trial"); !st.ok()) return Fail("trial", st);
  }
  TrialProgressBar bar(f.quiet);
  auto job = app::RunTrialJob({f.config, f.ledger_path, true, "", f.plan}, bar.Observer());
  if (!job.ok()) {
    bar.Stop();  // not "done": the error follows
    return Fail("trial", job.status());
  }
  if (!job->outcome.leader) return 0;  // an MPI rank other than 0: rank 0 prints
  if (f.json) {
    EmitJson(app::TrialJson(*job));
  } else {
    std::printf("%s", app::TrialText(*job).c_str());
  }
  return 0;
}

}  // namespace preflight::cli
