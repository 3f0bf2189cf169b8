// Templates: placeholders filled and quoted, literal braces, the shell's own ${...}, unknown names;
// relative paths taken from the directory preflight was started in.

#include "trainer/command_template.h"

#include <gtest/gtest.h>

#include "testing/testing.h"

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
                           "device",
                           "start_dir"}) {
    EXPECT_TRUE(CheckTemplate(std::string("{") + name + "}", CmdPlaceholderNames()).ok()) << name;
  }
  EXPECT_EQ(EnvName("tokens_per_step"), "PREFLIGHT_TOKENS_PER_STEP");
  EXPECT_EQ(ShellQuote(""), "''");
}

// A start folder holding doc/recipes/x.sh, my_train.py, data/ and out/; a run folder holding out/.
struct Folders {
  std::string start, run;
};
Folders MakeFolders(const std::string& name) {
  const std::string root = preflight::testing::ScratchDir(name);
  Folders f{root + "/start", root + "/run"};
  std::filesystem::create_directories(f.start + "/doc/recipes");
  std::filesystem::create_directories(f.start + "/data");
  std::filesystem::create_directories(f.start + "/out");
  std::filesystem::create_directories(f.run + "/out");
  preflight::testing::WriteText(f.start + "/doc/recipes/x.sh", "true\n");
  preflight::testing::WriteText(f.start + "/my_train.py", "\n");
  return f;
}

TEST(CommandTemplate, RelativePathsAreTakenFromTheStartFolder) {
  const Folders f = MakeFolders("template_paths");
  const std::string x = f.start + "/doc/recipes/x.sh";
  auto resolve = [&](const std::string& command) {
    return ResolveRelativePaths(command, f.start, f.run);
  };
  EXPECT_EQ(resolve("sh doc/recipes/x.sh"), "sh " + x);
  EXPECT_EQ(resolve("sh ./doc/recipes/x.sh --n 1"), "sh " + x + " --n 1");
  EXPECT_EQ(resolve("torchrun --nproc_per_node 8 my_train.py --data 'a b'"),
            "torchrun --nproc_per_node 8 " + f.start + "/my_train.py --data 'a b'");
  EXPECT_EQ(resolve("cd data&&sh doc/recipes/x.sh;x --in=data/"),
            "cd data&&sh " + x + ";x --in=" + f.start + "/data/");
  // Inside quotes too (a command for another shell: sbatch --wrap, sh -c).
  EXPECT_EQ(resolve("sbatch --wrap \"sh doc/recipes/x.sh\""), "sbatch --wrap \"sh " + x + "\"");
  EXPECT_EQ(resolve("sh -c 'sh doc/recipes/x.sh'"), "sh -c 'sh " + x + "'");
}

TEST(CommandTemplate, OtherWordsKeepTheirMeaning) {
  const Folders f = MakeFolders("template_words");
  for (const char* command :
       {"python3 -m x", "sh doc/recipes/missing.sh", "sh /doc/recipes/x.sh", "ls out/ out",
        "sh $HOME/doc/recipes/x.sh", "sh ~/doc/recipes/x.sh", "sh ${D}doc/recipes/x.sh",
        "sh x/doc/recipes/x.sh", "sh doc/recipes/x.sh.bak", "sh doc\\/recipes/x.sh",
        "sh -doc/recipes/x.sh", "echo data", "sh a'doc/recipes/x.sh'", ". .. ./"}) {
    EXPECT_EQ(ResolveRelativePaths(command, f.start, f.run), command) << command;
  }
  EXPECT_EQ(ResolveRelativePaths("sh doc/recipes/x.sh", "", f.run), "sh doc/recipes/x.sh");
}

TEST(CommandTemplate, AStartFolderThatNeedsQuotingIsQuotedOutsideQuotesOnly) {
  const std::string root = preflight::testing::ScratchDir("template_quoting");
  const std::string start = root + "/it's here";
  std::filesystem::create_directories(start + "/doc");
  preflight::testing::WriteText(start + "/doc/x.sh", "true\n");
  EXPECT_EQ(ResolveRelativePaths("sh doc/x.sh", start, root),
            "sh " + ShellQuote(start + "/doc/x.sh"));
  EXPECT_EQ(ResolveRelativePaths("sh -c \"sh doc/x.sh\"", start, root), "sh -c \"sh doc/x.sh\"");
}

}  // namespace
}  // namespace preflight::trainer
