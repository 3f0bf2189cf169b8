#include "select/classifier.h"

#include <fasttext/fasttext.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "base/file.h"
#include "select/features.h"

namespace preflight::select {

Status ClassifierOptions::Validate() const {
  if (dim < 1 || epochs < 1 || !(lr > 0) || word_ngrams < 1 || buckets < 1 || chunk_words < 1 ||
      !(negative_ratio > 0)) {
    return Status::InvalidArgument("classifier options must all be positive");
  }
  return Status::Ok();
}

nlohmann::json ClassifierOptions::ToJson() const {
  return {{"dim", dim},
          {"epochs", epochs},
          {"lr", lr},
          {"word_ngrams", word_ngrams},
          {"buckets", buckets},
          {"chunk_words", chunk_words},
          {"negative_ratio", negative_ratio},
          {"loss", "softmax"},
          {"min_count", 1},
          {"threads", 1}};
}

std::string NormalizeForClassifier(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto* p = reinterpret_cast<const uint8_t*>(text.data());
  const auto* end = p + text.size();
  while (p < end) {
    uint8_t cls = kByteClasses.cls[*p];
    if (cls == 0) {
      ++p;
      continue;
    }
    if (!out.empty()) out.push_back(' ');
    while (p < end && kByteClasses.cls[*p] == cls)
      out.push_back(static_cast<char>(kByteClasses.lower[*p++]));
  }
  return out;
}

Classifier::Classifier() = default;
Classifier::~Classifier() = default;
Classifier::Classifier(Classifier&&) noexcept = default;
Classifier& Classifier::operator=(Classifier&&) noexcept = default;

namespace {

// Writes "__label__<label> <piece>" lines, one per `chunk_words` tokens.
void AppendExamples(const std::string& label, const std::vector<std::string>& texts,
                    int chunk_words, std::string& out) {
  for (const std::string& text : texts) {
    std::string norm = NormalizeForClassifier(text);
    size_t pos = 0;
    while (pos < norm.size()) {
      size_t end = pos;
      for (int w = 0; w < chunk_words && end < norm.size(); ++w) {
        size_t sp = norm.find(' ', end);
        end = sp == std::string::npos ? norm.size() : sp + 1;
      }
      out += "__label__" + label + " ";
      out.append(norm, pos, end - pos);
      if (out.back() == ' ') out.pop_back();
      out.push_back('\n');
      pos = end;
    }
  }
}

}  // namespace

Result<Classifier> Classifier::Train(const std::vector<std::string>& positives,
                                     const std::vector<std::string>& negatives,
                                     const ClassifierOptions& options, uint64_t seed,
                                     const std::string& scratch_dir) {
  PF_RETURN_IF_ERROR(options.Validate());
  if (positives.empty())
    return Status::InvalidArgument("classifier: no positive (target) documents");
  if (negatives.empty()) return Status::InvalidArgument("classifier: no negative (pool) documents");
  std::string examples;
  AppendExamples("target", positives, options.chunk_words, examples);
  AppendExamples("pool", negatives, options.chunk_words, examples);
  std::string train_path =
      JoinPath(scratch_dir, ".preflight-fasttext-" + std::to_string(::getpid()) + ".txt");
  {
    // A plain temporary file: fastText reads its input from a path.
    std::FILE* f = std::fopen(train_path.c_str(), "wb");
    if (f == nullptr)
      return Status::IOError(train_path + ": cannot write classifier training data");
    bool ok = std::fwrite(examples.data(), 1, examples.size(), f) == examples.size();
    ok = std::fclose(f) == 0 && ok;
    if (!ok) {
      std::remove(train_path.c_str());
      return Status::IOError(train_path + ": write failed");
    }
  }
  fasttext::Args args;
  args.input = train_path;
  args.output = "";
  args.model = fasttext::model_name::sup;
  args.loss = fasttext::loss_name::softmax;
  args.dim = options.dim;
  args.epoch = options.epochs;
  args.lr = options.lr;
  args.wordNgrams = options.word_ngrams;
  args.bucket = options.buckets;
  args.minCount = 1;
  args.minn = 0;
  args.maxn = 0;
  args.thread = 1;
  args.verbose = 0;
  args.seed = static_cast<int>(seed & 0x7fffffff);
  Classifier c;
  c.model_ = std::make_unique<fasttext::FastText>();
  try {
    c.model_->train(args);
  } catch (const std::exception& e) {
    std::remove(train_path.c_str());
    return Status::Internal(std::string("fastText training failed: ") + e.what());
  }
  std::remove(train_path.c_str());
  return c;
}

Result<std::string> Classifier::Serialize(const std::string& scratch_dir) const {
  if (!model_) return Status::Internal("classifier: no model to serialize");
  std::string path =
      JoinPath(scratch_dir, ".preflight-fasttext-" + std::to_string(::getpid()) + ".bin");
  try {
    model_->saveModel(path);
  } catch (const std::exception& e) {
    std::remove(path.c_str());
    return Status::IOError(path + ": cannot save the classifier (" + e.what() + ")");
  }
  auto bytes = ReadFileToString(path);
  std::remove(path.c_str());
  return bytes;
}

Result<Classifier> Classifier::Deserialize(const std::string& bytes) {
  // fastText checks a model's header only when it loads from a path: go through a file in this
  // machine's temporary folder (the caller's folder may not exist on another node).
  std::error_code ec;
  std::string dir = std::filesystem::temp_directory_path(ec).string();
  if (ec) dir = "/tmp";
  std::string path = JoinPath(dir, ".preflight-fasttext-" + std::to_string(::getpid()) + ".bin");
  PF_RETURN_IF_ERROR(WriteFileAtomically(path, bytes));
  Classifier c;
  c.model_ = std::make_unique<fasttext::FastText>();
  try {
    c.model_->loadModel(path);
  } catch (const std::exception& e) {
    std::remove(path.c_str());
    return Status::Internal(std::string("classifier: cannot load the model (") + e.what() + ")");
  }
  std::remove(path.c_str());
  return c;
}

double Classifier::PositiveProbability(std::string_view text) const {
  std::istringstream in(NormalizeForClassifier(text) + "\n");
  std::vector<std::pair<fasttext::real, std::string>> predictions;
  model_->predictLine(in, predictions, 2, 0.0);
  for (const auto& [prob, label] : predictions) {
    if (label == "__label__target") return static_cast<double>(prob);
  }
  return 0.0;
}

}  // namespace preflight::select
