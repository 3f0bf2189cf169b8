#include "select/selector.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "base/file.h"
#include "base/progress.h"
#include "select/manifest.h"
#include "testing/planted.h"
#include "testing/testing.h"

namespace preflight::select {
namespace {

using preflight::testing::ReadText;
using preflight::testing::ScratchDir;

struct Kept {
  int docs = 0, planted = 0;
};

Kept CountKept(const std::string& path) {
  Kept k;
  std::istringstream in(ReadText(path));
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    ++k.docs;
    k.planted += j["planted"].get<bool>();
  }
  return k;
}

Result<SelectionResult> RunSelector(const std::string& dir, const std::string& selector,
                                    int threads, const std::string& out_name, uint64_t seed = 3) {
  SelectOptions o;
  o.selector = selector;
  o.keep = 0.25;
  o.seed = seed;
  o.threads = threads;
  o.out_path = dir + "/" + out_name;
  return RunSelection({dir + "/pool.jsonl"}, {dir + "/target.jsonl"}, o);
}

class PlantedPool : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(ScratchDir("planted_pool"));
    planted_ = preflight::testing::WritePlantedPool(*dir_, 1000, 0.30, 40, 11);
  }
  static std::string* dir_;
  static int planted_;
};
std::string* PlantedPool::dir_ = nullptr;
int PlantedPool::planted_ = 0;

// With planted target-like documents at about 30% of the pool and a 25% budget, a selector that
// recognises them keeps almost only them: precision >= 0.8.
TEST_F(PlantedPool, DsirKeepsPlantedDocuments) {
  auto r = RunSelector(*dir_, "dsir", 2, "dsir.jsonl");
  ASSERT_TRUE(r.ok()) << r.status().message();
  Kept k = CountKept(*dir_ + "/dsir.jsonl");
  EXPECT_EQ(k.docs, static_cast<int>(r->kept_docs));
  EXPECT_GE(static_cast<double>(k.planted) / k.docs, 0.8) << k.planted << " of " << k.docs;
}

TEST_F(PlantedPool, ClassifierKeepsPlantedDocuments) {
  auto r = RunSelector(*dir_, "classifier", 2, "clf.jsonl");
  ASSERT_TRUE(r.ok()) << r.status().message();
  Kept k = CountKept(*dir_ + "/clf.jsonl");
  EXPECT_GE(static_cast<double>(k.planted) / k.docs, 0.8) << k.planted << " of " << k.docs;
}

// Random keeps planted documents at their base rate. About 250 documents are kept out of 1000
// (sampling without replacement): the standard deviation of the kept fraction is about 0.025, so
// +-0.10 is four standard deviations (fixed seed; fails for a biased sampler, not by chance).
TEST_F(PlantedPool, RandomKeepsPlantedAtTheBaseRate) {
  auto r = RunSelector(*dir_, "random", 1, "random.jsonl");
  ASSERT_TRUE(r.ok()) << r.status().message();
  Kept k = CountKept(*dir_ + "/random.jsonl");
  double base = planted_ / 1000.0;
  EXPECT_NEAR(static_cast<double>(k.planted) / k.docs, base, 0.10);
}

TEST_F(PlantedPool, BudgetIsAQuarterOfTheBytesWithinOneDocument) {
  for (const char* sel : {"random", "first", "dsir", "classifier"}) {
    auto r = RunSelector(*dir_, sel, 1, std::string(sel) + ".budget.jsonl");
    ASSERT_TRUE(r.ok()) << sel << ": " << r.status().message();
    EXPECT_EQ(r->budget_bytes, static_cast<uint64_t>(std::ceil(0.25 * r->pool_bytes)));
    EXPECT_GE(r->kept_bytes, r->budget_bytes) << sel;
    // Within one document: the largest synthetic document is under 4 kB.
    EXPECT_LT(r->kept_bytes, r->budget_bytes + 4000) << sel;
  }
}

TEST_F(PlantedPool, FirstKeepsThePrefix) {
  auto r = RunSelector(*dir_, "first", 1, "first.jsonl");
  ASSERT_TRUE(r.ok());
  std::string pool = ReadText(*dir_ + "/pool.jsonl");
  std::string kept = ReadText(*dir_ + "/first.jsonl");
  EXPECT_EQ(pool.substr(0, kept.size()), kept);  // Byte for byte, the first lines.
}

// Same inputs and seed: byte-identical output and manifest on 1 and 2 threads (the manifest's
// "cost" block is a measurement of the run and is the one part that may differ).
TEST_F(PlantedPool, DeterministicAcrossThreadCounts) {
  for (const char* sel : {"random", "dsir", "classifier"}) {
    auto one = RunSelector(*dir_, sel, 1, std::string(sel) + ".t1.jsonl");
    auto two = RunSelector(*dir_, sel, 2, std::string(sel) + ".t2.jsonl");
    ASSERT_TRUE(one.ok() && two.ok()) << sel;
    EXPECT_EQ(ReadText(*dir_ + "/" + sel + ".t1.jsonl"), ReadText(*dir_ + "/" + sel + ".t2.jsonl"))
        << sel;
    auto m1 = nlohmann::json::parse(ReadText(*dir_ + "/" + sel + ".t1.jsonl.manifest.json"));
    auto m2 = nlohmann::json::parse(ReadText(*dir_ + "/" + sel + ".t2.jsonl.manifest.json"));
    m1.erase("cost");
    m2.erase("cost");
    m1["output"].erase("path");
    m2["output"].erase("path");
    EXPECT_EQ(m1.dump(), m2.dump()) << sel;
  }
  // A different seed gives a different random sample.
  auto other = RunSelector(*dir_, "random", 1, "random.seed9.jsonl", 9);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(ReadText(*dir_ + "/random.t1.jsonl"), ReadText(*dir_ + "/random.seed9.jsonl"));
}

// The typed result: kept indices agree with the output, one score per record, NaN for `first`.
TEST_F(PlantedPool, ResultCarriesKeptIndicesAndScores) {
  for (const char* sel : {"dsir", "first"}) {
    auto r = RunSelector(*dir_, sel, 2, std::string(sel) + ".typed.jsonl");
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->first_index, 0u);
    EXPECT_EQ(r->kept.size(), r->kept_docs);
    EXPECT_TRUE(std::is_sorted(r->kept.begin(), r->kept.end()));
    ASSERT_EQ(r->scores.size(), 1000u);
    EXPECT_EQ(std::isnan(r->scores[0]), std::string(sel) == "first") << sel;
  }
}

// The manifest explains a scoring selector's cut from both ends of what it kept: the five
// highest- and lowest-scored kept documents, every one of them in the output, the lowest kept
// scoring no higher than the highest and no lower than the pool's lowest.
TEST_F(PlantedPool, ExplainNamesTheHighestAndLowestKept) {
  auto r = RunSelector(*dir_, "dsir", 2, "dsir.explain.jsonl");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const nlohmann::json& e = r->manifest["explain"];
  ASSERT_EQ(e["top_kept"].size(), 5u);
  ASSERT_EQ(e["lowest_kept"].size(), 5u);
  ASSERT_EQ(e["lowest_in_pool"].size(), 5u);
  const std::string kept = ReadText(*dir_ + "/dsir.explain.jsonl");
  for (const nlohmann::json& d : e["lowest_kept"]) {
    EXPECT_NE(kept.find("\"id\":\"" + d["id"].get<std::string>() + "\""), std::string::npos)
        << d.dump();
  }
  const double lowest_kept = e["lowest_kept"][0]["score"];
  EXPECT_LE(e["lowest_kept"][1]["score"].get<double>(), e["lowest_kept"][4]["score"]);
  EXPECT_GE(e["lowest_kept"][1]["score"].get<double>(), lowest_kept);
  EXPECT_LE(lowest_kept, e["top_kept"][4]["score"].get<double>());
  EXPECT_GE(lowest_kept, e["lowest_in_pool"][0]["score"].get<double>());
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(e["lowest_kept"][i]["id"], r->bottom_kept[i].id);
  }
}

TEST_F(PlantedPool, DocumentAndByteBudgets) {
  SelectOptions o;
  o.selector = "random";
  o.keep_docs = 17;
  o.out_path = *dir_ + "/docs17.jsonl";
  auto r = RunSelection({*dir_ + "/pool.jsonl"}, {}, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->kept_docs, 17u);
  EXPECT_EQ(r->budget_docs, 17u);
  EXPECT_EQ(r->manifest["budget"]["by"], "keep_docs");
  o.keep_docs = 0;
  o.keep_bytes = 10000;
  o.out_path = *dir_ + "/bytes10k.jsonl.gz";
  auto b = RunSelection({*dir_ + "/pool.jsonl"}, {}, o);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->budget_bytes, 10000u);
  EXPECT_GE(b->kept_bytes, 10000u);
  EXPECT_LT(b->kept_bytes, 14000u);  // Within one document (each under 4 kB).
  // The same request writes the same compressed bytes.
  const std::string first = ReadText(o.out_path);
  ASSERT_TRUE(RunSelection({*dir_ + "/pool.jsonl"}, {}, o).ok());
  EXPECT_EQ(ReadText(o.out_path), first);
  // Both budgets at once is an error.
  o.keep_docs = 3;
  EXPECT_EQ(o.Validate().message(), "give one budget: --keep, --keep-docs or --keep-bytes");
}

// Progress: each pass is one run of reports in bytes (the CLI draws a bar per stage), its done
// never decreasing and ending at its total, the bytes on disk of what it read. The pool is read
// as several shards on two threads, so reports come from the reading threads.
TEST_F(PlantedPool, ProgressOfEachPassEndsAtItsBytes) {
  SelectOptions o;
  o.selector = "classifier";
  o.keep = 0.25;
  o.threads = 2;
  o.split_bytes = 64 << 10;
  o.out_path = *dir_ + "/progress.jsonl";
  std::vector<ProgressReport> reports;
  auto r = RunSelection({*dir_ + "/pool.jsonl"}, {*dir_ + "/target.jsonl"}, o,
                        [&](const ProgressReport& p) { reports.push_back(p); });
  ASSERT_TRUE(r.ok()) << r.status().message();
  const uint64_t pool_bytes = *FileSize(*dir_ + "/pool.jsonl");
  ASSERT_GT(pool_bytes, 2 * o.split_bytes);
  std::map<std::string, uint64_t> total;  // each stage's total, once it has ended
  for (size_t i = 0; i < reports.size(); ++i) {
    const ProgressReport& p = reports[i];
    SCOPED_TRACE(p.stage + " report " + std::to_string(i));
    EXPECT_EQ(p.unit, "B");
    EXPECT_LE(p.done, p.total);
    const bool first_of_stage = i == 0 || reports[i - 1].stage != p.stage;
    EXPECT_TRUE(!first_of_stage || total.count(p.stage) == 0) << "the stage came back";
    if (!first_of_stage) {
      EXPECT_GE(p.done, reports[i - 1].done);
      EXPECT_EQ(p.total, reports[i - 1].total);
    }
    if (i + 1 == reports.size() || reports[i + 1].stage != p.stage) {
      EXPECT_EQ(p.done, p.total);
      total[p.stage] = p.total;
    }
  }
  const std::map<std::string, uint64_t> expected = {{"target", *FileSize(*dir_ + "/target.jsonl")},
                                                    {"pool", pool_bytes},
                                                    {"score", pool_bytes},
                                                    {"write", pool_bytes}};
  EXPECT_EQ(total, expected);
}

TEST(SkippedLines, ParsedFromTheReadersMessages) {
  const std::vector<std::string> inputs = {"data/a.jsonl", "data/a.jsonl.zst", "docs"};
  SkippedLine s = ParseSkippedLine("data/a.jsonl:17: malformed JSON (x: y)", inputs);
  EXPECT_EQ(s.where, "data/a.jsonl:17");
  EXPECT_EQ(s.why, "malformed JSON (x: y)");
  s = ParseSkippedLine("data/a.jsonl.zst:3: invalid UTF-8", inputs);
  EXPECT_EQ(s.where, "data/a.jsonl.zst:3");
  s = ParseSkippedLine("docs/sub/x.txt: invalid UTF-8", inputs);
  EXPECT_EQ(s.where, "docs/sub/x.txt");
  EXPECT_EQ(s.why, "invalid UTF-8");
}

TEST(Selector, RejectsBadOptions) {
  SelectOptions o;
  o.out_path = "x.jsonl";
  o.keep = 0;
  EXPECT_EQ(o.Validate().message(), "--keep must be a number in (0, 1], got 0");
  o.keep = 1.5;
  EXPECT_FALSE(o.Validate().ok());
  o.keep = std::nan("");
  EXPECT_EQ(o.Validate().message(), "--keep must be a number in (0, 1], got nan");
  o.keep = 1;
  o.selector = "magic";
  EXPECT_EQ(o.Validate().message(),
            "unknown selector 'magic' (choose random, first, dsir or classifier)");
}

}  // namespace
}  // namespace preflight::select
