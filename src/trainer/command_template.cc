#include "trainer/command_template.h"

#include <algorithm>
#include <cctype>
#include <functional>

namespace preflight::trainer {
namespace {

bool IsNameStart(char c) { return c >= 'a' && c <= 'z'; }
bool IsNameChar(char c) { return IsNameStart(c) || (c >= '0' && c <= '9') || c == '_'; }

// Walks `text`, handing each placeholder's name to `on_name` (which appends its replacement or
// fails) and appending everything else to `out`.
Status Walk(const std::string& text, std::string* out,
            const std::function<Status(const std::string&)>& on_name) {
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if ((c == '{' && next == '{') || (c == '}' && next == '}')) {
      *out += c;
      ++i;
    } else if (c == '$' && next == '{') {
      const size_t close = text.find('}', i);
      const size_t end = close == std::string::npos ? text.size() : close + 1;
      *out += text.substr(i, end - i);
      i = end - 1;
    } else if (c == '{' && IsNameStart(next)) {
      size_t j = i + 1;
      while (j < text.size() && IsNameChar(text[j])) ++j;
      if (j < text.size() && text[j] == '}') {
        PF_RETURN_IF_ERROR(on_name(text.substr(i + 1, j - i - 1)));
        i = j;
      } else {
        *out += c;
      }
    } else {
      *out += c;
    }
  }
  return Status::Ok();
}

std::string Listed(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "{" : ", {") + n + "}";
  return out;
}

}  // namespace

const std::vector<std::string>& CmdPlaceholderNames() {
  static const std::vector<std::string> kNames = {
      "arm",           "seed",           "run_dir",      "train_jsonl", "train_bin",
      "train_llmc",    "train_manifest", "eval_jsonl",   "eval_bin",    "eval_llmc",
      "eval_manifest", "vocab",          "boundary",     "steps",       "tokens_per_step",
      "eval_every",    "eval_bytes",     "curve",        "model",       "layers",
      "d_model",       "heads",          "context",      "batch",       "lr",
      "warmup_steps",  "min_lr_ratio",   "eval_windows", "threads",     "device"};
  return kNames;
}

Status CheckTemplate(const std::string& text, const std::vector<std::string>& known) {
  std::string ignored;
  return Walk(text, &ignored, [&](const std::string& name) -> Status {
    if (std::find(known.begin(), known.end(), name) != known.end()) return Status::Ok();
    return Status::InvalidArgument("--trainer-cmd: unknown placeholder {" + name +
                                   "}; the placeholders are " + Listed(known) +
                                   " (write {{ and }} for literal braces)");
  });
}

Result<std::string> ExpandTemplate(const std::string& text, const Placeholders& values) {
  std::string out;
  PF_RETURN_IF_ERROR(Walk(text, &out, [&](const std::string& name) -> Status {
    for (const auto& [key, value] : values) {
      if (key == name) {
        out += ShellQuote(value);
        return Status::Ok();
      }
    }
    std::vector<std::string> known;
    for (const auto& kv : values) known.push_back(kv.first);
    return Status::InvalidArgument("unknown placeholder {" + name + "}; the placeholders are " +
                                   Listed(known));
  }));
  return out;
}

std::string ShellQuote(const std::string& value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string EnvName(const std::string& placeholder) {
  std::string out = "PREFLIGHT_";
  for (char c : placeholder) out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace preflight::trainer
