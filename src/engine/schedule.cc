#include "engine/schedule.h"

#include <charconv>
#include <cmath>
#include <string>

namespace preflight::engine {
namespace {

std::string Shortest(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t at = s.find(sep, start);
    out.push_back(
        s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) break;
    start = at + 1;
  }
  return out;
}

bool ParseDouble(std::string_view s, double* out) {
  if (s.empty()) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && std::isfinite(*out);
}

bool ParseInt(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

Status Bad(std::string_view spec, const std::string& why) {
  return Status::InvalidArgument(
      "schedule '" + std::string(spec) + "': " + why +
      " (forms: freeze:<parts>@<fraction>, freeze:<parts>@adaptive:threshold=X[,window=W], "
      "earlystop:patience=P[,min_delta=D]; parts: embeddings, blocks=A-B, attn=A-B, mlp=A-B "
      "joined by '+'; see doc/schedules.md)");
}

}  // namespace

Trainable Trainable::All(int layers) {
  Trainable t;
  t.attn.assign(static_cast<size_t>(layers), 1);
  t.mlp.assign(static_cast<size_t>(layers), 1);
  return t;
}

bool Trainable::AllTrainable() const {
  if (!embeddings) return false;
  for (uint8_t a : attn) {
    if (!a) return false;
  }
  for (uint8_t m : mlp) {
    if (!m) return false;
  }
  return true;
}

std::string Schedule::ToString() const {
  switch (kind) {
    case Kind::kNone:
      return "";
    case Kind::kEarlyStop: {
      std::string s = "earlystop:patience=" + std::to_string(patience);
      if (min_delta != 0) s += ",min_delta=" + Shortest(min_delta);
      return s;
    }
    case Kind::kFreeze:
      break;
  }
  std::string parts;
  if (embeddings) parts = "embeddings";
  for (const Range& r : ranges) {
    if (!parts.empty()) parts += '+';
    parts.append(r.part).append("=").append(std::to_string(r.lo));
    if (r.hi != r.lo) parts += "-" + std::to_string(r.hi);
  }
  std::string s = "freeze:" + parts + "@";
  if (adaptive) {
    s += "adaptive:threshold=" + Shortest(threshold);
    if (window > 0) s += ",window=" + std::to_string(window);
  } else {
    s += Shortest(at);
  }
  return s;
}

Trainable Schedule::Frozen(int layers) const {
  Trainable t = Trainable::All(layers);
  if (kind != Kind::kFreeze) return t;
  if (embeddings) t.embeddings = false;
  for (const Range& r : ranges) {
    for (int l = std::max(0, r.lo); l <= r.hi && l < layers; ++l) {
      if (r.part != "mlp") t.attn[l] = 0;
      if (r.part != "attn") t.mlp[l] = 0;
    }
    if (r.part == "blocks" && r.lo == 0) t.embeddings = false;
  }
  return t;
}

int64_t Schedule::FreezeStep(int64_t steps) const {
  return static_cast<int64_t>(std::llround(at * static_cast<double>(steps)));
}

Result<Schedule> ParseSchedule(std::string_view spec, int layers) {
  Schedule s;
  if (spec.empty() || spec == "none") return s;
  if (spec.substr(0, 10) == "earlystop:") {
    s.kind = Schedule::Kind::kEarlyStop;
    bool have_patience = false;
    for (std::string_view kv : Split(spec.substr(10), ',')) {
      size_t eq = kv.find('=');
      if (eq == std::string_view::npos)
        return Bad(spec, "expected key=value, got '" + std::string(kv) + "'");
      std::string_view key = kv.substr(0, eq), value = kv.substr(eq + 1);
      if (key == "patience") {
        int64_t p = 0;
        if (!ParseInt(value, &p) || p < 1 || p > 1000000) {
          return Bad(spec, "patience must be a whole number >= 1");
        }
        s.patience = static_cast<int>(p);
        have_patience = true;
      } else if (key == "min_delta") {
        if (!ParseDouble(value, &s.min_delta) || s.min_delta < 0) {
          return Bad(spec, "min_delta must be a number >= 0");
        }
      } else {
        return Bad(spec, "unknown key '" + std::string(key) + "' (patience, min_delta)");
      }
    }
    if (!have_patience) return Bad(spec, "patience=P is required");
    return s;
  }
  if (spec.substr(0, 7) != "freeze:") return Bad(spec, "must start with freeze: or earlystop:");
  s.kind = Schedule::Kind::kFreeze;
  std::string_view rest = spec.substr(7);
  size_t at = rest.find('@');
  if (at == std::string_view::npos) return Bad(spec, "missing '@' and when to freeze");
  std::string_view parts = rest.substr(0, at), when = rest.substr(at + 1);
  if (parts.empty()) return Bad(spec, "no parts to freeze before '@'");
  for (std::string_view part : Split(parts, '+')) {
    if (part == "embeddings") {
      s.embeddings = true;
      continue;
    }
    size_t eq = part.find('=');
    std::string_view name = part.substr(0, eq);
    if (eq == std::string_view::npos || (name != "blocks" && name != "attn" && name != "mlp")) {
      return Bad(spec, "unknown part '" + std::string(part) + "'");
    }
    std::string_view range = part.substr(eq + 1);
    size_t dash = range.find('-');
    int64_t lo = 0, hi = 0;
    if (!ParseInt(range.substr(0, dash), &lo) ||
        (dash != std::string_view::npos && !ParseInt(range.substr(dash + 1), &hi))) {
      return Bad(spec, "block range '" + std::string(range) + "' is not A or A-B");
    }
    if (dash == std::string_view::npos) hi = lo;
    if (lo < 0 || hi < lo) return Bad(spec, "block range '" + std::string(range) + "' is empty");
    if (layers > 0 && hi >= layers) {
      return Bad(spec, "block " + std::to_string(hi) + " does not exist: the model has " +
                           std::to_string(layers) + " blocks (0-" + std::to_string(layers - 1) +
                           ")");
    }
    s.ranges.push_back({std::string(name), static_cast<int>(lo), static_cast<int>(hi)});
  }
  if (when.substr(0, 9) == "adaptive:") {
    s.adaptive = true;
    bool have_threshold = false;
    for (std::string_view kv : Split(when.substr(9), ',')) {
      size_t eq = kv.find('=');
      if (eq == std::string_view::npos) {
        return Bad(spec, "expected key=value after adaptive:, got '" + std::string(kv) + "'");
      }
      std::string_view key = kv.substr(0, eq), value = kv.substr(eq + 1);
      if (key == "threshold") {
        if (!ParseDouble(value, &s.threshold) || s.threshold <= 0) {
          return Bad(spec, "threshold must be a number > 0");
        }
        have_threshold = true;
      } else if (key == "window") {
        if (!ParseInt(value, &s.window) || s.window < 1) {
          return Bad(spec, "window must be a whole number of steps >= 1");
        }
      } else {
        return Bad(spec, "unknown key '" + std::string(key) + "' (threshold, window)");
      }
    }
    if (!have_threshold) return Bad(spec, "adaptive needs threshold=X");
    return s;
  }
  if (!ParseDouble(when, &s.at) || s.at < 0 || s.at > 1) {
    return Bad(spec, "'" + std::string(when) +
                         "' is not a fraction of the steps in [0, 1] or adaptive:...");
  }
  return s;
}

Result<std::vector<std::string>> ExpandSweep(std::string_view sweep, int layers) {
  size_t at = sweep.find('@');
  if (sweep.substr(0, 7) != "freeze:" || at == std::string_view::npos) {
    return Status::InvalidArgument("--sweep '" + std::string(sweep) +
                                   "': expected freeze:<parts>@f1,f2,... (fractions of the steps)");
  }
  std::vector<std::string> out;
  for (std::string_view f : Split(sweep.substr(at + 1), ',')) {
    std::string one = std::string(sweep.substr(0, at + 1)) + std::string(f);
    PF_ASSIGN_OR_RETURN(Schedule s, ParseSchedule(one, layers));
    if (s.adaptive) {
      return Status::InvalidArgument("--sweep '" + std::string(sweep) +
                                     "': a sweep lists fixed fractions; give the adaptive "
                                     "schedule with --arm-b");
    }
    out.push_back(s.ToString());
  }
  return out;
}

bool EarlyStop::Observe(double eval_bpb) {
  if (!have_best_ || eval_bpb < best_ - min_delta_) {
    best_ = eval_bpb;
    have_best_ = true;
    since_best_ = 0;
    return false;
  }
  ++since_best_;
  return since_best_ >= patience_;
}

BackwardPlan PlanBackward(int layers, const Trainable& t) {
  BackwardPlan plan;
  plan.blocks.assign(static_cast<size_t>(layers), BlockPlan{});
  plan.encoder = t.embeddings;
  plan.lowest = layers;
  if (t.embeddings) {
    plan.lowest = 0;
  } else {
    for (int l = 0; l < layers; ++l) {
      if (t.BlockTrainable(l)) {
        plan.lowest = l;
        break;
      }
    }
  }
  plan.lnf_dinp = plan.lowest < layers;
  for (int l = plan.lowest; l < layers; ++l) {
    // Something below block l learns: the gradient must pass through this block's input.
    const bool need_below = t.embeddings || l > plan.lowest;
    BlockPlan& b = plan.blocks[l];
    b.attn_weights = t.AttnTrainable(l);
    b.mlp_weights = t.MlpTrainable(l);
    b.run_attn = b.attn_weights || need_below;
    b.run_mlp = b.mlp_weights || b.run_attn;
    b.ln1_dinp = need_below;
  }
  return plan;
}

double FlopsPerTokenTrainable(const ModelConfig& c, const Trainable& t) {
  const double C = c.d_model, T = c.context, V = c.vocab;
  const double forward =
      2.0 * (static_cast<double>(NonEmbeddingParamCount(c)) + V * C) + 4.0 * c.layers * T * C;
  const BackwardPlan plan = PlanBackward(c.layers, t);
  // The head: wte through the output matmul (weight and input gradient), then lnf.
  double backward = 2 * V * C + 2 * V * C + 2 * 2 * C + (plan.lnf_dinp ? 2 * 2 * C : 0);
  const double qkv = 3 * C * C + 3 * C, attproj = C * C + C, fc = 4 * C * C + 4 * C,
               fcproj = 4 * C * C + C, ln = 2 * C;
  for (int l = plan.lowest; l < c.layers; ++l) {
    const BlockPlan& b = plan.blocks[l];
    if (b.run_mlp) {
      backward += (b.mlp_weights ? 2 * fcproj : 0) + 2 * fcproj;
      backward += (b.mlp_weights ? 2 * fc : 0) + 2 * fc;
      backward += (b.mlp_weights ? 2 * ln : 0) + (b.run_attn ? 2 * ln : 0);
    }
    if (b.run_attn) {
      backward += (b.attn_weights ? 2 * attproj : 0) + 2 * attproj;
      backward += 8 * T * C;
      backward += (b.attn_weights ? 2 * qkv : 0) + 2 * qkv;
      backward += (b.attn_weights ? 2 * ln : 0) + (b.ln1_dinp ? 2 * ln : 0);
    }
  }
  return forward + backward;
}

int64_t FrozenParamCount(const ModelConfig& c, const Trainable& t) {
  const int64_t C = c.d_model;
  int64_t n = t.embeddings ? 0 : static_cast<int64_t>(c.context) * C;
  for (int l = 0; l < c.layers; ++l) {
    if (!t.AttnTrainable(l)) n += 4 * C * C + 6 * C;
    if (!t.MlpTrainable(l)) n += 8 * C * C + 7 * C;
  }
  return n;
}

}  // namespace preflight::engine
