#pragma once
// The layers of the GPT, each a pair <Layer>Forward / <Layer>Backward (llm.c's discipline).
// Argument order everywhere: outputs, cached activations, inputs, weights, then sizes.
// Size letters: B batch, T time (context), C channels (d_model), OC output channels,
// NH heads, hs = C/NH head size, V vocabulary.
//
// Gradient contract: weight and bias gradients ACCUMULATE (+=) so that zeroing them is one
// explicit step per optimizer step; input gradients are stated per function ("+=" or "=").
// A null gradient pointer skips that gradient's work (the hook for freezing: a frozen weight
// passes null for its dweight, the lowest trainable block passes null for its dinp).
//
// Determinism: every reduction runs in an order fixed by the shapes alone (rows are summed in
// fixed blocks of kRowBlock, blocks combined in order), never by the thread count, so results
// are bit-identical for a given build whatever OMP_NUM_THREADS is (and so are Sgemm's products
// through BLIS, not through OpenBLAS: engine/blas.h).
//
// Each fast kernel has a plain-loop twin in namespace reference, used by the tests.

namespace preflight::engine {

inline constexpr int kRowBlock = 64;

// out[b,t,:] = wte[inp[b,t],:] + wpe[t,:]
// out (B,T,C), inp (B,T), wte (V,C), wpe (T,C)
void EncoderForward(float* out, const int* inp, const float* wte, const float* wpe, int B, int T,
                    int C);
// dwte[inp[b,t]] += dout[b,t]; dwpe[t] += dout[b,t]
void EncoderBackward(float* dwte, float* dwpe, const float* dout, const int* inp, int B, int T,
                     int C);

// out = (inp - mean) * rstd * weight + bias over the last axis; eps 1e-5, biased variance.
// out (N,C), mean (N), rstd (N), inp (N,C), weight (C), bias (C); N = B*T rows
void LayerNormForward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                      const float* bias, int N, int C);
// dinp += ...; dweight += sum dout*norm; dbias += sum dout
void LayerNormBackward(float* dinp, float* dweight, float* dbias, const float* dout,
                       const float* inp, const float* weight, const float* mean, const float* rstd,
                       int N, int C);

// out = beta * out + inp @ weight^T + bias      (beta 0 or 1: 1 fuses a residual add)
// out (N,OC), inp (N,C), weight (OC,C), bias (OC) or null
void MatmulForward(float* out, const float* inp, const float* weight, const float* bias, int N,
                   int C, int OC, float beta = 0.0f);
// dinp = dout @ weight (overwritten); dweight += dout^T @ inp; dbias += colsum(dout)
void MatmulBackward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                    const float* weight, int N, int C, int OC);

// Causal multi-head self-attention over packed q,k,v:
//   att[b,h,t,:] = softmax_{t2<=t}( q_t . k_t2 / sqrt(hs) )   (0 for t2 > t)
//   out[b,t,h*hs:(h+1)*hs] = sum_t2 att[b,h,t,t2] * v_t2
// Fast path (attention.cc): tiled small GEMMs with an online softmax; att is never stored, only
// lse[b,h,t] = log sum_t2<=t exp(q_t . k_t2 / sqrt(hs)), from which the backward recomputes it.
// out (B,T,C), lse (B,NH,T), qkv (B,T,3C) with q at [0,C), k at [C,2C), v at [2C,3C)
void AttentionForward(float* out, float* lse, const float* qkv, int B, int T, int C, int NH);
// dqkv = ... (overwritten). out and lse are the forward's.
void AttentionBackward(float* dqkv, const float* dout, const float* qkv, const float* out,
                       const float* lse, int B, int T, int C, int NH);

// out = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))   (GPT-2's tanh approximation)
// out (N), inp (N)
void GeluForward(float* out, const float* inp, int N);
// dinp = dout * gelu'(inp) (overwritten; dinp may alias dout)
void GeluBackward(float* dinp, const float* inp, const float* dout, int N);

// Fused passes (fused.cc), each one sweep over its rows instead of two or three:
// pre[i,:] += bias (bias may be null); out = gelu(pre). A linear layer's bias and activation.
// out (N,OC), pre (N,OC), bias (OC)
void BiasGeluForward(float* out, float* pre, const float* bias, int N, int OC);
// dpre = dout * gelu'(pre) (overwritten; dpre may alias dout); dbias += colsum(dpre) unless null
void GeluBackwardBias(float* dpre, float* dbias, const float* pre, const float* dout, int N,
                      int OC);
// res[i,:] += skip[i,:] + proj_bias (either may be null); then out = layernorm(res) as
// LayerNormForward (bit-identical to it on the updated res). The residual add of a block's
// branch, its bias, and the next LayerNorm.
// out (N,C), mean (N), rstd (N), res (N,C) in/out, skip (N,C), proj_bias (C), weight, bias (C)
void ResidualLayerNormForward(float* out, float* mean, float* rstd, float* res, const float* skip,
                              const float* proj_bias, const float* weight, const float* bias, int N,
                              int C);

// losses[i] = lse[i] - logits[i, targets[i]], lse[i] = logsumexp(logits[i,:]) (kept for the
// backward; lse may be null). (fused.cc)
// losses (N), lse (N), logits (N,V), targets (N)
void CrossEntropyForward(float* losses, float* lse, const float* logits, const int* targets, int N,
                         int V);
// In place: logits[i,:] becomes dloss * (softmax(logits[i,:]) - onehot(targets[i])), the softmax
// taken as e^(logits - lse) with the forward's lse: one sweep, no second max and sum.
void CrossEntropyBackward(float* logits, const float* lse, const int* targets, float dloss, int N,
                          int V);

// out[i] = a[i] + b[i]
void ResidualForward(float* out, const float* a, const float* b, int N);

namespace reference {
// Plain loops, llm.c-style: the statement of what the fast kernels compute.
void LayerNormForward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                      const float* bias, int N, int C);
void LayerNormBackward(float* dinp, float* dweight, float* dbias, const float* dout,
                       const float* inp, const float* weight, const float* mean, const float* rstd,
                       int N, int C);
void ResidualLayerNormForward(float* out, float* mean, float* rstd, float* res, const float* skip,
                              const float* proj_bias, const float* weight, const float* bias, int N,
                              int C);
void CrossEntropyForward(float* losses, float* lse, const float* logits, const int* targets, int N,
                         int V);
void CrossEntropyBackward(float* logits, const float* lse, const int* targets, float dloss, int N,
                          int V);
void BiasGeluForward(float* out, float* pre, const float* bias, int N, int OC);
void GeluBackwardBias(float* dpre, float* dbias, const float* pre, const float* dout, int N,
                      int OC);
void MatmulForward(float* out, const float* inp, const float* weight, const float* bias, int N,
                   int C, int OC, float beta = 0.0f);
void MatmulBackward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                    const float* weight, int N, int C, int OC);
// att (B,NH,T,T): the stored softmax (entries t2 > t are not written).
void AttentionForward(float* out, float* att, const float* qkv, int B, int T, int C, int NH);
void AttentionBackward(float* dqkv, const float* dout, const float* qkv, const float* att, int B,
                       int T, int C, int NH);
}  // namespace reference

}  // namespace preflight::engine
