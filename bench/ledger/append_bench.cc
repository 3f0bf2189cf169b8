// What checking the chain before an append costs (ledger.h, Append; issue 31), on a ledger of N
// lines made of the receipts of a real one, re-chained: a full Verify (what an append without
// the verified mark does: every line parsed, canonicalised and hashed), CheckAppendable with the
// mark (the prefix's SHA-256 only), and Append itself with and without the mark. The peer is the
// full check: the ratio printed is its CPU seconds over the mark's (wall seconds are printed
// too; on a shared machine they measure the load as much as the work).
// Usage: append_bench SOURCE_LEDGER.jsonl OUT_DIR [LINES]   (bench/ledger/run.sh)
// Prints one JSON line.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/file.h"
#include "ledger/canonical_json.h"
#include "ledger/ledger.h"
#include "ledger/verified_mark.h"

using namespace preflight;

namespace {

// SOURCE's receipts, caller fields only, re-chained into `lines` lines at `path`.
void MakeLedger(const std::string& source, const std::string& path, int lines) {
  std::vector<nlohmann::json> receipts;
  std::ifstream in(source);
  for (std::string line; std::getline(in, line);) receipts.push_back(nlohmann::json::parse(line));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  std::string prev = ledger::kGenesisHash;
  for (int i = 0; i < lines; ++i) {
    nlohmann::json r = receipts[static_cast<size_t>(i) % receipts.size()];
    r["prev"] = prev;
    r.erase("hash");
    r["hash"] = prev = ledger::ReceiptHash(r);
    out << ledger::CanonicalJson(r) << "\n";
  }
}

nlohmann::json Receipt() {
  return {{"kind", "cost"},
          {"inputs", nlohmann::json::array()},
          {"config", {{"bench", true}}},
          {"result", nlohmann::json::object()},
          {"cost", {{"core_seconds", 0}, {"flops", 0}}}};
}

struct Took {
  double wall = 0, cpu = 0;
};

template <typename F>
Took Seconds(F f) {
  CostMeter meter;
  f();
  return {meter.wall_seconds(), meter.core_seconds()};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: append_bench SOURCE_LEDGER.jsonl OUT_DIR [LINES]\n");
    return 2;
  }
  const int lines = argc > 3 ? std::atoi(argv[3]) : 100000;
  const std::string path = std::string(argv[2]) + "/ledger.jsonl";
  std::filesystem::create_directories(argv[2]);
  std::filesystem::remove(ledger::VerifiedMarkPath(path));
  MakeLedger(argv[1], path, lines);
  const uint64_t bytes = *FileSize(path);
  bool ok = true;
  // Without the mark: the append checks every line (and leaves the mark).
  const Took append_full = Seconds([&] { ok = ok && ledger::Append(path, Receipt()).ok(); });
  const Took verify = Seconds([&] { ok = ok && ledger::Verify(path).ok(); });
  // With the mark: the prefix is hashed, not parsed.
  const Took check_marked = Seconds([&] { ok = ok && ledger::CheckAppendable(path).ok(); });
  const Took append_marked = Seconds([&] { ok = ok && ledger::Append(path, Receipt()).ok(); });
  std::printf(
      "{\"lines\": %d, \"bytes\": %llu, \"wall_seconds\": {\"verify\": %.3f, "
      "\"append_without_mark\": %.3f, \"check_with_mark\": %.3f, \"append_with_mark\": %.3f}, "
      "\"cpu_seconds\": {\"verify\": %.3f, \"append_without_mark\": %.3f, \"check_with_mark\": "
      "%.3f, \"append_with_mark\": %.3f}, \"cpu_without_over_with_mark\": %.1f, \"ok\": %s}\n",
      lines, static_cast<unsigned long long>(bytes), verify.wall, append_full.wall,
      check_marked.wall, append_marked.wall, verify.cpu, append_full.cpu, check_marked.cpu,
      append_marked.cpu, append_full.cpu / append_marked.cpu, ok ? "true" : "false");
  return ok ? 0 : 1;
}
