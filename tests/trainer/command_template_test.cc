// Templates: placeholders filled and quoted, literal braces, the shell's own ${...}, unknown names.

#include "trainer/command_template.h"

#include <gtest/gtest.h>

namespace preflight::trainer {
namespace {

TEST(CommandTemplate, FillsAndQuotes) {
  const Placeholders values = {{"arm", "curated"}, {"run_dir", "/tmp/a b/it's"}, {"seed", "2"}};
  auto cmd = ExpandTemplate("train --arm {arm} --out {run_dir}/x --seed={seed}", values);
  ASSERT_TRUE(cmd.ok()) << cmd.status().message();
  EXPECT_EQ(*cmd, "train --arm 'curated' --out '/tmp/a b/it'\\''s'/x --seed='2'");
}

TEST(CommandTemplate, BracesThatAreNotPlaceholdersPassThrough) {
  const Placeholders values = {{"arm", "random"}};
  auto cmd = ExpandTemplate(
      "echo ${PREFLIGHT_ARM} {arm} {{arm}} { true; } {A} awk '{{print $1}}' {", values);
  ASSERT_TRUE(cmd.ok()) << cmd.status().message();
  EXPECT_EQ(*cmd, "echo ${PREFLIGHT_ARM} 'random' {arm} { true; } {A} awk '{print $1}' {");
}

TEST(CommandTemplate, UnknownPlaceholderIsNamed) {
  Status st = CheckTemplate("python t.py --data {train_bin} --out {curv}", CmdPlaceholderNames());
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.kind(), Status::Kind::kInvalidArgument);
  EXPECT_NE(st.message().find("unknown placeholder {curv}"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("{curve}"), std::string::npos);
  EXPECT_TRUE(
      CheckTemplate("x {train_bin} {eval_bin} {curve} {device}", CmdPlaceholderNames()).ok());
  // {init} is the torch trainer's own, not a cmd template's.
  EXPECT_FALSE(CheckTemplate("x --init {init}", CmdPlaceholderNames()).ok());
}

TEST(CommandTemplate, EveryDocumentedNameIsKnownAndExported) {
  for (const char* name : {"arm",
                           "seed",
                           "run_dir",
                           "train_jsonl",
                           "train_bin",
                           "train_llmc",
                           "eval_jsonl",
                           "eval_bin",
                           "eval_llmc",
                           "vocab",
                           "boundary",
                           "steps",
                           "tokens_per_step",
                           "eval_every",
                           "eval_bytes",
                           "curve",
                           "model",
                           "layers",
                           "d_model",
                           "heads",
                           "context",
                           "batch",
                           "lr",
                           "warmup_steps",
                           "min_lr_ratio",
                           "eval_windows",
                           "threads",
                           "device"}) {
    EXPECT_TRUE(CheckTemplate(std::string("{") + name + "}", CmdPlaceholderNames()).ok()) << name;
  }
  EXPECT_EQ(EnvName("tokens_per_step"), "PREFLIGHT_TOKENS_PER_STEP");
  EXPECT_EQ(ShellQuote(""), "''");
}

}  // namespace
}  // namespace preflight::trainer
