// Each input read with its own fields (the pool's, the target's), and a selection's first passes
// made ahead (select/prepared.h): the same selection, byte for byte, with the inputs not parsed
// again.

#include "select/prepared.h"

#include <gtest/gtest.h>

#include "testing/planted.h"
#include "testing/testing.h"

namespace preflight::select {
namespace {

using preflight::testing::DocumentIds;
using preflight::testing::ReadText;
using preflight::testing::RenameField;
using preflight::testing::ReplaceLine;
using preflight::testing::ScratchDir;
using preflight::testing::WriteText;

// The manifest without what differs between two runs of one selection (cost, output path).
nlohmann::json Comparable(nlohmann::json manifest) {
  manifest.erase("cost");
  manifest["output"].erase("path");
  return manifest;
}

class SelectInputs : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ScratchDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    preflight::testing::WritePlantedPool(dir_, 300, 0.3, 30, 41);
    pool_ = {dir_ + "/pool.jsonl"};
    target_ = {dir_ + "/target.jsonl"};
  }
  SelectOptions Options(const std::string& selector, const std::string& out) const {
    SelectOptions o;
    o.selector = selector;
    o.seed = 5;
    o.threads = 2;
    o.out_path = dir_ + "/" + out;
    return o;
  }
  std::string dir_;
  std::vector<std::string> pool_, target_;
};

// The case: a pool whose text is in "content", a target in "text".
TEST_F(SelectInputs, TheTargetIsReadWithItsOwnTextField) {
  auto same = RunSelection(pool_, target_, Options("dsir", "same.jsonl"));
  ASSERT_TRUE(same.ok()) << same.status().message();
  WriteText(dir_ + "/pool.c.jsonl", RenameField(ReadText(pool_[0]), "text", "content"));
  SelectOptions o = Options("dsir", "apart.jsonl");
  o.read.text_field = "content";
  auto one_field = RunSelection({dir_ + "/pool.c.jsonl"}, target_, o);
  ASSERT_FALSE(one_field.ok());
  EXPECT_NE(one_field.status().message().find(target_[0] + ":1: no \"content\" field"),
            std::string::npos)
      << one_field.status().message();
  o.target_text_field = "text";
  auto apart = RunSelection({dir_ + "/pool.c.jsonl"}, target_, o);
  ASSERT_TRUE(apart.ok()) << apart.status().message();
  // The same documents, as the pool's own lines.
  EXPECT_EQ(DocumentIds(o.out_path), DocumentIds(dir_ + "/same.jsonl"));
  EXPECT_NE(ReadText(o.out_path).find("\"content\":"), std::string::npos);
  EXPECT_EQ(apart->manifest["text_field"], "content");
  EXPECT_EQ(apart->manifest["target_text_field"], "text");
  EXPECT_EQ(apart->manifest["id_field"], "id");
  EXPECT_EQ(apart->manifest["target_id_field"], "id");
  EXPECT_EQ(same->manifest["target_text_field"], "text");
}

TEST_F(SelectInputs, PreparedPassesGiveTheSameSelection) {
  auto prepared = PrepareInputs(pool_, target_, Options("", ""), SelectorNames());
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  for (const std::string& selector : SelectorNames()) {
    auto read = RunSelection(pool_, target_, Options(selector, selector + ".read.jsonl"));
    ASSERT_TRUE(read.ok()) << selector << ": " << read.status().message();
    const SelectOptions o = Options(selector, selector + ".prepared.jsonl");
    auto given = RunSelection(pool_, target_, o, {}, nullptr, &*prepared);
    ASSERT_TRUE(given.ok()) << selector << ": " << given.status().message();
    EXPECT_EQ(ReadText(o.out_path), ReadText(dir_ + "/" + selector + ".read.jsonl")) << selector;
    EXPECT_EQ(Comparable(given->manifest), Comparable(read->manifest)) << selector;
  }
}

// Inputs spoiled after the passes were made are not parsed again: the target by dsir (its counts
// were taken), the pool by random (its write pass copies lines without parsing them).
TEST_F(SelectInputs, PreparedInputsAreNotParsedAgain) {
  auto prepared = PrepareInputs(pool_, target_, Options("", ""), {"random", "dsir"});
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  auto dsir = RunSelection(pool_, target_, Options("dsir", "dsir.jsonl"));
  auto random = RunSelection(pool_, target_, Options("random", "random.jsonl"));
  ASSERT_TRUE(dsir.ok() && random.ok());

  ReplaceLine(target_[0], 1, "{\"text\": 7}");
  auto again = RunSelection(pool_, target_, Options("dsir", "dsir.again.jsonl"));
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find(target_[0] + ":1: field \"text\" is not a string"),
            std::string::npos)
      << again.status().message();
  auto given =
      RunSelection(pool_, target_, Options("dsir", "dsir.given.jsonl"), {}, nullptr, &*prepared);
  ASSERT_TRUE(given.ok()) << given.status().message();
  EXPECT_EQ(ReadText(dir_ + "/dsir.given.jsonl"), ReadText(dir_ + "/dsir.jsonl"));

  // A pool line random did not keep, spoiled in place (the line count unchanged).
  const std::set<std::string> kept = DocumentIds(dir_ + "/random.jsonl");
  int spoiled = 1;
  while (kept.count("d" + std::to_string(spoiled - 1))) ++spoiled;
  ReplaceLine(pool_[0], spoiled, "{\"id\": \"spoiled\", \"text\": 7}");
  auto reread = RunSelection(pool_, target_, Options("random", "random.again.jsonl"));
  ASSERT_FALSE(reread.ok());
  EXPECT_NE(reread.status().message().find(pool_[0] + ":" + std::to_string(spoiled) + ":"),
            std::string::npos)
      << reread.status().message();
  auto copied = RunSelection(pool_, target_, Options("random", "random.given.jsonl"), {}, nullptr,
                             &*prepared);
  ASSERT_TRUE(copied.ok()) << copied.status().message();
  EXPECT_EQ(ReadText(dir_ + "/random.given.jsonl"), ReadText(dir_ + "/random.jsonl"));
}

// Passes made for other options, or without what the selector needs, are read afresh.
TEST_F(SelectInputs, PassesThatDoNotServeTheSelectionAreNotUsed) {
  auto plain = PrepareInputs(pool_, target_, Options("", ""), {"random"});
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  SelectOptions dsir = Options("dsir", "dsir.jsonl");
  EXPECT_FALSE(plain->ServesPool(pool_, dsir, /*pool_features=*/true));
  EXPECT_FALSE(plain->ServesTarget(target_, dsir, TargetNeed::kFeatureCounts));
  EXPECT_TRUE(plain->ServesPool(pool_, Options("first", "f.jsonl"), false));
  EXPECT_TRUE(plain->ServesTarget(target_, Options("first", "f.jsonl"), TargetNeed::kNothing));
  SelectOptions other_field = Options("random", "r.jsonl");
  other_field.read.text_field = "body";
  EXPECT_FALSE(plain->ServesPool(pool_, other_field, false));
  EXPECT_FALSE(plain->ServesPool(target_, Options("random", "r.jsonl"), false));
  auto counted = PrepareInputs(pool_, target_, Options("", ""), {"dsir"});
  ASSERT_TRUE(counted.ok()) << counted.status().message();
  EXPECT_TRUE(counted->ServesTarget(target_, dsir, TargetNeed::kFeatureCounts));
  SelectOptions other_target_field = dsir;
  other_target_field.target_text_field = "body";
  EXPECT_FALSE(counted->ServesTarget(target_, other_target_field, TargetNeed::kFeatureCounts));
  auto read = RunSelection(pool_, target_, dsir);
  dsir.out_path = dir_ + "/dsir.given.jsonl";
  auto given = RunSelection(pool_, target_, dsir, {}, nullptr, &*plain);
  ASSERT_TRUE(read.ok() && given.ok());
  EXPECT_EQ(ReadText(dsir.out_path), ReadText(dir_ + "/dsir.jsonl"));
}

// A pool that grew after its first pass is refused, not read past the counted records.
TEST_F(SelectInputs, APoolGrownSinceItsPassIsRefused) {
  auto prepared = PrepareInputs(pool_, target_, Options("", ""), {"random"});
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  WriteText(pool_[0], ReadText(pool_[0]) + "{\"id\": \"late\", \"text\": \"a late document\"}\n");
  auto r = RunSelection(pool_, target_, Options("random", "r.jsonl"), {}, nullptr, &*prepared);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("the pool changed while it was being read"),
            std::string::npos)
      << r.status().message();
  EXPECT_FALSE(preflight::testing::Exists(dir_ + "/r.jsonl"));
}

TEST_F(SelectInputs, PreparingFailsAsTheSelectionWouldNamingFileAndLine) {
  ReplaceLine(pool_[0], 4, "{\"id\": \"d3\", \"body\": \"x\"}");
  auto p = PrepareInputs(pool_, target_, Options("", ""), {"dsir"});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find(pool_[0] + ":4: no \"text\" field"), std::string::npos)
      << p.status().message();
}

}  // namespace
}  // namespace preflight::select
