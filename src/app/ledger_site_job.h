#pragma once
// `preflight ledger report`: the ledger as a static site (report/ledger_site.h renders it).
//   1. verify the ledger (ledger::Verify): a missing file is NotFound, a damaged one Corruption
//      naming the first bad line, and nothing is written;
//   2. read every receipt into typed rows (SiteDataFromReceipts): trials joined with the
//      forecast receipts they tested, ladders, batteries, training runs;
//   3. write index.html and trials/<hash16>.html into a fresh folder beside `out_dir`, then
//      rename it into place. An existing `out_dir` is replaced only when it is empty or holds an
//      index.html (a site built before); anything else is refused, so no other folder is lost.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "report/ledger_site.h"

namespace preflight::app {

struct LedgerSiteRequest {
  std::string ledger_path;
  std::string out_dir;
};

struct LedgerSiteOutcome {
  std::string out_dir;
  std::string index_path;
  int64_t receipts = 0;
  size_t trials = 0, ladders = 0, batteries = 0, trains = 0, scores = 0;
};

// Typed rows from receipts in ledger order. Display only: a fact a receipt lacks (a forecast
// receipt's probability, a trial's regime) is left absent, never an error. A trial's
// report.html is linked only when the receipt records its folder and the file is still there.
report::SiteData SiteDataFromReceipts(const std::vector<nlohmann::json>& receipts,
                                      const std::string& ledger_path);

Result<LedgerSiteOutcome> BuildLedgerSite(const LedgerSiteRequest& request);

}  // namespace preflight::app
