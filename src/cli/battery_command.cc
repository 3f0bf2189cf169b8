// preflight battery: a trial for every target of a battery spec, and one table.

#include <cstdio>
#include <set>

#include "base/file.h"
#include "base/sha256.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/forecast_support.h"
#include "cli/progress.h"
#include "cli/trial_support.h"
#include "forecast/evaluation.h"
#include "ledger/ledger.h"

namespace preflight::cli {
namespace {

std::string Pct(const nlohmann::json& v) {
  if (v.is_null()) return "never";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f%%", 100 * v.get<double>());
  return buf;
}

// The row's forecast and outcome, for EvaluateForecasts.
Result<forecast::BatteryOutcome> OutcomeOf(const std::string& name, const TrialRun& run) {
  forecast::BatteryOutcome o;
  const nlohmann::json& f = run.summary["forecast"];
  o.example.name = name;
  for (auto& [signal, value] : f["signals"].items()) {
    if (auto x = forecast::SignalFromJson(value)) o.example.signals[signal] = *x;
  }
  const auto& net = run.summary["compute_saved"]["net"];
  if (net.is_number()) o.example.net = net.get<double>();
  o.forecast.verdict = f["verdict"];
  o.forecast.saving = f["predicted_saving"];
  o.forecast.lo = f["interval"][0];
  o.forecast.hi = f["interval"][1];
  o.forecast_core_seconds = f["core_seconds"];
  PF_RETURN_IF_ERROR(forecast::FillCosts(run.outcome.result, &o));
  return o;
}

}  // namespace

int RunBattery(int argc, char** argv) {
  CLI::App app;
  Describe(app, "battery",
           "For every target of a battery spec (the built-in one is data/brown/battery.json):\n"
           "a forecast, then the trial that tests it. Prints one table (verdict, predicted and\n"
           "actual net saving, right or wrong, gross saving, the net saving's 95% interval,\n"
           "caught up) and a summary: the forecast's decision accuracy on all targets and on\n"
           "clear cases (|net| >= 10%), abstentions, the same for always-curate and\n"
           "always-random, the leave-one-target-out accuracy (each target forecast with a\n"
           "calibration fitted on the others), and the value of the forecast in core-seconds.\n"
           "Resumable: rerun the same command (finished trials are reused; forecasts rerun).\n\n"
           "Example:\n  preflight battery --spec data/brown/battery.json --out runs/battery "
           "--model tiny "
           "--steps 300");
  std::string spec_path, out_dir;
  std::vector<std::string> only;
  trial::TrialConfig base;
  ModelFlags model;
  bool json = false, quiet = false;
  std::string ledger_path = ledger::DefaultLedgerPath();
  app.add_option("--spec", spec_path, "battery spec (JSON)")->required();
  app.add_option("--out", out_dir, "output folder (one trial folder per target)")->required();
  app.add_option("--targets", only, "run only these targets (names in the spec)");
  app.add_option("--selector", base.selector, "dsir | classifier | first")->capture_default_str();
  app.add_option("--keep", base.keep, "fraction of each pool's bytes per arm")
      ->capture_default_str();
  app.add_option("--seeds", base.seeds, "runs per arm")->capture_default_str();
  model.Add(app);
  app.add_option("--steps", base.steps, "training steps per run")->capture_default_str();
  app.add_option("--eval-every", base.eval_every, "steps between evals (0 = steps/20)");
  app.add_option("--eval-windows", base.eval_max_windows, "eval windows")->capture_default_str();
  app.add_option("--lr", base.lr, "peak learning rate")->capture_default_str();
  app.add_option("--threads", base.threads, "threads")->capture_default_str();
  app.add_option("--ledger", ledger_path, "receipt ledger")->capture_default_str();
  app.add_flag("--json", json, "print one JSON document on stdout");
  app.add_flag("--quiet", quiet, "no progress on stderr");
  if (int code = Parse(app, argc, argv); code >= 0) return code;

  auto resolved = model.Resolve();
  if (!resolved.ok()) return Fail("battery", resolved.status());
  base.model = *resolved;
  base.model_name = model.name;
  auto text = ReadFileToString(spec_path);
  if (!text.ok()) return Fail("battery", text.status());
  auto spec = nlohmann::json::parse(*text, nullptr, false);
  if (spec.is_discarded() || !spec.contains("targets") || !spec["targets"].is_array()) {
    return Fail("battery", Status::InvalidArgument(
                               spec_path + ": not a battery spec (needs a \"targets\" array)"));
  }
  const std::string root = DirName(spec_path);
  std::set<std::string> wanted(only.begin(), only.end());
  std::vector<nlohmann::json> targets;
  for (const auto& t : spec["targets"]) {
    for (const char* key : {"name", "pool", "target_select", "target_eval"}) {
      if (!t.contains(key) || !t[key].is_string()) {
        return Fail("battery", Status::InvalidArgument(spec_path + ": a target has no string \"" +
                                                       key + "\""));
      }
    }
    if (wanted.empty() || wanted.count(t["name"])) targets.push_back(t);
  }
  if (targets.empty())
    return Fail("battery", Status::InvalidArgument("no targets to run (check --targets)"));
  if (Status st = MakeDirectories(out_dir); !st.ok()) return Fail("battery", st);

  nlohmann::json rows = nlohmann::json::array();
  double core_seconds = 0, flops = 0;
  std::vector<std::string> trial_receipts;
  std::vector<forecast::BatteryOutcome> outcomes;
  for (size_t i = 0; i < targets.size(); ++i) {
    const auto& t = targets[i];
    std::string name = t["name"];
    trial::TrialConfig c = base;
    c.pool = {JoinPath(root, t["pool"])};
    c.target_select = JoinPath(root, t["target_select"]);
    c.target_eval = JoinPath(root, t["target_eval"]);
    c.target_name = spec.value("name", std::string("battery")) + ":" + name +
                    (t.contains("label") ? " (" + t["label"].get<std::string>() + ")" : "");
    c.out_dir = JoinPath(out_dir, name);
    if (!quiet)
      std::fprintf(stderr, "battery: target %zu of %zu: %s\n", i + 1, targets.size(), name.c_str());
    auto run = RunTrialWithReceipt(c, ledger_path, quiet);
    if (!run.ok())
      return Fail("battery",
                  Status::InvalidArgument("target " + name + ": " + run.status().message()));
    if (!run->outcome.leader) continue;  // an MPI rank other than 0
    const auto& s = run->summary;
    auto outcome = OutcomeOf(name, *run);
    if (!outcome.ok()) return Fail("battery", outcome.status());
    outcomes.push_back(*outcome);
    rows.push_back({{"target", name},
                    {"forecast", s["forecast"]},
                    {"absent", t.value("absent", false)},
                    {"compute_saved", s["compute_saved"]},
                    {"caught_up", s["caught_up"]},
                    {"l_star", s["l_star"]},
                    {"t_random", s["t_random"]},
                    {"t_curated", s["t_curated"]},
                    {"report", s["report"]},
                    {"receipt", s["receipt"]}});
    trial_receipts.push_back(s["receipt"]);
    core_seconds +=
        s["cost"]["core_seconds"].get<double>() + s["forecast"]["core_seconds"].get<double>();
    flops += s["cost"]["flops"].get<double>();
  }
  if (outcomes.size() != targets.size()) return 0;  // an MPI rank other than 0: rank 0 reports
  const nlohmann::json evaluation = forecast::EvaluateForecasts(outcomes);

  nlohmann::json receipt = {
      {"kind", "battery"},
      {"inputs", nlohmann::json::array({{{"role", "spec"},
                                         {"path", spec_path},
                                         {"sha256", Sha256::Hex(*text)},
                                         {"docs", targets.size()},
                                         {"bytes", text->size()}}})},
      {"config",
       {{"selector", base.selector},
        {"model", model.name},
        {"steps", base.steps},
        {"seeds", base.seeds},
        {"keep", base.keep},
        {"targets", targets.size()}}},
      {"result", {{"rows", rows}, {"evaluation", evaluation}, {"trial_receipts", trial_receipts}}},
      {"cost", {{"core_seconds", core_seconds}, {"flops", flops}}}};
  auto appended = ledger::Append(ledger_path, receipt);
  if (!appended.ok()) return Fail("battery", appended.status());
  if (json) {
    EmitJson({{"rows", rows},
              {"evaluation", evaluation},
              {"receipt", (*appended)["hash"]},
              {"cost", receipt["cost"]}});
    return 0;
  }
  std::printf("%-11s %-9s %9s %9s  %-6s %9s %21s  %s\n", "target", "forecast", "predicted", "net",
              "right?", "gross", "net 95% interval", "caught up");
  for (const auto& r : rows) {
    const auto& cs = r["compute_saved"];
    const auto& f = r["forecast"];
    std::string interval = Pct(cs["ci95"][0]) + " .. " + Pct(cs["ci95"][1]);
    std::string right =
        f["correct"].is_null() ? "-" : (f["correct"].get<bool>() ? "right" : "WRONG");
    std::printf("%-11s %-9s %9s %9s  %-6s %9s %21s  %s\n", r["target"].get<std::string>().c_str(),
                f["verdict"].get<std::string>().c_str(), Pct(f["predicted_saving"]).c_str(),
                Pct(cs["net"]).c_str(), right.c_str(), Pct(cs["gross"]).c_str(), interval.c_str(),
                r["caught_up"].get<bool>() ? "yes" : "NO");
  }
  std::printf("\n%s", forecast::FormatEvaluation(evaluation).c_str());
  std::printf("\nreceipt %s; reports in %s/<target>/report.html\n",
              (*appended)["hash"].get<std::string>().substr(0, 16).c_str(), out_dir.c_str());
  return 0;
}

}  // namespace preflight::cli
