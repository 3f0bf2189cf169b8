// preflight demo: the main job on the bundled Brown corpus.
// Selects the quarter of a pool most like one built-in target (dsir), beside a random quarter, and
// shows what was kept and why. (The trial that measures what the choice saves builds on this.)

#include <cstdio>
#include <map>
#include <sstream>

#include "base/file.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/progress.h"
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
    return Status::NotFound(path + ": the built-in battery is missing; run scripts/setup.sh (or "
                            "scripts/fetch-data.sh) first");
  }
  auto battery = nlohmann::json::parse(*text, nullptr, false);
  if (battery.is_discarded()) return Status::Corruption(path + ": not valid JSON; re-run scripts/fetch-data.sh");
  if (name.empty()) name = battery.value("default_target", "cj");
  for (const auto& t : battery["targets"]) {
    if (t["name"] == name) {
      return Target{name, t["genre"], t["label"], JoinPath(data_dir, t["pool"]),
                    JoinPath(data_dir, t["target_select"]), JoinPath(data_dir, t["target_eval"])};
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

}  // namespace

int RunDemo(int argc, char** argv) {
  CLI::App app;
  Describe(app, "demo",
           "The main job on the bundled Brown corpus: keep the quarter of a pool most like a\n"
           "built-in target (DSIR) beside a random quarter, and show what was kept and why.");
  std::string data_dir = "data/brown", target_name, out_dir = "out/demo";
  std::string ledger_path = ledger::DefaultLedgerPath();
  uint64_t seed = 1;
  int threads = 2;
  app.add_option("--data", data_dir, "folder made by scripts/fetch-data.sh")->capture_default_str();
  app.add_option("--target", target_name, "battery target (default: the battery's default_target)");
  app.add_option("--out", out_dir, "output folder")->capture_default_str();
  app.add_option("--seed", seed, "selection seed")->capture_default_str();
  app.add_option("--threads", threads, "threads")->capture_default_str();
  app.add_option("--ledger", ledger_path, "receipt ledger")->capture_default_str();
  if (int code = Parse(app, argc, argv); code >= 0) return code;

  auto target = LoadTarget(data_dir, target_name);
  if (!target.ok()) return Fail("demo", target.status());
  if (Status st = MakeDirectories(out_dir); !st.ok()) return Fail("demo", st);

  std::printf("preflight demo: target '%s' (Brown genre %s, %s)\n", target->name.c_str(),
              target->genre.c_str(), target->label.c_str());
  std::printf("  pool           %s\n  target_select  %s\n  target_eval    %s (held out: never read here)\n\n",
              target->pool.c_str(), target->select.c_str(), target->eval.c_str());

  auto pool_shares = GenreShares(target->pool);
  std::printf("%-10s %10s %10s %14s %12s\n", "selector", "kept docs", "kept MB", "target genre", "core-sec");
  std::printf("%-10s %10s %10s %13.1f%% %12s\n", "(pool)", "", "", 100 * pool_shares[target->genre], "");
  select::SelectionResult dsir_result;
  for (const char* name : {"random", "first", "dsir", "classifier"}) {
    select::SelectOptions o;
    o.selector = name;
    o.seed = seed;
    o.threads = threads;
    o.out_path = JoinPath(out_dir, target->name + "." + name + ".jsonl");
    auto r = select::RunSelection({target->pool}, {target->select}, o);
    if (!r.ok()) return Fail("demo", r.status());
    nlohmann::json receipt = {
        {"kind", "selection"},
        {"inputs", {{{"role", "pool"}, {"path", target->pool},
                     {"sha256", r->manifest["inputs"]["pool"][0]["sha256"]},
                     {"docs", r->pool_docs}, {"bytes", r->pool_bytes}}}},
        {"config", {{"selector", name}, {"keep", o.keep}, {"seed", seed}, {"params", r->manifest["params"]},
                    {"via", "demo"}}},
        {"result", {{"kept_docs", r->kept_docs}, {"kept_bytes", r->kept_bytes}, {"output", r->manifest["output"]}}},
        {"cost", {{"core_seconds", r->core_seconds}, {"flops", 0}}}};
    auto appended = ledger::Append(ledger_path, receipt);
    if (!appended.ok()) return Fail("demo", appended.status());
    auto shares = GenreShares(o.out_path);
    std::printf("%-10s %10llu %10.2f %13.1f%% %12.2f\n", name, static_cast<unsigned long long>(r->kept_docs),
                r->kept_bytes / 1e6, 100 * shares[target->genre], r->core_seconds);
    if (std::string(name) == "dsir") dsir_result = *r;
  }
  std::printf("\n(\"target genre\" = share of the kept text that is genre %s; the budget is a quarter of "
              "the pool's bytes)\n\nWhy DSIR kept what it kept: log importance weight per 128-word chunk, "
              "log p_target - log p_pool over hashed unigrams+bigrams\n",
              target->genre.c_str());
  std::printf("  highest kept:  ");
  for (const auto& d : dsir_result.top_kept) std::printf("%s (%s, %+.1f)  ", d.id.c_str(), d.genre.c_str(), d.score);
  std::printf("\n  lowest in pool: ");
  for (const auto& d : dsir_result.bottom_pool) std::printf("%s (%s, %+.1f)  ", d.id.c_str(), d.genre.c_str(), d.score);
  std::printf("\n\nOutputs in %s/, receipts in %s (check them: preflight ledger verify)\n", out_dir.c_str(),
              ledger_path.c_str());
  return 0;
}

}  // namespace preflight::cli
