#pragma once
// Training schedules beyond the learning rate: freezing part of the model from some step on
// (fixed, or triggered by the model's own weight changes) and early stopping of the whole run.
// The syntax is doc/schedules.md's; ParseSchedule reads it, Schedule::ToString writes the one
// canonical spelling (which enters the run's checkpoint fingerprint).
//
//   freeze:<parts>@<fraction>                       freeze from step round(fraction * steps)
//   freeze:<parts>@adaptive:threshold=X[,window=W]  freeze once the parts' relative weight
//                                                   change over W steps falls below X
//   earlystop:patience=P[,min_delta=D]              stop after P evals without improvement
// <parts> is one or more of, joined by '+': embeddings | blocks=A-B | attn=A-B | mlp=A-B
// (A-B an inclusive block range; a single block is "A").
//
// What a part means, given the tied output head (wte is both the token embedding and the head):
// - the head (lnf and wte's gradient through the output matmul) is never frozen;
// - "embeddings" is wpe and wte's gradient through the input lookup: wpe stops changing, wte
//   keeps learning as the head;
// - "blocks=0-K" also freezes the embeddings, because nothing below block 0 could be trained
//   without running the backward through every frozen block (which is the work freezing saves);
// - "attn" is ln1, qkv and attproj of the block; "mlp" is ln2, fc and fcproj.
// Thread-safe: pure values and functions.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "engine/config.h"

namespace preflight::engine {

// Which parts of the model receive gradients and updates. Default: everything.
struct Trainable {
  bool embeddings = true;
  std::vector<uint8_t> attn, mlp;  // per block; empty = all trainable

  static Trainable All(int layers);
  bool AttnTrainable(int l) const { return attn.empty() || attn[l] != 0; }
  bool MlpTrainable(int l) const { return mlp.empty() || mlp[l] != 0; }
  bool BlockTrainable(int l) const { return AttnTrainable(l) || MlpTrainable(l); }
  bool AllTrainable() const;
};

struct Schedule {
  enum class Kind { kNone, kFreeze, kEarlyStop };
  Kind kind = Kind::kNone;
  // kFreeze: what to freeze.
  bool embeddings = false;
  struct Range {
    std::string part;  // "blocks", "attn" or "mlp"
    int lo = 0, hi = 0;
  };
  std::vector<Range> ranges;
  double at = 0;          // fixed: the fraction of the steps after which the parts freeze
  bool adaptive = false;  // adaptive trigger instead of a fixed step
  double threshold = 0;   // adaptive: relative weight change over the window
  int64_t window = 0;     // adaptive: steps between checks; 0 = the run's eval_every
  // kEarlyStop.
  int patience = 0;
  double min_delta = 0;

  bool empty() const { return kind == Kind::kNone; }
  std::string ToString() const;  // canonical; "" for kNone
  // The mask after freezing (everything trainable but what this schedule freezes).
  Trainable Frozen(int layers) const;
  // The step from which the parts are frozen under a fixed freeze (steps >= it run frozen).
  int64_t FreezeStep(int64_t steps) const;
};

// Parses the syntax above. InvalidArgument quoting the spec and saying what is wrong.
// layers > 0 also checks the block ranges against the model.
Result<Schedule> ParseSchedule(std::string_view spec, int layers = 0);

// Expands a sweep "freeze:<parts>@f1,f2,..." into one schedule per fraction (canonical strings).
Result<std::vector<std::string>> ExpandSweep(std::string_view sweep, int layers = 0);

// Early stopping, as a pure state machine over eval points: stop once `patience` consecutive
// evals have not improved on the best by more than min_delta. Observe returns true when the run
// should stop after this eval.
class EarlyStop {
 public:
  EarlyStop(int patience, double min_delta) : patience_(patience), min_delta_(min_delta) {}
  bool Observe(double eval_bpb);
  int evals_since_best() const { return since_best_; }

 private:
  int patience_;
  double min_delta_;
  double best_ = 0;
  bool have_best_ = false;
  int since_best_ = 0;
};

// What Gpt::Backward runs for a given mask (and what FlopsPerTokenTrainable counts). Blocks run
// from the top down to `lowest`: the lowest block with a trainable part, or block 0 when the
// embeddings train; L when no block needs a backward (only the head learns).
struct BlockPlan {
  bool run_mlp = false;  // the MLP sublayer's backward runs
  bool mlp_weights = false;
  bool run_attn = false;  // the attention sublayer's backward runs (needs d residual2 whole)
  bool attn_weights = false;
  bool ln1_dinp = false;  // pass the gradient below this block
};
struct BackwardPlan {
  int lowest = 0;
  bool lnf_dinp = true;  // the final LayerNorm passes a gradient into the blocks
  bool encoder = true;   // the embeddings' gradient (wpe, and wte through the input lookup)
  std::vector<BlockPlan> blocks;
};
BackwardPlan PlanBackward(int layers, const Trainable& trainable);

// Training FLOPs of one token with the given parts frozen. Mirrors Gpt::Backward's decisions
// call by call under the convention of FlopsPerToken (config.h): each parameter costs 2 FLOPs
// forward, 2 for its weight gradient and 2 for the gradient it passes to its input; attention's
// T x T products 4TC forward and 8TC backward per block. With everything trainable this equals
// FlopsPerToken(config) exactly.
double FlopsPerTokenTrainable(const ModelConfig& config, const Trainable& trainable);

// The number of parameters of the tensors that `trainable` freezes entirely (wte counts as
// trainable: it is the head).
int64_t FrozenParamCount(const ModelConfig& config, const Trainable& trainable);

}  // namespace preflight::engine
