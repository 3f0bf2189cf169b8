// preflight report RUN/: re-render a finished trial's report.html from its run folder (the
// numbers are recomputed from the recorded curves; nothing is trained).

#include <cstdio>

#include "app/trial_job.h"
#include "base/file.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "ledger/writable.h"

namespace preflight::cli {

int RunReport(int argc, char** argv) {
  CLI::App app;
  Describe(app, "report",
           "Re-render a finished trial's report.html from its run folder: the curves recorded\n"
           "in RUN/trial.json, the numbers recomputed (nothing is trained), the receipt hash\n"
           "from RUN/result.json. A damaged run folder exits 2 naming the file and the JSON\n"
           "path (doc/trial-format.md).\n\n"
           "Example:\n  preflight report out/demo/trial-cj");
  std::string run_dir;
  bool json = false;
  app.add_option("run", run_dir, "the trial's run folder (its --out)")->required();
  app.add_flag("--json", json, "print one JSON document on stdout");
  if (int code = Parse(app, argc, argv); code >= 0) return code;
  if (PathExists(run_dir)) {  // report.html is rewritten there (a missing folder: no trial)
    Status st = ledger::CheckWritableFile(JoinPath(run_dir, "report.html"), "RUN folder");
    if (!st.ok()) return Fail("report", st);
  }
  auto job = app::LoadTrialJob(run_dir);
  if (!job.ok()) return Fail("report", job.status());
  if (Status st = app::WriteTrialReport(*job); !st.ok()) return Fail("report", st);
  if (json) {
    EmitJson({{"report", job->report_path}, {"receipt", job->receipt_hash}});
  } else {
    std::printf("%s\n", job->report_path.c_str());
  }
  return 0;
}

}  // namespace preflight::cli
