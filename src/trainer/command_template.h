#pragma once
// A launch's command template (doc/trainers.md, "The launch"): `{name}` is replaced by the value,
// single-quoted for /bin/sh, and the same values become PREFLIGHT_<NAME> variables.
// Syntax: a placeholder is '{' + a lower-case name ([a-z][a-z0-9_]*) + '}'. "{{" and "}}" are a
// literal '{' and '}'; "${...}" (the shell's own expansion) is copied as it is; any other brace
// ("{ cmd; }", "{A}") is copied as it is. An unknown lower-case name is an error naming it.
// Pure functions; thread-safe.

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

// 'value', with each ' written '\'' : one word for /bin/sh whatever the value holds.
std::string ShellQuote(const std::string& value);

// "train_bin" -> "PREFLIGHT_TRAIN_BIN".
std::string EnvName(const std::string& placeholder);

}  // namespace preflight::trainer
