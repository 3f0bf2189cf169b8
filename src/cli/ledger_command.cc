// preflight ledger verify|show|report: the CLI face of src/ledger. Verify exits 0 when every hash
// and link checks out, 1 naming the first bad line, 2 when there is no ledger file. Report builds
// the static site (app/ledger_site_job.h): 2 for a missing or damaged ledger, naming it.

#include <cstdio>
#include <string>
#include <vector>

#include "app/ledger_site_job.h"
#include "app/receipt_facts.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "ledger/ledger.h"
#include "ledger/receipt.h"

namespace preflight::cli {
namespace {

using nlohmann::json;

// "key=value" for every scalar in `v`, nested objects flattened with dots, arrays skipped.
std::string Field(const json& receipt, const char* name) {
  if (!receipt.contains(name) || !receipt[name].is_string()) return "?";
  return receipt[name].get<std::string>();
}

int RunVerify(const std::string& path, bool json_out) {
  Result<ledger::VerifyReport> report = ledger::Verify(path);
  if (!report.ok()) return Fail("ledger verify", report.status());
  if (json_out) {
    EmitJson({{"ledger", path},
              {"ok", report->ok},
              {"lines", report->lines},
              {"first_bad_line", report->first_bad_line},
              {"reason", report->reason}});
  }
  if (!report->ok) {
    std::fprintf(stderr, "preflight ledger verify: %s: line %lld: %s\n", path.c_str(),
                 static_cast<long long>(report->first_bad_line), report->reason.c_str());
    return 1;
  }
  if (!json_out) {
    std::printf("%s: %lld receipts, every hash and link verified\n", path.c_str(),
                static_cast<long long>(report->lines));
  }
  return 0;
}

int RunShow(const std::string& path, const std::string& kind, int last, bool json_out) {
  Result<std::vector<json>> receipts = ledger::ReadAll(path);
  if (!receipts.ok()) return Fail("ledger show", receipts.status());
  // Line numbers are kept so that the table points into the file.
  std::vector<std::pair<size_t, const json*>> rows;
  const std::optional<ledger::ReceiptKind> wanted = ledger::KindFromName(kind);
  for (size_t i = 0; i < receipts->size(); ++i) {
    const json& r = (*receipts)[i];
    if (kind.empty() || (wanted && ledger::KindOf(r) == wanted)) rows.emplace_back(i + 1, &r);
  }
  if (last > 0 && rows.size() > static_cast<size_t>(last)) {
    rows.erase(rows.begin(), rows.end() - last);
  }
  if (json_out) {
    json out = json::array();
    for (const auto& [line, r] : rows) out.push_back(*r);
    EmitJson(out);
    return 0;
  }
  if (rows.empty()) {
    std::fprintf(stderr, "%s: no receipts%s\n", path.c_str(),
                 kind.empty() ? "" : (" of kind " + kind).c_str());
    return 0;
  }
  std::printf("%6s  %-24s  %-9s  %-12s  %s\n", "line", "created_at", "kind", "hash",
              "what it found");
  for (const auto& [line, r] : rows) {
    std::printf("%6zu  %-24s  %-9s  %-12s  %s\n", line, Field(*r, "created_at").c_str(),
                Field(*r, "kind").c_str(), Field(*r, "hash").substr(0, 12).c_str(),
                app::ReceiptFacts(*r).c_str());
  }
  return 0;
}

int RunReport(const std::string& path, const std::string& out_dir, bool json_out) {
  Result<app::LedgerSiteOutcome> site = app::BuildLedgerSite({path, out_dir});
  if (!site.ok()) return Fail("ledger report", site.status());
  if (json_out) {
    EmitJson({{"ledger", path},
              {"out", site->out_dir},
              {"index", site->index_path},
              {"receipts", site->receipts},
              {"trials", site->trials},
              {"ladders", site->ladders},
              {"batteries", site->batteries},
              {"trains", site->trains},
              {"scores", site->scores}});
    return 0;
  }
  std::printf(
      "%s: %lld receipts verified; %zu trials, %zu ladders, %zu batteries, %zu training "
      "runs, %zu scored from elsewhere\nsite: %s\n",
      path.c_str(), static_cast<long long>(site->receipts), site->trials, site->ladders,
      site->batteries, site->trains, site->scores, site->index_path.c_str());
  return 0;
}

}  // namespace

int RunLedger(int argc, char** argv) {
  CLI::App app;
  Describe(app, "ledger",
           "The tamper-evident receipt ledger: one JSON receipt per line, each holding the "
           "SHA-256 of the one before (format: doc/ledger-format.md).");
  app.require_subcommand(1);

  std::string path = ledger::DefaultLedgerPath();
  bool json_out = false;
  std::string kind;
  int last = 0;
  const std::string ledger_help = "ledger file (default " + ledger::DefaultLedgerPath() + ")";

  CLI::App* verify = app.add_subcommand(
      "verify", "recompute every hash and link; exit 1 naming the first bad line");
  verify->add_option("--ledger", path, ledger_help);
  verify->add_flag("--json", json_out,
                   "print {ledger, ok, lines, first_bad_line, reason} on stdout");

  CLI::App* show = app.add_subcommand("show", "print the receipts as a table");
  show->add_option("--ledger", path, ledger_help);
  show->add_option("--kind", kind, "only receipts of this kind")
      ->check(CLI::IsMember(ledger::AllKindNames()));
  show->add_option("--last", last, "only the last N (after --kind)")->check(CLI::PositiveNumber);
  show->add_flag("--json", json_out, "print the receipts as one JSON array on stdout");

  std::string out_dir;
  CLI::App* report = app.add_subcommand(
      "report",
      "write a static site of the ledger: every trial, the forecast's calibration, "
      "every ladder, a page per trial");
  report->add_option("--ledger", path, ledger_help);
  report
      ->add_option("--out", out_dir,
                   "folder for the site; built beside it and renamed into place, replacing a "
                   "site built there before (any other non-empty folder is refused)")
      ->required();
  report->add_flag("--json", json_out,
                   "print {ledger, out, index, receipts, trials, ladders, batteries, trains, "
                   "scores}");
  report->footer(
      "What the site holds:\n"
      "  index.html           every trial: target, selector, pilot (model, steps), regime, gross\n"
      "                       and net compute saved with 95% intervals, the forecast it tested\n"
      "                       (verdict, probability) and whether it was right; the forecast's\n"
      "                       calibration (predicted against measured net saving, y = x; decision\n"
      "                       accuracy as trials accumulate); every ladder (net saving against\n"
      "                       FLOPs, the trend); batteries, training runs, and runs made\n"
      "                       elsewhere that `preflight score` measured\n"
      "  trials/<hash16>.html one trial: its numbers, forecast, regime, inputs with SHA-256, the\n"
      "                       receipt itself, and a link to its report.html while that exists\n"
      "Self-contained (inline CSS and SVG; no scripts, nothing fetched): open it from disk or "
      "copy\n"
      "the folder anywhere. Every number's tooltip names the receipt (hash prefix) it came from.\n"
      "The ledger is verified first: a missing or damaged one exits 2 and writes nothing.\n\n"
      "Example:\n  preflight ledger report --ledger .preflight/ledger.jsonl --out site/\n"
      "  chromium site/index.html");

  int rc = Parse(app, argc, argv);
  if (rc >= 0) return rc;
  if (verify->parsed()) return RunVerify(path, json_out);
  if (report->parsed()) return RunReport(path, out_dir, json_out);
  return RunShow(path, kind, last, json_out);
}

}  // namespace preflight::cli
