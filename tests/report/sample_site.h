#pragma once
// A small ledger site's data for the rendering tests: three trials (the forecast right, wrong,
// and abstained; one that never caught up; one from before forecasts recorded a probability and
// before the regime check), one ladder, a battery and a training run.

#include <string>

#include "report/ledger_site.h"

namespace preflight::report::testing {

inline std::string Hash(char c) { return std::string(64, c); }

inline SiteData SampleSite() {
  SiteData d;
  d.ledger_path = "/tmp/ledger.jsonl";
  d.receipts = 9;
  SiteTrial a;
  a.hash = Hash('a');
  a.created_at = "2026-12-01T10:00:00.000Z";
  a.target = "news";
  a.selector = "dsir";
  a.model = "tiny";
  a.steps = 300;
  a.params = 120000;
  a.gross = 0.31;
  a.net = 0.274;
  a.ci95 = Bounds{0.191, 0.352};
  a.ci95_gross = Bounds{0.22, 0.4};
  a.informative = true;
  a.margin = 0.412;
  a.threshold = 0.05;
  a.forecast = {Hash('f'), "curate", 0.83, 0.22, Bounds{0.05, 0.4}, 0.8, true};
  a.inputs = {{"pool", "/data/pool.jsonl", Hash('1'), 400, 321330},
              {"target_select", "/data/news.jsonl", Hash('2'), 16, 12942}};
  a.receipt_json = "{\n  \"kind\": \"trial\"\n}";
  SiteTrial b = a;
  b.hash = Hash('b');
  b.target = "fortunes";
  b.gross = 0.05;
  b.net = -0.127;
  b.ci95 = Bounds{-0.2, -0.05};
  b.informative = false;
  b.margin = -3.6;
  b.forecast = {Hash('e'), "curate", 0.61, 0.08, Bounds{-0.1, 0.26}, 0.8, false};
  SiteTrial c = a;
  c.hash = Hash('c');
  c.target = "legal";
  c.caught_up = false;
  c.gross.reset();
  c.net.reset();
  c.ci95.reset();
  c.ci95_gross.reset();
  c.informative.reset();
  c.margin.reset();
  c.forecast = {Hash('d'), "uncertain", std::nullopt, 0.01, Bounds{-0.3, 0.3}, 0.8, std::nullopt};
  d.trials = {a, b, c};
  SiteLadder l;
  l.hash = Hash('9');
  l.target = "news";
  l.rungs = {{"tiny", 300, 3e10, 0.3, 0.27, Bounds{0.19, 0.35}, true},
             {"small", 600, 2.4e11, 0.25, 0.21, Bounds{0.12, 0.3}, true},
             {"base", 1200, 1.9e12, 0.2, 0.15, Bounds{0.02, 0.27}, true}};
  l.slope_per_decade = -0.058;
  l.slope_interval = Bounds{-0.12, 0.004};
  l.direction = "shrinks";
  d.ladders = {l};
  d.batteries = {{Hash('8'), "2026-12-01T11:00:00.000Z", "dsir", "tiny", 53, 31, 12, 10, 31.0 / 43,
                  120.5, 33.25}};
  d.trains = {{Hash('7'), "2026-12-01T12:00:00.000Z", "small", 1.2e6, 3.3e6, 2.4e13, 1.8731}};
  return d;
}

}  // namespace preflight::report::testing
