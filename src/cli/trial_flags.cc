#include "cli/trial_flags.h"

#include <fmt/format.h>

#include "cost/hardware_catalog.h"

namespace preflight::cli {

void AddFieldFlags(CLI::App& app, trial::TrialSpec& c) {
  app.add_option("--text-field", c.text_field,
                 "the pool's text field (and the target's, unless --target-text-field)")
      ->capture_default_str();
  app.add_option("--id-field", c.id_field,
                 "the pool's id field (without one: <file>:<line>; the target's, unless "
                 "--target-id-field)")
      ->capture_default_str();
  app.add_option("--target-text-field", c.target_text_field,
                 "the text field of the target files (default: --text-field)");
  app.add_option("--target-id-field", c.target_id_field,
                 "the id field of the target files (default: --id-field)");
}

void AddSpecFlags(CLI::App& app, trial::TrialSpec& spec) {
  AddFieldFlags(app, spec);
  app.add_option("--selector", spec.selector, "dsir | classifier | first")->capture_default_str();
  app.add_option("--keep", spec.keep, "fraction of the pool's bytes per arm")
      ->capture_default_str();
  app.add_option("--selection-seed", spec.selection_seed, "seed of the selections")
      ->capture_default_str();
  app.add_option("--seeds", spec.seeds, "runs per arm (seeds 1..N, paired across arms)")
      ->capture_default_str();
  app.add_option("--lr", spec.lr, "peak learning rate")->capture_default_str();
}

void AddEvalFlags(CLI::App& app, trial::TrialConfig& c) {
  app.add_option("--eval-every", c.eval_every, "steps between evals (0 = steps/20)")
      ->capture_default_str();
  app.add_option("--eval-windows", c.eval_max_windows, "eval windows (0 = all of the eval file)")
      ->capture_default_str();
}

void AddTrialDataFlags(CLI::App& app, trial::TrialConfig& c) {
  app.add_option(
         "--pool", c.pool,
         "pool files or folders (JSONL, .gz, .zst, Parquet, plain text; a kept folder of select)")
      ->required();
  app.add_option("--target-select", c.target_select, "target documents the selector may read")
      ->required();
  app.add_option("--target-eval", c.target_eval, "held-out target documents (evaluation only)")
      ->required();
  app.add_option("--target-name", c.target_name, "a name for the target in the lab record");
  AddSpecFlags(app, c);
  AddEvalFlags(app, c);
  AddThreadFlags(app, c);
}

void AddThreadFlags(CLI::App& app, trial::TrialConfig& c) {
  app.add_option("--threads", c.threads, "threads")->capture_default_str();
  app.add_option("--runs-at-once", c.runs_at_once,
                 "builtin runs trained side by side, one thread each (0 = auto: one per thread "
                 "for models under 500k parameters; results are identical either way)")
      ->capture_default_str();
}

const char kTrainerHelp[] =
    "Trainers (doc/trainers.md): --trainer builtin (the default) trains in this process;\n"
    "--trainer torch launches the project's PyTorch trainer per run (--device cuda on a GPU,\n"
    "--torch-launcher 'torchrun --standalone --nproc_per_node 8' for several);\n"
    "--trainer cmd --trainer-cmd 'TEMPLATE' launches any command per run through /bin/sh, in\n"
    "the run's folder, with {placeholders} filled in (single-quoted) and exported as\n"
    "PREFLIGHT_<NAME>: {arm} {seed} {run_dir} {train_bin} {train_jsonl} {train_llmc} {eval_bin}\n"
    "{eval_jsonl} {eval_llmc} {steps} {tokens_per_step} {eval_every} {eval_bytes} {curve} ...\n"
    "The run writes its curve to {curve} (jsonl: {\"step\",\"tokens\",\"eval_bpb\"} per eval, or\n"
    "--curve-format csv|llmc|hf|nanogpt); --parallel N runs N at a time. Each run is its own\n"
    "process group, ended with the trial (Ctrl-C, SIGTERM) and by --run-timeout (none by\n"
    "default) or --stall-timeout (no change in its curve or logs for 1800 s). Example:\n"
    "  --trainer cmd --parallel 2 --trainer-cmd 'python3 my_train.py --data {train_bin} \\\n"
    "      --eval {eval_bin} --steps {steps} --eval-every {eval_every} --seed {seed} \\\n"
    "      --curve {curve}'\n";

void AddTrainerFlags(CLI::App& app, trainer::TrainerSpec& t, app::PriceFlags& prices) {
  app.add_option("--trainer", t.kind, "builtin | torch | cmd (doc/trainers.md)")
      ->capture_default_str();
  app.add_option("--trainer-cmd", t.command,
                 "cmd: the command launched per run, with {placeholders}, e.g. 'python3 train.py "
                 "--data {train_bin} --eval {eval_bin} --steps {steps} --curve {curve}'");
  app.add_option("--parallel", t.parallel, "torch, cmd: runs launched at a time")
      ->capture_default_str();
  app.add_option("--device", t.device, "cpu | cuda: {device}; where torch trains")
      ->capture_default_str();
  app.add_option("--torch-launcher", t.launcher,
                 "torch: what starts the script, e.g. 'torchrun --standalone --nproc_per_node 8'")
      ->capture_default_str();
  app.add_option("--curve-format", t.curve_format,
                 "auto | jsonl | csv | llmc | hf | nanogpt: how a run's curve is read back")
      ->capture_default_str();
  app.add_option("--curve-file", t.curve_file,
                 "where a run writes its curve, relative to its folder (default by format: "
                 "curve.jsonl, metrics.csv, main.log, trainer_state.json, stdout.log)");
  app.add_option("--curve-columns", t.curve_columns,
                 "csv: step=COL,loss=COL[,tokens=COL] (loss in nats per token; or bpb=COL)");
  app.add_option("--eval-tokens", t.eval_tokens,
                 "the eval set's length in the trainer's tokens, to turn its loss per token into "
                 "bits per byte (default: its byte tokens)");
  app.add_option("--params", t.params, "the trainer's parameters, when its run.json omits them");
  app.add_option("--flops-per-step", t.flops_per_step,
                 "the trainer's FLOPs per step, when its run.json omits them");
  app.add_option("--run-timeout", t.run_timeout,
                 "torch, cmd: seconds a launched run may take; past them it is stopped (its "
                 "whole process group: SIGTERM, SIGKILL 5 s later) and the trial exits 1 with "
                 "its log tail (0 = no limit)")
      ->capture_default_str();
  app.add_option("--stall-timeout", t.stall_timeout,
                 "torch, cmd: seconds a launched run may go without its curve or its logs "
                 "changing; then it is stopped likewise (0 = no limit)")
      ->capture_default_str();
  app.add_option("--gpu", prices.gpu,
                 "torch, cmd: the net in dollars prices training at this GPU's catalogue price: " +
                     cost::KnownGpuNames());
  app.add_option("--price", prices.price,
                 "torch, cmd: dollars per device-hour of a run (default: --gpu's; --device cuda: "
                 "the catalogue's " +
                     std::string(cost::kDefaultGpu) + "; --device cpu: --threads x --cpu-price)");
  app.add_option("--cpu-price", prices.cpu_price,
                 fmt::format("torch, cmd: dollars per CPU core-hour of selection and forecast "
                             "(default {}: AWS c5 on-demand per vCPU-hour)",
                             cost::kCpuUsdPerCoreHour));
}

Status ApplyPriceFlags(const app::PriceFlags& prices, trial::TrialConfig& config) {
  PF_ASSIGN_OR_RETURN(config.prices, app::ResolvePrices(prices, config.trainer, config.threads));
  return Status::Ok();
}

Result<std::vector<app::PlanCandidate>> MeasureBudgetCandidates(const ModelFlags& shape,
                                                                int threads) {
  return app::MeasureCandidates(threads, [&](const std::string& name) {
    ModelFlags m = shape;
    m.name = name;
    return m.Resolve();
  });
}

}  // namespace preflight::cli
