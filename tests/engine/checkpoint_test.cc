// The checkpoint file: round trip, and every kind of damage reported as Corruption.

#include "engine/checkpoint.h"

#include <gtest/gtest.h>

#include <fstream>

#include "base/file.h"

namespace preflight::engine {
namespace {

Checkpoint Sample() {
  Checkpoint c;
  c.fingerprint = "{\"x\":1}";
  c.step = 17;
  c.rng = {1, 2, 0xffffffffffffffffULL, 4};
  c.curve = {{0, 8.0}, {10, 3.1415926535897931}};
  c.train_seconds = 1.5;
  c.core_seconds = 2.5;
  c.params = {1.0f, -2.0f, 3.5f};
  c.adam_m = {0.1f, 0.2f, 0.3f};
  c.adam_v = {0.01f, 0.02f, 0.03f};
  return c;
}

std::string Path(const char* name) {
  std::system((std::string("mkdir -p ") + PREFLIGHT_TEST_TMP).c_str());
  return std::string(PREFLIGHT_TEST_TMP) + "/" + name;
}

TEST(Checkpoint, RoundTripsExactly) {
  const std::string path = Path("ckpt_roundtrip.bin");
  ASSERT_TRUE(WriteCheckpoint(path, Sample()).ok());
  auto r = ReadCheckpoint(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Checkpoint want = Sample();
  EXPECT_EQ(r->fingerprint, want.fingerprint);
  EXPECT_EQ(r->step, 17);
  EXPECT_EQ(r->rng, want.rng);
  ASSERT_EQ(r->curve.size(), 2u);
  EXPECT_EQ(r->curve[1].eval_bpb, want.curve[1].eval_bpb);  // bit-exact through JSON
  EXPECT_EQ(r->params, want.params);
  EXPECT_EQ(r->adam_m, want.adam_m);
  EXPECT_EQ(r->adam_v, want.adam_v);
}

TEST(Checkpoint, DamageIsCorruption) {
  const std::string path = Path("ckpt_damaged.bin");
  ASSERT_TRUE(WriteCheckpoint(path, Sample()).ok());
  const std::string good = *ReadFileToString(path);
  struct Case {
    const char* what;
    std::string bytes;
    const char* expect;
  };
  std::string flipped = good;
  flipped[good.size() / 2] ^= 0x01;
  std::string magic = good;
  magic[0] = 'X';
  std::string version = good;
  version[8] = 9;
  const Case cases[] = {{"flipped byte", flipped, "SHA-256"},
                        {"truncated", good.substr(0, good.size() - 10), "SHA-256"},
                        {"tiny", good.substr(0, 20), "too short"},
                        {"magic", magic, "magic"},
                        {"version", version, "version 9"}};
  for (const Case& c : cases) {
    ASSERT_TRUE(WriteFileAtomically(path, c.bytes).ok());
    auto r = ReadCheckpoint(path);
    ASSERT_FALSE(r.ok()) << c.what;
    EXPECT_EQ(r.status().kind(), Status::Kind::kCorruption) << c.what;
    EXPECT_NE(r.status().message().find(c.expect), std::string::npos)
        << c.what << ": " << r.status().message();
  }
  EXPECT_EQ(ReadCheckpoint(Path("no_such_ckpt.bin")).status().kind(), Status::Kind::kNotFound);
}

}  // namespace
}  // namespace preflight::engine
