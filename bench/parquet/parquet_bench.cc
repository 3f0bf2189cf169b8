// The Parquet reader outside the CLI (bench/parquet/README.md):
//   parquet_bench text FILE...   reads the text column of each file; prints rows, text bytes,
//                                CPU seconds and MB/s of text per CPU second
//   parquet_bench json FILE...   reads every carried column and writes each row as a JSON line
//                                to stdout (what a selection writes for a Parquet pool); the
//                                speed goes to stderr
// Options before the files: --text COL, --id COL, --groups A:B (row groups A to B-1).

#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "parquet/reader.h"

namespace {

double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

int Usage() {
  std::fprintf(stderr,
               "usage: parquet_bench text|json [--text COL] [--id COL] [--groups A:B] "
               "FILE...\n");
  return 2;
}

// The files, and the request the options make.
std::vector<std::string> ParseArgs(int argc, char** argv, preflight::parquet::ReadRequest* out) {
  preflight::parquet::ReadRequest& request = *out;
  std::vector<std::string> files;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--text" && i + 1 < argc) {
      request.text_column = argv[++i];
    } else if (arg == "--id" && i + 1 < argc) {
      request.id_column = argv[++i];
    } else if (arg == "--groups" && i + 1 < argc) {
      const std::string range = argv[++i];
      request.first_row_group = std::stoi(range.substr(0, range.find(':')));
      request.end_row_group = std::stoi(range.substr(range.find(':') + 1));
    } else {
      files.push_back(arg);
    }
  }
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return Usage();
  const std::string mode = argv[1];
  if (mode != "text" && mode != "json") return Usage();
  preflight::parquet::ReadRequest request;
  request.carry_columns = mode == "json";
  const std::vector<std::string> files = ParseArgs(argc, argv, &request);
  uint64_t rows = 0, bad = 0, text_bytes = 0, out_bytes = 0;
  const double start = CpuSeconds();
  std::string line;
  for (const std::string& file : files) {
    auto reader = preflight::parquet::Reader::Open(file, request);
    if (!reader.ok()) {
      std::fprintf(stderr, "%s\n", reader.status().message().c_str());
      return reader.status().ExitCode();
    }
    preflight::parquet::Row row;
    while (true) {
      auto more = (*reader)->Next(&row);
      if (!more.ok()) {
        std::fprintf(stderr, "%s\n", more.status().message().c_str());
        return more.status().ExitCode();
      }
      if (!*more) break;
      ++rows;
      bad += row.bad.empty() ? 0 : 1;
      text_bytes += row.text.size();
      if (mode == "json") {
        line.clear();
        (*reader)->AppendJson(row, &line);
        line.push_back('\n');
        out_bytes += line.size();
        std::fwrite(line.data(), 1, line.size(), stdout);
      }
    }
  }
  const double seconds = CpuSeconds() - start;
  std::fprintf(stderr,
               "%llu rows (%llu bad), %llu text bytes, %llu JSON bytes, %.3f CPU s, "
               "%.1f MB/s of text per CPU second\n",
               static_cast<unsigned long long>(rows), static_cast<unsigned long long>(bad),
               static_cast<unsigned long long>(text_bytes),
               static_cast<unsigned long long>(out_bytes), seconds,
               seconds > 0 ? static_cast<double>(text_bytes) / seconds / 1e6 : 0.0);
  return 0;
}
