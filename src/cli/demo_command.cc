// preflight demo: the main job on the bundled Brown corpus.
// 1. Selects the quarter of a pool most like one built-in target with each selector and shows what
//    was kept and why; 2. runs a full trial (dsir vs random, the tiny model, four seeds per arm)
//    and opens its output with a one-screen summary: what was selected, the saving, the interval
//    and where the report is.

#include <cstdarg>
#include <cstdio>
#include <map>
#include <sstream>

#include "base/file.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/progress.h"
#include "cli/selection_receipt.h"
#include "cli/trial_support.h"
#include "corpus/brown.h"
#include "ledger/ledger.h"
#include "select/selector.h"

namespace preflight::cli {
namespace {

struct Target {
  std::string name, genre, label, pool, select, eval;
};

Result<Target> LoadTarget(const std::string& data_dir, std::string name) {
  std::string path = JoinPath(data_dir, "battery.json");
  auto text = ReadFileToString(path);
  if (!text.ok()) {
    return Status::NotFound(path +
                            ": the built-in battery is missing; run scripts/setup.sh (or "
                            "scripts/fetch-data.sh) first");
  }
  auto battery = nlohmann::json::parse(*text, nullptr, false);
  if (battery.is_discarded())
    return Status::Corruption(path + ": not valid JSON; re-run scripts/fetch-data.sh");
  if (name.empty()) name = battery.value("default_target", "cj");
  for (const auto& t : battery["targets"]) {
    if (t["name"] == name) {
      return Target{name,
                    t["genre"],
                    t["label"],
                    JoinPath(data_dir, t["pool"]),
                    JoinPath(data_dir, t["target_select"]),
                    JoinPath(data_dir, t["target_eval"])};
    }
  }
  return Status::InvalidArgument("no target '" + name + "' in " + path);
}

// Share of each genre among the kept lines of a JSONL file, by bytes of text.
std::map<std::string, double> GenreShares(const std::string& path) {
  std::map<std::string, double> bytes;
  double total = 0;
  auto text = ReadFileToString(path);
  if (!text.ok()) return bytes;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object()) continue;
    double n = static_cast<double>(j.value("text", std::string()).size());
    bytes[j.value("genre", std::string("?"))] += n;
    total += n;
  }
  for (auto& [g, b] : bytes) b /= total;
  return bytes;
}

std::string Format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string Format(const char* fmt, ...) {
  char buf[2048];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, args);
  va_end(args);
  return buf;
}

}  // namespace

int RunDemo(int argc, char** argv) {
  CLI::App app;
  Describe(
      app, "demo",
      "The main job on the bundled Brown corpus: keep the quarter of a pool most like a\n"
      "built-in target with each selector and show what was kept and why, then run a full trial\n"
      "(dsir vs random, tiny model, 4 seeds per arm) that measures the compute the choice saved.\n"
      "Prints an estimate first; under 10 minutes on 2 cores. Resumable (rerun after a kill).");
  std::string data_dir = "data/brown", target_name, out_dir = "out/demo";
  std::string ledger_path = ledger::DefaultLedgerPath();
  uint64_t seed = 1;
  int threads = 2;
  int64_t steps = 300;
  int seeds = 4;
  bool select_only = false, quiet = false;
  app.add_option("--data", data_dir, "folder made by scripts/fetch-data.sh")->capture_default_str();
  app.add_option("--target", target_name, "battery target (default: the battery's default_target)");
  app.add_option("--out", out_dir, "output folder")->capture_default_str();
  app.add_option("--seed", seed, "selection seed")->capture_default_str();
  app.add_option("--threads", threads, "threads")->capture_default_str();
  app.add_option("--ledger", ledger_path, "receipt ledger")->capture_default_str();
  app.add_option("--steps", steps, "training steps per run of the trial")->capture_default_str();
  app.add_option("--seeds", seeds, "runs per arm")->capture_default_str();
  app.add_flag("--select-only", select_only, "stop after the selections (no training)");
  app.add_flag("--quiet", quiet, "no progress on stderr");
  if (int code = Parse(app, argc, argv); code >= 0) return code;

  std::string out;  // The details, printed after the one-screen summary.
  auto target = LoadTarget(data_dir, target_name);
  if (!target.ok()) return Fail("demo", target.status());
  if (Status st = MakeDirectories(out_dir); !st.ok()) return Fail("demo", st);

  out += Format("preflight demo: target '%s' (Brown genre %s, %s)\n", target->name.c_str(),
                target->genre.c_str(), target->label.c_str());
  out += Format(
      "  pool           %s\n  target_select  %s\n  target_eval    %s (held out: never read "
      "here)\n\n",
      target->pool.c_str(), target->select.c_str(), target->eval.c_str());

  auto pool_shares = GenreShares(target->pool);
  out += Format("%-10s %10s %10s %14s %12s\n", "selector", "kept docs", "kept MB", "target genre",
                "core-sec");
  out += Format("%-10s %10s %10s %13.1f%% %12s\n", "(pool)", "", "",
                100 * pool_shares[target->genre], "");
  select::SelectionResult dsir_result;
  double dsir_share = 0;
  for (const char* name : {"random", "first", "dsir", "classifier"}) {
    select::SelectOptions o;
    o.selector = name;
    o.seed = seed;
    o.threads = threads;
    o.out_path = JoinPath(out_dir, target->name + "." + name + ".jsonl");
    auto r = select::RunSelection({target->pool}, {target->select}, o);
    if (!r.ok()) return Fail("demo", r.status());
    auto receipt = AppendSelectionReceipt(o, *r, ledger_path);
    if (!receipt.ok()) return Fail("demo", receipt.status());
    auto shares = GenreShares(o.out_path);
    out += Format("%-10s %10llu %10.2f %13.1f%% %12.2f\n", name,
                  static_cast<unsigned long long>(r->kept_docs), r->kept_bytes / 1e6,
                  100 * shares[target->genre], r->core_seconds);
    if (std::string(name) == "dsir") {
      dsir_result = *r;
      dsir_share = shares[target->genre];
    }
  }
  out += Format(
      "\n(\"target genre\" = share of the kept text that is genre %s; the budget is a quarter of "
      "the pool's bytes)\n\nWhy DSIR kept what it kept: log importance weight per 128-word chunk, "
      "log p_target - log p_pool over hashed unigrams+bigrams\n",
      target->genre.c_str());
  out += Format("  highest kept:  ");
  for (const auto& d : dsir_result.top_kept)
    out += Format("%s (%s, %+.1f)  ", d.id.c_str(), d.genre.c_str(), d.score);
  out += Format("\n  lowest in pool: ");
  for (const auto& d : dsir_result.bottom_pool)
    out += Format("%s (%s, %+.1f)  ", d.id.c_str(), d.genre.c_str(), d.score);
  out += Format("\n\nSelections in %s/, receipts in %s (check them: preflight ledger verify)\n",
                out_dir.c_str(), ledger_path.c_str());
  if (select_only) {
    std::printf("%s", out.c_str());
    return 0;
  }

  trial::TrialConfig c;
  c.pool = {target->pool};
  c.target_select = target->select;
  c.target_eval = target->eval;
  c.target_name = "brown:" + target->name + " (" + target->label + ")";
  c.selector = "dsir";
  c.selection_seed = seed;
  c.seeds = seeds;
  c.steps = steps;
  c.threads = threads;
  c.model_name = "tiny";
  c.model = *train::NamedModel("tiny");
  c.out_dir = JoinPath(out_dir, "trial-" + target->name);
  if (!quiet) {
    auto estimate = trial::EstimateTrialSeconds(c);
    if (!estimate.ok()) return Fail("demo", estimate.status());
    std::fprintf(
        stderr,
        "demo: trial of dsir vs random on '%s': %d runs of %lld steps (tiny model), estimated %s\n",
        target->name.c_str(), 2 * seeds, static_cast<long long>(steps),
        HumanDuration(*estimate).c_str());
  }
  auto run = RunTrialWithReceipt(c, ledger_path, quiet);
  if (!run.ok()) return Fail("demo", run.status());
  std::printf(
      "=== preflight demo: does training on the DSIR-selected quarter save compute? ===\n\n");
  std::printf(
      "Selected: %llu of %llu documents of the pool (a quarter of its bytes) most like Brown genre "
      "%s "
      "(%s);\n%.0f%% of the kept text is that genre, against %.0f%% of the pool.\n\n",
      static_cast<unsigned long long>(dsir_result.kept_docs),
      static_cast<unsigned long long>(dsir_result.pool_docs), target->genre.c_str(),
      target->label.c_str(), 100 * dsir_share, 100 * pool_shares[target->genre]);
  std::printf("%s\n", TrialSummaryText(*run).c_str());
  std::printf("=== details ===\n\n%s", out.c_str());
  return 0;
}

}  // namespace preflight::cli
