#pragma once
// A launch's command template (doc/trainers.md, "The launch"): `{name}` is replaced by the value,
// single-quoted for /bin/sh, and the same values become PREFLIGHT_<NAME> variables.
// Syntax: a placeholder is '{' + a lower-case name ([a-z][a-z0-9_]*) + '}'. "{{" and "}}" are a
// literal '{' and '}'; "${...}" (the shell's own expansion) is copied as it is; any other brace
// ("{ cmd; }", "{A}") is copied as it is. An unknown lower-case name is an error naming it.
// Thread-safe; pure but for ResolveRelativePaths, which looks at the file system.

#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace preflight::trainer {

// Placeholder values, in the order they are documented (and exported).
using Placeholders = std::vector<std::pair<std::string, std::string>>;

// Every name a `--trainer-cmd` template may use (doc/trainers.md's table).
const std::vector<std::string>& CmdPlaceholderNames();

// InvalidArgument naming the first placeholder of `text` not in `known`, and listing them.
Status CheckTemplate(const std::string& text, const std::vector<std::string>& known);

// `text` with every placeholder replaced by its quoted value. InvalidArgument for a name without
// a value.
Result<std::string> ExpandTemplate(const std::string& text, const Placeholders& values);

// `command` with its relative paths taken from `start_dir`, the directory preflight was started
// in, since the launch runs in `run_dir` (doc/trainers.md, "The launch"): a word (after
// whitespace, one of ;&|()<>=, a quote, or at the start) made only of [A-Za-z0-9._+/-], holding a
// '/' or a '.', not starting with '/' or '-', that names a file or folder from `start_dir` and
// nothing from `run_dir`, becomes its absolute path. Outside quotes that path is single-quoted
// where it needs quoting; inside quotes it replaces the word only where it needs none. Every
// other byte is copied. So `sh doc/recipes/nanogpt.sh` runs the script the user sees, while a
// command name (python3), an option (-x), a shell expansion ($HOME/x, ~/x) and a path the run
// folder holds keep their meaning. An empty `start_dir` returns `command` as it is.
std::string ResolveRelativePaths(const std::string& command, const std::string& start_dir,
                                 const std::string& run_dir);

// 'value', with each ' written '\'' : one word for /bin/sh whatever the value holds.
std::string ShellQuote(const std::string& value);

// "train_bin" -> "PREFLIGHT_TRAIN_BIN".
std::string EnvName(const std::string& placeholder);

}  // namespace preflight::trainer
