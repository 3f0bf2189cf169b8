// preflight select: keep the part of a pool most like a target, or a baseline, to a byte budget.

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "app/select_job.h"
#include "app/trial_job.h"  // IsLeaderProcess
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/progress.h"
#include "ledger/ledger.h"
#include "select/selector.h"

namespace preflight::cli {
namespace {

// The budget flags as typed: exactly one of them (none: --keep 0.25).
struct BudgetFlags {
  std::string keep, keep_docs, keep_bytes;
};

// A whole number >= 1 for `flag`, or a plain message saying what was given.
Result<uint64_t> ParseCount(const std::string& flag, const std::string& text, const char* unit) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || text[0] == '+' || *end != '\0' || errno != 0 || n == 0) {
    return Status::InvalidArgument(flag + " must be a whole number of " + unit +
                                   ", at least 1, got " + text);
  }
  return static_cast<uint64_t>(n);
}

Status ApplyBudget(const BudgetFlags& b, select::SelectOptions* o) {
  const int given = !b.keep.empty() + !b.keep_docs.empty() + !b.keep_bytes.empty();
  if (given > 1) {
    return Status::InvalidArgument(
        "give one budget: --keep FRACTION, --keep-docs N or --keep-bytes N, not " +
        std::to_string(given) + " of them");
  }
  if (!b.keep.empty()) {
    char* end = nullptr;
    const double keep = std::strtod(b.keep.c_str(), &end);
    if (*end != '\0' || !std::isfinite(keep) || !(keep > 0 && keep <= 1)) {
      return Status::InvalidArgument("--keep must be a number in (0, 1], got " + b.keep);
    }
    o->keep = keep;
  }
  if (!b.keep_docs.empty()) {
    PF_ASSIGN_OR_RETURN(o->keep_docs, ParseCount("--keep-docs", b.keep_docs, "documents"));
  }
  if (!b.keep_bytes.empty()) {
    PF_ASSIGN_OR_RETURN(o->keep_bytes, ParseCount("--keep-bytes", b.keep_bytes, "bytes"));
  }
  return Status::Ok();
}

// What the command line asks for.
struct SelectFlags {
  std::vector<std::string> pool, target;
  select::SelectOptions options;
  BudgetFlags budget;
  bool json = false, quiet = false;
  std::string ledger_path = ledger::DefaultLedgerPath();
};

// Every flag of `preflight select`, into `f`.
void AddSelectFlags(CLI::App* app, SelectFlags* f) {
  app->add_option("--pool", f->pool,
                  "pool files or folders: JSONL, .jsonl.gz, .jsonl.zst, Parquet or plain text (by content)")
      ->required();
  app->add_option("--target", f->target, "target documents (required by dsir and classifier)");
  app->add_option("--selector", f->options.selector, "random | first | dsir | classifier")
      ->capture_default_str();
  app->add_option("--keep", f->budget.keep,
                  "fraction of the pool's text bytes to keep, in (0, 1] (default 0.25)")
      ->type_name("FRACTION");
  app->add_option("--keep-docs", f->budget.keep_docs, "keep this many documents instead")
      ->type_name("N");
  app->add_option("--keep-bytes", f->budget.keep_bytes, "keep this many text bytes instead")
      ->type_name("N");
  app->add_option("--seed", f->options.seed, "seed of the Gumbel keys and the classifier")
      ->capture_default_str();
  app->add_option("--out", f->options.out_path,
                  "kept documents: a file (JSONL; .zst or .gz compresses), or a folder ending in "
                  "'/' with one kept file per pool file (same relative names and compression); "
                  "written atomically, missing folders created. A killed run's work waits in "
                  "OUT.partial/: rerun the same command to resume")
      ->required();
  app->add_option("--annotate", f->options.annotate_path,
                  "one {\"id\", \"score\", \"kept\"} line per pool document, in pool order "
                  "(score: dsir log importance weight, classifier P(target), random Gumbel key, "
                  "first null)");
  app->add_option("--manifest", f->options.manifest_path,
                  "manifest path (default: OUT.manifest.json)");
  app->add_option("--threads", f->options.threads,
                  "threads for every stage (reading, decompressing, parsing, scoring, "
                  "compressing); default: this machine's cores, shared by mpirun's ranks on it. "
                  "The output does not depend on it")
      ->default_str("0: every core");
  app->add_option("--shard-bytes", f->options.split_bytes,
                  "a plain JSONL file larger than this is read as several shards (threads and "
                  "ranks share the work by shard); the kept lines do not depend on it")
      ->capture_default_str();
  app->add_option("--text-field", f->options.read.text_field,
                  "JSON field holding the text in the pool (and the target, unless "
                  "--target-text-field)")
      ->capture_default_str();
  app->add_option("--id-field", f->options.id_field,
                  "JSON field holding a pool document's id (without one: <file>:<line>)")
      ->capture_default_str();
  app->add_option("--target-text-field", f->options.target_text_field,
                  "JSON field holding the text in the --target files (default: --text-field)");
  app->add_option("--target-id-field", f->options.target_id_field,
                  "JSON field holding a target document's id (default: --id-field)");
  app->add_flag("--skip-bad", f->options.read.skip_bad,
                "count and report bad lines instead of stopping");
  app->add_option("--max-doc-bytes", f->options.read.max_document_bytes,
                  "largest document accepted")
      ->capture_default_str();
  app->add_option("--ledger", f->ledger_path, "receipt ledger")->capture_default_str();
  app->add_option("--dsir-buckets", f->options.dsir.buckets, "dsir: hashed feature buckets")
      ->capture_default_str();
  app->add_option("--dsir-ngrams", f->options.dsir.ngrams,
                  "dsir: 1 = unigrams, 2 = unigrams + bigrams")
      ->capture_default_str();
  app->add_option("--dsir-smoothing", f->options.dsir.smoothing, "dsir: pseudo-count per bucket")
      ->capture_default_str();
  app->add_option("--dsir-length", f->options.dsir.length,
                  "dsir: normalize (per 128-word chunk) | sum")
      ->capture_default_str();
  app->add_option("--clf-dim", f->options.classifier.dim, "classifier: embedding size")
      ->capture_default_str();
  app->add_option("--clf-epochs", f->options.classifier.epochs, "classifier: epochs")
      ->capture_default_str();
  app->add_option("--clf-negative-ratio", f->options.classifier.negative_ratio,
                  "classifier: negative bytes per target byte")
      ->capture_default_str();
  app->add_option("--mpi-cut", f->options.mpi_cut,
                  "under mpirun: how the ranks find the budget cut, radix | gather (doc/mpi.md)")
      ->capture_default_str();
  app->add_flag("--json", f->json, "print one JSON document on stdout");
  app->add_flag("--quiet", f->quiet, "no progress on stderr");
}

}  // namespace

int RunSelect(int argc, char** argv) {
  CLI::App app;
  Describe(
      app, "select",
      "Keep the part of a pool that is most like a target (dsir, classifier), or a baseline\n"
      "(random, first), up to a budget: --keep of the pool's text bytes, --keep-docs documents or\n"
      "--keep-bytes text bytes. Writes the kept lines byte for byte to --out (compressed when\n"
      "its name ends in .zst or .gz), a manifest beside it, and a receipt to the ledger;\n"
      "--annotate writes every pool document's score and whether it was kept.\n\n"
      "Example:\n  preflight select --pool data/brown/pools/cj.jsonl --target "
      "data/brown/targets/cj.select.jsonl \\\n      --selector dsir --keep 0.25 --seed 1 --out "
      "out/cj.dsir.jsonl");
  SelectFlags f;
  f.options.threads = 0;  // every core unless --threads says otherwise
  AddSelectFlags(&app, &f);
  if (int code = Parse(app, argc, argv); code >= 0) return code;
  app::SelectRequest request{f.pool, f.target, f.options, f.ledger_path};
  if (Status st = ApplyBudget(f.budget, &request.options); !st.ok()) return Fail("select", st);

  std::string stage;
  std::unique_ptr<Progress> bar;
  auto progress = [&](const ProgressReport& p) {
    if (p.stage != stage) {
      if (bar) bar->Finish();
      stage = p.stage;
      bar = std::make_unique<Progress>("select " + request.options.selector + ": " + p.stage,
                                       static_cast<double>(p.total), p.unit, !f.quiet);
    }
    bar->Update(static_cast<double>(p.done));
  };
  Result<app::SelectJob> job = app::RunSelectJob(request, progress);
  if (bar) bar->Finish();
  if (!job.ok()) {
    // Every rank fails alike; only rank 0 says so.
    return app::IsLeaderProcess() ? Fail("select", job.status()) : job.status().ExitCode();
  }
  if (!job->leader) return 0;
  for (const std::string& line : app::SkippedLines(job->result)) {
    std::fprintf(stderr, "preflight select: %s\n", line.c_str());
  }
  if (job->result.replaced_orphan) {
    std::fprintf(stderr,
                 "preflight select: replaced %s, an output without its manifest (left by an "
                 "interrupted selection)\n",
                 job->options.out_path.c_str());
  }
  if (f.json) {
    EmitJson(app::SelectJobJson(*job));
  } else {
    std::fputs(app::SelectJobText(*job).c_str(), stdout);
  }
  return 0;
}

}  // namespace preflight::cli
