#include "app/receipt_facts.h"

#include <gtest/gtest.h>

namespace preflight::app {
namespace {

TEST(ReceiptFacts, TheFactsThatMatterForEachKind) {
  nlohmann::json trial = {
      {"kind", "trial"},
      {"result",
       {{"compute_saved", {{"gross", 0.331}, {"net", 0.311}, {"ci95", {0.271, 0.326}}}},
        {"caught_up", true},
        {"forecast", {{"verdict", "curate"}, {"correct", true}}},
        {"model", {{"name", "tiny"}, {"params", 120640}}}}}};
  EXPECT_EQ(ReceiptFacts(trial),
            "gross 33.1%, net 31.1% (95% 27.1% to 32.6%); forecast curate: right; tiny (121k "
            "params)");
  trial["result"]["caught_up"] = false;
  trial["result"]["forecast"]["correct"] = nullptr;
  EXPECT_NE(ReceiptFacts(trial).find("never caught up"), std::string::npos);
  EXPECT_NE(ReceiptFacts(trial).find("abstained"), std::string::npos);

  nlohmann::json forecast = {{"kind", "forecast"},
                             {"result",
                              {{"verdict", "random"},
                               {"strength", "weak"},
                               {"predicted_saving", -0.05},
                               {"interval", {-0.1, 0.02}}}}};
  EXPECT_EQ(ReceiptFacts(forecast), "random (weak), predicted -5.0% (80% -10.0% to 2.0%)");
  forecast["result"]["probability"] = 0.25;  // receipts since issue 15 carry it
  EXPECT_EQ(ReceiptFacts(forecast),
            "random (weak), predicted -5.0% (80% -10.0% to 2.0%); pays with p 25.0%");

  nlohmann::json ladder = {
      {"kind", "ladder"},
      {"result",
       {{"rungs", {{{"model", "tiny"}, {"steps", 150}}, {{"model", "small"}, {"steps", 600}}}},
        {"trend",
         {{"direction", "grows"}, {"slope_per_decade", 0.081}, {"interval", {0.02, 0.142}}}}}}};
  EXPECT_EQ(ReceiptFacts(ladder),
            "2 rungs (tiny/150 to small/600): grows, 8.1% per decade (95% 2.0% to 14.2%)");

  nlohmann::json train = {{"kind", "train"},
                          {"result",
                           {{"model", {{"name", "small"}}},
                            {"params", 8e5},
                            {"tokens", 3.2e7},
                            {"final_eval_bpb", 2.5}}}};
  EXPECT_EQ(ReceiptFacts(train),
            "small: 800k params on 32.0M tokens, final held-out 2.5000 bits/byte");
  // A receipt missing its facts shows "?", never fails.
  EXPECT_EQ(ReceiptFacts({{"kind", "train"}}),
            "?: ? params on ? tokens, final held-out ? bits/byte");
}

}  // namespace
}  // namespace preflight::app
