// The progress line (cli/progress.h) shows a rate and an ETA only when there is one to show:
// a small input read at once showed "pool 100.0% | 227.8 GB/s" (issue 31), and a launched run
// before its first eval "0 step/s | ETA ?"; a job that failed showed its bar "done".

#include "cli/progress.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <string>

#include "testing/testing.h"

namespace preflight::cli {
namespace {

// What `draw` writes on stderr (a file here, as in a log: one line per tenth of the work).
std::string Stderr(const std::function<void()>& draw) {
  const std::string path = testing::ScratchDir("progress") + "/stderr";
  std::fflush(stderr);
  const int saved = ::dup(2);
  std::FILE* file = std::fopen(path.c_str(), "w");
  ::dup2(::fileno(file), 2);
  draw();
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::fclose(file);
  return testing::ReadText(path);
}

TEST(Progress, NoRateFromAnInstant) {
  const std::string err = Stderr([] {
    Progress bar("select dsir: pool", 801000, "B");
    bar.Update(801000);  // the whole pool at once, microseconds after the start
    bar.Finish();
  });
  EXPECT_NE(err.find("select dsir: pool 100.0%"), std::string::npos) << err;
  EXPECT_EQ(err.find("/s"), std::string::npos) << err;
  EXPECT_NE(err.find("select dsir: pool done in 0s"), std::string::npos) << err;
}

TEST(Progress, NoRateNorEtaBeforeAnythingIsDone) {
  const std::string err = Stderr([] {
    Progress bar("[1/4] train random seed 1 (cmd)", 300, "step");
    bar.Update(0, "launched: waiting for the first eval");
  });
  EXPECT_NE(err.find("[1/4] train random seed 1 (cmd)   0.0% | launched: waiting for the first "
                     "eval"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find("step/s"), std::string::npos) << err;
  EXPECT_EQ(err.find("ETA"), std::string::npos) << err;
}

TEST(Progress, AStoppedBarSaysSoNotDone) {
  const std::string err = Stderr([] {
    Progress bar("[1/4] train random seed 1 (cmd)", 300, "step");
    bar.Update(0);
    bar.Stop();
  });
  EXPECT_NE(err.find("[1/4] train random seed 1 (cmd) stopped after 0s"), std::string::npos) << err;
  EXPECT_EQ(err.find("done"), std::string::npos) << err;
}

}  // namespace
}  // namespace preflight::cli
