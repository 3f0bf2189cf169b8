#pragma once
// One reader per curve format (doc/trainers.md, "Curves read back"), each over the file's text,
// and the line helpers they share. curve_reader.h dispatches to them; tests call them directly.
// Every error is a Corruption "<file>:<line>: <what>" (or "<file>: $.path: <what>" for JSON
// documents).

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "trainer/curve_reader.h"

namespace preflight::trainer {

// preflight's own: one JSON object per line with "step", optional "tokens", and "eval_bpb" or
// "eval_loss" (nats per token) with optional "eval_tokens". Blank lines are skipped.
Result<RawCurve> ReadJsonlCurve(const std::string& path, std::string_view text);
// A header row, then rows; `columns` names the step, the loss (or bpb) and optionally the
// tokens. Rows whose loss cell is empty are skipped (litgpt writes train and eval rows apart).
Result<RawCurve> ReadCsvCurve(const std::string& path, std::string_view text,
                              const CurveColumns& columns);
// llm.c's main.log: "s:N tel:X" lines (X: eval loss in nats per token); other lines ignored.
Result<RawCurve> ReadLlmcCurve(const std::string& path, std::string_view text);
// The HF Trainer's trainer_state.json: "log_history" entries holding "eval_loss" (with "step",
// and "num_input_tokens_seen" when the trainer counted them).
Result<RawCurve> ReadHfCurve(const std::string& path, std::string_view text);
// nanoGPT's stdout: "step N: train loss X, val loss Y" lines; other lines ignored.
Result<RawCurve> ReadNanogptCurve(const std::string& path, std::string_view text);

namespace curve_text {

// The file's lines without their line ends ('\n', "\r\n").
std::vector<std::string_view> Lines(std::string_view text);
// Corruption "<path>:<line>: <what>".
Status LineError(const std::string& path, int line, const std::string& what);
// Whole-string parses (surrounding spaces allowed); false on anything else.
bool ParseInt(std::string_view text, int64_t* out);
bool ParseNumber(std::string_view text, double* out);  // also "nan", "inf"
// A log format's points: a step logged again (a resumed run logs it anew) keeps its last line;
// the points come out in step order.
void KeepLastPerStep(RawCurve& curve);

}  // namespace curve_text
}  // namespace preflight::trainer
