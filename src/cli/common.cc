#include "cli/common.h"

#include <cstdio>
#include <iostream>

namespace preflight::cli {

int Fail(const std::string& command, const Status& status) {
  std::fprintf(stderr, "preflight %s: error: %s\n", command.c_str(), status.message().c_str());
  return status.ExitCode();
}

void EmitJson(const nlohmann::json& doc) { std::cout << doc.dump(2) << "\n" << std::flush; }

int Parse(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    app.exit(e);
    return 0;
  } catch (const CLI::CallForAllHelp& e) {
    app.exit(e);
    return 0;
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  return -1;
}

void Describe(CLI::App& app, const std::string& name, const std::string& description) {
  app.name("preflight " + name);
  app.description(description);
  app.footer("Exit codes: 0 success, 1 runtime failure, 2 bad usage or bad input.");
}

}  // namespace preflight::cli
