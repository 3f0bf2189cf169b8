// The engine against PyTorch: tests/engine/data/gpt_fixture.bin was written by
// scripts/torch_reference.py (python3-torch 1.13) from the same initial weights and tokens.
// Compared: logits, loss, every parameter's gradient (error relative to the tensor's scale
// <= 1e-4) and the losses of the first 10 AdamW steps (relative <= 1e-3). The largest
// difference of each is printed; any mismatch fails.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "test_util.h"
#include "engine/model.h"
#include "engine/optimizer.h"

namespace preflight::engine {
namespace {

struct Fixture {
  std::map<std::string, std::vector<float>> f;
  std::map<std::string, std::vector<int>> i;
};

bool LoadFixture(const std::string& path, Fixture* out, std::string* why) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *why = "cannot open " + path;
    return false;
  }
  char magic[8];
  in.read(magic, 8);
  if (!in || std::memcmp(magic, "PFFIXT01", 8) != 0) {
    *why = "bad magic";
    return false;
  }
  uint32_t count = 0;
  in.read(reinterpret_cast<char*>(&count), 4);
  for (uint32_t e = 0; e < count && in; e++) {
    uint32_t name_len = 0, kind = 0;
    uint64_t n = 0;
    in.read(reinterpret_cast<char*>(&name_len), 4);
    std::string name(name_len, '\0');
    in.read(name.data(), name_len);
    in.read(reinterpret_cast<char*>(&kind), 4);
    in.read(reinterpret_cast<char*>(&n), 8);
    if (kind == 0) {
      auto& v = out->f[name];
      v.resize(n);
      in.read(reinterpret_cast<char*>(v.data()), n * 4);
    } else {
      auto& v = out->i[name];
      v.resize(n);
      in.read(reinterpret_cast<char*>(v.data()), n * 4);
    }
  }
  if (!in) {
    *why = "truncated";
    return false;
  }
  return true;
}

double RelErr(double a, double b) { return std::fabs(a - b) / std::max(1e-12, std::fabs(b)); }

TEST(PyTorchFixture, LogitsLossGradientsAndTenStepsMatch) {
  const std::string path = std::string(PREFLIGHT_SOURCE_DIR) + "/tests/engine/data/gpt_fixture.bin";
  Fixture fx;
  std::string why;
  ASSERT_TRUE(LoadFixture(path, &fx, &why)) << path << ": " << why
                                            << " (regenerate: /usr/bin/python3 "
                                               "scripts/torch_reference.py "
                                            << path << ")";
  const auto& c = fx.i["config"];
  ASSERT_EQ(c.size(), 8u);
  ModelConfig cfg{.layers = c[0], .d_model = c[1], .heads = c[2], .context = c[3], .batch = c[4]};
  ASSERT_EQ(c[5], kVocabSize);
  const int steps = c[6], warmup = c[7];
  const auto& hp = fx.f["hparams"];
  const float lr = hp[0], min_ratio = hp[1], clip = hp[2];
  AdamWConfig adam{.beta1 = hp[4], .beta2 = hp[5], .eps = hp[6], .weight_decay = hp[3]};

  Gpt model(cfg);
  auto load_params = [&] {
    for (const ParamTensor& t : model.tensors()) {
      const auto& v = fx.f["param/" + t.name];
      ASSERT_EQ(v.size(), t.size) << t.name;
      std::copy(v.begin(), v.end(), model.params() + t.offset);
    }
  };
  load_params();
  const int B = cfg.batch, T = cfg.context;
  std::vector<int> inputs(B * T), targets(B * T);
  const auto& tokens = fx.i["tokens"];
  for (int b = 0; b < B; b++) {
    for (int t = 0; t < T; t++) {
      inputs[b * T + t] = tokens[b * (T + 1) + t];
      targets[b * T + t] = tokens[b * (T + 1) + t + 1];
    }
  }

  const float loss = model.Forward(inputs.data(), targets.data());
  const auto& ref_logits = fx.f["logits"];
  ASSERT_EQ(ref_logits.size(), static_cast<size_t>(B) * T * kVocabSize);
  const double logits_err =
      testing::ScaledMaxDiff(model.logits(), ref_logits.data(), ref_logits.size());
  const double loss_err = RelErr(loss, fx.f["loss"][0]);
  std::printf("logits: largest difference %.3g (relative to scale)\n", logits_err);
  std::printf("loss: engine %.7f torch %.7f relative difference %.3g\n", loss, fx.f["loss"][0],
              loss_err);
  EXPECT_LE(logits_err, 1e-4);
  EXPECT_LE(loss_err, 1e-4);

  model.ZeroGrad();
  model.Backward();
  double worst = 0;
  std::string worst_name;
  for (const ParamTensor& t : model.tensors()) {
    const auto& ref = fx.f["grad/" + t.name];
    ASSERT_EQ(ref.size(), t.size) << t.name;
    const double err = testing::ScaledMaxDiff(model.grads() + t.offset, ref.data(), t.size);
    EXPECT_LE(err, 1e-4) << "gradient of " << t.name;
    if (err > worst) {
      worst = err;
      worst_name = t.name;
    }
  }
  std::printf("gradients: largest difference %.3g (in %s)\n", worst, worst_name.c_str());

  load_params();
  std::vector<float> m(model.num_params(), 0.0f), v(model.num_params(), 0.0f);
  const auto& ref_losses = fx.f["step_losses"];
  ASSERT_EQ(ref_losses.size(), static_cast<size_t>(steps));
  double worst_step = 0;
  for (int s = 0; s < steps; s++) {
    const float step_lr = LearningRate(s, steps, warmup, lr, min_ratio);
    const StepStats st = TrainStep(model, m.data(), v.data(), inputs.data(), targets.data(),
                                   step_lr, s + 1, adam, clip);
    const double err = RelErr(st.loss, ref_losses[s]);
    worst_step = std::max(worst_step, err);
    std::printf("step %2d: engine %.6f torch %.6f relative difference %.3g\n", s + 1, st.loss,
                ref_losses[s], err);
    EXPECT_LE(err, 1e-3) << "loss of step " << s + 1;
  }
  std::printf("step losses: largest difference %.3g\n", worst_step);
}

}  // namespace
}  // namespace preflight::engine
