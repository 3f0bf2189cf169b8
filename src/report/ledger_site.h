#pragma once
// The ledger as a static site (`preflight ledger report`): typed rows in, HTML strings out. Every
// page is self-contained (inline CSS and SVG; no scripts, fonts, images or anything else
// fetched), every string is HTML-escaped, and every number carries the hash prefix of the
// receipt it came from (a title attribute on the cell or point, and a receipt column).
//
// index.html, stable ids: "trials" (table, a tr.trial per trial receipt with data-hash),
// "calibration" (section) with svg#calibration-plot (circle.point per trial with a forecast and a
// net saving, line#identity for y = x), svg#accuracy-plot (the running decision accuracy in
// ledger order) and svg#reliability-plot (the forecasts' probabilities binned against how often
// curating paid, g.reliability-bin per bin; ledger_site_plot.h), "ladders" (section: an
// svg.ladder-plot per ladder, id "ladder-<hash16>", or p#no-ladders), "batteries", "trains"
// and "scores" (tables, a tr.score per score receipt, or a p saying there are none).
// trials/<hash16>.html, stable ids: "numbers", "forecast", "regime", "inputs", "receipt" (the
// receipt pretty-printed in a <pre>), and a#report when report.html still exists. Pure
// functions: same data, same bytes.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace preflight::report {

using Bounds = std::pair<double, double>;  // an interval [lo, hi]

// The forecast a trial tested, joined from its forecast receipt and the trial's mark.
struct SiteForecast {
  std::string hash;                        // the forecast receipt's hash; "" when none was tested
  std::string verdict;                     // "curate" | "random" | "uncertain"; "" when unknown
  std::optional<double> probability;       // absent when the receipt records none
  std::optional<double> predicted_saving;  // in [-1, 1]
  std::optional<Bounds> interval;          // the forecast's own interval
  double interval_level = 0.8;
  std::optional<bool> correct;  // absent: abstained ("uncertain") or not marked
};

struct SiteInput {
  std::string role, path, sha256;
  uint64_t docs = 0, bytes = 0;
};

struct SiteTrial {
  std::string hash, created_at;
  std::string target, selector, model;
  int64_t steps = 0;
  double params = 0;
  bool caught_up = true;
  std::optional<double> gross, net;  // absent when the receipt holds none (never caught up: -inf)
  std::optional<Bounds> ci95, ci95_gross;
  std::optional<bool> informative;  // absent: the receipt predates the regime check
  std::optional<double> margin, threshold;
  SiteForecast forecast;
  std::vector<SiteInput> inputs;
  std::string report_path;   // absolute path of the trial's report.html if it still exists
  std::string receipt_json;  // the receipt, pretty-printed (escaped when shown)
};

struct SiteRung {
  std::string model;
  int64_t steps = 0;
  double flops = 0;
  std::optional<double> gross, net;
  std::optional<Bounds> ci95;
  bool caught_up = true;
};

struct SiteLadder {
  std::string hash, created_at, target;
  std::vector<SiteRung> rungs;
  std::optional<double> slope_per_decade;
  std::optional<Bounds> slope_interval;
  std::string direction;   // grows | holds | shrinks | unclear; "" when none
  std::string projection;  // one line describing the projection; "" when the receipt has none
};

struct SiteBattery {
  std::string hash, created_at, selector, model;
  int64_t targets = 0;
  std::optional<int64_t> right, wrong, abstained;
  std::optional<double> accuracy;
  std::optional<double> saved_vs_always_curate, saved_vs_always_random;  // core-seconds
};

struct SiteTrain {
  std::string hash, created_at, model;
  double params = 0, tokens = 0, flops = 0;
  std::optional<double> final_eval_bpb;
};

// Runs a user made elsewhere, measured by `preflight score`: preflight did not make the arms.
struct SiteScore {
  std::string hash, created_at, name;
  int64_t runs_per_arm = 0;
  bool caught_up = true;
  bool net_stated = false;  // the user stated the selection's cost; else no net saving exists
  std::optional<double> gross, net;
  std::optional<Bounds> ci95_gross, ci95;
};

struct SiteData {
  std::string ledger_path;
  int64_t receipts = 0;           // every receipt in the ledger, of any kind
  std::vector<SiteTrial> trials;  // ledger order
  std::vector<SiteLadder> ladders;
  std::vector<SiteBattery> batteries;
  std::vector<SiteTrain> trains;
  std::vector<SiteScore> scores;
};

// The first 16 hex digits of a hash: how the site names receipts and trial pages.
std::string HashPrefix(const std::string& hash);

// "trials/<hash16>.html", relative to the site's root.
std::string TrialPagePath(const SiteTrial& trial);

std::string RenderSiteIndex(const SiteData& data);
std::string RenderSiteTrialPage(const SiteTrial& trial);

}  // namespace preflight::report
