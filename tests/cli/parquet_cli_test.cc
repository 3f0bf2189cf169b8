// Parquet through the binary: select and corpus stats read a FineWeb-shaped folder of Parquet
// files (fixtures written by arrow-rs, tests/parquet/fixtures), the kept documents come out as
// JSONL carrying the scalar columns; what the reader refuses (a missing text column, a cut file)
// surfaces as the command's error naming the file, exit 2, nothing written.

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "testing/parquet_files.h"
#include "testing/testing.h"

namespace preflight {
namespace {

using testing::Exists;
using testing::ParquetFixtureDir;
using testing::ReadText;
using testing::RunCli;
using testing::ScratchDir;
using testing::WriteText;

void Copy(const std::string& from, const std::string& to) {
  std::filesystem::create_directories(std::filesystem::path(to).parent_path());
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
}

// dir/fw/data/CC-MAIN-2024-*/000_00000.parquet (45 rows each, 3 row groups), dir/t.jsonl.
std::string WriteFineWeb(const std::string& name) {
  const std::string dir = ScratchDir(name);
  Copy(ParquetFixtureDir() + "fineweb-snappy-v1.parquet",
       dir + "/fw/data/CC-MAIN-2024-10/000_00000.parquet");
  Copy(ParquetFixtureDir() + "fineweb-zstd-v2.parquet",
       dir + "/fw/data/CC-MAIN-2024-18/000_00000.parquet");
  std::string target;
  for (const std::string& line : testing::ReadJsonLines(ParquetFixtureDir() + "fineweb.jsonl")) {
    if (target.size() < 2000) target += line + "\n";
  }
  WriteText(dir + "/t.jsonl", target);
  return dir;
}

TEST(ParquetCli, SelectAndCorpusStatsReadAFolderOfParquetFiles) {
  const std::string dir = WriteFineWeb("parquet_cli_read");
  auto r = RunCli("select --pool " + dir + "/fw/ --target " + dir +
                  "/t.jsonl --selector dsir --keep 0.5 --threads 2 --out " + dir +
                  "/kept.jsonl --ledger " + dir + "/ledger.jsonl --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = testing::ReadJsonLines(dir + "/kept.jsonl");
  ASSERT_FALSE(lines.empty());
  for (const std::string& line : lines) {  // The scalar columns ride along, in schema order.
    const auto j = nlohmann::ordered_json::parse(line);
    EXPECT_EQ(j.begin().key(), "text");
    EXPECT_TRUE(j.contains("url") && j.contains("dump") && j["language_score"].is_number());
  }
  const auto m = nlohmann::json::parse(ReadText(dir + "/kept.jsonl.manifest.json"));
  EXPECT_EQ(m["pool_docs"], 90);
  EXPECT_EQ(m["kept_docs"], lines.size());

  auto stats = RunCli("corpus stats --json " + dir + "/fw");
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  const auto s = nlohmann::json::parse(stats.out);
  EXPECT_EQ(s["inputs"][0]["sha256"], m["inputs"]["pool"][0]["sha256"]);
  EXPECT_EQ(s["documents"], 90) << stats.out;
}

TEST(ParquetCli, TheReadersRefusalsAreTheCommandsErrorsNamingTheFile) {
  const std::string dir = WriteFineWeb("parquet_cli_refused");
  const std::string file = dir + "/fw/data/CC-MAIN-2024-10/000_00000.parquet";
  const std::string common = " --target " + dir + "/t.jsonl --selector dsir --out " + dir +
                             "/out/kept.jsonl --ledger " + dir + "/out/ledger.jsonl --quiet";
  auto column =
      RunCli("select --pool " + dir + "/fw --text-field content --target-text-field text" + common);
  EXPECT_EQ(column.exit_code, 2) << column.err;
  EXPECT_NE(column.err.find("preflight select: error: " + file +
                            ": no column \"content\" for the text; the file's columns are: text, "
                            "id, dump, url"),
            std::string::npos)
      << column.err;
  EXPECT_FALSE(Exists(dir + "/out"));

  auto stats = RunCli("corpus stats --text-field url " + dir + "/fw");
  EXPECT_EQ(stats.exit_code, 0) << stats.err;  // a string column is text enough
  auto score = RunCli("corpus stats --text-field language_score " + dir + "/fw");
  EXPECT_EQ(score.exit_code, 2);
  EXPECT_NE(score.err.find("preflight corpus stats: error: " + file +
                           ": the text column \"language_score\" is DOUBLE"),
            std::string::npos)
      << score.err;

  const std::string bytes = ReadText(file);
  WriteText(file, bytes.substr(0, bytes.size() / 2));  // Cut in half: no footer.
  auto cut = RunCli("select --pool " + dir + "/fw" + common);
  EXPECT_EQ(cut.exit_code, 2);
  EXPECT_NE(cut.err.find("preflight select: error: " + file + ": truncated Parquet file"),
            std::string::npos)
      << cut.err;
  EXPECT_FALSE(Exists(dir + "/out"));
  auto trial = RunCli("trial --pool " + dir + "/fw --target-select " + dir +
                      "/t.jsonl --target-eval " + dir +
                      "/t.jsonl --layers 1 --d-model 32 --heads 2 --context 32 --batch 8 "
                      "--threads 1 --steps 4 --seeds 1 --quiet --ledger " +
                      dir + "/out/ledger.jsonl --out " + dir + "/out/run");
  EXPECT_EQ(trial.exit_code, 2);
  EXPECT_NE(trial.err.find("preflight trial: error: " + file + ": truncated Parquet file"),
            std::string::npos)
      << trial.err;
  EXPECT_FALSE(Exists(dir + "/out"));
}

}  // namespace
}  // namespace preflight
