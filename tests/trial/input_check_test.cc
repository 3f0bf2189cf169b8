// A trial's input check (CheckTrial): each input read once with its own fields, what was measured
// kept and passed on, so that the trial does not parse the inputs again; the fingerprint of a
// trial whose target fields are the pool's is what it always was.

#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "select/prepared.h"
#include "testing/planted.h"
#include "testing/testing.h"
#include "engine/data.h"
#include "trial/outcome_builder.h"
#include "trial/runner.h"

namespace preflight::trial {
namespace {

using preflight::testing::DocumentIds;
using preflight::testing::Exists;
using preflight::testing::ReadText;
using preflight::testing::RenameField;
using preflight::testing::ReplaceLine;
using preflight::testing::ScratchDir;
using preflight::testing::WriteText;

TrialConfig TinyTrial(const std::string& dir, const std::string& out) {
  TrialConfig c;
  c.pool = {dir + "/pool.jsonl"};
  c.target_select = dir + "/target.jsonl";
  c.target_eval = dir + "/eval.jsonl";
  c.seeds = 1;
  c.model_name = "micro";
  c.model.layers = 1;
  c.model.d_model = 32;
  c.model.heads = 2;
  c.model.context = 32;
  c.model.batch = 4;
  c.steps = 10;
  c.eval_every = 5;
  c.eval_max_windows = 8;
  c.threads = 1;
  c.out_dir = dir + "/" + out;
  return c;
}

// dir/pool.jsonl (ids d0..), target.jsonl and eval.jsonl (the target's style).
std::string WriteInputs(const std::string& name) {
  const std::string dir = ScratchDir(name);
  preflight::testing::WritePlantedPool(dir, 80, 0.3, 30, 31);
  std::istringstream lines(ReadText(dir + "/target.jsonl"));
  std::string line, select, eval;
  for (int i = 0; std::getline(lines, line); ++i) (i % 2 ? eval : select) += line + "\n";
  WriteText(dir + "/target.jsonl", select);
  WriteText(dir + "/eval.jsonl", eval);
  return dir;
}

TEST(InputCheck, KeepsWhatItMeasuredOfEveryInput) {
  const std::string dir = WriteInputs("check_keeps");
  const TrialConfig c = TinyTrial(dir, "trial");
  CheckedInputs checked;
  ASSERT_TRUE(CheckTrial(c, &checked).ok());
  const corpus::ReadOptions read;
  for (const auto& [got, path, role] :
       {std::tuple{checked.pool.at(0), c.pool[0], "pool"},
        std::tuple{checked.target_select, c.target_select, "target_select"},
        std::tuple{checked.target_eval, c.target_eval, "target_eval"}}) {
    auto want = DescribeInput(path, role, read);
    ASSERT_TRUE(want.ok());
    EXPECT_EQ(ledger::InputJson(got), ledger::InputJson(*want)) << role;
  }
  EXPECT_EQ(checked.eval_texts, *engine::ReadJsonlTexts(c.target_eval));
  ASSERT_NE(checked.passes, nullptr);
  EXPECT_EQ(checked.passes->pool_pass.summary.docs, 80u);
  EXPECT_FALSE(Exists(c.out_dir));  // the check writes nothing
}

// T_sel spoiled after the check: a trial given the check's passes does not read it again (dsir's
// counts were taken by the check) and makes the same arms; one without them stops at the line.
TEST(InputCheck, ATrialGivenTheCheckDoesNotParseTheTargetAgain) {
  const std::string dir = WriteInputs("check_target_once");
  ASSERT_TRUE(RunTrial(TinyTrial(dir, "reference")).ok());
  const TrialConfig c = TinyTrial(dir, "given");
  CheckedInputs checked;
  ASSERT_TRUE(CheckTrial(c, &checked).ok());
  ReplaceLine(c.target_select, 2, "{\"id\": \"t\", \"text\": [1]}");
  auto given = RunTrial(c, {}, nullptr, {}, &checked);
  ASSERT_TRUE(given.ok()) << given.status().message();
  for (const char* arm : {"/arms/curated.jsonl", "/arms/random.jsonl"}) {
    EXPECT_EQ(ReadText(c.out_dir + arm), ReadText(dir + "/reference" + arm)) << arm;
  }
  auto unchecked = RunTrial(TinyTrial(dir, "unchecked"));
  ASSERT_FALSE(unchecked.ok());
  EXPECT_NE(unchecked.status().message().find(c.target_select + ":2:"), std::string::npos)
      << unchecked.status().message();
}

// The pool, likewise: with `first` neither selection parses it after the check (they copy lines),
// so a line neither arm keeps, spoiled after the check, is never read as a document again.
TEST(InputCheck, ATrialGivenTheCheckParsesThePoolOnlyThere) {
  const std::string dir = WriteInputs("check_pool_once");
  TrialConfig reference = TinyTrial(dir, "reference");
  reference.selector = "first";
  ASSERT_TRUE(RunTrial(reference).ok());
  std::set<std::string> kept = DocumentIds(dir + "/reference/arms/curated.jsonl");
  kept.merge(DocumentIds(dir + "/reference/arms/random.jsonl"));
  int line = 1;
  while (kept.count("d" + std::to_string(line - 1))) ++line;
  TrialConfig c = reference;
  c.out_dir = dir + "/given";
  CheckedInputs checked;
  ASSERT_TRUE(CheckTrial(c, &checked).ok());
  ReplaceLine(c.pool[0], line, "{\"id\": \"spoiled\"}");
  auto given = RunTrial(c, {}, nullptr, {}, &checked);
  ASSERT_TRUE(given.ok()) << given.status().message();
  EXPECT_EQ(ReadText(c.out_dir + "/arms/curated.jsonl"),
            ReadText(dir + "/reference/arms/curated.jsonl"));
  // The receipt's pool record is the check's (the bytes the arms were selected from).
  EXPECT_EQ(ledger::InputJson(given->inputs.at(0)), ledger::InputJson(checked.pool.at(0)));
  c.out_dir = dir + "/unchecked";
  auto unchecked = RunTrial(c);
  ASSERT_FALSE(unchecked.ok());
  EXPECT_NE(unchecked.status().message().find(c.pool[0] + ":" + std::to_string(line) +
                                              ": no \"text\" field"),
            std::string::npos)
      << unchecked.status().message();
}

// A trial whose arms are all made selects nothing: its check reads no pool (a rerun of a
// finished or interrupted trial costs no pass over a large pool).
TEST(InputCheck, AResumedTrialWithItsArmsReadsNoPool) {
  const std::string dir = WriteInputs("check_resume");
  const TrialConfig c = TinyTrial(dir, "trial");
  ASSERT_TRUE(RunTrial(c).ok());
  ReplaceLine(c.pool[0], 1, "not json");
  CheckedInputs checked;
  ASSERT_TRUE(CheckTrial(c, &checked).ok());
  EXPECT_EQ(checked.passes, nullptr);
  EXPECT_TRUE(checked.pool.empty());
  EXPECT_EQ(checked.target_select.docs, 15u);
  // A bad line in an input the trial still reads fails the check, naming file and line.
  ReplaceLine(c.target_eval, 3, "{\"text\": \"cut");
  auto bad = CheckTrial(c, &checked);
  EXPECT_EQ(bad.kind(), Status::Kind::kInvalidArgument) << bad.message();
  EXPECT_NE(bad.message().find(c.target_eval + ":3: malformed JSON"), std::string::npos)
      << bad.message();
}

// Each input with its own text field: the pool's "content", the target files' "text".
TEST(InputCheck, ReadsThePoolAndTheTargetWithTheirOwnFields) {
  const std::string dir = WriteInputs("check_fields");
  WriteText(dir + "/pool.jsonl", RenameField(ReadText(dir + "/pool.jsonl"), "text", "content"));
  TrialConfig c = TinyTrial(dir, "trial");
  c.text_field = "content";
  auto one_field = CheckTrial(c);
  EXPECT_NE(one_field.message().find(c.target_select + ":1: no \"content\" field"),
            std::string::npos)
      << one_field.message();
  c.target_text_field = "text";
  CheckedInputs checked;
  ASSERT_TRUE(CheckTrial(c, &checked).ok());
  auto out = RunTrial(c, {}, nullptr, {}, &checked);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_NE(ReadText(c.out_dir + "/arms/curated.jsonl").find("\"content\":"), std::string::npos);
  ASSERT_TRUE(out->regime.has_value());
  const auto held = nlohmann::json::parse(ReadText(c.out_dir + "/trial.json"));
  EXPECT_EQ(held["config"]["text_field"], "content");
  EXPECT_EQ(held["config"]["target_text_field"], "text");
  auto loaded = LoadTrial(c.out_dir);  // read back with both fields (T_eval with the target's)
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->config.TargetTextField(), "text");
}

// The fingerprint of a trial whose target fields are the pool's is byte for byte what it was
// (old run folders resume); fields that differ add keys, and read back.
TEST(InputCheck, TheFingerprintAddsTargetFieldsOnlyWhereTheyDiffer) {
  TrialConfig c = TinyTrial("/nowhere", "trial");
  const std::string before = c.ToJson().dump();
  EXPECT_EQ(before.find("target_text_field"), std::string::npos);
  c.target_text_field = "text";
  c.target_id_field = "id";
  EXPECT_EQ(c.ToJson().dump(), before);
  c.text_field = "content";
  c.target_id_field = "doc_id";
  const nlohmann::json apart = c.ToJson();
  EXPECT_EQ(apart["text_field"], "content");
  EXPECT_EQ(apart["target_text_field"], "text");
  EXPECT_EQ(apart["target_id_field"], "doc_id");
  auto back = TrialConfigFromJson(apart, "trial.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->ToJson(), apart);
  EXPECT_EQ(back->TargetTextField(), "text");
}

}  // namespace
}  // namespace preflight::trial
