// DSIR scoring throughput: the pass that computes every pool document's importance weight
// (read, parse JSON, tokenize, hash, sum log ratios), timed alone, on 1 and 2 threads.
// Usage: dsir_bench POOL.jsonl TARGET.jsonl   (bench/select/run.sh builds a 1 GB pool first)
// Prints one JSON line per thread count.

#include <cstdio>
#include <vector>

#include "base/clock.h"
#include "corpus/scanner.h"
#include "select/dsir.h"

using namespace preflight;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: dsir_bench POOL.jsonl TARGET.jsonl [threads...]\n");
    return 2;
  }
  std::vector<std::string> pool = {argv[1]}, target = {argv[2]};
  std::vector<int> thread_counts;
  for (int i = 3; i < argc; ++i) thread_counts.push_back(std::atoi(argv[i]));
  if (thread_counts.empty()) thread_counts = {1, 2};
  select::DsirOptions o;

  // Fit (target, pool counts) once with 2 threads; it is not what this bench times.
  auto count = [&](const std::vector<std::string>& paths, std::vector<uint64_t>& counts) {
    corpus::ReadOptions read;
    read.threads = 2;
    std::vector<std::vector<uint64_t>> per(2, std::vector<uint64_t>(o.buckets, 0));
    auto s = corpus::ScanDocuments(paths, read,
                                   [&](int t, const corpus::Record&, std::string_view text) {
                                     select::CountFeatures(text, o, per[t].data());
                                   });
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.status().message().c_str());
      std::exit(1);
    }
    counts = select::SumCounts(per, o.buckets);
    return *s;
  };
  std::vector<uint64_t> tc, pc;
  count(target, tc);
  CostMeter fit_meter;
  auto pool_summary = count(pool, pc);
  double fit_wall = fit_meter.wall_seconds();
  auto model = select::DsirModel::Fit(tc, pc, o);
  if (!model.ok()) return 1;

  for (int threads : thread_counts) {
    corpus::ReadOptions read;
    read.threads = threads;
    std::vector<double> sink(threads, 0);
    CostMeter meter;
    auto s =
        corpus::ScanDocuments(pool, read, [&](int t, const corpus::Record&, std::string_view text) {
          sink[t] += model->LogWeight(text);
        });
    double wall = meter.wall_seconds(), cpu = meter.core_seconds();
    double mb = static_cast<double>(s->inputs[0].file_bytes) / 1e6;
    double checksum = 0;
    for (double x : sink) checksum += x;
    std::printf(
        "{\"threads\": %d, \"pool_mb\": %.1f, \"docs\": %llu, \"wall_s\": %.3f, \"core_s\": %.3f, "
        "\"mb_per_s\": %.1f, \"mb_per_s_per_core\": %.1f, \"mb_per_core_second\": %.1f, "
        "\"fit_count_wall_s_2t\": %.3f, \"checksum\": %.6g}\n",
        threads, mb, static_cast<unsigned long long>(pool_summary.docs), wall, cpu, mb / wall,
        mb / wall / threads, mb / cpu, fit_wall, checksum);
    std::fflush(stdout);
  }
  return 0;
}
