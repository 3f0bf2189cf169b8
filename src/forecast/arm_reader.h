#pragma once
// Reading an arm (or any JSONL file) for the forecast's signals: whole, or an evenly spread
// deterministic sample of its documents when the file is larger than a byte budget.

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace preflight::forecast {

// Every document's text field.
Result<std::vector<std::string>> ReadTexts(const std::string& path, const std::string& field);

// The texts, or an evenly spread deterministic sample of them when the file holds more than
// `budget` bytes (0: no bound): with r = budget / file bytes, record k is kept when
// floor((k + 1) r) > floor(k r), so about a fraction r of the records, one in every 1 / r. Only
// the kept lines are parsed.
Result<std::vector<std::string>> ReadSample(const std::string& path, const std::string& field,
                                            uint64_t budget);

}  // namespace preflight::forecast
