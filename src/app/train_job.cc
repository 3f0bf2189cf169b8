#include "app/train_job.h"

#include "ledger/ledger.h"
#include "ledger/writable.h"
#include "engine/blas.h"
#include "engine/config.h"
#include "engine/data.h"

namespace preflight::app {
namespace {

// A file's identity for the receipt, from the read that also gave its documents.
ledger::InputRecord RecordOf(const engine::JsonlTexts& file, const std::string& role) {
  return {role, file.input.path, file.input.sha256, file.input.docs, file.input.text_bytes};
}

nlohmann::json ScheduleJson(const engine::TrainResult& r) {
  if (r.schedule.empty()) return nullptr;
  nlohmann::json trace = nlohmann::json::array();
  for (const auto& [step, change] : r.trigger_trace) trace.push_back({step, change});
  return {{"spec", r.schedule},
          {"flops", r.flops},
          {"frozen_flops_per_step", r.frozen_flops_per_step},
          {"frozen_at", r.frozen_at},
          {"stopped_early", r.stopped_early},
          {"trigger",
           {{"flops", r.trigger_flops},
            {"core_seconds", r.trigger_core_seconds},
            {"seconds", r.trigger_seconds},
            {"checks", r.trigger_checks},
            {"relative_change", trace}}}};
}

nlohmann::json ModelJson(const TrainJob& job) {
  const engine::ModelConfig& m = job.request.options.model;
  return {{"name", job.request.model_name},
          {"params", job.result.params},
          {"non_embedding_params", engine::NonEmbeddingParamCount(m)},
          {"layers", m.layers},
          {"d_model", m.d_model},
          {"heads", m.heads},
          {"context", m.context},
          {"batch", m.batch}};
}

Status AppendTrainReceipt(TrainJob& job) {
  const engine::TrainOptions& o = job.request.options;
  const engine::TrainResult& r = job.result;
  ledger::Receipt receipt;
  receipt.kind = ledger::ReceiptKind::kTrain;
  receipt.inputs = {job.data, job.eval};
  receipt.config = {{"model", engine::ModelToJson(job.request.model_name, o.model)},
                    {"steps", o.steps},
                    {"seed", o.seed},
                    {"lr", o.lr},
                    {"schedule", o.schedule},
                    {"text_field", o.text_field},
                    {"eval_text_field", o.EvalTextField()},
                    {"eval_every", o.eval_every},
                    {"eval_max_windows", o.eval_max_windows},
                    {"threads", o.threads}};
  // What `fit --ledger` reads: params, tokens and the final held-out loss (bits per byte).
  receipt.result = {{"model", ModelJson(job)},
                    {"params", r.params},
                    {"tokens", r.steps * r.tokens_per_step},
                    {"flops", r.flops},
                    {"final_eval_bpb", r.final_eval_bpb},
                    {"data_sha256", job.data.sha256},
                    {"steps", r.steps}};
  receipt.core_seconds = r.core_seconds;
  receipt.flops = r.flops;
  PF_ASSIGN_OR_RETURN(job.receipt_hash, ledger::AppendReceipt(job.request.ledger_path, receipt));
  return Status::Ok();
}

}  // namespace

Status CheckTrainOutputs(const TrainRequest& request) {
  PF_RETURN_IF_ERROR(ledger::CheckAppendable(request.ledger_path));
  return ledger::CheckWritableFolder(request.options.run_dir, "--out");
}

Result<TrainJob> RunTrainJob(const TrainRequest& request, const ProgressFn& progress) {
  TrainJob job;
  job.request = request;
  PF_RETURN_IF_ERROR(CheckTrainOutputs(request));
  const engine::TrainOptions& o = request.options;
  PF_RETURN_IF_ERROR(engine::ValidateModel(o.model));
  // Each file is read once: its documents train (or evaluate), its identity goes in the receipt.
  PF_ASSIGN_OR_RETURN(engine::JsonlTexts data, engine::ReadJsonlFile(o.data_path, o.text_field));
  PF_ASSIGN_OR_RETURN(engine::JsonlTexts eval, engine::ReadJsonlFile(o.eval_path, o.EvalTextField()));
  job.data = RecordOf(data, "data");
  job.eval = RecordOf(eval, "eval");
  PF_ASSIGN_OR_RETURN(job.result, engine::TrainOnDocuments(o, data.texts, eval.texts, progress));
  PF_RETURN_IF_ERROR(AppendTrainReceipt(job));
  return job;
}

nlohmann::json TrainJson(const TrainJob& job) {
  const engine::TrainResult& r = job.result;
  nlohmann::json curve = nlohmann::json::array();
  for (const auto& p : r.curve) curve.push_back({{"step", p.step}, {"eval_bpb", p.eval_bpb}});
  return {{"model", ModelJson(job)},
          {"steps", r.steps},
          {"seed", job.request.options.seed},
          {"tokens_per_step", r.tokens_per_step},
          {"tokens_per_second", r.tokens_per_second},
          {"flops_per_step", r.flops_per_step},
          {"flops_per_token", engine::FlopsPerToken(job.request.options.model)},
          {"curve", curve},
          {"final_eval_bpb", r.final_eval_bpb},
          {"core_seconds", r.core_seconds},
          {"resumed", r.resumed},
          {"blas", engine::BlasName()},
          {"run_dir", job.request.options.run_dir},
          {"schedule", ScheduleJson(r)},
          {"receipt", job.receipt_hash}};
}

}  // namespace preflight::app
