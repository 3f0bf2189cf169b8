#include "app/rung_reuse.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <system_error>
#include <vector>

#include "base/file.h"
#include "base/json.h"
#include "trial/run_folder.h"

namespace preflight::app {
namespace {

using nlohmann::json;

// The keys of a trial's fingerprint that only training reads: without them, what is left
// decides the arms (and, with the eval windows, their regime scores).
constexpr const char* kTrainingKeys[] = {"model", "steps",   "eval_every", "eval_max_windows",
                                         "lr",    "threads", "seeds"};

json WithoutForecast(json config) {
  config.erase("forecast");
  return config;
}

json DataPart(json config) {
  config = WithoutForecast(std::move(config));
  for (const char* key : kTrainingKeys) config.erase(key);
  return config;
}

// The manifest of a finished trial in `dir`, or nothing (no trial, unfinished, damaged).
std::optional<trial::RunFolderManifest> FinishedManifest(const std::string& dir) {
  trial::RunFolder folder(dir);
  if (!PathExists(folder.manifest_path())) return std::nullopt;
  auto doc = ReadJsonFile(folder.manifest_path());
  if (!doc.ok()) return std::nullopt;
  auto manifest = trial::ManifestFromJson(*doc, folder.manifest_path());
  if (!manifest.ok() || !manifest->done || !manifest->config.is_object()) return std::nullopt;
  for (const auto& arm : manifest->arms) {
    if (!PathExists(folder.ArmPath(arm.first))) return std::nullopt;  // its arms were removed
  }
  return std::move(manifest).value();
}

// DIR, then the folders directly inside DIR's parent, in sorted order (DIR not twice).
std::vector<std::string> Candidates(std::string ladder_dir) {
  while (ladder_dir.size() > 1 && ladder_dir.back() == '/') ladder_dir.pop_back();
  std::vector<std::string> dirs = {ladder_dir};
  const std::string parent = DirName(ladder_dir);
  std::error_code ec;
  std::vector<std::string> siblings;
  // Never throws: an unreadable parent or entry is passed over.
  for (std::filesystem::directory_iterator it(parent, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::error_code type_ec;
    if (!it->is_directory(type_ec)) continue;
    const std::string dir = JoinPath(parent, it->path().filename().string());
    if (dir != ladder_dir) siblings.push_back(dir);
  }
  std::sort(siblings.begin(), siblings.end());
  dirs.insert(dirs.end(), siblings.begin(), siblings.end());
  return dirs;
}

// `from` at `to`: a hard link, else a copy renamed into place (no half file after a kill).
Status LinkOrCopy(const std::string& from, const std::string& to) {
  std::error_code ec;
  std::filesystem::create_hard_link(from, to, ec);
  if (!ec) return Status::Ok();
  ec.clear();
  std::filesystem::copy_file(from, to + ".tmp", std::filesystem::copy_options::overwrite_existing,
                             ec);
  if (!ec) std::filesystem::rename(to + ".tmp", to, ec);
  if (ec) return Status::IOError(to + ": cannot reuse " + from + " (" + ec.message() + ")");
  return Status::Ok();
}

bool SameEvalWindows(const json& a, const json& b) {
  return JsonAt(a, {"eval_max_windows"}) == JsonAt(b, {"eval_max_windows"}) &&
         a.contains("model") && b.contains("model") &&
         JsonAt(a, {"model", "context"}) == JsonAt(b, {"model", "context"});
}

// The finished trial that can lend to a rung: where it is, what it lends, its manifest.
struct Donor {
  std::string dir;
  bool runs = false;  // same fingerprint: arms and runs; else arms only
  trial::RunFolderManifest manifest;
};

std::optional<Donor> FindDonor(const std::string& ladder_dir, const trial::TrialConfig& config) {
  const json wanted = config.ToJson();
  std::optional<Donor> arms_only;
  for (const std::string& dir : Candidates(ladder_dir)) {
    if (dir == config.out_dir) continue;
    std::optional<trial::RunFolderManifest> m = FinishedManifest(dir);
    if (!m) continue;
    if (WithoutForecast(m->config) == WithoutForecast(wanted)) {
      return Donor{dir, true, std::move(*m)};
    }
    if (!arms_only && DataPart(m->config) == DataPart(wanted)) {
      arms_only = Donor{dir, false, std::move(*m)};
    }
  }
  return arms_only;
}

}  // namespace

bool SameRuns(const trial::TrialConfig& a, const trial::TrialConfig& b) {
  return WithoutForecast(a.ToJson()) == WithoutForecast(b.ToJson());
}

Status LendTrial(const std::string& from_dir, const trial::RunFolderManifest& from,
                 const trial::TrialConfig& config, bool with_runs) {
  const trial::RunFolder source(from_dir);
  trial::RunFolder folder(config.out_dir);
  const json wanted = config.ToJson();
  const bool same_windows = SameEvalWindows(from.config, wanted);
  PF_RETURN_IF_ERROR(folder.Open(wanted));
  PF_RETURN_IF_ERROR(MakeDirectories(JoinPath(config.out_dir, "arms")));
  for (auto [name, record] : from.arms) {
    for (const std::string suffix : {"", ".manifest.json"}) {
      const std::string in = source.ArmPath(name) + suffix, out = folder.ArmPath(name) + suffix;
      if (!PathExists(in) || PathExists(out)) continue;
      PF_RETURN_IF_ERROR(LinkOrCopy(in, out));
    }
    if (!same_windows) record.ngram.reset();
    folder.manifest().arms[name] = record;
  }
  if (with_runs) folder.manifest().runs = from.runs;
  return folder.Save();
}

Result<std::string> SeedRungFromFinishedTrial(const std::string& ladder_dir,
                                              const trial::TrialConfig& config) {
  if (PathExists(trial::RunFolder(config.out_dir).manifest_path())) return std::string();
  std::optional<Donor> donor = FindDonor(ladder_dir, config);
  if (!donor) return std::string();
  PF_RETURN_IF_ERROR(LendTrial(donor->dir, donor->manifest, config, donor->runs));
  return std::string(donor->runs ? "the arms and runs of the finished trial in "
                                 : "the arms of the finished trial in ") +
         donor->dir;
}

}  // namespace preflight::app
