#include "cli/model_flags.h"

namespace preflight::cli {

void ModelFlags::Add(CLI::App& app) {
  app.add_option("--model", name, "tiny | small | medium | 10m | 40m")->capture_default_str();
  AddShapeOverrides(app);
}

void ModelFlags::AddShapeOverrides(CLI::App& app) {
  app.add_option("--layers", layers, "override the model's layers");
  app.add_option("--d-model", d_model, "override the model's width");
  app.add_option("--heads", heads, "override the model's attention heads");
  app.add_option("--context", context, "override the context length (bytes)");
  app.add_option("--batch", batch, "override the windows per step");
}

Result<engine::ModelConfig> ModelFlags::Resolve() const {
  PF_ASSIGN_OR_RETURN(engine::ModelConfig m, engine::NamedModel(name));
  if (layers) m.layers = layers;
  if (d_model) m.d_model = d_model;
  if (heads) m.heads = heads;
  if (context) m.context = context;
  if (batch) m.batch = batch;
  PF_RETURN_IF_ERROR(engine::ValidateModel(m));
  return m;
}

}  // namespace preflight::cli
