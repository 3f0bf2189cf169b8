#include "ledger/canonical_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "ledger/ledger.h"

namespace preflight::ledger {
namespace {

using nlohmann::json;

TEST(CanonicalJson, SortsKeysByBytesAtEveryLevelWithoutWhitespace) {
  json v =
      json::parse(R"({"b": 1, "a": {"\u00e9": 2, "e": 3, "E": 4}, "c": [3, {"y": 1, "x": 2}]})");
  EXPECT_EQ(CanonicalJson(v), R"({"a":{"E":4,"e":3,"é":2},"b":1,"c":[3,{"x":2,"y":1}]})");
}

TEST(CanonicalJson, IntegersAreExactAtBothEnds) {
  EXPECT_EQ(CanonicalJson(json(std::numeric_limits<int64_t>::min())), "-9223372036854775808");
  EXPECT_EQ(CanonicalJson(json(std::numeric_limits<uint64_t>::max())), "18446744073709551615");
  EXPECT_EQ(CanonicalJson(json(0)), "0");
  EXPECT_EQ(CanonicalJson(json(-5)), "-5");
}

// Expected strings are Python's repr(float), which the format promises to match.
TEST(CanonicalJson, DoublesAreShortestRoundTripInPythonLayout) {
  const std::pair<double, const char*> cases[] = {
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {1.0, "1.0"},
      {0.1, "0.1"},
      {0.30000000000000004, "0.30000000000000004"},
      {1e15, "1000000000000000.0"},
      {1e16, "1e+16"},
      {1e-4, "0.0001"},
      {1e-5, "1e-05"},
      {2.5e-10, "2.5e-10"},
      {5e-324, "5e-324"},
      {1.7976931348623157e308, "1.7976931348623157e+308"},
      {123456789012345678.0, "1.2345678901234568e+17"},
      {-1234.5, "-1234.5"},
      // nlohmann's dump (Grisu2) prints -2906443722.4390802 here: round-trip, not shortest.
      {-2906443722.43908, "-2906443722.43908"},
  };
  for (const auto& [value, expected] : cases) {
    EXPECT_EQ(CanonicalJson(json(value)), expected) << "value " << value;
    // The printed form reads back to the same double.
    EXPECT_EQ(json::parse(expected).get<double>(), value) << expected;
  }
}

TEST(CanonicalJson, StringsUseMinimalEscapesAndRawUtf8) {
  std::string s = "q\" b\\ \b\f\n\r\t \x01\x1f \x7f caf\xc3\xa9 \xe2\x80\xa8 \xf0\x9f\x98\x80";
  EXPECT_EQ(CanonicalJson(json(s)),
            "\"q\\\" b\\\\ \\b\\f\\n\\r\\t \\u0001\\u001f \x7f caf\xc3\xa9 \xe2\x80\xa8 "
            "\xf0\x9f\x98\x80\"");
}

TEST(CanonicalJson, PrintParsePrintIsStable) {
  json v = {{"z", {1.0, -0.0, 1e300, 1e-300, 0.1, 12345678901234567890ull, -1}},
            {"s", "tab\there"},
            {"n", nullptr},
            {"t", true},
            {"o", json::object()},
            {"a", json::array()}};
  std::string once = CanonicalJson(v);
  EXPECT_EQ(CanonicalJson(json::parse(once)), once);
  EXPECT_EQ(once, R"({"a":[],"n":null,"o":{},"s":"tab\there","t":true,)"
                  R"("z":[1.0,-0.0,1e+300,1e-300,0.1,12345678901234567890,-1]})");
}

TEST(CanonicalJson, NonFiniteNumbersAreRejectedNamingWhere) {
  json v = {{"result", {{"loss", std::nan("")}}}};
  Status st = CheckCanonicalizable(v);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.kind(), Status::Kind::kInvalidArgument);
  EXPECT_NE(st.message().find("'/result/loss' is not a finite number"), std::string::npos)
      << st.message();
  EXPECT_FALSE(
      CheckCanonicalizable(json::array({1, std::numeric_limits<double>::infinity()})).ok());
  // CanonicalJson itself stays total: null, as nlohmann and JavaScript print it.
  EXPECT_EQ(CanonicalJson(v), R"({"result":{"loss":null}})");
}

TEST(CanonicalJson, InvalidUtf8IsRejected) {
  EXPECT_TRUE(CheckCanonicalizable(json("caf\xc3\xa9 \xf0\x9f\x98\x80")).ok());
  for (const char* bad : {"\xff", "caf\xc3", "\xc0\xaf" /* overlong */,
                          "\xed\xa0\x80" /* surrogate */, "\xf4\x90\x80\x80" /* > U+10FFFF */}) {
    Status st = CheckCanonicalizable(json{{"config", {{"name", bad}}}});
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_NE(st.message().find("'/config/name' is not valid UTF-8"), std::string::npos);
  }
  EXPECT_FALSE(CheckCanonicalizable(json{{"\xff", 1}}).ok());
}

// Known answer computed independently with Python:
//   c = json.dumps(r, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
//   hashlib.sha256(c.encode()).hexdigest()
TEST(ReceiptHash, MatchesAnIndependentPythonComputation) {
  json r = {{"kind", "selection"},
            {"created_at", "2026-01-02T03:04:05.678Z"},
            {"tool", {{"version", "0.1.0"}, {"git_commit", "abcdef012345"}}},
            {"inputs",
             {{{"path", "pool.jsonl"},
               {"sha256", std::string(64, 'a')},
               {"docs", 500},
               {"bytes", 1234567}}}},
            {"config", {{"selector", "dsir"}, {"keep", 0.25}, {"seed", 1}, {"buckets", 10000}}},
            {"result",
             {{"kept_docs", 125},
              {"kept_bytes", 308641},
              {"mean_log_weight", -0.1234567890123},
              {"note", "caf\xc3\xa9 \"quoted\"\n"}}},
            {"cost", {{"core_seconds", 1.5}, {"flops", 0}}},
            {"prev", kGenesisHash}};
  EXPECT_EQ(ReceiptHash(r), "0a761155111c4fad00a675ee01f5c79a10b39cd308ae154a064796490faad8dd");
  // "hash" itself is left out of what is hashed.
  r["hash"] = "anything";
  EXPECT_EQ(ReceiptHash(r), "0a761155111c4fad00a675ee01f5c79a10b39cd308ae154a064796490faad8dd");
}

}  // namespace
}  // namespace preflight::ledger
