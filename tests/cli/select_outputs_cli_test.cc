// What `select --out` may name, and the order in which a selection's files appear (issue 31):
// an --out (or --manifest) that is a FIFO, a symbolic link or a device is refused before any
// work and left as it was; a selection killed the moment its output appears has already named
// its manifest and appended its receipt; an output left without its manifest is reported and
// replaced; a ledger whose chain is broken is not extended.

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/sha256.h"
#include "testing/testing.h"

namespace preflight {
namespace {

using testing::CliResult;
using testing::Exists;
using testing::ReadText;
using testing::RunCli;
using testing::ScratchDir;
using testing::WriteText;

// A pool of `n` documents, every fifth like the target.
std::string Pool(int n) {
  std::string pool;
  for (int i = 0; i < n; ++i) {
    const std::string text = i % 5 == 0 ? "the target text about cats and more cats number "
                                        : "one unrelated document about dogs and weather number ";
    pool += nlohmann::json{{"text", text + std::to_string(i)}}.dump() + "\n";
  }
  return pool;
}

class SelectOut : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ScratchDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    WriteText(dir_ + "/in.target.jsonl", "{\"text\":\"the target text about cats\"}\n");
    WriteText(dir_ + "/in.pool.jsonl", Pool(400));
  }
  std::string Args(const std::string& out, const std::string& extra = "") const {
    return "select --pool " + dir_ + "/in.pool.jsonl --target " + dir_ +
           "/in.target.jsonl --selector dsir --out " + out + " --ledger " + dir_ +
           "/in.ledger.jsonl --quiet " + extra;
  }
  CliResult Select(const std::string& out, const std::string& extra = "") const {
    return RunCli(Args(out, extra), dir_);
  }
  // Names in the folder other than the inputs and `except`.
  std::vector<std::string> Others(const std::string& except) const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir_)) {
      const std::string n = e.path().filename().string();
      if (n.rfind("in.", 0) != 0 && n != except) names.push_back(n);
    }
    return names;
  }
  std::string dir_;
};

void ExpectRefused(const CliResult& r, const std::string& path, const std::string& what) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(path + ": --out names " + what), std::string::npos) << r.err;
}

TEST_F(SelectOut, AFifoIsRefusedBeforeAnyWorkAndLeftAsItWas) {
  const std::string fifo = dir_ + "/kept.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  ExpectRefused(Select(fifo), fifo, "a FIFO (named pipe)");
  struct stat st;
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(Others("kept.fifo"), std::vector<std::string>{});  // no manifest, no temporary
  EXPECT_FALSE(Exists(dir_ + "/in.ledger.jsonl"));
}

TEST_F(SelectOut, ASymbolicLinkIsRefusedAndNeitherItNorItsTargetChanges) {
  const std::string target = dir_ + "/real.jsonl", link = dir_ + "/kept.jsonl";
  WriteText(target, "{\"text\":\"mine\"}\n");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  ExpectRefused(Select(link), link, "a symbolic link (to " + target + ")");
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(ReadText(target), "{\"text\":\"mine\"}\n");
  EXPECT_FALSE(Exists(link + ".manifest.json"));
  // --manifest and --annotate are checked the same way, before anything is made.
  const CliResult manifest = Select(dir_ + "/new.jsonl", "--manifest " + link);
  EXPECT_EQ(manifest.exit_code, 2);
  EXPECT_NE(manifest.err.find(link + ": --manifest names a symbolic link"), std::string::npos)
      << manifest.err;
  EXPECT_FALSE(Exists(dir_ + "/new.jsonl"));
  EXPECT_TRUE(std::filesystem::is_symlink(link));
}

TEST_F(SelectOut, ADeviceIsRefusedAndLeftAsItWas) {
  const std::string device = dir_ + "/full";
  if (::mknod(device.c_str(), S_IFCHR | 0666, ::makedev(1, 7)) != 0) {  // /dev/full's numbers
    GTEST_SKIP() << "cannot make a device node here (" << std::strerror(errno)
                 << "): mknod needs CAP_MKNOD";
  }
  ExpectRefused(Select(device), device, "a character device");
  struct stat st;
  ASSERT_EQ(::lstat(device.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(Others("full"), std::vector<std::string>{});
}

// Starts `preflight <args>` and kills it with SIGKILL the moment `name` is renamed into `dir`
// (inotify: no polling delay), as a crash just after the rename would. Returns whether it was
// killed (false: it ended first).
bool KillWhenNamed(const std::string& args, const std::string& dir, const std::string& name) {
  const int watch = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (watch < 0 || ::inotify_add_watch(watch, dir.c_str(), IN_MOVED_TO | IN_CREATE) < 0) {
    ADD_FAILURE() << "inotify: " << std::strerror(errno);
    return false;
  }
  std::vector<std::string> argv = testing::SplitWords(args);
  argv.insert(argv.begin(), PREFLIGHT_BINARY);
  std::vector<char*> words;
  for (std::string& a : argv) words.push_back(a.data());
  words.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execv(words[0], words.data());
    ::_exit(127);
  }
  bool killed = false;
  int status = 0;
  alignas(inotify_event) char buf[4096];
  while (!killed && ::waitpid(pid, &status, WNOHANG) == 0) {
    pollfd p{watch, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::read(watch, buf, sizeof(buf));
    for (ssize_t at = 0; at < n && !killed;) {
      const auto* e = reinterpret_cast<const inotify_event*>(buf + at);
      if ((e->mask & IN_MOVED_TO) && e->len > 0 && name == e->name) {
        killed = ::kill(pid, SIGKILL) == 0;
      }
      at += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
    }
  }
  if (killed) ::waitpid(pid, &status, 0);
  ::close(watch);
  return killed;
}

std::vector<nlohmann::json> Receipts(const std::string& ledger) {
  std::vector<nlohmann::json> out;
  std::istringstream in(ReadText(ledger));
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

TEST_F(SelectOut, AnOutputNeverAppearsWithoutItsManifestAndReceipt) {
  const std::string out = dir_ + "/s.jsonl.gz";
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::filesystem::remove(out);
    std::filesystem::remove(out + ".manifest.json");
    const bool killed = KillWhenNamed(Args(out), dir_, "s.jsonl.gz");
    ASSERT_TRUE(Exists(out)) << "attempt " << attempt << ": no output (killed: " << killed << ")";
    // Named last: its manifest and its receipt were there before it.
    ASSERT_TRUE(Exists(out + ".manifest.json")) << "attempt " << attempt;
    const auto manifest = nlohmann::json::parse(ReadText(out + ".manifest.json"));
    EXPECT_EQ(manifest["output"]["sha256"], Sha256::Hex(ReadText(out)));
    const std::vector<nlohmann::json> receipts = Receipts(dir_ + "/in.ledger.jsonl");
    ASSERT_FALSE(receipts.empty());
    EXPECT_EQ(receipts.back()["result"]["output"]["sha256"], manifest["output"]["sha256"]);
    EXPECT_EQ(receipts.size(), static_cast<size_t>(attempt + 1));
  }
  EXPECT_EQ(RunCli("ledger verify --ledger " + dir_ + "/in.ledger.jsonl").exit_code, 0);
}

TEST_F(SelectOut, AnOutputWithoutItsManifestIsReportedAndReplaced) {
  const std::string out = dir_ + "/kept.jsonl";
  WriteText(out, "{\"text\":\"left by a run killed after naming it\"}\n");
  const CliResult r = Select(out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("replaced " + out + ", an output without its manifest"), std::string::npos)
      << r.err;
  const auto manifest = nlohmann::json::parse(ReadText(out + ".manifest.json"));
  EXPECT_EQ(manifest["output"]["sha256"], Sha256::Hex(ReadText(out)));
  // With its manifest, a rerun replaces it without a word.
  const CliResult again = Select(out);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.err.find("without its manifest"), std::string::npos) << again.err;
}

TEST_F(SelectOut, ALedgerWithAnEditedLineIsNotExtended) {
  for (int i = 0; i < 5; ++i) ASSERT_EQ(Select(dir_ + "/kept.jsonl").exit_code, 0);
  const std::string ledger = dir_ + "/in.ledger.jsonl";
  ASSERT_EQ(Receipts(ledger).size(), 5u);
  // Line 4's kept_docs edited in place, its hash left as it was (a hand edit).
  std::string text;
  std::istringstream in(ReadText(ledger));
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    if (++number == 4) {
      const std::string from = "\"kept_docs\":";
      ASSERT_NE(line.find(from), std::string::npos);
      line.insert(line.find(from) + from.size(), "1");
    }
    text += line + "\n";
  }
  WriteText(ledger, text);
  std::filesystem::remove(dir_ + "/kept.jsonl");
  const CliResult r = Select(dir_ + "/kept.jsonl");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(ledger + ": line 4 is bad: hash mismatch"), std::string::npos) << r.err;
  EXPECT_TRUE(ReadText(ledger) == text) << "the ledger was extended";
  EXPECT_FALSE(Exists(dir_ + "/kept.jsonl"));  // refused before any work
}

}  // namespace
}  // namespace preflight
