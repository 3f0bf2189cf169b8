// The trainer flags checked together: what each trainer accepts, and the fingerprint's part.

#include "trainer/trainer_spec.h"

#include <gtest/gtest.h>

#include "trainer/trainer.h"

namespace preflight::trainer {
namespace {

std::string Refusal(const TrainerSpec& spec) {
  Status st = ValidateTrainerSpec(spec);
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.ExitCode(), 2);
  return st.message();
}

TEST(TrainerSpec, WhatEachTrainerAccepts) {
  EXPECT_TRUE(ValidateTrainerSpec({}).ok());
  TrainerSpec s;
  s.kind = "jax";
  EXPECT_NE(Refusal(s).find("--trainer 'jax'"), std::string::npos);
  s = {};
  s.curve_format = "csv";
  EXPECT_NE(Refusal(s).find("are for launched trainers"), std::string::npos);
  s = {};
  s.device = "cuda";
  EXPECT_NE(Refusal(s).find("use --trainer torch"), std::string::npos);
  s = {};
  s.kind = "cmd";
  EXPECT_NE(Refusal(s).find("needs --trainer-cmd"), std::string::npos);
  s.command = "train {train_bin} {curve}";
  EXPECT_TRUE(ValidateTrainerSpec(s).ok());
  s.curve_file = "/abs/curve.jsonl";
  EXPECT_NE(Refusal(s).find("inside each run's folder"), std::string::npos);
  s.curve_file = "logs/../../x.csv";
  EXPECT_FALSE(ValidateTrainerSpec(s).ok());
  s.curve_file = "logs/metrics.csv";
  s.curve_columns = "step=it,loss=val";
  EXPECT_TRUE(ValidateTrainerSpec(s).ok());  // auto: csv by the file's name
  s.curve_file = "";
  EXPECT_NE(Refusal(s).find("--curve-columns is for --curve-format csv"), std::string::npos);
  s.curve_columns = "";
  s.parallel = 0;
  EXPECT_NE(Refusal(s).find("--parallel must be at least 1"), std::string::npos);
  s.parallel = 4;
  s.device = "tpu";
  EXPECT_NE(Refusal(s).find("--device 'tpu'"), std::string::npos);
}

TEST(TrainerSpec, FingerprintLeavesOutHowRunsAreStarted) {
  TrainerSpec s;
  s.kind = "cmd";
  s.command = "run {curve}";
  s.curve_format = "llmc";
  s.eval_tokens = 2466;
  s.parallel = 8;
  s.launcher = "torchrun";
  const nlohmann::json j = s.ToJson();
  EXPECT_FALSE(j.contains("parallel"));
  EXPECT_FALSE(j.contains("launcher"));
  auto back = TrainerSpecFromJson(JsonReader(j, "t.json"));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->ToJson(), j);
  EXPECT_EQ(back->parallel, 1);
  EXPECT_EQ(back->CurveFile(), "main.log");
  auto made = MakeTrainer(s);
  ASSERT_TRUE(made.ok());
  EXPECT_EQ((*made)->kind(), "cmd");
  EXPECT_EQ((*MakeTrainer(TrainerSpec{}))->kind(), "builtin");
}

}  // namespace
}  // namespace preflight::trainer
