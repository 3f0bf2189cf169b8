#include "trainer/curve_reader.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "base/file.h"
#include "trainer/curve_formats.h"

namespace preflight::trainer {
namespace {

struct FormatName {
  CurveFormat format;
  const char* name;
  const char* file;
};
constexpr FormatName kFormats[] = {
    {CurveFormat::kAuto, "auto", "curve.jsonl"},
    {CurveFormat::kJsonl, "jsonl", "curve.jsonl"},
    {CurveFormat::kCsv, "csv", "metrics.csv"},
    {CurveFormat::kLlmc, "llmc", "main.log"},
    {CurveFormat::kHf, "hf", "trainer_state.json"},
    {CurveFormat::kNanogpt, "nanogpt", "stdout.log"},
};

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Status PointError(const std::string& path, const RawPoint& p, const std::string& what) {
  if (p.line > 0) return curve_text::LineError(path, p.line, what);
  if (!p.where.empty()) return Status::Corruption(path + ": " + p.where + ": " + what);
  return Status::Corruption(path + ": " + what);
}

// What a file's lines look like: the formats whose lines it holds.
std::set<CurveFormat> FormatsByContent(const std::string& text) {
  std::set<CurveFormat> seen;
  const nlohmann::json whole = nlohmann::json::parse(text, nullptr, false);
  if (!whole.is_discarded() && whole.is_object() && whole.contains("log_history")) {
    return {CurveFormat::kHf};
  }
  for (std::string_view l : curve_text::Lines(text)) {
    if (l.substr(0, 2) == "s:" && l.find(" tel:") != std::string_view::npos) {
      seen.insert(CurveFormat::kLlmc);
    } else if (l.substr(0, 5) == "step " && l.find(": train loss ") != std::string_view::npos) {
      seen.insert(CurveFormat::kNanogpt);
    } else if (!l.empty() && l.front() == '{') {
      const nlohmann::json obj = nlohmann::json::parse(l, nullptr, false);
      if (!obj.is_discarded() && obj.is_object() && obj.contains("step")) {
        seen.insert(CurveFormat::kJsonl);
      }
    }
  }
  return seen;
}

}  // namespace

Result<CurveFormat> ParseCurveFormat(const std::string& name) {
  std::string known;
  for (const FormatName& f : kFormats) {
    if (name == f.name) return f.format;
    known += std::string(known.empty() ? "" : ", ") + f.name;
  }
  return Status::InvalidArgument("--curve-format '" + name + "' is not one of " + known);
}

std::string CurveFormatName(CurveFormat format) {
  for (const FormatName& f : kFormats) {
    if (f.format == format) return f.name;
  }
  return "auto";
}

std::string DefaultCurveFile(CurveFormat format) {
  for (const FormatName& f : kFormats) {
    if (f.format == format) return f.file;
  }
  return "curve.jsonl";
}

Result<CurveColumns> ParseCurveColumns(const std::string& text) {
  CurveColumns c;
  if (text.empty()) return c;
  c = CurveColumns{"", "", "", ""};
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma - start);
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq),
                      column = eq == std::string::npos ? "" : item.substr(eq + 1);
    std::string* slot = key == "step"     ? &c.step
                        : key == "loss"   ? &c.loss
                        : key == "bpb"    ? &c.bpb
                        : key == "tokens" ? &c.tokens
                                          : nullptr;
    if (slot == nullptr || column.empty()) {
      return Status::InvalidArgument("--curve-columns: '" + item +
                                     "' is not KEY=COLUMN with KEY step, loss, bpb or tokens "
                                     "(e.g. step=step,loss=val_loss)");
    }
    *slot = column;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (c.step.empty()) c.step = "step";
  if (c.loss.empty() == c.bpb.empty()) {
    return Status::InvalidArgument("--curve-columns '" + text +
                                   "': name one loss column, loss=COL (nats per token) or bpb=COL");
  }
  return c;
}

CurveFormat CurveFormatFromName(const std::string& path) {
  const std::string name = BaseName(path);
  if (EndsWith(name, ".jsonl")) return CurveFormat::kJsonl;
  if (EndsWith(name, ".csv")) return CurveFormat::kCsv;
  if (name == "trainer_state.json") return CurveFormat::kHf;
  if (name == "main.log") return CurveFormat::kLlmc;
  return CurveFormat::kAuto;
}

Result<CurveFormat> DetectCurveFormat(const std::string& path) {
  if (CurveFormat by_name = CurveFormatFromName(path); by_name != CurveFormat::kAuto) {
    return by_name;
  }
  PF_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  const std::set<CurveFormat> seen = FormatsByContent(text);
  if (seen.size() == 1) return *seen.begin();
  return Status::InvalidArgument(path +
                                 (seen.empty() ? ": no line of a known curve format"
                                               : ": lines of more than one curve format") +
                                 "; give --curve-format jsonl|csv|llmc|hf|nanogpt");
}

Result<RawCurve> ReadRawCurve(const std::string& path, CurveFormat format,
                              const CurveColumns& columns) {
  if (!PathExists(path)) return Status::NotFound(path + ": no curve there");
  if (format == CurveFormat::kAuto) {
    PF_ASSIGN_OR_RETURN(format, DetectCurveFormat(path));
  }
  PF_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  switch (format) {
    case CurveFormat::kJsonl:
      return ReadJsonlCurve(path, text);
    case CurveFormat::kCsv:
      return ReadCsvCurve(path, text, columns);
    case CurveFormat::kLlmc:
      return ReadLlmcCurve(path, text);
    case CurveFormat::kHf:
      return ReadHfCurve(path, text);
    case CurveFormat::kNanogpt:
      return ReadNanogptCurve(path, text);
    case CurveFormat::kAuto:
      break;
  }
  return Status::Internal("unreachable curve format");
}

Result<std::vector<EvalPoint>> ToEvalCurve(const RawCurve& raw, const CurveUnits& units) {
  if (units.eval_bytes <= 0) return Status::Internal("ToEvalCurve: eval_bytes must be positive");
  std::vector<EvalPoint> out;
  for (const RawPoint& p : raw.points) {
    if (p.step < 0)
      return PointError(raw.path, p, "step " + std::to_string(p.step) + " is negative");
    if (!out.empty() && p.step <= out.back().step) {
      return PointError(raw.path, p,
                        "step " + std::to_string(p.step) + " after step " +
                            std::to_string(out.back().step) + ": steps must strictly increase");
    }
    if (!std::isfinite(p.value) || p.value < 0) {
      return PointError(raw.path, p,
                        "the eval loss at step " + std::to_string(p.step) +
                            " is not a finite non-negative number");
    }
    const int64_t eval_tokens = p.eval_tokens           ? *p.eval_tokens
                                : units.eval_tokens > 0 ? units.eval_tokens
                                                        : units.eval_bytes;
    if (eval_tokens <= 0) return PointError(raw.path, p, "eval_tokens must be positive");
    EvalPoint e;
    e.step = p.step;
    // step x tokens per step can overflow for a step no run reaches (found by the fuzzers).
    if (!p.tokens && __builtin_mul_overflow(p.step, units.tokens_per_step, &e.tokens)) {
      return PointError(raw.path, p,
                        "step " + std::to_string(p.step) + " times " +
                            std::to_string(units.tokens_per_step) +
                            " tokens per step does not fit in 64 bits");
    }
    if (p.tokens) e.tokens = *p.tokens;
    if (e.tokens < 0 || (!out.empty() && e.tokens < out.back().tokens)) {
      return PointError(raw.path, p,
                        "training tokens " + std::to_string(e.tokens) + " at step " +
                            std::to_string(p.step) +
                            " are negative or fewer than at the eval before");
    }
    e.eval_bpb = p.bits_per_byte ? p.value
                                 : p.value / std::log(2.0) * static_cast<double>(eval_tokens) /
                                       static_cast<double>(units.eval_bytes);
    out.push_back(e);
  }
  return out;
}

Status CheckCurveComplete(const std::vector<EvalPoint>& curve, int64_t steps,
                          const std::string& path) {
  if (curve.empty()) {
    return Status::InvalidArgument(path + ": the curve has no eval point (a run of " +
                                   std::to_string(steps) + " steps must end with one at step " +
                                   std::to_string(steps) + ")");
  }
  const int64_t last = curve.back().step;
  if (last < steps) {
    return Status::InvalidArgument(path + ": the curve is short: it ends at step " +
                                   std::to_string(last) + " of " + std::to_string(steps));
  }
  if (last > steps) {
    return Status::InvalidArgument(path + ": the curve runs to step " + std::to_string(last) +
                                   ", beyond the " + std::to_string(steps) + " steps asked for");
  }
  return Status::Ok();
}

}  // namespace preflight::trainer
