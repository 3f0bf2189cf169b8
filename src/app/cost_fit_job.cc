#include "app/cost_fit_job.h"

#include <fmt/format.h>

#include "base/file.h"
#include "base/number_format.h"
#include "ledger/writable.h"

namespace preflight::app {
namespace {

using nlohmann::json;

json IntervalJson(const cost::Interval& i) { return json::array({i.low, i.high}); }

void Progress(const FitRequest& r, const std::string& stage, const std::string& note) {
  if (r.progress) r.progress({.stage = stage, .note = note});
}

Result<std::vector<cost::FitPoint>> ReadPoints(const FitRequest& r,
                                               std::optional<cost::LedgerScan>* scan) {
  if (r.csv.empty() == r.ledger.empty()) {
    return Status::InvalidArgument("give --csv FILE or --ledger FILE");
  }
  if (!r.csv.empty()) return cost::ReadFitCsv(r.csv);
  cost::LedgerScan s;
  PF_ASSIGN_OR_RETURN(std::vector<cost::FitPoint> points, cost::ReadFitLedger(r.ledger, &s));
  *scan = s;
  Progress(r, "read the ledger",
           fmt::format("{} runs from {} receipts in {} ledger lines ({} objects without params, "
                       "tokens and loss skipped)",
                       points.size(), s.receipts_used, s.lines, s.objects_skipped));
  return points;
}

}  // namespace

Result<FitOutcome> RunFit(const FitRequest& request) {
  FitOutcome o;
  o.request = request;
  if (!request.out_path.empty()) {  // before the fit's 4,500 starts
    PF_RETURN_IF_ERROR(ledger::CheckWritableFile(request.out_path, "--out"));
  }
  PF_ASSIGN_OR_RETURN(std::vector<cost::FitPoint> points, ReadPoints(request, &o.scan));
  if (static_cast<int>(points.size()) >= cost::kLawConstants) {
    Progress(request, "fit",
             fmt::format("{} runs, {} starting points, {} bootstrap resamples", points.size(),
                         cost::kGridStarts, request.options.bootstrap));
  }
  PF_ASSIGN_OR_RETURN(o.fit, cost::FitLossLaw(points, request.options));
  if (!request.out_path.empty()) {
    PF_RETURN_IF_ERROR(WriteFileAtomically(request.out_path, FitToJson(o).dump(2) + "\n"));
  }
  return o;
}

json FitToJson(const FitOutcome& o) {
  const cost::FitResult& f = o.fit;
  const FitRequest& r = o.request;
  json source;
  if (!o.scan) {
    source = {{"kind", "csv"}, {"path", r.csv}};
  } else {
    source = {{"kind", "ledger"},
              {"path", r.ledger},
              {"lines", o.scan->lines},
              {"receipts_used", o.scan->receipts_used},
              {"objects_skipped", o.scan->objects_skipped}};
  }
  return {{"law",
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
          {"seed", r.options.seed},
          {"huber_delta", r.options.huber_delta},
          {"objective", f.objective},
          {"rms_log_error", f.rms_log_error},
          {"source", source}};
}

std::string FitText(const FitOutcome& o) {
  const cost::FitResult& f = o.fit;
  std::string out = fmt::format("fit of L(N, D) = E + A/N^alpha + B/D^beta to {} runs ({})\n",
                                f.points, o.request.csv.empty() ? o.request.ledger : o.request.csv);
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
  for (const auto& row : rows) {
    out += fmt::format("  {:<18} {:>10}", row.name, FormatG(row.value, 5));
    if (f.bootstrap > 0) {
      out += fmt::format("   95% interval [{}, {}]", FormatG(row.interval.low, 4),
                         FormatG(row.interval.high, 4));
    }
    out += "\n";
  }
  out += fmt::format(
      "  Huber objective {}; rms error of ln(loss) {}; {} starting points; {} bootstrap "
      "resamples (seed {})\n",
      FormatSci(f.objective, 4), FormatSci(f.rms_log_error, 3), f.starts, f.bootstrap,
      o.request.options.seed);
  out +=
      "  (the compute-optimal N grows as C^(beta/(alpha+beta)); plan with it: preflight fit ... "
      "--out FIT.json, then preflight plan --law-json FIT.json)\n";
  return out;
}

}  // namespace preflight::app
