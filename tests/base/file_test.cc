#include "base/file.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace preflight {
namespace {

std::string Scratch(const std::string& name) {
  std::string dir = std::string(PREFLIGHT_TEST_TMP) + "/base";
  EXPECT_TRUE(MakeDirectories(dir).ok());
  return dir + "/" + name;
}

TEST(AtomicFile, CommitPublishesContents) {
  std::string path = Scratch("commit.txt");
  std::remove(path.c_str());
  ASSERT_TRUE(WriteFileAtomically(path, "hello\n").ok());
  auto got = ReadFileToString(path);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, "hello\n");
}

TEST(AtomicFile, AbandonedWriteLeavesNothing) {
  std::string path = Scratch("abandoned.txt");
  std::remove(path.c_str());
  {
    AtomicFile f;
    ASSERT_TRUE(f.Open(path).ok());
    ASSERT_TRUE(f.Write("partial").ok());
  }  // No Commit(): the destructor removes the temporary.
  EXPECT_FALSE(PathExists(path));
  EXPECT_FALSE(PathExists(path + ".tmp." + std::to_string(::getpid())));
}

TEST(AtomicFile, UnwritableFolderIsAnIOErrorNamingThePath) {
  AtomicFile f;
  Status st = f.Open("/nonexistent-folder/x/out.jsonl");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.kind(), Status::Kind::kIOError);
  EXPECT_NE(st.message().find("/nonexistent-folder/x/out.jsonl"), std::string::npos);
}

// The pid of a process that has exited and been reaped: no process has it (until reused).
pid_t DeadPid() {
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

TEST(AtomicFile, StaleTemporariesOfKilledRunsAreRemovedOnTheNextWrite) {
  std::string path = Scratch("stale.bin");
  std::remove(path.c_str());
  const std::string dead = path + ".tmp." + std::to_string(DeadPid());
  const std::string live = path + ".tmp.1";                   // pid 1 always runs.
  const std::string other = Scratch("other.bin.tmp.999999");  // Another output's temporary.
  const std::string odd = path + ".tmp.notapid";
  for (const std::string& f : {dead, live, other, odd}) {
    std::FILE* file = std::fopen(f.c_str(), "wb");
    ASSERT_NE(file, nullptr) << f;
    std::fclose(file);
  }
  ASSERT_TRUE(WriteFileAtomically(path, "new\n").ok());
  EXPECT_FALSE(PathExists(dead));
  EXPECT_TRUE(PathExists(live));
  EXPECT_TRUE(PathExists(other));
  EXPECT_TRUE(PathExists(odd));
  EXPECT_EQ(*ReadFileToString(path), "new\n");
  EXPECT_TRUE(RemoveStaleTemporaries(path).empty());  // Nothing stale is left.
  for (const std::string& f : {live, other, odd}) std::remove(f.c_str());
}

TEST(Paths, DirAndBaseName) {
  EXPECT_EQ(DirName("a/b/c.txt"), "a/b");
  EXPECT_EQ(DirName("c.txt"), ".");
  EXPECT_EQ(BaseName("a/b/c.txt"), "c.txt");
  EXPECT_EQ(JoinPath("a", "b"), "a/b");
  EXPECT_EQ(JoinPath("a/", "b"), "a/b");
}

}  // namespace
}  // namespace preflight
