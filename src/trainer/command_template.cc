#include "trainer/command_template.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <optional>
#include <string_view>

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

// A byte of a word ResolveRelativePaths may rewrite; a path made of these needs no quoting.
bool IsPathChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
         c == '+' || c == '/';
}
bool IsPlainPath(const std::string& s) { return std::all_of(s.begin(), s.end(), IsPathChar); }
// Whitespace and the shell's operators end a word, inside quotes too (a quoted command for another
// shell: sbatch --wrap "...", sh -c '...').
bool IsSeparator(char c) {
  return std::isspace(static_cast<unsigned char>(c)) ||
         std::string_view(";&|()<>").find(c) != std::string_view::npos;
}
bool IsQuote(char c) { return c == '\'' || c == '"'; }

// Whether a word ending before command[end] ends there, inside `quote` (0: none): at the end, a
// separator, the quote closing it (with nothing glued after), or a quote inside the other kind.
bool EndsWord(const std::string& command, size_t end, char quote) {
  if (end == command.size() || IsSeparator(command[end])) return true;
  const char c = command[end];
  if (quote != 0 && c == quote) {
    return end + 1 == command.size() || IsSeparator(command[end + 1]);
  }
  return quote != 0 && IsQuote(c);
}

// The absolute path `word` names from `start_dir`, when it is a relative path there (holding a
// '/' or a '.') and the run folder holds nothing of that name; nullopt otherwise.
std::optional<std::string> FromStartDir(const std::string& word, const std::string& start_dir,
                                        const std::string& run_dir) {
  namespace fs = std::filesystem;
  if (word.empty() || word[0] == '/' || word[0] == '-') return std::nullopt;
  if (word.find_first_of("/.") == std::string::npos) return std::nullopt;
  std::error_code ec;
  const fs::path there = fs::path(start_dir) / word;
  if (fs::exists(fs::path(run_dir) / word, ec) || !fs::exists(there, ec)) return std::nullopt;
  return there.lexically_normal().string();
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
      "warmup_steps",  "min_lr_ratio",   "eval_windows", "threads",     "device",
      "start_dir"};
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

std::string ResolveRelativePaths(const std::string& command, const std::string& start_dir,
                                 const std::string& run_dir) {
  if (start_dir.empty()) return command;
  std::string out;
  char quote = 0;          // the quote we are inside: 0, '\'' or '"'
  bool word_start = true;  // the next byte starts a word
  for (size_t i = 0; i < command.size();) {
    const char c = command[i];
    if (c == '\\' && quote != '\'') {  // an escaped byte: never part of a word we rewrite
      out += command.substr(i, 2);
      i += 2;
      word_start = false;
    } else if (!IsPathChar(c)) {
      if (quote == 0 && IsQuote(c)) {
        quote = c;  // the quoted text starts a word where the quote does
      } else if (c == quote) {
        quote = 0;
        word_start = false;  // what is glued after a closing quote is the same word
      } else {
        // A separator, the '=' of an option or assignment, or a quote inside the other kind.
        word_start = IsSeparator(c) || c == '=' || IsQuote(c);
      }
      out += c;
      ++i;
    } else {
      size_t end = i;
      while (end < command.size() && IsPathChar(command[end])) ++end;
      const std::string word = command.substr(i, end - i);
      std::optional<std::string> path;
      if (word_start && EndsWord(command, end, quote)) {
        path = FromStartDir(word, start_dir, run_dir);
      }
      if (!path) {
        out += word;
      } else if (IsPlainPath(*path)) {
        out += *path;
      } else {
        out += quote == 0 ? ShellQuote(*path) : word;  // inside quotes, quoting would change it
      }
      word_start = false;
      i = end;
    }
  }
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
