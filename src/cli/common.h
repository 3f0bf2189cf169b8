#pragma once
// Shared plumbing for the subcommands: parse errors, printing a Status, --json output.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"

namespace preflight::cli {

// Prints "preflight <command>: error: <message>" on stderr and returns the exit code.
int Fail(const std::string& command, const Status& status);

// Writes one JSON document (pretty, 2-space) to stdout followed by a newline.
void EmitJson(const nlohmann::json& doc);

// Parses argv into `app`. Returns -1 when the command should go on, or the exit code to return
// (0 after --help, 2 after a usage error, with CLI11's message on stderr).
int Parse(CLI::App& app, int argc, char** argv);

// Fills app name/description and the footer that every subcommand shares.
void Describe(CLI::App& app, const std::string& name, const std::string& description);

}  // namespace preflight::cli
