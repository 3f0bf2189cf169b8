// Every curve format read on small fixtures, malformed ones named by file and line, the loss to
// bits-per-byte conversion, completeness, format detection and the csv columns.

#include "trainer/curve_reader.h"

#include <gtest/gtest.h>

#include <cmath>

#include "testing/testing.h"
#include "trainer/curve_formats.h"

namespace preflight::trainer {
namespace {

using preflight::testing::ScratchDir;
using preflight::testing::WriteText;

std::string Fixture(const std::string& name, const std::string& text) {
  static const std::string dir = ScratchDir("curve_reader");
  const std::string path = dir + "/" + name;
  WriteText(path, text);
  return path;
}

Result<RawCurve> Read(const std::string& name, const std::string& text, CurveFormat format,
                      const CurveColumns& columns = {}) {
  return ReadRawCurve(Fixture(name, text), format, columns);
}

void ExpectError(const Result<RawCurve>& r, const std::string& where) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), Status::Kind::kCorruption) << r.status().message();
  EXPECT_NE(r.status().message().find(where), std::string::npos) << r.status().message();
}

TEST(CurveReader, JsonlBitsPerByteAndLossWithTokens) {
  auto r = Read("a.jsonl",
                "{\"step\": 0, \"tokens\": 0, \"eval_bpb\": 8.0}\n\n"
                "{\"step\": 10, \"tokens\": 640, \"eval_loss\": 2.0, \"eval_tokens\": 50}\n",
                CurveFormat::kJsonl);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->points.size(), 2u);
  EXPECT_TRUE(r->points[0].bits_per_byte);
  EXPECT_FALSE(r->points[1].bits_per_byte);
  EXPECT_EQ(*r->points[1].tokens, 640);
  EXPECT_EQ(*r->points[1].eval_tokens, 50);
  EXPECT_EQ(r->points[1].line, 3);
  auto c = ToEvalCurve(*r, {100, 0, 64});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ((*c)[0].eval_bpb, 8.0);
  // 2 nats per token over 50 tokens of a 100-byte eval set.
  EXPECT_DOUBLE_EQ((*c)[1].eval_bpb, 2.0 / std::log(2.0) * 50 / 100);
  EXPECT_EQ((*c)[1].tokens, 640);
}

// Issue 31: Python's json writes a diverged loss as a bare NaN or Infinity. It was reported as
// "malformed JSON"; it is reported as every other format reports it: not a finite number.
TEST(CurveReader, JsonlNanAndInfinityAreNotFiniteLikeInEveryFormat) {
  for (const char* value : {"NaN", "Infinity", "-Infinity"}) {
    auto r = Read("nan.jsonl",
                  std::string("{\"step\": 0, \"eval_bpb\": 5}\n{\"step\": 4, \"note\": \"NaN\", "
                              "\"eval_bpb\": ") +
                      value + "}\n",
                  CurveFormat::kJsonl);
    ASSERT_TRUE(r.ok()) << value << ": " << r.status().message();
    auto c = ToEvalCurve(*r, {100, 0, 8});
    ASSERT_FALSE(c.ok()) << value;
    EXPECT_NE(c.status().message().find("nan.jsonl:2: the eval loss at step 4 is not a finite"),
              std::string::npos)
        << c.status().message();
  }
  // A line broken otherwise is still malformed, NaN or not.
  ExpectError(Read("nan2.jsonl", "{\"step\": 4, \"eval_bpb\": NaN,}\n", CurveFormat::kJsonl),
              "nan2.jsonl:1: not a JSON object (malformed JSON)");
}

TEST(CurveReader, JsonlMalformedLinesAreNamed) {
  ExpectError(Read("b.jsonl", "{\"step\": 0, \"eval_bpb\": 8}\n{\"step\": 1, eval_bpb\n",
                   CurveFormat::kJsonl),
              "b.jsonl:2: not a JSON object");
  ExpectError(Read("c.jsonl", "{\"eval_bpb\": 8}\n", CurveFormat::kJsonl),
              "c.jsonl:1: no \"step\"");
  ExpectError(Read("d.jsonl", "{\"step\": 1.5, \"eval_bpb\": 8}\n", CurveFormat::kJsonl),
              "d.jsonl:1: \"step\" must be an integer");
  ExpectError(Read("e.jsonl", "{\"step\": 1, \"eval_bpb\": null}\n", CurveFormat::kJsonl),
              "e.jsonl:1: \"eval_bpb\" must be a number");
  ExpectError(Read("f.jsonl", "{\"step\": 1}\n", CurveFormat::kJsonl),
              "f.jsonl:1: no \"eval_bpb\" and no \"eval_loss\"");
}

TEST(CurveReader, CsvSkipsRowsWithoutLossAndReadsTokens) {
  const std::string text =
      "iter,step,train_loss,val_loss,tokens\n"
      "1,0,,5.5,0\n"
      "2,5,3.0,,320\n"
      "3,10,,\"2.5\",640\n";
  auto r = Read("metrics.csv", text, CurveFormat::kCsv, {"step", "val_loss", "", "tokens"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->points.size(), 2u);
  EXPECT_EQ(r->points[1].step, 10);
  EXPECT_EQ(r->points[1].value, 2.5);
  EXPECT_EQ(*r->points[1].tokens, 640);
  EXPECT_EQ(r->points[1].line, 4);
}

TEST(CurveReader, CsvErrorsNameFileAndLine) {
  ExpectError(Read("g.csv", "step,loss\n0,1\n", CurveFormat::kCsv),
              "g.csv:1: no column 'val_loss' (columns: step, loss)");
  ExpectError(Read("h.csv", "step,val_loss\n0,1\n1.5,2\n", CurveFormat::kCsv),
              "h.csv:3: step '1.5' is not a whole number");
  ExpectError(Read("i.csv", "step,val_loss\n0,1,7\n", CurveFormat::kCsv),
              "i.csv:2: has 3 cells, the header 2");
  ExpectError(Read("j.csv", "step,val_loss\n0,abc\n", CurveFormat::kCsv),
              "j.csv:2: loss 'abc' is not a number");
}

TEST(CurveReader, LlmcReadsTelLinesAndKeepsTheLastOfAStep) {
  const std::string text =
      "s:0 tel:5.0\ns:0 trl:5.1\ns:1 trl:4.0\ns:10 tel:3.0\ns:20 tel:2.8\n"
      "s:10 tel:2.9\ns:20 tel:2.7\n";  // a resumed run logs steps 10 and 20 again
  auto r = Read("main.log", text, CurveFormat::kLlmc);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->points.size(), 3u);
  EXPECT_EQ(r->points[1].step, 10);
  EXPECT_EQ(r->points[1].value, 2.9);
  EXPECT_EQ(r->points[2].value, 2.7);
  ExpectError(Read("bad.log", "s:0 tel:5.0\ns:x tel:4\n", CurveFormat::kLlmc),
              "bad.log:2: 's:x tel:4': the step is not a number");
  ExpectError(Read("none.log", "s:0 trl:5.0\n", CurveFormat::kLlmc), "none.log: no 's:N tel:X'");
}

TEST(CurveReader, NanogptReadsValLoss) {
  const std::string text =
      "tokens per iteration will be: 1,024\n"
      "step 0: train loss 5.5012, val loss 5.5103\n"
      "iter 0: loss 5.5, time 100ms\n"
      "step 250: train loss 2.0100, val loss 2.1000\n";
  auto r = Read("stdout.log", text, CurveFormat::kNanogpt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->points.size(), 2u);
  EXPECT_EQ(r->points[1].step, 250);
  EXPECT_EQ(r->points[1].value, 2.1);
  EXPECT_EQ(r->points[1].line, 4);
  ExpectError(Read("nano.log", "step 5: train loss 1.0, val loss oops\n", CurveFormat::kNanogpt),
              "nano.log:1:");
}

TEST(CurveReader, HfReadsEvalEntriesOfLogHistory) {
  const std::string text = R"({"global_step": 20, "log_history": [
      {"loss": 4.0, "step": 5},
      {"eval_loss": 3.5, "step": 10, "num_input_tokens_seen": 2560},
      {"eval_loss": 3.0, "step": 20}]})";
  auto r = Read("trainer_state.json", text, CurveFormat::kHf);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->points.size(), 2u);
  EXPECT_EQ(*r->points[0].tokens, 2560);
  EXPECT_FALSE(r->points[1].tokens.has_value());
  auto bad = Read("state2.json", R"({"log_history": [{"eval_loss": 3.5, "step": "ten"}]})",
                  CurveFormat::kHf);
  ExpectError(bad, "state2.json: $.log_history[0].step: expected an integer");
}

TEST(CurveReader, ConversionChecksStepsLossesAndTokens) {
  RawCurve raw{"x.jsonl", {}};
  raw.points.push_back({10, std::nullopt, 2.0, true, std::nullopt, 1, ""});
  raw.points.push_back({10, std::nullopt, 1.5, true, std::nullopt, 2, ""});
  auto twice = ToEvalCurve(raw, {100, 0, 8});
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("x.jsonl:2: step 10 after step 10"), std::string::npos);
  raw.points[1] = {20, std::nullopt, std::nan(""), true, std::nullopt, 2, ""};
  auto nan = ToEvalCurve(raw, {100, 0, 8});
  ASSERT_FALSE(nan.ok());
  EXPECT_NE(nan.status().message().find("x.jsonl:2: the eval loss at step 20 is not a finite"),
            std::string::npos);
  raw.points[1] = {20, 4, 1.0, true, std::nullopt, 2, ""};
  raw.points[0].tokens = 80;
  auto fewer = ToEvalCurve(raw, {100, 0, 8});
  ASSERT_FALSE(fewer.ok());
  EXPECT_NE(fewer.status().message().find("fewer than at the eval before"), std::string::npos);
  // Without tokens, tokens = step x tokens per step; with --eval-tokens the ratio applies.
  raw.points = {{0, std::nullopt, std::log(2.0), false, std::nullopt, 1, ""},
                {30, std::nullopt, 2 * std::log(2.0), false, std::nullopt, 2, ""}};
  auto ok = ToEvalCurve(raw, {200, 50, 8});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)[1].tokens, 240);
  EXPECT_DOUBLE_EQ((*ok)[0].eval_bpb, 0.25);
  EXPECT_DOUBLE_EQ((*ok)[1].eval_bpb, 0.5);
}

// Found by the curve fuzzers (issue 31): each was undefined behaviour or an abort, and is now an
// error naming the file.
TEST(CurveReader, FuzzFindsAreErrorsNotCrashes) {
  // A CSV step that is no integer a run reaches: NaN, an infinity, 1e300 (a cast was undefined).
  for (const char* step : {"nan", "inf", "1e300", "-1e300"}) {
    ExpectError(Read("fz.csv", std::string("step,val_loss\n") + step + ",2\n", CurveFormat::kCsv),
                "fz.csv:2:");
  }
  // A step whose tokens (step x tokens per step) overflow 64 bits (llm.c and nanoGPT state none).
  auto big = Read("fz.log", "s:517777777777777 tel:2.0\n", CurveFormat::kLlmc);
  ASSERT_TRUE(big.ok()) << big.status().message();
  auto converted = ToEvalCurve(*big, {100, 0, 1 << 20});
  ASSERT_FALSE(converted.ok());
  EXPECT_NE(converted.status().message().find("fz.log:1: step 517777777777777 times 1048576 "
                                              "tokens per step does not fit in 64 bits"),
            std::string::npos)
      << converted.status().message();
  // A number no double holds in trainer_state.json: the JSON parser threw, and nothing caught it.
  ExpectError(Read("trainer_state.json", "{\"log_history\": [{\"step\": 8e888888}]}",
                   CurveFormat::kHf),
              "trainer_state.json: not readable JSON");
}

TEST(CurveReader, CompleteMeansEndingAtTheSteps) {
  std::vector<EvalPoint> c = {{0, 0, 5}, {50, 0, 3}};
  EXPECT_TRUE(CheckCurveComplete(c, 50, "c").ok());
  Status short_curve = CheckCurveComplete(c, 100, "c.jsonl");
  EXPECT_NE(short_curve.message().find("c.jsonl: the curve is short: it ends at step 50 of 100"),
            std::string::npos);
  EXPECT_FALSE(CheckCurveComplete(c, 40, "c").ok());
  EXPECT_FALSE(CheckCurveComplete({}, 40, "c").ok());
}

TEST(CurveReader, AutoDetectsByNameThenByContent) {
  EXPECT_EQ(*DetectCurveFormat(Fixture("run.jsonl", "")), CurveFormat::kJsonl);
  EXPECT_EQ(*DetectCurveFormat(Fixture("m.csv", "")), CurveFormat::kCsv);
  EXPECT_EQ(*DetectCurveFormat(Fixture("main.log", "")), CurveFormat::kLlmc);
  EXPECT_EQ(*DetectCurveFormat(Fixture("trainer_state.json", "{}")), CurveFormat::kHf);
  EXPECT_EQ(*DetectCurveFormat(Fixture("out.txt", "x\nstep 0: train loss 1, val loss 2\n")),
            CurveFormat::kNanogpt);
  EXPECT_EQ(*DetectCurveFormat(Fixture("log1", "s:0 tel:3.0\n")), CurveFormat::kLlmc);
  EXPECT_EQ(*DetectCurveFormat(Fixture("state", R"({"log_history": []})")), CurveFormat::kHf);
  EXPECT_EQ(*DetectCurveFormat(Fixture("pts", "{\"step\": 0, \"eval_bpb\": 1}\n")),
            CurveFormat::kJsonl);
  auto both = DetectCurveFormat(Fixture("both", "s:0 tel:3\nstep 0: train loss 1, val loss 2\n"));
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.status().message().find("more than one curve format"), std::string::npos);
  EXPECT_FALSE(DetectCurveFormat(Fixture("nothing", "hello\n")).ok());
  EXPECT_EQ(ReadRawCurve(Fixture("x", "") + ".missing", CurveFormat::kAuto).status().kind(),
            Status::Kind::kNotFound);
}

TEST(CurveReader, FormatNamesAndColumns) {
  for (const char* name : {"auto", "jsonl", "csv", "llmc", "hf", "nanogpt"}) {
    auto f = ParseCurveFormat(name);
    ASSERT_TRUE(f.ok());
    EXPECT_EQ(CurveFormatName(*f), name);
  }
  EXPECT_FALSE(ParseCurveFormat("tensorboard").ok());
  EXPECT_EQ(DefaultCurveFile(CurveFormat::kHf), "trainer_state.json");
  auto c = ParseCurveColumns("step=iter,bpb=val_bpb,tokens=seen");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->step, "iter");
  EXPECT_EQ(c->bpb, "val_bpb");
  EXPECT_EQ(c->loss, "");
  EXPECT_EQ(c->tokens, "seen");
  EXPECT_EQ(ParseCurveColumns("")->loss, "val_loss");
  EXPECT_FALSE(ParseCurveColumns("step=step").ok());
  EXPECT_FALSE(ParseCurveColumns("loss=a,bpb=b").ok());
  EXPECT_FALSE(ParseCurveColumns("wat=x,loss=y").ok());
}

}  // namespace
}  // namespace preflight::trainer
