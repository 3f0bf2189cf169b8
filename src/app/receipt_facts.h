#pragma once
// `ledger show`'s one line per receipt: the two or three facts that matter for its kind (a
// trial's net saving and the forecast it tested, a forecast's verdict, a train's final loss...).
// Display only: a receipt missing a fact shows "?" there, never an error.

#include <nlohmann/json.hpp>
#include <string>

namespace preflight::app {

std::string ReceiptFacts(const nlohmann::json& receipt);

}  // namespace preflight::app
