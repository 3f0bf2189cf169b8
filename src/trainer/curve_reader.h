#pragma once
// A run's eval curve read back from the file its trainer wrote (doc/trainers.md, "Curves read
// back"), in any of the forms trainers already write, and turned into the trial's unit: bits per
// byte of the eval set, at each eval step, with the training tokens seen before it.
//
// Reading is two steps. A reader per format (curve_formats.h) gives the points as the file states
// them (RawCurve: a loss in bits per byte, or in nats per token of the trainer's tokenizer).
// ToEvalCurve then converts every loss to bits per byte through the eval set's token and byte
// counts, fills in tokens a format does not state, and checks the points. Every failure is a
// Status naming the file and the line (or JSON path): Corruption for a malformed file, NotFound
// for a missing one. Pure functions over the file's bytes; thread-safe.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace preflight::trainer {

enum class CurveFormat { kAuto, kJsonl, kCsv, kLlmc, kHf, kNanogpt };

// "auto", "jsonl", "csv", "llmc", "hf", "nanogpt"; InvalidArgument listing them for anything else.
Result<CurveFormat> ParseCurveFormat(const std::string& name);
std::string CurveFormatName(CurveFormat format);
// The file a format's trainers write, relative to the run folder: curve.jsonl, metrics.csv,
// main.log, trainer_state.json, stdout.log (auto: curve.jsonl).
std::string DefaultCurveFile(CurveFormat format);

// csv: which columns hold the step, the eval loss (nats per token) or the eval bits per byte, and
// optionally the training tokens. Text form "step=step,loss=val_loss[,tokens=COL]" (or bpb=COL
// instead of loss=COL); empty text is litgpt's metrics.csv: step=step,loss=val_loss.
struct CurveColumns {
  std::string step = "step";
  std::string loss = "val_loss";
  std::string bpb;
  std::string tokens;
};
Result<CurveColumns> ParseCurveColumns(const std::string& text);

// One eval point as the file states it. `line` is the 1-based line (0 for JSON documents, whose
// `where` names the JSON path) that errors about the point name.
struct RawPoint {
  int64_t step = 0;
  std::optional<int64_t> tokens;       // training tokens before this eval, when stated
  double value = 0;                    // the eval loss: bits per byte, or nats per token
  bool bits_per_byte = false;          // true: value is already bits per byte
  std::optional<int64_t> eval_tokens;  // the eval set's token count, when the point states it
  int line = 0;
  std::string where;
};

struct RawCurve {
  std::string path;
  std::vector<RawPoint> points;  // in file order (log formats: by step, the last line per step)
};

// The format of `path` when `format` is kAuto: by its name (*.jsonl, *.csv, trainer_state.json,
// main.log), else by its lines ('s:N tel:X' llm.c, 'step N: train loss X, val loss Y' nanoGPT,
// JSON objects with "step"). InvalidArgument naming the file when it cannot tell.
Result<CurveFormat> DetectCurveFormat(const std::string& path);
// The format `path` has by its name alone, when the name settles it (kAuto otherwise).
CurveFormat CurveFormatFromName(const std::string& path);

// Reads `path` in `format` (kAuto: DetectCurveFormat). NotFound when the file is missing.
Result<RawCurve> ReadRawCurve(const std::string& path, CurveFormat format,
                              const CurveColumns& columns = {});

// One point of a curve in the trial's unit.
struct EvalPoint {
  int64_t step = 0;
  int64_t tokens = 0;   // training tokens before this eval
  double eval_bpb = 0;  // bits per byte of the eval set
};

// How losses become bits per byte: bpb = loss / ln 2 x eval_tokens / eval_bytes, eval_tokens
// being the point's own, else `eval_tokens`, else eval_bytes (a byte-level trainer: 1:1).
struct CurveUnits {
  int64_t eval_bytes = 0;       // the eval set's length in byte tokens ({eval_bytes})
  int64_t eval_tokens = 0;      // in the trainer's tokenizer; 0 = eval_bytes
  int64_t tokens_per_step = 0;  // tokens = step x this where the curve states none
};

// The curve in bits per byte. Corruption naming the file and line for a negative step, steps
// that do not strictly increase, a non-finite or negative loss, or tokens that decrease.
Result<std::vector<EvalPoint>> ToEvalCurve(const RawCurve& raw, const CurveUnits& units);

// Whether a curve is complete for a run of `steps` steps: it has points and its last is at
// `steps` (ToEvalCurve already checked the rest). InvalidArgument naming the file and the last
// step otherwise ("short": it ends at step 40 of 100).
Status CheckCurveComplete(const std::vector<EvalPoint>& curve, int64_t steps,
                          const std::string& path);

}  // namespace preflight::trainer
