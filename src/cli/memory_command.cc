// preflight memory: flags -> app::MemoryRequest -> app::RunMemory -> the report (stdout, or
// stderr under --json) and the JSON document. The job is in src/app/cost_memory_job.h.

#include <cstdio>
#include <string>

#include "app/cost_memory_job.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cost/hardware_catalog.h"

namespace preflight::cli {

int RunMemory(int argc, char** argv) {
  CLI::App app;
  Describe(app, "memory",
           "Memory per GPU. Training: 16 bytes/param of mixed-precision AdamW state (ZeRO 1-3 "
           "split it over data-parallel GPUs) plus activations (Korthikanti et al. 2022, with "
           "none/selective/full recomputation). Inference: weights at fp16/int8/int4 and the KV "
           "cache.");
  app::MemoryRequest r;
  bool no_sequence_parallel = false, as_json = false;
  app.add_option("--params", r.params, "parameters (default: 12 L h^2 + 13 L h + (vocab + seq) h)");
  app.add_option("--layers", r.shape.layers, "transformer layers L")->required();
  app.add_option("--hidden", r.shape.hidden, "hidden size h")->required();
  app.add_option("--heads", r.shape.heads, "attention heads a")->required();
  app.add_option("--kv-heads", r.kv_heads,
                 "key/value heads (grouped-query attention; default: "
                 "--heads)");
  app.add_option("--vocab", r.vocab, "vocabulary, only for the default parameter count")
      ->capture_default_str();
  app.add_option("--seq", r.train.sequence, "training sequence length s")->capture_default_str();
  app.add_option("--micro-batch", r.train.micro_batch, "sequences per GPU per micro-step b")
      ->capture_default_str();
  app.add_option("--recompute", r.recompute, "activation recomputation: none, selective, full")
      ->capture_default_str();
  app.add_option("--zero", r.train.zero_stage, "ZeRO stage 0-3 over the data-parallel GPUs")
      ->capture_default_str();
  app.add_option("--gpus", r.train.gpus, "GPUs in all (data parallel = gpus / tensor-parallel)")
      ->capture_default_str();
  app.add_option("--tensor-parallel", r.train.tensor_parallel, "tensor-parallel size t")
      ->capture_default_str();
  app.add_flag("--no-sequence-parallel", no_sequence_parallel,
               "tensor parallelism without sequence parallelism");
  app.add_option("--batch", r.infer.batch, "inference batch (sequences)")->capture_default_str();
  app.add_option("--context", r.context, "inference context length (default: --seq)");
  app.add_option("--kv-bytes", r.infer.kv_bytes, "bytes per cached K/V value (2 = fp16, 1 = fp8)")
      ->capture_default_str();
  app.add_option("--weights", r.weights,
                 "inference weight precision for the total: fp16, int8, int4")
      ->capture_default_str();
  app.add_option("--gpu", r.gpu, "say whether it fits on this GPU: " + cost::KnownGpuNames());
  app.add_flag("--json", as_json, "print one JSON document on stdout");
  if (int rc = Parse(app, argc, argv); rc >= 0) return rc;
  r.sequence_parallel = !no_sequence_parallel;

  auto outcome = app::RunMemory(r);
  if (!outcome.ok()) return Fail("memory", outcome.status());
  std::fputs(app::MemoryText(*outcome).c_str(), as_json ? stderr : stdout);
  if (as_json) EmitJson(app::MemoryToJson(*outcome));
  return 0;
}

}  // namespace preflight::cli
