#include "base/file.h"

#include <gtest/gtest.h>
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

TEST(Paths, DirAndBaseName) {
  EXPECT_EQ(DirName("a/b/c.txt"), "a/b");
  EXPECT_EQ(DirName("c.txt"), ".");
  EXPECT_EQ(BaseName("a/b/c.txt"), "c.txt");
  EXPECT_EQ(JoinPath("a", "b"), "a/b");
  EXPECT_EQ(JoinPath("a/", "b"), "a/b");
}

}  // namespace
}  // namespace preflight
