#include "base/json.h"

#include <gtest/gtest.h>

#include <cmath>

namespace preflight {
namespace {

TEST(Json, ParseErrorNamesSourceAndOffset) {
  auto parsed = ParseJson("{\"a\": [1, 2,}", "run/trial.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().kind(), Status::Kind::kCorruption);
  EXPECT_NE(parsed.status().message().find("run/trial.json: not valid JSON at byte 13"),
            std::string::npos)
      << parsed.status().message();
}

// Found by fuzz_curve_hf: a number no double holds made the parser throw out_of_range, which
// nothing caught (the process aborted).
TEST(Json, ANumberTooLargeIsAnErrorNotAnAbort) {
  auto parsed = ParseJson("{\"step\": 8e888888}", "run/run.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().kind(), Status::Kind::kCorruption);
  EXPECT_NE(parsed.status().message().find("run/run.json: not readable JSON"), std::string::npos)
      << parsed.status().message();
}

TEST(Json, MissingFileIsNotFound) {
  auto parsed = ReadJsonFile("/nonexistent/preflight/x.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().kind(), Status::Kind::kNotFound);
}

TEST(Json, TypedGettersReadValues) {
  auto doc = nlohmann::json::parse(
      R"({"name": "x", "n": 3, "f": 2.5, "ok": true, "none": null,
          "xs": [1, 2.5, null], "ids": [4, 5], "tags": ["a", "b"], "sub": {"k": 7}})");
  JsonReader r(doc, "f.json");
  EXPECT_EQ(r.String("name").value(), "x");
  EXPECT_EQ(r.Int("n").value(), 3);
  EXPECT_DOUBLE_EQ(r.Number("f").value(), 2.5);
  EXPECT_TRUE(r.Bool("ok").value());
  EXPECT_TRUE(std::isnan(r.Number("none").value()));
  auto xs = r.Numbers("xs").value();
  ASSERT_EQ(xs.size(), 3u);
  EXPECT_TRUE(std::isnan(xs[2]));
  EXPECT_EQ(r.Ints("ids").value(), (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(r.Strings("tags").value(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(r.Field("sub").value().Int("k").value(), 7);
  EXPECT_TRUE(r.Has("sub"));
  EXPECT_FALSE(r.Has("absent"));
}

TEST(Json, ErrorsNameFileAndPath) {
  auto doc = nlohmann::json::parse(R"({"arms": [{"seeds": [1, "two"]}], "n": 1.5})");
  JsonReader r(doc, "out/trial.json");
  auto seeds = r.Field("arms").value().At(0).value().Ints("seeds");
  ASSERT_FALSE(seeds.ok());
  EXPECT_EQ(seeds.status().message(),
            "out/trial.json: $.arms[0].seeds[1]: expected an integer, found a string");
  EXPECT_EQ(r.Int("n").status().message(),
            "out/trial.json: $.n: expected an integer, found a number");
  EXPECT_EQ(r.String("missing").status().message(), "out/trial.json: $: missing \"missing\"");
  EXPECT_EQ(r.Field("arms").value().At(3).status().message(),
            "out/trial.json: $.arms: index 3 past the end of 1 elements");
}

TEST(Json, OptionalMembersTakeTheDefaultOnlyWhenAbsent) {
  auto doc = nlohmann::json::parse(
      R"({"name": "x", "n": 3, "f": 2.5, "ok": false, "none": null, "sub": {"k": 7}})");
  JsonReader r(doc, "f.json");
  // Present: the member's value, not the default.
  EXPECT_EQ(r.String("name", "d").value(), "x");
  EXPECT_EQ(r.Int("n", 9).value(), 3);
  EXPECT_DOUBLE_EQ(r.Number("f", -1.0).value(), 2.5);
  EXPECT_FALSE(r.Bool("ok", true).value());
  EXPECT_EQ(r.OptionalObject("sub").value().Int("k", 0).value(), 7);
  // Absent: the default.
  EXPECT_EQ(r.String("absent", "d").value(), "d");
  EXPECT_EQ(r.Int("absent", 9).value(), 9);
  EXPECT_DOUBLE_EQ(r.Number("absent", -1.0).value(), -1.0);
  EXPECT_TRUE(r.Bool("absent", true).value());
  // An absent object reads as {}: its members take their defaults, its path is kept.
  JsonReader empty = r.OptionalObject("absent").value();
  EXPECT_EQ(empty.path(), "$.absent");
  EXPECT_EQ(empty.String("name", "d").value(), "d");
  // A null object is a part the document lacks: {} like an absent one.
  EXPECT_EQ(r.OptionalObject("none").value().Bool("ok", true).value(), true);
  // A present null scalar is read as the required form reads it: NaN for a number, else an error.
  EXPECT_TRUE(std::isnan(r.Number("none", -1.0).value()));
  EXPECT_EQ(r.Int("none", 9).status().message(), "f.json: $.none: expected an integer, found null");
}

TEST(Json, OptionalMembersOfTheWrongTypeNameThePath) {
  auto doc = nlohmann::json::parse(R"({"cfg": {"seeds": "four", "keep": [1]}, "list": [1]})");
  JsonReader r(doc, "out/trial.json");
  JsonReader cfg = r.OptionalObject("cfg").value();
  auto seeds = cfg.Int("seeds", 4);
  ASSERT_FALSE(seeds.ok());
  EXPECT_EQ(seeds.status().kind(), Status::Kind::kCorruption);
  EXPECT_EQ(seeds.status().message(),
            "out/trial.json: $.cfg.seeds: expected an integer, found a string");
  EXPECT_EQ(cfg.Number("keep", 0.25).status().message(),
            "out/trial.json: $.cfg.keep: expected a number, found an array");
  EXPECT_EQ(cfg.String("seeds", "").value(), "four");
  EXPECT_EQ(cfg.Bool("keep", false).status().message(),
            "out/trial.json: $.cfg.keep: expected true or false, found an array");
  EXPECT_EQ(r.OptionalObject("list").status().message(),
            "out/trial.json: $.list: expected an object, found an array");
  // A node that is no object has no optional members either.
  JsonReader list = r.Field("list").value();
  EXPECT_EQ(list.Int("n", 0).status().message(),
            "out/trial.json: $.list: expected an object with \"n\", found an array");
}

TEST(ResultDeathTest, ValueOfFailedResultAborts) {
  Result<int> failed = Status::NotFound("x.jsonl: no such file");
  EXPECT_DEATH((void)failed.value(), "value\\(\\) of a failed Result: x.jsonl: no such file");
}

}  // namespace
}  // namespace preflight
