#pragma once
// The model flags every training command shares: --model NAME and the shape overrides.

#include <CLI/CLI.hpp>
#include <string>

#include "base/status.h"
#include "engine/config.h"

namespace preflight::cli {

// --model, --layers, --d-model, --heads, --context, --batch.
struct ModelFlags {
  std::string name = "tiny";  // Set another default before Add() where one fits better.
  int layers = 0, d_model = 0, heads = 0, context = 0, batch = 0;  // 0 = the named model's
  void Add(CLI::App& app);
  // The overrides alone (--layers ... --batch), for commands that name models another way.
  void AddShapeOverrides(CLI::App& app);
  Result<engine::ModelConfig> Resolve() const;
};

}  // namespace preflight::cli
