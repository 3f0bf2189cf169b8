#pragma once
// The report's sections about what a trial tested and stood on (trial_report.h: ReportData):
//   section#forecast-tested  the forecast under test: verdict, predicted net saving with its
//                            interval, the measured net saving, and span.good "right" /
//                            span.bad "wrong" / span.flat "abstained" (or "not recorded here");
//   section#provenance       the trial's receipt hash (code#trial-receipt) and table#inputs: a row
//                            per input file with its role, path, documents, bytes and SHA-256;
//   section#selected         table#selected-highest, table#selected-lowest (id, score, excerpt)
//                            and table#selected-shares (value, documents, share).
// Every string is HTML-escaped. Pure functions: same data, same bytes.

#include <string>

#include "report/trial_report.h"

namespace preflight::report {

std::string ForecastTestedSection(const ForecastTested& forecast);
std::string ProvenanceSection(const Provenance& provenance);
std::string SelectionSection(const Selection& selection);

}  // namespace preflight::report
