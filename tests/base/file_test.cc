#include "base/file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
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

// A FIFO, a symbolic link and (where this process may make one) a character device like
// /dev/full, each made in the test's own folder: a write atomically onto any of them is refused,
// and each is left as it was, with no temporary beside it.
std::string Fresh(const std::string& name) {
  const std::string path = Scratch(name);
  std::filesystem::remove(path);
  return path;
}

void ExpectRefusedAndUntouched(const std::string& path, const std::string& what) {
  Status st = WriteFileAtomically(path, "replaced\n");
  ASSERT_FALSE(st.ok()) << what;
  EXPECT_EQ(st.kind(), Status::Kind::kInvalidArgument) << st.message();
  EXPECT_NE(st.message().find(path + ": the output path names " + what), std::string::npos)
      << st.message();
  EXPECT_FALSE(PathExists(path + ".tmp." + std::to_string(::getpid())));
}

TEST(AtomicFile, AFifoIsNotReplaced) {
  const std::string fifo = Fresh("out.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  ExpectRefusedAndUntouched(fifo, "a FIFO (named pipe)");
  struct stat st;
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST(AtomicFile, ASymbolicLinkIsNotReplacedNorWrittenThrough) {
  const std::string target = Fresh("link-target.txt");
  const std::string link = Fresh("out.link");
  ASSERT_TRUE(WriteFileAtomically(target, "kept\n").ok());
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  ExpectRefusedAndUntouched(link, "a symbolic link (to " + target + ")");
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(*ReadFileToString(target), "kept\n");
  // A dangling link too: renaming over it would replace it.
  std::filesystem::remove(target);
  ExpectRefusedAndUntouched(link, "a symbolic link");
  EXPECT_TRUE(std::filesystem::is_symlink(link));
}

TEST(AtomicFile, ADeviceIsNotReplaced) {
  const std::string device = Fresh("out.device");
  if (::mknod(device.c_str(), S_IFCHR | 0666, ::makedev(1, 7)) != 0) {  // /dev/full's numbers
    GTEST_SKIP() << "cannot make a device node here (" << std::strerror(errno)
                 << "): mknod needs CAP_MKNOD";
  }
  ExpectRefusedAndUntouched(device, "a character device");
  struct stat st;
  ASSERT_EQ(::lstat(device.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  std::filesystem::remove(device);
}

TEST(AtomicFile, RegularFilesAndNewPathsAreReplaceable) {
  const std::string path = Fresh("plain.txt");
  EXPECT_TRUE(CheckReplaceableFile(path, "--out").ok());
  ASSERT_TRUE(WriteFileAtomically(path, "one\n").ok());
  EXPECT_TRUE(CheckReplaceableFile(path, "--out").ok());
  ASSERT_TRUE(WriteFileAtomically(path, "two\n").ok());
  EXPECT_EQ(*ReadFileToString(path), "two\n");
  const Status folder = CheckReplaceableFile(Scratch(""), "--out");
  EXPECT_EQ(folder.kind(), Status::Kind::kInvalidArgument);
  EXPECT_NE(folder.message().find("--out names a folder"), std::string::npos) << folder.message();
}

TEST(AtomicFile, SomethingPutInPlaceAfterOpenIsNotReplaced) {
  const std::string path = Fresh("raced.txt");
  AtomicFile f;
  ASSERT_TRUE(f.Open(path).ok());
  ASSERT_TRUE(f.Write("late\n").ok());
  ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0);  // after Open, before Commit
  const Status st = f.Commit();
  EXPECT_EQ(st.kind(), Status::Kind::kInvalidArgument) << st.message();
  struct stat s;
  ASSERT_EQ(::lstat(path.c_str(), &s), 0);
  EXPECT_TRUE(S_ISFIFO(s.st_mode));
  EXPECT_FALSE(PathExists(path + ".tmp." + std::to_string(::getpid())));
  std::filesystem::remove(path);
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
