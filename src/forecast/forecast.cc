#include "forecast/forecast.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "base/clock.h"
#include "base/file.h"
#include "corpus/scanner.h"
#include "engine/train.h"
#include "forecast/arm_reader.h"
#include "forecast/concentration.h"
#include "forecast/cross_fit.h"
#include "forecast/pool_signals.h"
#include "select/batch.h"
#include "select/selector.h"

namespace preflight::forecast {
namespace {

// A folder removed when it goes out of scope (only when this object made it).
class WorkDir {
 public:
  static Result<WorkDir> Make(const std::string& wanted) {
    WorkDir w;
    if (!wanted.empty()) {
      PF_RETURN_IF_ERROR(MakeDirectories(wanted));
      w.path_ = wanted;
      return w;
    }
    std::string pattern = (std::filesystem::temp_directory_path() / "preflight-forecast-XXXXXX");
    if (mkdtemp(pattern.data()) == nullptr) {
      return Status::IOError("cannot make a temporary folder for the forecast's arms");
    }
    w.path_ = pattern;
    w.owned_ = true;
    return w;
  }
  WorkDir() = default;
  WorkDir(WorkDir&& o) noexcept : path_(std::move(o.path_)), owned_(o.owned_) { o.owned_ = false; }
  ~WorkDir() {
    if (owned_) {
      std::error_code ignored;
      std::filesystem::remove_all(path_, ignored);
    }
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool owned_ = false;
};

nlohmann::json RunToJson(const ProxyRun& r) {
  nlohmann::json curve = nlohmann::json::array();
  for (size_t i = 0; i < r.steps.size(); ++i)
    curve.push_back({{"step", r.steps[i]}, {"eval_bpb", r.bpb[i]}});
  return curve;
}

struct TimedStep {
  double core_seconds_per_step = 0;
  double flops = 0;
};

// The trial's f (CPU seconds per training step, evals excluded), timed on a few steps.
Result<TimedStep> TimeTrainingStep(const ForecastConfig& c, const std::vector<std::string>& docs) {
  engine::TrainOptions t;
  t.model = c.model;
  t.steps = 4;
  t.eval_every = 1000;
  t.eval_max_windows = 1;
  t.threads = c.threads;
  t.lr = c.lr;
  PF_ASSIGN_OR_RETURN(engine::TrainResult r, engine::TrainOnDocuments(t, docs, docs));
  return TimedStep{r.train_core_seconds / static_cast<double>(std::max<int64_t>(1, r.steps)),
                   r.flops};
}

}  // namespace

nlohmann::json ForecastConfig::ToJson() const {
  nlohmann::json j = PlanJson();
  j["proxy"] = proxy;
  j["proxy_fraction"] = proxy_fraction;
  j["eval_max_windows"] = eval_max_windows;
  j["signal_bytes"] = signal_bytes;
  j["calibration"] = calibration.ToJson();
  if (!group.empty()) j["group"] = group;
  if (!remeasures.empty()) j["remeasures"] = remeasures;
  if (curve_signals) j["curve_signals"] = true;
  return j;
}

namespace {

Status ValidateConfig(const ForecastConfig& c) {
  if (c.pool.empty()) return Status::InvalidArgument("--pool is required");
  if (c.target_select.empty()) return Status::InvalidArgument("--target-select is required");
  if (c.selector == "random") {
    return Status::InvalidArgument("--selector random: there is nothing to forecast");
  }
  if (c.steps < 1 || c.seeds < 1)
    return Status::InvalidArgument("--steps and --seeds must be >= 1");
  if (!(c.proxy_fraction > 0 && c.proxy_fraction <= 0.05)) {
    return Status::InvalidArgument(
        "--proxy-fraction must be in (0, 0.05]: a forecast may cost at most 5% of the trial's "
        "training compute");
  }
  return engine::ValidateModel(c.model);
}

// The two arms the trial would train, made under `dir` as one batch, after the pool's first pass
// read once for them and the cross-fitted selections (select/batch.h).
Result<ForecastArms> MakeArms(const ForecastConfig& c, const std::string& dir,
                              const ProgressFn& progress) {
  select::SelectOptions o;
  o.keep = c.keep;
  o.seed = c.selection_seed;
  o.threads = c.threads;
  o.read.text_field = c.text_field;
  o.id_field = c.id_field;
  o.target_text_field = c.target_text_field;
  o.target_id_field = c.target_id_field;
  if (progress) progress({.stage = "read the pool and T_sel"});
  PF_ASSIGN_OR_RETURN(select::PreparedInputs read,
                      select::PrepareInputs(c.pool, {c.target_select}, o, {c.selector, "random"}));
  ForecastArms arms;
  arms.pool_passes = std::make_shared<const select::PreparedInputs>(std::move(read));
  std::vector<select::SelectionRequest> requests;
  for (const char* name : {"curated", "random"}) {
    o.selector = std::string(name) == "curated" ? c.selector : "random";
    o.out_path = JoinPath(dir, std::string(name) + ".jsonl");
    requests.push_back({{c.target_select}, o});
  }
  if (progress) progress({.stage = "select curated (" + c.selector + ") and random"});
  PF_ASSIGN_OR_RETURN(std::vector<select::SelectionResult> made,
                      select::RunSelections(c.pool, requests, {}, nullptr, arms.pool_passes.get()));
  arms.curated = {requests[0].options.out_path, c.selector, made[0].kept_docs, made[0].kept_bytes,
                  made[0].core_seconds};
  arms.random = {requests[1].options.out_path, "random", made[1].kept_docs, made[1].kept_bytes,
                 made[1].core_seconds};
  arms.inputs = select::ReceiptInputs(made[0].manifest["inputs"]);
  return arms;
}

nlohmann::json ArmJson(const ForecastArm& arm) {
  return {{"selector", arm.selector},
          {"kept_docs", arm.kept_docs},
          {"kept_bytes", arm.kept_bytes},
          {"core_seconds", arm.core_seconds}};
}

struct Measured {
  std::map<std::string, SignalValue> signals;
  double train_core_seconds_per_step = 0;
  nlohmann::json proxy = nullptr;
  nlohmann::json cross_fit = nullptr;
};

// The cross-fitted signals (cross_fit.h), their files in a temporary folder.
Status MeasureCrossFit(const ForecastConfig& c, const std::vector<std::string>& target,
                       const std::vector<std::string>& random, const select::PreparedInputs* passes,
                       Measured& m) {
  PF_ASSIGN_OR_RETURN(WorkDir work, WorkDir::Make(""));
  CrossFitOptions o;
  o.spec = c;  // the forecast's config is the trial's spec and more
  o.signal_bytes = c.signal_bytes;
  o.schedule.steps = c.steps;
  o.schedule.batch = c.model.batch;
  o.schedule.context = c.model.context;
  o.curve_signals = c.curve_signals;
  o.work_dir = work.path();
  o.passes = passes;
  PF_ASSIGN_OR_RETURN(CrossFitResult x, CrossFitSignals(o, target, random));
  for (auto& [name, value] : x.signals) m.signals[name] = value;
  m.cross_fit = std::move(x.evidence);
  return Status::Ok();
}

// The signals of the arms on T_sel, and f (the trial's CPU seconds per step).
Result<Measured> MeasureSignals(const ForecastConfig& c, const std::vector<std::string>& curated,
                                const std::vector<std::string>& random,
                                const std::vector<std::string>& target,
                                const select::PreparedInputs* passes, ForecastOutcome& out,
                                const ProgressFn& progress) {
  Measured m;
  if (progress) progress({.stage = "byte n-gram statistics"});
  for (int order : {1, 2}) {
    GainEstimate g = ByteNgramGain(curated, random, target, order);
    m.signals[order == 1 ? "byte_unigram_gain" : "byte_bigram_gain"] = {g.gain, g.lo, g.hi};
  }
  if (progress) progress({.stage = "pool signals (4-gram coverage, classifier)"});
  const double coverage = ByteBigramCoverage(random, target);
  m.signals["byte_pair_coverage"] = {coverage, coverage, coverage};
  const double covered = NgramCoverageGain(curated, random, target);
  m.signals["ngram4_coverage_gain"] = {covered, covered, covered};
  const TargetLike like = TargetLikeShare(target, curated, random);
  m.signals["target_like_gain"] = {like.gain, like.lo, like.hi};
  m.signals["target_like_share"] = {like.curated, like.curated, like.curated};
  const double auc_random = like.auc;  // ClassifierAuc(target, random), the same folds
  const double auc_curated = ClassifierAuc(target, curated);
  m.signals["classifier_auc"] = {auc_random, auc_random, auc_random};
  m.signals["classifier_gap"] = {auc_random - auc_curated, auc_random - auc_curated,
                                 auc_random - auc_curated};
  const Concentration k = MeasureConcentration(curated, random);
  m.signals["largest_source_kept"] = {k.largest_source_kept, k.largest_source_kept,
                                      k.largest_source_kept};
  m.signals["top_cluster_gain"] = {k.top_gain, k.top_gain, k.top_gain};
  if (progress) {
    progress({.stage = "cross-fitted signals (two selections with half of the target each)"});
  }
  PF_RETURN_IF_ERROR(MeasureCrossFit(c, target, random, passes, m));
  if (!c.proxy) {
    // f, timed: a few steps of the trial's model on the curated arm.
    if (progress) progress({.stage = "time a training step"});
    PF_ASSIGN_OR_RETURN(TimedStep timed, TimeTrainingStep(c, curated));
    m.train_core_seconds_per_step = timed.core_seconds_per_step;
    out.flops = timed.flops;
    return m;
  }
  ProxyOptions p;
  p.model = c.model;
  p.trial_steps = c.steps;
  p.proxy_steps = std::max<int64_t>(
      1, static_cast<int64_t>(c.proxy_fraction * static_cast<double>(c.seeds * c.steps)));
  p.proxy_steps = std::min(p.proxy_steps, c.steps);
  p.eval_max_windows = c.eval_max_windows;
  p.lr = c.lr;
  p.threads = c.threads;
  if (progress) {
    progress({.stage = "proxy runs (" + std::to_string(p.proxy_steps) + " steps per arm)"});
  }
  PF_ASSIGN_OR_RETURN(ProxyResult proxy, ProxyGain(curated, random, target, p));
  m.signals["proxy_gain"] = {proxy.gain, proxy.gain, proxy.gain};
  m.train_core_seconds_per_step = proxy.train_core_seconds_per_step;
  out.flops = proxy.flops;
  m.proxy = {{"steps", p.proxy_steps},
             {"of_trial_steps", c.steps},
             {"seed", 1},
             {"eval", "target_select"},
             {"curated", RunToJson(proxy.curated)},
             {"random", RunToJson(proxy.random)},
             {"core_seconds", proxy.core_seconds},
             {"train_core_seconds_per_step", proxy.train_core_seconds_per_step}};
  return m;
}

// The reason's words for signals outside what the calibration covered ("" when none).
std::string OutsideReason(const Calibration& cal, const Prediction& p) {
  if (cal.covered.empty()) {
    return "; the calibration records no covered ranges (saved before 2026-12-05): whether it "
           "has seen the like of this case is not known";
  }
  if (p.outside.empty()) return "";
  std::string list;
  for (const OutsideSignal& o : p.outside) {
    list += fmt::format("{}{} = {:.4f} (covered {:.4f} .. {:.4f})", list.empty() ? "" : ", ",
                        o.signal, o.value, o.covered.lo, o.covered.hi);
  }
  return fmt::format(
      "; outside what the calibration's {} trials covered: {}: it has not seen the like of this "
      "case, so the verdict is not clear",
      cal.examples, list);
}

nlohmann::json CoverageJson(const Calibration& cal, const Prediction& p) {
  nlohmann::json outside = nlohmann::json::array();
  for (const OutsideSignal& o : p.outside) {
    outside.push_back(
        {{"signal", o.signal}, {"value", o.value}, {"covered", {o.covered.lo, o.covered.hi}}});
  }
  return {{"checked", cal.covered.size()},
          {"inside", !cal.covered.empty() && p.outside.empty() && p.far_smaller.empty()},
          {"outside", outside},
          {"sizes_checked", cal.sizes_seen.size()},
          {"far_smaller", FarSmallerJson(p.far_smaller)}};
}

// The prediction from the calibration's signal, weighing the forecast's own cost; the reason in
// words.
// `sizes`: the case's (CaseSizes), checked against what the calibration saw.
Result<std::string> Decide(const ForecastConfig& c, const Measured& m,
                           const std::map<std::string, double>& sizes, ForecastOutcome& out) {
  for (const auto& [name, x] : m.signals) out.signals[name] = SignalToJson(x);
  const Calibration& cal = c.calibration;
  const bool same_scale = cal.scale.Matches(c.model_name, c.steps);
  PF_ASSIGN_OR_RETURN(out.prediction,
                      cal.PredictFrom(m.signals, out.fraction_of_trial, same_scale));
  out.prediction.far_smaller = cal.FarSmaller(sizes);
  if (!out.prediction.far_smaller.empty()) out.prediction.strength = "weak";
  const auto chosen = m.signals.find(cal.signal);
  std::string reason = fmt::format(
      "{} = {:.4f} on a monotone curve fitted on {} trials ({} corpus groups); chance that "
      "curating pays {:.0f}%, "
      "expected net saving {:+.1f}% against the forecast's cost of {:.2f}% of the trial",
      cal.signal, chosen->second.value, cal.examples, cal.groups, 100 * out.prediction.probability,
      100 * out.prediction.expected, 100 * out.fraction_of_trial);
  const SignalValue& x = chosen->second;
  if (x.lo < x.hi && x.lo <= 0 && 0 <= x.hi) {
    reason += fmt::format(
        "; its 80% interval ({:+.4f} .. {:+.4f}) covers 0: the curated quarter is not measurably "
        "closer to the target than a random one, so curating would pay for a selection that "
        "bought nothing measurable: random, whatever the chance above",
        x.lo, x.hi);
  }
  reason += OutsideReason(cal, out.prediction);
  if (const std::string note = FarSmallerNote(cal.examples, out.prediction.far_smaller);
      !note.empty()) {
    reason += "; " + note;
  }
  if (!same_scale) {
    reason +=
        fmt::format("; calibrated at {}/{} steps, asked about {}/{}: interval widened twofold",
                    cal.scale.model, cal.scale.steps, c.model_name, c.steps);
  }
  return reason;
}

void FillResult(const ForecastConfig& c, const std::string& reason, ForecastOutcome& out) {
  const Prediction& p = out.prediction;
  out.result = {{"verdict", p.verdict},
                {"strength", p.strength},
                {"reason", reason},
                {"probability", p.probability},
                {"predicted_saving", p.saving},
                {"expected_saving", p.expected},
                {"interval", {p.lo, p.hi}},
                {"interval_level", 0.8},
                {"decision_cost", p.decision_cost},
                {"scale",
                 {{"calibrated", ScaleToJson(c.calibration.scale)},
                  {"asked", {{"model", c.model_name}, {"steps", c.steps}}},
                  {"matches", p.scale_matches}}},
                {"signal", c.calibration.signal},
                {"coverage", CoverageJson(c.calibration, p)},
                {"signals", out.signals},
                {"calibration", c.calibration.ToJson()},
                {"evidence", out.evidence},
                {"cost",
                 {{"core_seconds", out.core_seconds},
                  {"fraction_of_trial", out.fraction_of_trial},
                  {"trial_core_seconds_estimate", out.trial_core_seconds}}}};
}

}  // namespace

std::string FarSmallerNote(int calibration_examples, const std::vector<OutsideSignal>& smaller) {
  if (smaller.empty()) return "";
  const std::map<std::string, std::string> words = {{"pool_docs", "document{} in the pool"},
                                                    {"pool_bytes", "byte{} in the pool"},
                                                    {"arm_docs", "document{} in an arm"},
                                                    {"arm_bytes", "byte{} in an arm"}};
  std::string list;
  for (const OutsideSignal& o : smaller) {
    auto it = words.find(o.signal);
    const std::string what = it == words.end()
                                 ? o.signal
                                 : fmt::format(fmt::runtime(it->second), o.value == 1 ? "" : "s");
    list += fmt::format("{}{:.0f} {} (smallest seen {:.0f})", list.empty() ? "" : ", ", o.value,
                        what, o.covered.lo);
  }
  return fmt::format(
      "far smaller than anything the calibration's {} trials saw: {}: too little to learn from "
      "for what they measured to say anything about this case, so the verdict is not clear",
      calibration_examples, list);
}

nlohmann::json FarSmallerJson(const std::vector<OutsideSignal>& smaller) {
  nlohmann::json out = nlohmann::json::array();
  for (const OutsideSignal& o : smaller) {
    out.push_back({{"size", o.signal}, {"value", o.value}, {"smallest_seen", o.covered.lo}});
  }
  return out;
}

std::string FarSmallerNoteOf(const nlohmann::json& result) {
  if (!result.is_object() || !result.contains("coverage") || !result.contains("calibration")) {
    return "";
  }
  const nlohmann::json& coverage = result["coverage"];
  const nlohmann::json& calibration = result["calibration"];
  if (!coverage.is_object() || !coverage.contains("far_smaller") ||
      !coverage["far_smaller"].is_array() || !calibration.is_object() ||
      !calibration.contains("examples") || !calibration["examples"].is_number_integer()) {
    return "";
  }
  std::vector<OutsideSignal> smaller;
  for (const nlohmann::json& s : coverage["far_smaller"]) {
    if (!s.is_object() || !s.contains("size") || !s["size"].is_string() || !s.contains("value") ||
        !s["value"].is_number() || !s.contains("smallest_seen") ||
        !s["smallest_seen"].is_number()) {
      continue;
    }
    const double lo = s["smallest_seen"].get<double>();
    smaller.push_back({s["size"].get<std::string>(), s["value"].get<double>(), {lo, lo}});
  }
  return FarSmallerNote(calibration["examples"].get<int>(), smaller);
}

Result<ForecastOutcome> ForecastOnArms(const ForecastConfig& c, const ForecastArms& arms,
                                       const ProgressFn& progress) {
  PF_RETURN_IF_ERROR(ValidateConfig(c));
  CostMeter meter;
  ForecastOutcome out;
  out.inputs = arms.inputs;
  PF_ASSIGN_OR_RETURN(std::vector<std::string> curated,
                      ReadSample(arms.curated.path, c.text_field, c.signal_bytes));
  PF_ASSIGN_OR_RETURN(std::vector<std::string> random,
                      ReadSample(arms.random.path, c.text_field, c.signal_bytes));
  PF_ASSIGN_OR_RETURN(std::vector<std::string> target,
                      ReadTexts(c.target_select, c.TargetTextField()));
  PF_ASSIGN_OR_RETURN(Measured m, MeasureSignals(c, curated, random, target, arms.pool_passes.get(),
                                                 out, progress));

  // The cost (measured here, plus the arms' selections when this forecast made them) against
  // the trial's training compute, estimated; the decision weighs it.
  out.core_seconds = meter.core_seconds() + arms.selection_core_seconds_charged;
  out.trial_core_seconds =
      m.train_core_seconds_per_step * static_cast<double>(2 * c.seeds * c.steps);
  out.fraction_of_trial =
      out.trial_core_seconds > 0 ? out.core_seconds / out.trial_core_seconds : 0;
  const nlohmann::json arm_json = {{"curated", ArmJson(arms.curated)},
                                   {"random", ArmJson(arms.random)}};
  PF_ASSIGN_OR_RETURN(std::string reason, Decide(c, m, CaseSizes(arms.inputs, arm_json), out));
  out.evidence = {{"arms", arm_json},
                  {"signal_docs", {{"curated", curated.size()}, {"random", random.size()}}},
                  {"target_select_docs", target.size()},
                  {"proxy", m.proxy},
                  {"cross_fit", m.cross_fit},
                  {"train_core_seconds_per_step", m.train_core_seconds_per_step}};
  FillResult(c, reason, out);
  return out;
}

Result<ForecastOutcome> RunForecast(const ForecastConfig& c, const ProgressFn& progress) {
  PF_RETURN_IF_ERROR(ValidateConfig(c));
  CostMeter meter;
  PF_ASSIGN_OR_RETURN(WorkDir work, WorkDir::Make(c.work_dir));
  PF_ASSIGN_OR_RETURN(ForecastArms arms, MakeArms(c, work.path(), progress));
  // A forecast made on its own pays for its arms; one that re-measures a trial does not (the
  // trial made and paid for the same arms).
  arms.selection_core_seconds_charged = c.remeasures.empty() ? meter.core_seconds() : 0.0;
  return ForecastOnArms(c, arms, progress);
}

}  // namespace preflight::forecast
