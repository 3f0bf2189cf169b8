// preflight trial: train the curated and the random arm, four seeds each, and measure the
// compute the curated arm saved, net of what the selection cost.

#include <cmath>
#include <cstdio>

#include "base/format.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/progress.h"
#include "cli/trial_support.h"
#include "ledger/ledger.h"
#include "train/schedule.h"

namespace preflight::cli {
namespace {

// A schedule trial (doc/schedules.md): runs it with a progress line, writes report.html and
// appends the receipt. (Data trials go through trial_support.cc, which battery and demo share.)
Result<TrialRun> RunScheduleTrialWithReceipt(const trial::TrialConfig& config,
                                             const std::string& ledger_path, bool quiet) {
  auto outcome = RunTrialWithProgress(config, quiet);
  if (!outcome.ok()) return outcome.status();
  if (!outcome->leader) return TrialRun{std::move(*outcome), nullptr, ""};

  PF_RETURN_IF_ERROR(WriteTrialReport(*outcome));

  TrialRun run;
  PF_ASSIGN_OR_RETURN(run.receipt_hash,
                      AppendTrialReceipt(config, *outcome, outcome->result, ledger_path));
  const nlohmann::json& r = outcome->result;
  run.summary = {{"kind", "schedule"},
                 {"compute_saved", r["compute_saved"]},
                 {"caught_up", r["caught_up"]},
                 {"l_star", r["l_star"]},
                 {"t_baseline", r["t_baseline"]},
                 {"t_arm", r["t_arm"]},
                 {"comparisons", r["comparisons"]},
                 {"verdict", r["verdict"]},
                 {"lab_record", r["lab_record"]},
                 {"report", outcome->report_path},
                 {"receipt", run.receipt_hash},
                 {"reused_runs", outcome->reused_runs},
                 {"cost", {{"core_seconds", outcome->core_seconds}, {"flops", outcome->flops}}}};
  run.outcome = std::move(*outcome);
  return run;
}

std::string ScheduleSummaryText(const TrialRun& run) {
  const trial::ScheduleTrialResult& r = *run.outcome.schedule;
  std::string out = run.outcome.lab_record.value("summary", std::string()) + "\n\n";
  char line[512];
  std::snprintf(line, sizeof(line), "  %-44s %8s %8s %6s %10s %8s %8s %14s\n", "schedule",
                "frozen@", "FLOPs", "t_C", "FLOPs net", "core-s", "wall", "at equal FLOPs");
  out += line;
  auto pct = [](const trial::ScheduleComparison& c, double v) {
    return c.caught_up ? FormatPercent(v) : std::string("never");
  };
  for (const auto& c : r.comparisons) {
    std::string frozen = c.kind == "earlystop"
                             ? std::to_string(c.stopped_runs) + " stop"
                             : (c.frozen_runs > 0 ? FormatSteps(std::round(c.frozen_at))
                                                  : std::string("never"));
    const std::string spent =
        FormatPercent(c.total_flops_arm / c.total_flops_baseline - 1.0);
    char delta[32];
    std::snprintf(delta, sizeof(delta), "%+.4f bpb", c.loss_at_equal_compute);
    std::snprintf(line, sizeof(line), "  %-44s %8s %8s %6s %10s %8s %8s %14s\n", c.schedule.c_str(),
                  frozen.c_str(), spent.c_str(),
                  c.caught_up ? FormatSteps(c.t_arm).c_str() : "never",
                  pct(c, c.net).c_str(), pct(c, c.net_core_seconds).c_str(),
                  pct(c, c.net_wall).c_str(), delta);
    out += line;
  }
  if (!r.comparisons.empty()) {
    std::snprintf(line, sizeof(line), "  baseline reaches L* = %.4f bits/byte at step %s\n",
                  r.comparisons[0].l_star, FormatSteps(r.comparisons[0].t_baseline).c_str());
    out += line;
  }
  if (!r.verdict.text.empty()) out += "\n" + r.verdict.text + "\n";
  std::snprintf(line, sizeof(line),
                "\n  report                     %s\n  receipt                    %s\n",
                run.outcome.report_path.c_str(), run.receipt_hash.substr(0, 16).c_str());
  out += line;
  return out;
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
      "      --arm-b 'freeze:blocks=0-1@adaptive:threshold=0.02' --out runs/cj-freeze");
  trial::TrialConfig c;
  ModelFlags model;
  bool json = false, quiet = false;
  std::string ledger_path = ledger::DefaultLedgerPath();
  app.add_option("--pool", c.pool, "pool files (JSONL)")->required();
  app.add_option("--target-select", c.target_select, "target documents the selector may read")
      ->required();
  app.add_option("--target-eval", c.target_eval, "held-out target documents (evaluation only)")
      ->required();
  app.add_option("--target-name", c.target_name, "a name for the target in the lab record");
  app.add_option("--selector", c.selector, "dsir | classifier | first")->capture_default_str();
  app.add_option("--keep", c.keep, "fraction of the pool's bytes per arm")->capture_default_str();
  app.add_option("--selection-seed", c.selection_seed, "seed of the selections")
      ->capture_default_str();
  app.add_option("--baseline", c.baseline, "'first': add the first quarter as a third arm");
  app.add_option("--seeds", c.seeds, "runs per arm (seeds 1..N, paired across arms)")
      ->capture_default_str();
  model.Add(app);
  app.add_option("--steps", c.steps, "training steps per run (S)")->capture_default_str();
  app.add_option("--eval-every", c.eval_every, "steps between evals (0 = steps/20)")
      ->capture_default_str();
  app.add_option("--eval-windows", c.eval_max_windows, "eval windows (0 = all of the eval file)")
      ->capture_default_str();
  app.add_option("--lr", c.lr, "peak learning rate")->capture_default_str();
  app.add_option("--threads", c.threads, "threads")->capture_default_str();
  std::vector<std::string> arm_b;
  std::string sweep;
  app.add_option("--arm-b", arm_b,
                 "a schedule arm against a plain baseline on the same data (repeatable), e.g. "
                 "'freeze:blocks=0-1@0.7', 'earlystop:patience=3'");
  app.add_option("--sweep", sweep,
                 "fixed freeze steps to sweep, one arm each: 'freeze:<parts>@f1,f2,...'");
  app.add_option("--data", c.schedule_data,
                 "schedule trials: what both arms train on: random | curated | pool")
      ->capture_default_str();
  app.add_option("--out", c.out_dir, "run folder (resumable)")->required();
  app.add_option("--ledger", ledger_path, "receipt ledger")->capture_default_str();
  app.add_flag("--json", json, "print one JSON document on stdout");
  app.add_flag("--quiet", quiet, "no progress on stderr");
  if (int code = Parse(app, argc, argv); code >= 0) return code;

  auto resolved = model.Resolve();
  if (!resolved.ok()) return Fail("trial", resolved.status());
  c.model = *resolved;
  c.model_name = model.name;
  for (const std::string& spec : arm_b) {
    auto s = train::ParseSchedule(spec, c.model.layers);
    if (!s.ok()) return Fail("trial", s.status());
    if (s->empty()) return Fail("trial", Status::InvalidArgument("--arm-b needs a schedule"));
    c.schedules.push_back(s->ToString());
  }
  if (!sweep.empty()) {
    auto specs = train::ExpandSweep(sweep, c.model.layers);
    if (!specs.ok()) return Fail("trial", specs.status());
    c.schedules.insert(c.schedules.end(), specs->begin(), specs->end());
  }
  const bool schedule_trial = !c.schedules.empty();
  if (!quiet && IsLeaderProcess()) {
    auto estimate = trial::EstimateTrialSeconds(c);
    if (!estimate.ok()) return Fail("trial", estimate.status());
    const int arms =
        schedule_trial ? 1 + static_cast<int>(c.schedules.size()) : (c.baseline == "first" ? 3 : 2);
    std::fprintf(stderr,
                 "trial: %d runs of %lld steps (%s model); estimated %s on this machine%s\n",
                 arms * c.seeds, static_cast<long long>(c.steps), model.name.c_str(),
                 HumanDuration(*estimate).c_str(),
                 schedule_trial ? " (an upper bound: frozen steps cost less)" : "");
  }
  if (schedule_trial) {
    auto run = RunScheduleTrialWithReceipt(c, ledger_path, quiet);
    if (!run.ok()) return Fail("trial", run.status());
    if (json) {
      EmitJson(run->summary);
    } else {
      std::printf("%s", ScheduleSummaryText(*run).c_str());
    }
    return 0;
  }
  auto run = RunTrialWithReceipt(c, ledger_path, quiet);
  if (!run.ok()) return Fail("trial", run.status());
  if (json) {
    EmitJson(run->summary);
  } else {
    std::printf("%s", TrialSummaryText(*run).c_str());
  }
  return 0;
}

}  // namespace preflight::cli
