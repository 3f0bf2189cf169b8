// preflight fit: fit L(N, D) = E + A/N^alpha + B/D^beta to your own runs (a CSV, or the trial
// receipts of a ledger) the way Hoffmann et al. did, with bootstrap intervals. The work is in
// src/cost/law_fit.h.

#include <cstdio>
#include <string>

#include "base/file.h"
#include "base/format.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cost/law_fit.h"

namespace preflight::cli {
namespace {

using nlohmann::json;

json IntervalJson(const cost::Interval& i) { return json::array({i.low, i.high}); }

}  // namespace

int RunFit(int argc, char** argv) {
  CLI::App app;
  Describe(app, "fit",
           "Fit L(N, D) = E + A/N^alpha + B/D^beta to runs: Huber loss (delta 1e-3) on log-loss, "
           "L-BFGS (liblbfgs) from Hoffmann et al.'s grid of 4,500 starting points, bootstrap "
           "intervals over the runs. Input: a CSV of N, D, loss, or a ledger whose trial/train "
           "receipts carry params, tokens and loss (see doc/cost.md).");
  std::string csv, ledger, out_path;
  cost::FitOptions options;
  bool as_json = false;
  auto* csv_opt = app.add_option("--csv", csv, "CSV of N, D, loss (optional header)");
  app.add_option("--ledger", ledger, "ledger JSONL: runs from trial and train receipts")
      ->excludes(csv_opt);
  app.add_option("--bootstrap", options.bootstrap, "bootstrap resamples (0 = none)")
      ->capture_default_str();
  app.add_option("--seed", options.seed, "bootstrap RNG seed")->capture_default_str();
  app.add_option("--delta", options.huber_delta, "Huber delta on log-loss residuals")
      ->capture_default_str();
  app.add_option("--out", out_path, "also write the JSON document here (for plan --law-json)");
  app.add_flag("--json", as_json, "print one JSON document on stdout");
  if (int rc = Parse(app, argc, argv); rc >= 0) return rc;
  if (csv.empty() == ledger.empty()) {
    return Fail("fit", Status::InvalidArgument("give --csv FILE or --ledger FILE"));
  }

  std::FILE* out = as_json ? stderr : stdout;
  Result<std::vector<cost::FitPoint>> points = Status::Internal("unread");
  json source;
  if (!csv.empty()) {
    points = cost::ReadFitCsv(csv);
    source = {{"kind", "csv"}, {"path", csv}};
  } else {
    cost::LedgerScan scan;
    points = cost::ReadFitLedger(ledger, &scan);
    source = {{"kind", "ledger"},
              {"path", ledger},
              {"lines", scan.lines},
              {"receipts_used", scan.receipts_used},
              {"objects_skipped", scan.objects_skipped}};
    if (points.ok()) {
      std::fprintf(stderr,
                   "preflight fit: %d runs from %d receipts in %d ledger lines (%d objects "
                   "without params, tokens and loss skipped)\n",
                   static_cast<int>(points->size()), scan.receipts_used, scan.lines,
                   scan.objects_skipped);
    }
  }
  if (!points.ok()) return Fail("fit", points.status());
  if (static_cast<int>(points->size()) >= cost::kLawConstants) {
    std::fprintf(stderr, "preflight fit: %d runs, %d starting points, %d bootstrap resamples\n",
                 static_cast<int>(points->size()), cost::kGridStarts, options.bootstrap);
  }
  auto fitted = cost::FitLossLaw(*points, options);
  if (!fitted.ok()) return Fail("fit", fitted.status());
  const cost::FitResult& f = *fitted;

  std::fprintf(out, "fit of L(N, D) = E + A/N^alpha + B/D^beta to %d runs (%s)\n", f.points,
               (csv.empty() ? ledger : csv).c_str());
  const struct {
    const char* name;
    double value;
    cost::Interval interval;
  } rows[] = {
      {"E", f.law.E, f.E},
      {"A", f.law.A, f.A},
      {"B", f.law.B, f.B},
      {"alpha", f.law.alpha, f.alpha},
      {"beta", f.law.beta, f.beta},
      {"beta/(alpha+beta)", f.law.beta / (f.law.alpha + f.law.beta), f.optimal_params_exponent}};
  for (const auto& r : rows) {
    std::fprintf(out, "  %-18s %10s", r.name, FormatG(r.value, 5).c_str());
    if (f.bootstrap > 0) {
      std::fprintf(out, "   95%% interval [%s, %s]", FormatG(r.interval.low, 4).c_str(),
                   FormatG(r.interval.high, 4).c_str());
    }
    std::fprintf(out, "\n");
  }
  std::fprintf(out,
               "  Huber objective %s; rms error of ln(loss) %s; %d starting points; %d bootstrap "
               "resamples (seed %llu)\n",
               FormatSci(f.objective, 4).c_str(), FormatSci(f.rms_log_error, 3).c_str(), f.starts,
               f.bootstrap, static_cast<unsigned long long>(options.seed));
  std::fprintf(out,
               "  (the compute-optimal N grows as C^(beta/(alpha+beta)); plan with it: preflight "
               "fit ... --out FIT.json, then preflight plan --law-json FIT.json)\n");

  json doc = {{"law",
               {{"E", f.law.E},
                {"A", f.law.A},
                {"B", f.law.B},
                {"alpha", f.law.alpha},
                {"beta", f.law.beta}}},
              {"intervals",
               {{"E", IntervalJson(f.E)},
                {"A", IntervalJson(f.A)},
                {"B", IntervalJson(f.B)},
                {"alpha", IntervalJson(f.alpha)},
                {"beta", IntervalJson(f.beta)},
                {"optimal_params_exponent", IntervalJson(f.optimal_params_exponent)}}},
              {"optimal_params_exponent", f.law.beta / (f.law.alpha + f.law.beta)},
              {"points", f.points},
              {"starts", f.starts},
              {"bootstrap", f.bootstrap},
              {"seed", options.seed},
              {"huber_delta", options.huber_delta},
              {"objective", f.objective},
              {"rms_log_error", f.rms_log_error},
              {"source", source}};
  if (!out_path.empty()) {
    Status st = WriteFileAtomically(out_path, doc.dump(2) + "\n");
    if (!st.ok()) return Fail("fit", st);
  }
  if (as_json) EmitJson(doc);
  return 0;
}

}  // namespace preflight::cli
