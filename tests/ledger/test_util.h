#pragma once
// Scratch folders and sample receipts shared by the ledger tests.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ledger/ledger.h"

namespace preflight::ledger::testing {

// An empty folder of its own for the running test.
inline std::string ScratchDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path dir = std::filesystem::path(PREFLIGHT_TEST_TMP) / "ledger" /
                              (std::string(info->test_suite_name()) + "." + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// A caller's receipt (the fields Append does not fill); `i` makes each one distinct.
inline nlohmann::json SampleReceipt(int i, const std::string& kind = "selection") {
  return {{"kind", kind},
          {"inputs", {InputFile{"pool.jsonl", std::string(64, 'a'), 500, 1234567}}},
          {"config", {{"seed", i}, {"selector", "dsir"}}},
          {"result", {{"kept_docs", 100 + i}, {"saving", 0.125 * i}}},
          {"cost", {{"core_seconds", 0.5}, {"flops", 0}}}};
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
}

// The file's lines, each with its "\n".
inline std::vector<std::string> Lines(const std::string& contents) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < contents.size()) {
    size_t nl = contents.find('\n', start);
    size_t end = nl == std::string::npos ? contents.size() : nl + 1;
    lines.push_back(contents.substr(start, end - start));
    start = end;
  }
  return lines;
}

inline std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l;
  return out;
}

// A ledger of `n` good receipts at `path`.
inline void MakeLedger(const std::string& path, int n) {
  for (int i = 1; i <= n; ++i) {
    auto r = Append(path, SampleReceipt(i, i % 2 ? "selection" : "trial"));
    ASSERT_TRUE(r.ok()) << r.status().message();
  }
}

}  // namespace preflight::ledger::testing
