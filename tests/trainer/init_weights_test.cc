// PFINIT01: the written parameters are exactly the engine's initial weights for (model, seed), in
// its tensor order, with the header doc/trainers.md states; a second write of the same file is a
// no-op; damaged files are refused.

#include "engine/init_weights.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstring>

#include "testing/testing.h"
#include "engine/model.h"

namespace preflight::engine {
namespace {

using preflight::testing::ReadText;
using preflight::testing::ScratchDir;
using preflight::testing::WriteText;

TEST(InitWeights, AreTheEnginesAndReadBack) {
  const std::string dir = ScratchDir("init_weights");
  ModelConfig m;
  m.layers = 2;
  m.d_model = 32;
  m.heads = 2;
  m.context = 16;
  m.batch = 4;
  ASSERT_TRUE(WriteInitialWeights(m, 7, dir + "/init-s7.bin").ok());
  Gpt gpt(m);
  gpt.InitWeights(7);
  const std::string bytes = ReadText(dir + "/init-s7.bin");
  ASSERT_EQ(bytes.size(), 64 + 4 * gpt.num_params());
  EXPECT_EQ(bytes.substr(0, 8), "PFINIT01");
  uint64_t header[7];
  std::memcpy(header, bytes.data() + 8, sizeof(header));
  EXPECT_EQ(header[0], 2u);
  EXPECT_EQ(header[1], 32u);
  EXPECT_EQ(header[2], 2u);
  EXPECT_EQ(header[3], 16u);
  EXPECT_EQ(header[4], 257u);
  EXPECT_EQ(header[5], 7u);
  EXPECT_EQ(header[6], gpt.num_params());
  EXPECT_EQ(std::memcmp(bytes.data() + 64, gpt.params(), 4 * gpt.num_params()), 0);

  auto read = ReadInitialWeights(dir + "/init-s7.bin");
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->seed, 7u);
  EXPECT_EQ(read->model.d_model, 32);
  EXPECT_EQ(read->params.size(), gpt.num_params());
  // Another seed gives other weights.
  ASSERT_TRUE(WriteInitialWeights(m, 8, dir + "/init-s8.bin").ok());
  EXPECT_NE(ReadText(dir + "/init-s8.bin").substr(64), bytes.substr(64));
}

TEST(InitWeights, KeptWhenWrittenAndRefusedWhenDamaged) {
  const std::string dir = ScratchDir("init_weights_keep");
  ModelConfig m;
  const std::string path = dir + "/init-s1.bin";
  ASSERT_TRUE(WriteInitialWeights(m, 1, path).ok());
  struct stat before {};
  ::stat(path.c_str(), &before);
  ASSERT_TRUE(WriteInitialWeights(m, 1, path).ok());
  struct stat after {};
  ::stat(path.c_str(), &after);
  EXPECT_EQ(before.st_ino, after.st_ino);
  WriteText(path, ReadText(path).substr(0, 100));
  auto r = ReadInitialWeights(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), Status::Kind::kCorruption);
  // A short file is rewritten whole.
  ASSERT_TRUE(WriteInitialWeights(m, 1, path).ok());
  EXPECT_TRUE(ReadInitialWeights(path).ok());
  WriteText(path, "NOTINIT!" + std::string(100, '\0'));
  EXPECT_FALSE(ReadInitialWeights(path).ok());
}

TEST(NamedModels, TenAndFortyMillion) {
  auto ten = NamedModel("10m");
  auto forty = NamedModel("40m");
  ASSERT_TRUE(ten.ok() && forty.ok());
  EXPECT_EQ(ten->layers, 6);
  EXPECT_EQ(ten->d_model, 384);
  EXPECT_EQ(ten->heads, 6);
  EXPECT_EQ(ten->context, 256);
  EXPECT_EQ(ten->batch, 32);
  EXPECT_EQ(forty->layers, 8);
  EXPECT_EQ(forty->d_model, 640);
  EXPECT_EQ(forty->heads, 10);
  EXPECT_NEAR(static_cast<double>(ParamCount(*ten)), 10.8e6, 0.1e6);
  EXPECT_NEAR(static_cast<double>(ParamCount(*forty)), 39.7e6, 0.1e6);
  EXPECT_TRUE(ValidateModel(*forty).ok());
}

}  // namespace
}  // namespace preflight::engine
