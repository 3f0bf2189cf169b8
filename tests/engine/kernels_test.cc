// Every fast kernel against its plain-loop reference on random and awkward shapes, and every
// layer's backward against finite differences of its forward.

#include "engine/kernels.h"

#include <gtest/gtest.h>

#include <cctype>
#include <functional>
#include <string>
#include <tuple>

#include "engine/blas.h"
#include "engine/model.h"
#include "engine/simd.h"
#include "test_util.h"

namespace preflight::engine {
namespace {

using testing::RandomVector;
using testing::ScaledMaxDiff;

// The vector paths this CPU can run (AVX2 always; AVX-512 where present).
std::vector<SimdPath> Paths() {
  std::vector<SimdPath> paths = {SimdPath::kAvx2};
  if (ForceSimd(SimdPath::kAvx512)) paths.push_back(SimdPath::kAvx512);
  return paths;
}

TEST(Sgemm, MatchesReferenceLoopOnAwkwardShapes) {
  if (auto why = testing::AskedKernelsCannotRun(); !why.empty()) GTEST_SKIP() << why;
  Rng rng(1);
  const int shapes[][3] = {{1, 1, 1},    {3, 5, 7},     {17, 33, 9},
                           {64, 1, 130}, {129, 65, 31}, {200, 96, 257}};
  for (auto [M, N, K] : shapes) {
    for (int ta = 0; ta < 2; ta++) {
      for (int tb = 0; tb < 2; tb++) {
        for (float beta : {0.0f, 1.0f}) {
          auto A = RandomVector(static_cast<size_t>(M) * K, rng);
          auto B = RandomVector(static_cast<size_t>(K) * N, rng);
          auto C = RandomVector(static_cast<size_t>(M) * N, rng);
          auto C_ref = C;
          const int lda = ta ? M : K, ldb = tb ? K : N;
          Sgemm(ta, tb, M, N, K, 1.0f, A.data(), lda, B.data(), ldb, beta, C.data(), N);
          SgemmReference(ta, tb, M, N, K, 1.0f, A.data(), lda, B.data(), ldb, beta, C_ref.data(),
                         N);
          EXPECT_LT(ScaledMaxDiff(C, C_ref), 1e-5)
              << "M " << M << " N " << N << " K " << K << " ta " << ta << " tb " << tb;
        }
      }
    }
  }
}

// Shapes where BLIS's small/unpacked path once summed a slab otherwise than the whole (haswell
// and zen kernels: one column left over, or m and n trading places as the larger), and the
// engine's own: the tied head (vocabulary 257) forward and its weight gradient.
TEST(Sgemm, ThreadedSlabsGiveTheSameBitsAsOneThread) {
  if (auto why = testing::ThreadCountMayChangeBits(); !why.empty()) GTEST_SKIP() << why;
  Rng rng(5);
  const int shapes[][3] = {{300, 200, 64},  {64, 513, 129},  {1000, 17, 300},
                           {1024, 257, 64}, {257, 64, 1024}, {384, 128, 1024}};
  for (auto [M, N, K] : shapes) {
    for (int ta = 0; ta < 2; ta++) {
      for (int tb = 0; tb < 2; tb++) {
        auto A = RandomVector(static_cast<size_t>(M) * K, rng);
        auto B = RandomVector(static_cast<size_t>(K) * N, rng);
        std::vector<std::vector<float>> results;
        for (int threads : {1, 2, 3}) {
          SetThreads(threads);
          std::vector<float> C(static_cast<size_t>(M) * N, 0.5f);
          Sgemm(ta, tb, M, N, K, 1.0f, A.data(), ta ? M : K, B.data(), tb ? K : N, 1.0f, C.data(),
                N);
          results.push_back(C);
        }
        EXPECT_EQ(results[0], results[1]) << M << " " << N << " " << K;
        EXPECT_EQ(results[0], results[2]) << M << " " << N << " " << K;
      }
    }
  }
  SetThreads(1);
}

// The family BLIS_ARCH_TYPE names (as the per-family runs of tests/engine/CMakeLists.txt set
// it) is the one that runs; without it, the engine's choice for the CPU (src/engine/blas.cc).
TEST(Sgemm, RunsTheKernelFamilyAskedFor) {
  if (auto why = testing::AskedKernelsCannotRun(); !why.empty()) GTEST_SKIP() << why;
  if (std::string(BlasName()) != "BLIS") GTEST_SKIP() << "kernel families are BLIS's";
  const std::string& asked = testing::kAskedKernels;
  std::string expected;
  if (!asked.empty()) {
    if (std::isdigit(static_cast<unsigned char>(asked[0]))) GTEST_SKIP() << "asked by number";
    expected = asked;
  } else if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")) {
    expected = "skx";
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    expected = __builtin_cpu_is("amd") ? "zen3" : "haswell";
  } else {
    GTEST_SKIP() << "BLIS chooses the kernels of this CPU itself";
  }
  EXPECT_EQ(BlasKernels(), expected);
}

TEST(Kernels, LayerNormMatchesReference) {
  const SimdPath active = ActiveSimd();
  for (SimdPath path : Paths()) {
    ASSERT_TRUE(ForceSimd(path));
    Rng rng(2);
    for (auto [N, C] : {std::pair{1, 1}, {5, 3}, {70, 33}, {130, 128}}) {
      auto x = RandomVector(static_cast<size_t>(N) * C, rng, 2.0f);
      auto w = RandomVector(C, rng), b = RandomVector(C, rng), d = RandomVector(x.size(), rng);
      std::vector<float> out(x.size()), mean(N), rstd(N), out_r(x.size()), mean_r(N), rstd_r(N);
      LayerNormForward(out.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), N, C);
      reference::LayerNormForward(out_r.data(), mean_r.data(), rstd_r.data(), x.data(), w.data(),
                                  b.data(), N, C);
      EXPECT_LT(ScaledMaxDiff(out, out_r), 1e-5) << N << "x" << C;
      EXPECT_LT(ScaledMaxDiff(rstd, rstd_r), 1e-5);
      std::vector<float> dx(x.size(), 0.5f), dw(C, 0.25f), db(C, -1.0f);
      auto dx_r = dx, dw_r = dw, db_r = db;
      LayerNormBackward(dx.data(), dw.data(), db.data(), d.data(), x.data(), w.data(), mean.data(),
                        rstd.data(), N, C);
      reference::LayerNormBackward(dx_r.data(), dw_r.data(), db_r.data(), d.data(), x.data(),
                                   w.data(), mean.data(), rstd.data(), N, C);
      EXPECT_LT(ScaledMaxDiff(dx, dx_r), 1e-4) << N << "x" << C;
      EXPECT_LT(ScaledMaxDiff(dw, dw_r), 1e-4);
      EXPECT_LT(ScaledMaxDiff(db, db_r), 1e-4);
    }
  }
  ForceSimd(active);
}

TEST(Kernels, MatmulMatchesReference) {
  if (auto why = testing::AskedKernelsCannotRun(); !why.empty()) GTEST_SKIP() << why;
  Rng rng(3);
  for (auto [N, C, OC] : {std::tuple{1, 1, 1}, {7, 5, 3}, {65, 33, 130}, {256, 64, 257}}) {
    for (bool with_bias : {false, true}) {
      for (float beta : {0.0f, 1.0f}) {
        auto x = RandomVector(static_cast<size_t>(N) * C, rng);
        auto w = RandomVector(static_cast<size_t>(OC) * C, rng);
        auto bias = RandomVector(OC, rng);
        auto out = RandomVector(static_cast<size_t>(N) * OC, rng);
        auto out_r = out;
        const float* bp = with_bias ? bias.data() : nullptr;
        MatmulForward(out.data(), x.data(), w.data(), bp, N, C, OC, beta);
        reference::MatmulForward(out_r.data(), x.data(), w.data(), bp, N, C, OC, beta);
        EXPECT_LT(ScaledMaxDiff(out, out_r), 1e-5) << N << " " << C << " " << OC;
      }
    }
    auto x = RandomVector(static_cast<size_t>(N) * C, rng);
    auto w = RandomVector(static_cast<size_t>(OC) * C, rng);
    auto d = RandomVector(static_cast<size_t>(N) * OC, rng);
    std::vector<float> dx(x.size()), dw(w.size(), 0.5f), db(OC, 0.5f);
    auto dx_r = dx, dw_r = dw, db_r = db;
    MatmulBackward(dx.data(), dw.data(), db.data(), d.data(), x.data(), w.data(), N, C, OC);
    reference::MatmulBackward(dx_r.data(), dw_r.data(), db_r.data(), d.data(), x.data(), w.data(),
                              N, C, OC);
    EXPECT_LT(ScaledMaxDiff(dx, dx_r), 1e-5);
    EXPECT_LT(ScaledMaxDiff(dw, dw_r), 1e-5);
    EXPECT_LT(ScaledMaxDiff(db, db_r), 1e-5);
  }
}

TEST(Kernels, AttentionMatchesReference) {
  const SimdPath active = ActiveSimd();
  for (SimdPath path : Paths()) {
    ASSERT_TRUE(ForceSimd(path));
    Rng rng(4);
    for (auto [B, T, C, NH] : {std::tuple{1, 1, 4, 1},
                               {2, 7, 12, 3},
                               {3, 33, 40, 5},
                               {2, 64, 64, 2},
                               {1, 130, 32, 4},
                               {1, 97, 96, 2},
                               {1, 256, 64, 2}}) {
      auto qkv = RandomVector(static_cast<size_t>(B) * T * 3 * C, rng, 2.0f);
      auto d = RandomVector(static_cast<size_t>(B) * T * C, rng);
      const size_t att_n = static_cast<size_t>(B) * NH * T * T;
      std::vector<float> out(d.size()), out_r(d.size()), lse(static_cast<size_t>(B) * NH * T),
          att_r(att_n);
      AttentionForward(out.data(), lse.data(), qkv.data(), B, T, C, NH);
      reference::AttentionForward(out_r.data(), att_r.data(), qkv.data(), B, T, C, NH);
      const char* name = SimdName(path);
      EXPECT_LT(ScaledMaxDiff(out, out_r), 1e-5) << name << " " << B << " " << T << " " << C;
      std::vector<float> dqkv(qkv.size(), 7.0f), dqkv_r(qkv.size());
      AttentionBackward(dqkv.data(), d.data(), qkv.data(), out.data(), lse.data(), B, T, C, NH);
      reference::AttentionBackward(dqkv_r.data(), d.data(), qkv.data(), att_r.data(), B, T, C, NH);
      EXPECT_LT(ScaledMaxDiff(dqkv, dqkv_r), 1e-5) << name << " " << B << " " << T << " " << C;
    }
  }
  ForceSimd(active);
}

TEST(Kernels, FusedPassesMatchReference) {
  const SimdPath active = ActiveSimd();
  for (SimdPath path : Paths()) {
    ASSERT_TRUE(ForceSimd(path));
    Rng rng(7);
    for (auto [N, C] : {std::pair{1, 1}, {5, 3}, {70, 33}, {130, 128}, {67, 17}}) {
      const size_t n = static_cast<size_t>(N) * C;
      auto res = RandomVector(n, rng, 2.0f), skip = RandomVector(n, rng);
      auto pb = RandomVector(C, rng), w = RandomVector(C, rng), b = RandomVector(C, rng);
      auto res_r = res;
      std::vector<float> out(n), mean(N), rstd(N), out_r(n), mean_r(N), rstd_r(N);
      ResidualLayerNormForward(out.data(), mean.data(), rstd.data(), res.data(), skip.data(),
                               pb.data(), w.data(), b.data(), N, C);
      reference::ResidualLayerNormForward(out_r.data(), mean_r.data(), rstd_r.data(), res_r.data(),
                                          skip.data(), pb.data(), w.data(), b.data(), N, C);
      const char* name = SimdName(path);
      EXPECT_LT(ScaledMaxDiff(res, res_r), 1e-6) << name << " " << N << "x" << C;
      EXPECT_LT(ScaledMaxDiff(out, out_r), 1e-5) << name << " " << N << "x" << C;
      EXPECT_LT(ScaledMaxDiff(rstd, rstd_r), 1e-5) << name << " " << N << "x" << C;
      // The fused LayerNorm gives LayerNormForward's bits on the summed rows.
      std::vector<float> out2(n), mean2(N), rstd2(N);
      LayerNormForward(out2.data(), mean2.data(), rstd2.data(), res.data(), w.data(), b.data(), N,
                       C);
      EXPECT_EQ(out, out2);
      EXPECT_EQ(rstd, rstd2);

      auto pre = RandomVector(n, rng, 3.0f), d = RandomVector(n, rng);
      auto pre_r = pre;
      std::vector<float> g(n), g_r(n), db(C, 0.5f), db_r(C, 0.5f), dp(n), dp_r(n);
      BiasGeluForward(g.data(), pre.data(), pb.data(), N, C);
      reference::BiasGeluForward(g_r.data(), pre_r.data(), pb.data(), N, C);
      EXPECT_LT(ScaledMaxDiff(pre, pre_r), 1e-6) << name << " " << N << "x" << C;
      EXPECT_LT(ScaledMaxDiff(g, g_r), 1e-5) << name << " " << N << "x" << C;
      GeluBackwardBias(dp.data(), db.data(), pre.data(), d.data(), N, C);
      reference::GeluBackwardBias(dp_r.data(), db_r.data(), pre.data(), d.data(), N, C);
      EXPECT_LT(ScaledMaxDiff(dp, dp_r), 1e-5) << name << " " << N << "x" << C;
      EXPECT_LT(ScaledMaxDiff(db, db_r), 1e-5) << name << " " << N << "x" << C;

      std::vector<int> targets(N);
      for (int i = 0; i < N; i++) targets[i] = static_cast<int>(rng.Below(C));
      auto z = RandomVector(n, rng, 4.0f);
      auto z_r = z;
      std::vector<float> losses(N), lse(N), losses_r(N), lse_r(N);
      CrossEntropyForward(losses.data(), lse.data(), z.data(), targets.data(), N, C);
      reference::CrossEntropyForward(losses_r.data(), lse_r.data(), z.data(), targets.data(), N, C);
      EXPECT_LT(ScaledMaxDiff(losses, losses_r), 1e-5) << name << " " << N << "x" << C;
      EXPECT_LT(ScaledMaxDiff(lse, lse_r), 1e-5) << name << " " << N << "x" << C;
      CrossEntropyBackward(z.data(), lse.data(), targets.data(), 0.25f, N, C);
      reference::CrossEntropyBackward(z_r.data(), lse_r.data(), targets.data(), 0.25f, N, C);
      EXPECT_LT(ScaledMaxDiff(z, z_r), 1e-5) << name << " " << N << "x" << C;
    }
  }
  ForceSimd(active);
}

// A model big enough that every GEMM splits into several slabs per thread and every row loop
// into many blocks: loss and gradients must not depend on the thread count.
TEST(Kernels, WholeModelGivesTheSameBitsOnAnyThreadCount) {
  if (auto why = testing::ThreadCountMayChangeBits(); !why.empty()) GTEST_SKIP() << why;
  ModelConfig cfg{.layers = 2, .d_model = 64, .heads = 2, .context = 128, .batch = 8};
  Rng rng(17);
  std::vector<int> inputs(cfg.batch * cfg.context), targets(inputs.size());
  for (size_t i = 0; i < inputs.size(); i++) {
    inputs[i] = static_cast<int>(rng.Below(kVocabSize));
    targets[i] = static_cast<int>(rng.Below(kVocabSize));
  }
  std::vector<std::vector<float>> results;
  for (int threads : {1, 2, 3}) {
    SetThreads(threads);
    Gpt model(cfg);
    model.InitWeights(4);
    std::vector<float> r = {model.Forward(inputs.data(), targets.data())};
    model.ZeroGrad();
    model.Backward();
    r.insert(r.end(), model.grads(), model.grads() + model.num_params());
    results.push_back(r);
  }
  SetThreads(1);
  EXPECT_TRUE(results[0] == results[1]);
  EXPECT_TRUE(results[0] == results[2]);
}

TEST(Kernels, AttentionGivesTheSameBitsOnAnyThreadCount) {
  Rng rng(6);
  const int B = 3, T = 70, C = 64, NH = 2;
  auto qkv = RandomVector(static_cast<size_t>(B) * T * 3 * C, rng);
  auto d = RandomVector(static_cast<size_t>(B) * T * C, rng);
  std::vector<std::vector<float>> results;
  for (int threads : {1, 2, 3}) {
    SetThreads(threads);
    std::vector<float> out(d.size()), lse(static_cast<size_t>(B) * NH * T), dqkv(qkv.size());
    AttentionForward(out.data(), lse.data(), qkv.data(), B, T, C, NH);
    AttentionBackward(dqkv.data(), d.data(), qkv.data(), out.data(), lse.data(), B, T, C, NH);
    out.insert(out.end(), dqkv.begin(), dqkv.end());
    results.push_back(out);
  }
  SetThreads(1);
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[0], results[2]);
}

// ---- finite differences ---------------------------------------------------------------------
// For a layer y = f(x), the scalar L = sum_i y_i * r_i (r random) has dL/dx = backward(r).
// Central differences of L in double, at a sample of coordinates, must match the backward.

using ForwardFn = std::function<double()>;  // runs the forward on the current inputs, returns L

void ExpectGradientMatches(const char* what, std::vector<float>& x, const std::vector<float>& grad,
                           const ForwardFn& loss, Rng& rng, int samples = 24) {
  const float h = 1e-2f;
  double worst = 0;
  for (int s = 0; s < samples; s++) {
    const size_t i = rng.Below(x.size());
    const float keep = x[i];
    x[i] = keep + h;
    const double up = loss();
    x[i] = keep - h;
    const double down = loss();
    x[i] = keep;
    const double fd = (up - down) / (2.0 * h);
    const double err = std::fabs(fd - grad[i]) / (1e-2 + std::fabs(fd));
    worst = std::max(worst, err);
    EXPECT_LT(err, 2e-2) << what << " coordinate " << i << ": finite difference " << fd
                         << ", backward " << grad[i];
  }
  ::testing::Test::RecordProperty(what, std::to_string(worst));
}

double Dot(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); i++) s += static_cast<double>(a[i]) * b[i];
  return s;
}

TEST(GradCheck, LayerNorm) {
  Rng rng(10);
  const int N = 6, C = 11;
  auto x = RandomVector(N * C, rng), w = RandomVector(C, rng), b = RandomVector(C, rng);
  auto r = RandomVector(N * C, rng);
  std::vector<float> out(N * C), mean(N), rstd(N);
  auto loss = [&] {
    LayerNormForward(out.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), N, C);
    return Dot(out, r);
  };
  loss();
  std::vector<float> dx(N * C), dw(C), db(C);
  LayerNormBackward(dx.data(), dw.data(), db.data(), r.data(), x.data(), w.data(), mean.data(),
                    rstd.data(), N, C);
  ExpectGradientMatches("layernorm dx", x, dx, loss, rng);
  ExpectGradientMatches("layernorm dw", w, dw, loss, rng);
  ExpectGradientMatches("layernorm db", b, db, loss, rng);
}

TEST(GradCheck, Matmul) {
  Rng rng(11);
  const int N = 5, C = 7, OC = 9;
  auto x = RandomVector(N * C, rng), w = RandomVector(OC * C, rng), b = RandomVector(OC, rng);
  auto r = RandomVector(N * OC, rng);
  std::vector<float> out(N * OC);
  auto loss = [&] {
    MatmulForward(out.data(), x.data(), w.data(), b.data(), N, C, OC);
    return Dot(out, r);
  };
  std::vector<float> dx(N * C), dw(OC * C), db(OC);
  MatmulBackward(dx.data(), dw.data(), db.data(), r.data(), x.data(), w.data(), N, C, OC);
  ExpectGradientMatches("matmul dx", x, dx, loss, rng);
  ExpectGradientMatches("matmul dw", w, dw, loss, rng);
  ExpectGradientMatches("matmul db", b, db, loss, rng);
}

TEST(GradCheck, Attention) {
  Rng rng(12);
  for (auto [B, T, C, NH] : {std::tuple{1, 5, 6, 2}, {2, 9, 12, 3}}) {
    auto qkv = RandomVector(B * T * 3 * C, rng);
    auto r = RandomVector(B * T * C, rng);
    std::vector<float> out(B * T * C), lse(B * NH * T);
    auto loss = [&] {
      AttentionForward(out.data(), lse.data(), qkv.data(), B, T, C, NH);
      return Dot(out, r);
    };
    loss();
    std::vector<float> dqkv(qkv.size());
    AttentionBackward(dqkv.data(), r.data(), qkv.data(), out.data(), lse.data(), B, T, C, NH);
    ExpectGradientMatches("attention dqkv", qkv, dqkv, loss, rng, 40);
  }
}

TEST(GradCheck, Gelu) {
  Rng rng(13);
  auto x = RandomVector(50, rng, 2.0f), r = RandomVector(50, rng);
  std::vector<float> out(50);
  auto loss = [&] {
    GeluForward(out.data(), x.data(), 50);
    return Dot(out, r);
  };
  std::vector<float> dx(50);
  GeluBackward(dx.data(), x.data(), r.data(), 50);
  ExpectGradientMatches("gelu dx", x, dx, loss, rng);
}

TEST(GradCheck, CrossEntropy) {
  Rng rng(14);
  const int N = 4, V = 13;
  auto logits = RandomVector(N * V, rng, 2.0f);
  std::vector<int> targets = {0, 12, 5, 5};
  std::vector<float> losses(N), lse(N);
  auto loss = [&] {
    CrossEntropyForward(losses.data(), lse.data(), logits.data(), targets.data(), N, V);
    double s = 0;
    for (float l : losses) s += l;
    return s / N;
  };
  loss();
  std::vector<float> grad = logits;
  CrossEntropyBackward(grad.data(), lse.data(), targets.data(), 1.0f / N, N, V);
  ExpectGradientMatches("cross-entropy dlogits", logits, grad, loss, rng);
}

TEST(GradCheck, Encoder) {
  Rng rng(15);
  const int B = 2, T = 3, C = 4, V = 5;
  auto wte = RandomVector(V * C, rng), wpe = RandomVector(T * C, rng);
  std::vector<int> inp = {1, 4, 1, 0, 1, 3};  // token 1 repeats: gradients must add up
  auto r = RandomVector(B * T * C, rng);
  std::vector<float> out(B * T * C);
  auto loss = [&] {
    EncoderForward(out.data(), inp.data(), wte.data(), wpe.data(), B, T, C);
    return Dot(out, r);
  };
  std::vector<float> dwte(V * C), dwpe(T * C);
  EncoderBackward(dwte.data(), dwpe.data(), r.data(), inp.data(), B, T, C);
  ExpectGradientMatches("encoder dwte", wte, dwte, loss, rng);
  ExpectGradientMatches("encoder dwpe", wpe, dwpe, loss, rng);
}

// The whole model: the gradient of the mean loss against finite differences, every tensor.
TEST(GradCheck, WholeModel) {
  ModelConfig cfg{.layers = 2, .d_model = 8, .heads = 2, .context = 6, .batch = 2};
  Gpt model(cfg);
  model.InitWeights(3);
  Rng rng(16);
  // Larger weights than GPT-2's init, so that every path carries a visible gradient.
  for (size_t i = 0; i < model.num_params(); i++) {
    model.params()[i] += static_cast<float>(rng.Normal() * 0.3);
  }
  std::vector<int> inputs(12), targets(12);
  for (int i = 0; i < 12; i++) {
    inputs[i] = static_cast<int>(rng.Below(kVocabSize));
    targets[i] = static_cast<int>(rng.Below(kVocabSize));
  }
  model.Forward(inputs.data(), targets.data());
  model.ZeroGrad();
  model.Backward();
  std::vector<float> grads(model.grads(), model.grads() + model.num_params());
  for (const ParamTensor& t : model.tensors()) {
    std::vector<float> x(model.params() + t.offset, model.params() + t.offset + t.size);
    std::vector<float> g(grads.begin() + t.offset, grads.begin() + t.offset + t.size);
    auto loss = [&] {
      std::copy(x.begin(), x.end(), model.params() + t.offset);
      return static_cast<double>(model.Forward(inputs.data(), targets.data()));
    };
    ExpectGradientMatches(t.name.c_str(), x, g, loss, rng, 8);
    std::copy(x.begin(), x.end(), model.params() + t.offset);
  }
}

}  // namespace
}  // namespace preflight::engine
