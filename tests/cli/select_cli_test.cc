// The select command's contract for bad input: one clear message naming the file and line (or
// byte offset), exit status 2, and no output file left behind.

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>
#include <zstd.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "testing/testing.h"

namespace preflight {
namespace {

using testing::CliResult;
using testing::Exists;
using testing::ReadText;
using testing::RunCli;
using testing::ScratchDir;
using testing::WriteText;

const char* kGoodTarget = "{\"text\":\"the target text about cats\"}\n";
const char* kGoodPool =
    "{\"text\":\"one document about dogs\"}\n{\"text\":\"another about cats\"}\n";

// Files in `dir` other than the inputs the test wrote.
std::vector<std::string> Leftovers(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != ".." && n.rfind("in.", 0) != 0) names.push_back(n);
  }
  closedir(d);
  return names;
}

// `preflight select` of `pool` toward the test's target (dsir unless `extra` names a selector).
CliResult Select(const std::string& dir, const std::string& pool, const std::string& extra = "",
                 const std::string& out = "") {
  const std::string selector =
      extra.find("--selector") == std::string::npos ? " --selector dsir" : "";
  return RunCli("select --pool " + pool + " --target " + dir + "/in.target.jsonl" + selector +
                    " --out " + (out.empty() ? dir + "/kept.jsonl" : out) + " --ledger " + dir +
                    "/in.ledger.jsonl --quiet " + extra,
                dir);
}

void ExpectCleanFailure(const CliResult& r, const std::string& dir, const std::string& message) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("preflight select: error: " + message), std::string::npos)
      << "stderr was: " << r.err << "\nexpected: " << message;
  EXPECT_TRUE(Leftovers(dir).empty())
      << "left behind: " << (Leftovers(dir).empty() ? "" : Leftovers(dir)[0]);
}

class SelectBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ScratchDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    WriteText(dir_ + "/in.target.jsonl", kGoodTarget);
  }
  std::string dir_;
};

TEST_F(SelectBadInput, MalformedJson) {
  WriteText(dir_ + "/in.pool.jsonl", std::string(kGoodPool) + "{\"text\": \"cut off\n");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl"), dir_,
                     dir_ + "/in.pool.jsonl:3: malformed JSON");
}

TEST_F(SelectBadInput, MissingTextField) {
  WriteText(dir_ + "/in.pool.jsonl", std::string(kGoodPool) + "{\"body\": \"x\"}\n");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl"), dir_,
                     dir_ + "/in.pool.jsonl:3: no \"text\" field");
}

TEST_F(SelectBadInput, NonStringTextField) {
  WriteText(dir_ + "/in.pool.jsonl", "{\"text\": [\"a\"]}\n" + std::string(kGoodPool));
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl"), dir_,
                     dir_ + "/in.pool.jsonl:1: field \"text\" is not a string");
}

TEST_F(SelectBadInput, InvalidUtf8) {
  WriteText(dir_ + "/in.pool.jsonl", std::string(kGoodPool) + "{\"text\": \"caf\xe9\"}\n");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl"), dir_,
                     dir_ + "/in.pool.jsonl:3: invalid UTF-8");
}

TEST_F(SelectBadInput, SkipBadCountsInsteadOfFailing) {
  WriteText(dir_ + "/in.pool.jsonl",
            std::string(kGoodPool) + "{\"text\": \"caf\xe9\"}\nnot json\n");
  CliResult r = Select(dir_, dir_ + "/in.pool.jsonl", "--skip-bad --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"skipped_bad_lines\": 2"), std::string::npos) << r.out;
  EXPECT_TRUE(Exists(dir_ + "/kept.jsonl"));
}

TEST_F(SelectBadInput, EmptyPool) {
  WriteText(dir_ + "/in.pool.jsonl", "");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl"), dir_,
                     "the pool has no documents (" + dir_ + "/in.pool.jsonl)");
}

TEST_F(SelectBadInput, EmptyTarget) {
  WriteText(dir_ + "/in.pool.jsonl", kGoodPool);
  WriteText(dir_ + "/in.target.jsonl", "\n");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl"), dir_,
                     "the target has no documents (" + dir_ + "/in.target.jsonl)");
}

TEST_F(SelectBadInput, DocumentOver64MiB) {
  const size_t n = (64u << 20) + 1;
  WriteText(dir_ + "/in.pool.jsonl", "{\"text\": \"" + std::string(n, 'a') + "\"}\n");
  ExpectCleanFailure(
      Select(dir_, dir_ + "/in.pool.jsonl"), dir_,
      dir_ + "/in.pool.jsonl:1: document of 67108865 bytes is over the limit of 67108864 bytes");
}

TEST_F(SelectBadInput, KeepOutsideUnitInterval) {
  WriteText(dir_ + "/in.pool.jsonl", kGoodPool);
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl", "--keep 0"), dir_,
                     "--keep must be a number in (0, 1], got 0");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl", "--keep 1.5"), dir_,
                     "--keep must be a number in (0, 1], got 1.5");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl", "--keep -0.25"), dir_,
                     "--keep must be a number in (0, 1], got -0.25");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl", "--keep nan"), dir_,
                     "--keep must be a number in (0, 1], got nan");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl", "--keep inf"), dir_,
                     "--keep must be a number in (0, 1], got inf");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl", "--keep quarter"), dir_,
                     "--keep must be a number in (0, 1], got quarter");
}

TEST_F(SelectBadInput, UnreadableZst) {
  WriteText(dir_ + "/in.pool.jsonl.zst", "this is not zstd at all");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl.zst"), dir_,
                     dir_ + "/in.pool.jsonl.zst: not a valid zstd stream near byte offset 0");
}

TEST_F(SelectBadInput, TruncatedZst) {
  std::string body;
  for (int i = 0; i < 2000; ++i) body += "{\"text\":\"document " + std::to_string(i) + "\"}\n";
  std::string packed(ZSTD_compressBound(body.size()), '\0');
  packed.resize(ZSTD_compress(packed.data(), packed.size(), body.data(), body.size(), 3));
  WriteText(dir_ + "/in.pool.jsonl.zst", packed.substr(0, packed.size() - 10));
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl.zst"), dir_,
                     dir_ + "/in.pool.jsonl.zst: truncated zstd stream");
}

TEST_F(SelectBadInput, MissingPoolFile) {
  ExpectCleanFailure(Select(dir_, dir_ + "/in.nothing.jsonl"), dir_,
                     dir_ + "/in.nothing.jsonl: no such file");
}

TEST_F(SelectBadInput, UnwritableOutput) {
  WriteText(dir_ + "/in.pool.jsonl", kGoodPool);
  // Missing parent folders are created, so the unwritable place is one no one can write: /proc.
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl", "", "/proc/kept.jsonl"), dir_,
                     "/proc/kept.jsonl: cannot write output");
}

TEST(SelectCli, HelpTeachesAndExitsZero) {
  CliResult r = RunCli("select --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--selector"), std::string::npos);
  EXPECT_NE(r.out.find("Example:"), std::string::npos);
}

TEST(SelectCli, MissingRequiredFlagIsUsageError) {
  CliResult r = RunCli("select --pool x.jsonl");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--out is required"), std::string::npos) << r.err;
}

TEST(SelectCli, JsonOutputHasTheContractKeysAndAReceipt) {
  std::string dir = ScratchDir("select_json");
  WriteText(dir + "/in.pool.jsonl", kGoodPool);
  WriteText(dir + "/in.target.jsonl", kGoodTarget);
  CliResult r = Select(dir, dir + "/in.pool.jsonl", "--json --keep 0.5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* key : {"\"selector\"", "\"seed\"", "\"pool_docs\"", "\"pool_bytes\"",
                          "\"kept_docs\"", "\"kept_bytes\"", "\"core_seconds\"", "\"receipt\""}) {
    EXPECT_NE(r.out.find(key), std::string::npos) << key;
  }
  CliResult v = RunCli("ledger verify --ledger " + dir + "/in.ledger.jsonl");
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
}

// ---- The select items of issue #13: annotations, budgets, compressed output, outputs checked
// before any work, skipped lines, --text-field and --id-field.

std::vector<nlohmann::json> JsonLines(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(nlohmann::json::parse(line));
  return out;
}

std::string Unzstd(const std::string& packed) {
  std::string out;
  ZSTD_DStream* stream = ZSTD_createDStream();
  ZSTD_inBuffer in{packed.data(), packed.size(), 0};
  std::string buffer(1 << 16, '\0');
  while (in.pos < in.size) {
    ZSTD_outBuffer o{buffer.data(), buffer.size(), 0};
    const size_t rc = ZSTD_decompressStream(stream, &o, &in);
    if (ZSTD_isError(rc)) {
      ADD_FAILURE() << "not zstd: " << ZSTD_getErrorName(rc);
      break;
    }
    out.append(buffer.data(), o.pos);
  }
  ZSTD_freeDStream(stream);
  return out;
}

std::string Gunzip(const std::string& packed) {
  std::string out;
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
  z.avail_in = static_cast<uInt>(packed.size());
  std::string buffer(1 << 16, '\0');
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buffer.data());
    z.avail_out = static_cast<uInt>(buffer.size());
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buffer.data(), buffer.size() - z.avail_out);
  }
  EXPECT_EQ(rc, Z_STREAM_END) << "not a whole gzip stream";
  inflateEnd(&z);
  return out;
}

// prefix + i, built by appending (GCC 12 warns falsely about "literal" + std::string: -Wrestrict).
std::string Numbered(const std::string& prefix, int i) {
  std::string out = prefix;
  out += std::to_string(i);
  return out;
}

// A pool of `n` documents with ids "d0".."d<n-1>" (every fifth about cats, like the target).
std::string IdPool(int n) {
  std::string pool;
  for (int i = 0; i < n; ++i) {
    std::string text = i % 5 == 0 ? "the target text about cats and more cats number "
                                  : "one unrelated document about dogs and weather number ";
    pool +=
        nlohmann::json{{"id", Numbered("d", i)}, {"text", text + std::to_string(i)}}.dump() + "\n";
  }
  return pool;
}

class SelectOutputs : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ScratchDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    WriteText(dir_ + "/in.target.jsonl", kGoodTarget);
    WriteText(dir_ + "/in.pool.jsonl", IdPool(40));
  }
  CliResult Run(const std::string& extra, const std::string& out = "") {
    return Select(dir_, dir_ + "/in.pool.jsonl", extra, out);
  }
  std::string dir_;
};

TEST_F(SelectOutputs, AnnotationsListEveryPoolDocumentAndAgreeWithTheOutput) {
  for (const char* selector : {"dsir", "random", "first"}) {
    const std::string sel = selector;
    CliResult r =
        Run("--keep 0.3 --selector " + sel + " --annotate " + dir_ + "/ann." + sel + ".jsonl",
            dir_ + "/kept." + sel + ".jsonl");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto notes = JsonLines(ReadText(dir_ + "/ann." + sel + ".jsonl"));
    ASSERT_EQ(notes.size(), 40u) << sel;
    std::vector<std::string> kept_ids;
    for (const auto& line : JsonLines(ReadText(dir_ + "/kept." + sel + ".jsonl")))
      kept_ids.push_back(line["id"]);
    std::vector<std::string> annotated_kept;
    for (size_t i = 0; i < notes.size(); ++i) {
      EXPECT_EQ(notes[i]["id"], Numbered("d", static_cast<int>(i))) << sel << ": pool order";
      if (notes[i]["kept"].get<bool>()) annotated_kept.push_back(notes[i]["id"]);
      // first has no score (null); dsir and random have a number.
      EXPECT_EQ(notes[i]["score"].is_null(), sel == "first") << sel;
    }
    EXPECT_EQ(annotated_kept, kept_ids) << sel;
    auto m = nlohmann::json::parse(ReadText(dir_ + "/kept." + sel + ".jsonl.manifest.json"));
    EXPECT_EQ(m["annotations"]["path"], dir_ + "/ann." + sel + ".jsonl");
  }
}

TEST_F(SelectOutputs, ThreeBudgetsAndTheManifestSaysWhich) {
  CliResult docs = Run("--keep-docs 7 --json", dir_ + "/docs.jsonl");
  ASSERT_EQ(docs.exit_code, 0) << docs.err;
  EXPECT_EQ(JsonLines(ReadText(dir_ + "/docs.jsonl")).size(), 7u);
  auto m = nlohmann::json::parse(ReadText(dir_ + "/docs.jsonl.manifest.json"));
  EXPECT_EQ(m["budget"], nlohmann::json({{"by", "keep_docs"}, {"value", 7}}));
  EXPECT_EQ(m["budget_docs"], 7);
  EXPECT_TRUE(m["keep"].is_null());

  CliResult bytes = Run("--keep-bytes 500", dir_ + "/bytes.jsonl");
  ASSERT_EQ(bytes.exit_code, 0) << bytes.err;
  m = nlohmann::json::parse(ReadText(dir_ + "/bytes.jsonl.manifest.json"));
  EXPECT_EQ(m["budget"], nlohmann::json({{"by", "keep_bytes"}, {"value", 500}}));
  EXPECT_EQ(m["budget_bytes"], 500);
  // Within one document (each is under 60 bytes of text) above the budget.
  EXPECT_GE(m["kept_bytes"].get<uint64_t>(), 500u);
  EXPECT_LT(m["kept_bytes"].get<uint64_t>(), 560u);

  CliResult frac = Run("--keep 0.5", dir_ + "/frac.jsonl");
  ASSERT_EQ(frac.exit_code, 0) << frac.err;
  m = nlohmann::json::parse(ReadText(dir_ + "/frac.jsonl.manifest.json"));
  EXPECT_EQ(m["budget"], nlohmann::json({{"by", "keep"}, {"value", 0.5}}));
  EXPECT_EQ(m["keep"], 0.5);

  // More than the pool holds keeps all of it.
  ASSERT_EQ(Run("--keep-docs 1000", dir_ + "/all.jsonl").exit_code, 0);
  EXPECT_EQ(ReadText(dir_ + "/all.jsonl"), ReadText(dir_ + "/in.pool.jsonl"));
}

TEST_F(SelectBadInput, BudgetsAreOneAndWholeNumbers) {
  WriteText(dir_ + "/in.pool.jsonl", kGoodPool);
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl", "--keep 0.5 --keep-docs 3"), dir_,
                     "give one budget: --keep FRACTION, --keep-docs N or --keep-bytes N");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl", "--keep-docs -3"), dir_,
                     "--keep-docs must be a whole number of documents, at least 1, got -3");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl", "--keep-bytes 0"), dir_,
                     "--keep-bytes must be a whole number of bytes, at least 1, got 0");
  ExpectCleanFailure(Select(dir_, dir_ + "/in.pool.jsonl", "--keep-bytes 1e3"), dir_,
                     "--keep-bytes must be a whole number of bytes, at least 1, got 1e3");
}

TEST_F(SelectOutputs, ZstdAndGzipOutputsDecompressToThePlainBytes) {
  ASSERT_EQ(Run("--keep 0.4", dir_ + "/kept.jsonl").exit_code, 0);
  const std::string plain = ReadText(dir_ + "/kept.jsonl");
  ASSERT_FALSE(plain.empty());
  ASSERT_EQ(Run("--keep 0.4", dir_ + "/kept.jsonl.zst").exit_code, 0);
  ASSERT_EQ(Run("--keep 0.4", dir_ + "/kept.jsonl.gz").exit_code, 0);
  const std::string zst = ReadText(dir_ + "/kept.jsonl.zst");
  const std::string gz = ReadText(dir_ + "/kept.jsonl.gz");
  EXPECT_NE(zst, plain);
  EXPECT_EQ(Unzstd(zst), plain);
  EXPECT_EQ(Gunzip(gz), plain);
  // The manifest hashes the file as written and names what it holds.
  auto m = nlohmann::json::parse(ReadText(dir_ + "/kept.jsonl.gz.manifest.json"));
  EXPECT_EQ(m["output"]["compression"], "gzip");
  EXPECT_EQ(m["output"]["bytes"], gz.size());
  EXPECT_EQ(m["output"]["jsonl_bytes"], plain.size());
  // A compressed pool reads back as the same documents (the selection's own input format).
  CliResult again = RunCli("select --pool " + dir_ +
                               "/kept.jsonl.zst --selector first --keep 1 "
                               "--out " +
                               dir_ + "/again.jsonl --ledger " + dir_ + "/in.ledger.jsonl --quiet",
                           dir_);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(ReadText(dir_ + "/again.jsonl"), plain);
}

TEST_F(SelectOutputs, MissingParentFoldersAreCreated) {
  CliResult r = Run("--annotate " + dir_ + "/notes/a/ann.jsonl", dir_ + "/out/deep/kept.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Exists(dir_ + "/out/deep/kept.jsonl"));
  EXPECT_TRUE(Exists(dir_ + "/out/deep/kept.jsonl.manifest.json"));
  EXPECT_TRUE(Exists(dir_ + "/notes/a/ann.jsonl"));
}

// Every output path is checked before any work: with a pool that is bad on line 2, the error is
// still the output's, and nothing (no folder either) is left behind.
TEST_F(SelectBadInput, UnwritableOutputsFailBeforeAnyWork) {
  WriteText(dir_ + "/in.pool.jsonl", "{\"text\": \"fine\"}\nnot json\n");
  const std::string pool = dir_ + "/in.pool.jsonl";
  ASSERT_EQ(::mkdir((dir_ + "/in.folder").c_str(), 0777), 0);
  WriteText(dir_ + "/in.folder/notes.txt", "someone's file");
  // A folder is a folder output (one kept file per pool file); one that holds other files is
  // never written into.
  ExpectCleanFailure(Select(dir_, pool, "", dir_ + "/in.folder"), dir_,
                     dir_ + "/in.folder: --out names a folder that holds files other than a former "
                            "selection's output");
  EXPECT_EQ(ReadText(dir_ + "/in.folder/notes.txt"), "someone's file");
  ExpectCleanFailure(Select(dir_, pool, "", "/proc/kept.jsonl.zst"), dir_,
                     "/proc/kept.jsonl.zst: cannot write output");
  ExpectCleanFailure(Select(dir_, pool, "--annotate /proc/ann.jsonl", dir_ + "/new/kept.jsonl"),
                     dir_, "/proc/ann.jsonl: cannot write output");
  ExpectCleanFailure(Select(dir_, pool, "--manifest /proc/self/m.json", dir_ + "/new/kept.jsonl"),
                     dir_, "/proc/self/m.json: cannot write output");
  ExpectCleanFailure(Select(dir_, pool, "--annotate " + dir_ + "/in.folder"), dir_,
                     dir_ + "/in.folder: is a folder; --annotate needs a file path");
  // And with writable outputs, the same pool fails on its line.
  ExpectCleanFailure(Select(dir_, pool), dir_, pool + ":2: malformed JSON");
}

// Renaming the output over an input would replace the pool with the selection; two outputs on one
// path would overwrite each other.
TEST_F(SelectBadInput, OutputsAreNotInputsNorEachOther) {
  WriteText(dir_ + "/in.pool.jsonl", kGoodPool);
  const std::string pool = dir_ + "/in.pool.jsonl";
  ExpectCleanFailure(Select(dir_, pool, "", pool), dir_,
                     "--out " + pool + " is also an input; write the selection elsewhere");
  EXPECT_EQ(ReadText(pool), kGoodPool);
  ExpectCleanFailure(Select(dir_, pool, "--annotate " + dir_ + "/./kept.jsonl"), dir_,
                     "--out and --annotate name the same file, " + dir_ + "/kept.jsonl");
}

TEST_F(SelectBadInput, SkipBadListsTheSkippedLines) {
  WriteText(dir_ + "/in.pool.jsonl",
            std::string(kGoodPool) + "{\"text\": \"caf\xe9\"}\nnot json\n{\"body\": 1}\n");
  CliResult r = Select(dir_, dir_ + "/in.pool.jsonl", "--skip-bad");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string pool = dir_ + "/in.pool.jsonl";
  for (const std::string& line :
       {pool + ":3: invalid UTF-8", pool + ":4: malformed JSON", pool + ":5: no \"text\" field"}) {
    EXPECT_NE(r.err.find("preflight select: skipped " + line), std::string::npos)
        << "stderr was: " << r.err << "\nexpected: " << line;
  }
  auto m = nlohmann::json::parse(ReadText(dir_ + "/kept.jsonl.manifest.json"));
  ASSERT_EQ(m["skipped_lines"].size(), 3u) << m.dump(2);
  EXPECT_EQ(m["skipped_lines"][0]["where"], pool + ":3");
  EXPECT_EQ(m["skipped_lines"][0]["why"], "invalid UTF-8");
  EXPECT_EQ(m["skipped_lines"][2]["where"], pool + ":5");
  EXPECT_EQ(m["skipped_bad_lines"], 3);
}

TEST_F(SelectOutputs, TextAndIdFields) {
  std::string pool;
  for (int i = 0; i < 6; ++i) {
    nlohmann::json doc = {{"body", Numbered("a document about cats ", i)}};
    if (i != 4) doc["name"] = Numbered("n", i);
    pool += doc.dump() + "\n";
  }
  WriteText(dir_ + "/in.fields.jsonl", pool);
  CliResult r = Select(dir_, dir_ + "/in.fields.jsonl",
                       "--selector random --keep 0.5 --text-field body --id-field name "
                       "--annotate " +
                           dir_ + "/ann.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto notes = JsonLines(ReadText(dir_ + "/ann.jsonl"));
  ASSERT_EQ(notes.size(), 6u);
  EXPECT_EQ(notes[0]["id"], "n0");
  EXPECT_EQ(notes[4]["id"], dir_ + "/in.fields.jsonl:5");  // No "name": <file>:<line>.
  auto m = nlohmann::json::parse(ReadText(dir_ + "/kept.jsonl.manifest.json"));
  EXPECT_EQ(m["text_field"], "body");
  EXPECT_GT(m["pool_bytes"].get<uint64_t>(), 0u);
}

}  // namespace
}  // namespace preflight
