// preflight select: keep the part of a pool most like a target, or a baseline, to a byte budget.

#include <cstdio>

#include "app/select_receipt.h"
#include "base/file.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/progress.h"
#include "ledger/ledger.h"
#include "select/selector.h"
#ifdef PREFLIGHT_HAVE_DIST
#include "dist/dist.h"
#endif

namespace preflight::cli {

int RunSelect(int argc, char** argv) {
  CLI::App app;
  Describe(
      app, "select",
      "Keep the part of a pool that is most like a target (dsir, classifier), or a baseline\n"
      "(random, first), up to --keep of the pool's text bytes. Writes the kept lines byte for\n"
      "byte to --out, a manifest beside it, and a receipt to the ledger.\n\n"
      "Example:\n  preflight select --pool data/brown/pools/cj.jsonl --target "
      "data/brown/targets/cj.select.jsonl \\\n      --selector dsir --keep 0.25 --seed 1 --out "
      "out/cj.dsir.jsonl");
  std::vector<std::string> pool, target;
  select::SelectOptions o;
  bool json = false, quiet = false;
  std::string ledger_path = ledger::DefaultLedgerPath();
  app.add_option("--pool", pool, "pool files: JSONL, .jsonl.zst or plain-text folders")->required();
  app.add_option("--target", target, "target documents (required by dsir and classifier)");
  app.add_option("--selector", o.selector, "random | first | dsir | classifier")
      ->capture_default_str();
  app.add_option("--keep", o.keep, "fraction of the pool's text bytes to keep, in (0, 1]")
      ->capture_default_str();
  app.add_option("--seed", o.seed, "seed of the Gumbel keys and the classifier")
      ->capture_default_str();
  app.add_option("--out", o.out_path, "kept documents (JSONL), written atomically")->required();
  app.add_option("--manifest", o.manifest_path, "manifest path (default: OUT.manifest.json)");
  app.add_option("--threads", o.threads, "parsing and scoring threads")->capture_default_str();
  app.add_option("--text-field", o.read.text_field, "JSON field holding the text")
      ->capture_default_str();
  app.add_flag("--skip-bad", o.read.skip_bad, "count and report bad lines instead of stopping");
  app.add_option("--max-doc-bytes", o.read.max_document_bytes, "largest document accepted")
      ->capture_default_str();
  app.add_option("--ledger", ledger_path, "receipt ledger")->capture_default_str();
  app.add_option("--dsir-buckets", o.dsir.buckets, "dsir: hashed feature buckets")
      ->capture_default_str();
  app.add_option("--dsir-ngrams", o.dsir.ngrams, "dsir: 1 = unigrams, 2 = unigrams + bigrams")
      ->capture_default_str();
  app.add_option("--dsir-smoothing", o.dsir.smoothing, "dsir: pseudo-count per bucket")
      ->capture_default_str();
  app.add_option("--dsir-length", o.dsir.length, "dsir: normalize (per 128-word chunk) | sum")
      ->capture_default_str();
  app.add_option("--clf-dim", o.classifier.dim, "classifier: embedding size")
      ->capture_default_str();
  app.add_option("--clf-epochs", o.classifier.epochs, "classifier: epochs")->capture_default_str();
  app.add_option("--clf-negative-ratio", o.classifier.negative_ratio,
                 "classifier: negative bytes per target byte")
      ->capture_default_str();
  app.add_option("--mpi-cut", o.mpi_cut,
                 "under mpirun: how the ranks find the budget cut, radix | gather (doc/mpi.md)")
      ->capture_default_str();
  app.add_flag("--json", json, "print one JSON document on stdout");
  app.add_flag("--quiet", quiet, "no progress on stderr");
  if (int code = Parse(app, argc, argv); code >= 0) return code;

  std::string stage;
  std::unique_ptr<Progress> bar;
  auto progress = [&](const std::string& s, uint64_t done, uint64_t total) {
    if (s != stage) {
      if (bar) bar->Finish();
      stage = s;
      bar = std::make_unique<Progress>("select " + o.selector + ": " + s,
                                       static_cast<double>(total), "B", !quiet);
    }
    bar->Update(static_cast<double>(done));
  };
  // Under mpirun every rank runs the selection; rank 0 shows progress, writes the outputs and the
  // receipt, and prints; the others only report a failure.
  std::unique_ptr<select::SelectionGroup> group;
#ifdef PREFLIGHT_HAVE_DIST
  group = dist::MakeSelectionGroup();
#endif
  const bool leader = !group || group->leader();
  auto result = select::RunSelection(pool, target, o, leader ? progress : select::StageProgress(),
                                     group.get());
  if (bar) bar->Finish();
  if (!result.ok()) {
    if (!leader) return result.status().ExitCode();
    return Fail("select", result.status());
  }
  if (!leader) return 0;
  const nlohmann::json& m = result->manifest;
  const std::string manifest_path = app::ManifestPath(o);
  auto hash = app::AppendSelectionReceipt(o, *result, ledger_path);
  if (!hash.ok()) return Fail("select", hash.status());
  if (json) {
    EmitJson(
        {{"selector", o.selector},
         {"seed", o.seed},
         {"keep", o.keep},
         {"pool_docs", result->pool_docs},
         {"pool_bytes", result->pool_bytes},
         {"budget_bytes", result->budget_bytes},
         {"kept_docs", result->kept_docs},
         {"kept_bytes", result->kept_bytes},
         {"cost", {{"core_seconds", result->core_seconds}, {"wall_seconds", result->wall_seconds}}},
         {"out", o.out_path},
         {"manifest", manifest_path},
         {"receipt", *hash},
         {"skipped_bad_lines", m["skipped_bad_lines"]}});
  } else {
    std::printf("%s kept %llu of %llu documents, %s of %s (budget %s), in %.2f core-seconds\n",
                o.selector.c_str(), static_cast<unsigned long long>(result->kept_docs),
                static_cast<unsigned long long>(result->pool_docs),
                HumanBytes(static_cast<double>(result->kept_bytes)).c_str(),
                HumanBytes(static_cast<double>(result->pool_bytes)).c_str(),
                HumanBytes(static_cast<double>(result->budget_bytes)).c_str(),
                result->core_seconds);
    std::printf("  out      %s\n  manifest %s\n  receipt  %s (%s)\n", o.out_path.c_str(),
                manifest_path.c_str(), hash->substr(0, 16).c_str(), ledger_path.c_str());
    if (m["skipped_bad_lines"].get<uint64_t>() > 0) {
      std::printf("  skipped  %llu bad lines (--skip-bad)\n",
                  static_cast<unsigned long long>(m["skipped_bad_lines"].get<uint64_t>()));
    }
  }
  return 0;
}

}  // namespace preflight::cli
