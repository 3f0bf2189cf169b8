#include "select/output.h"

#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>

namespace preflight::select {
namespace {

bool EndsWith(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

constexpr size_t kChunk = 1 << 16;

// A path a selection may rename a file onto: missing or a regular file.
Status CheckDestination(const std::string& path, const std::string& flag) {
  if (IsDirectory(path)) {
    return Status::InvalidArgument(path + ": is a folder; " + flag +
                                   " needs a file path (for example " +
                                   JoinPath(path, "kept.jsonl") + ")");
  }
  return CheckReplaceableFile(path, flag);
}

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

Compression CompressionFor(const std::string& path) {
  if (EndsWith(path, ".zst")) return Compression::kZstd;
  if (EndsWith(path, ".gz")) return Compression::kGzip;
  return Compression::kNone;
}

const char* CompressionName(Compression c) {
  switch (c) {
    case Compression::kZstd:
      return "zstd";
    case Compression::kGzip:
      return "gzip";
    case Compression::kNone:
      break;
  }
  return "none";
}

// A streaming compressor: Feed() hands compressed bytes to `sink` as they come; Finish() ends the
// stream.
class OutputFile::Encoder {
 public:
  using Sink = std::function<Status(std::string_view)>;
  explicit Encoder(Compression c) : compression_(c) {}
  ~Encoder() {
    if (zstd_) ZSTD_freeCCtx(zstd_);
    if (gzip_open_) deflateEnd(&gzip_);
  }

  Status Start(const std::string& path) {
    if (compression_ == Compression::kZstd) {
      zstd_ = ZSTD_createCCtx();
      if (!zstd_ || ZSTD_isError(ZSTD_CCtx_setParameter(zstd_, ZSTD_c_compressionLevel, 3)))
        return Status::Internal(path + ": cannot start a zstd stream");
      return Status::Ok();
    }
    std::memset(&gzip_, 0, sizeof(gzip_));
    // windowBits 15 + 16: a gzip wrapper with no name and time 0, so the bytes are reproducible.
    if (deflateInit2(&gzip_, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      return Status::Internal(path + ": cannot start a gzip stream");
    gzip_open_ = true;
    return Status::Ok();
  }

  Status Feed(std::string_view in, bool end, const std::string& path, const Sink& sink) {
    return compression_ == Compression::kZstd ? FeedZstd(in, end, path, sink)
                                              : FeedGzip(in, end, path, sink);
  }

 private:
  Status FeedZstd(std::string_view in, bool end, const std::string& path, const Sink& sink) {
    ZSTD_inBuffer input{in.data(), in.size(), 0};
    const ZSTD_EndDirective mode = end ? ZSTD_e_end : ZSTD_e_continue;
    for (;;) {
      ZSTD_outBuffer output{buffer_, kChunk, 0};
      const size_t left = ZSTD_compressStream2(zstd_, &output, &input, mode);
      if (ZSTD_isError(left)) return Status::Internal(path + ": zstd: " + ZSTD_getErrorName(left));
      PF_RETURN_IF_ERROR(sink(std::string_view(buffer_, output.pos)));
      if (end ? left == 0 : input.pos == input.size) return Status::Ok();
    }
  }

  Status FeedGzip(std::string_view in, bool end, const std::string& path, const Sink& sink) {
    gzip_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    gzip_.avail_in = static_cast<uInt>(in.size());
    for (;;) {
      gzip_.next_out = reinterpret_cast<Bytef*>(buffer_);
      gzip_.avail_out = kChunk;
      const int rc = deflate(&gzip_, end ? Z_FINISH : Z_NO_FLUSH);
      if (rc == Z_STREAM_ERROR) return Status::Internal(path + ": gzip stream error");
      PF_RETURN_IF_ERROR(sink(std::string_view(buffer_, kChunk - gzip_.avail_out)));
      if (end ? rc == Z_STREAM_END : (gzip_.avail_in == 0 && gzip_.avail_out != 0))
        return Status::Ok();
    }
  }

  Compression compression_;
  ZSTD_CCtx* zstd_ = nullptr;
  z_stream gzip_{};
  bool gzip_open_ = false;
  char buffer_[kChunk];
};

OutputFile::OutputFile() = default;
OutputFile::~OutputFile() = default;

Status OutputFile::Open(const std::string& path, const std::string& flag) {
  PF_RETURN_IF_ERROR(CheckDestination(path, flag));
  if (Status st = file_.Open(path); !st.ok()) {
    return Status::InvalidArgument(st.message() + " (" + flag + ")");
  }
  compression_ = CompressionFor(path);
  content_bytes_ = 0;
  if (compression_ == Compression::kNone) return Status::Ok();
  encoder_ = std::make_unique<Encoder>(compression_);
  return encoder_->Start(path);
}

Status OutputFile::WriteFile(std::string_view bytes) {
  file_sha_.Update(bytes);
  return file_.Write(bytes);
}

Status OutputFile::Write(std::string_view bytes) {
  content_bytes_ += bytes.size();
  if (!encoder_) return WriteFile(bytes);  // Content and file are the same bytes: one hash.
  content_sha_.Update(bytes);
  return encoder_->Feed(bytes, /*end=*/false, path(),
                        [this](std::string_view out) { return WriteFile(out); });
}

Status OutputFile::Finish() {
  if (encoder_) {
    PF_RETURN_IF_ERROR(encoder_->Feed({}, /*end=*/true, path(),
                                      [this](std::string_view out) { return WriteFile(out); }));
    encoder_.reset();
  }
  return file_.Flush();
}

Status OutputFile::Commit() {
  PF_RETURN_IF_ERROR(Finish());
  return file_.Commit();
}

void OutputFile::Abandon() {
  encoder_.reset();
  file_.Abandon();
}

SelectionOutputs::~SelectionOutputs() {
  if (committed_) return;
  kept_.Abandon();
  annotations_.Abandon();
  manifest_.Abandon();
  if (manifest_named_) std::remove(manifest_path_.c_str());  // a manifest of no output
  for (auto it = made_folders_.rbegin(); it != made_folders_.rend(); ++it) ::rmdir(it->c_str());
}

Status SelectionOutputs::MakeParents(const std::string& path, const std::string& flag) {
  std::vector<std::string> missing;
  for (std::string dir = DirName(path); !dir.empty() && dir != "." && dir != "/";
       dir = DirName(dir)) {
    if (PathExists(dir)) break;
    missing.push_back(dir);
    if (DirName(dir) == dir) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdir(it->c_str(), 0777) != 0 && errno != EEXIST) {
      return Status::InvalidArgument(path + ": cannot create the folder " + *it + " (" +
                                     std::strerror(errno) + ") for " + flag +
                                     "; choose a writable place");
    }
    made_folders_.push_back(*it);
  }
  return Status::Ok();
}

Status SelectionOutputs::Open(const std::string& out_path, const std::string& annotate_path,
                              const std::string& manifest_path) {
  // Every path before anything is made: a refused one leaves no folder and no temporary.
  PF_RETURN_IF_ERROR(CheckDestination(out_path, "--out"));
  if (!annotate_path.empty()) PF_RETURN_IF_ERROR(CheckDestination(annotate_path, "--annotate"));
  PF_RETURN_IF_ERROR(CheckDestination(manifest_path, "--manifest"));
  found_orphan_ = IsRegularFile(out_path) && !PathExists(manifest_path);
  manifest_path_ = manifest_path;
  PF_RETURN_IF_ERROR(MakeParents(out_path, "--out"));
  PF_RETURN_IF_ERROR(kept_.Open(out_path, "--out"));
  if (!annotate_path.empty()) {
    PF_RETURN_IF_ERROR(MakeParents(annotate_path, "--annotate"));
    PF_RETURN_IF_ERROR(annotations_.Open(annotate_path, "--annotate"));
    annotate_ = true;
  }
  PF_RETURN_IF_ERROR(MakeParents(manifest_path, "--manifest"));
  if (Status st = manifest_.Open(manifest_path); !st.ok()) {
    return Status::InvalidArgument(st.message() + " (--manifest)");
  }
  return Status::Ok();
}

Status SelectionOutputs::FinishData() {
  PF_RETURN_IF_ERROR(kept_.Finish());
  if (annotate_) PF_RETURN_IF_ERROR(annotations_.Finish());
  return Status::Ok();
}

Status SelectionOutputs::CommitManifest(std::string_view manifest_text) {
  // A former output beside the new manifest would look finished and disagree with it.
  for (const OutputFile* f : {&kept_, annotate_ ? &annotations_ : nullptr}) {
    if (f != nullptr && IsRegularFile(f->path()) && std::remove(f->path().c_str()) != 0) {
      return Status::IOError(f->path() + ": cannot remove the former output (" +
                             std::strerror(errno) + ")");
    }
  }
  PF_RETURN_IF_ERROR(manifest_.Write(manifest_text));
  PF_RETURN_IF_ERROR(manifest_.Commit());
  manifest_named_ = true;
  return Status::Ok();
}

Status SelectionOutputs::CommitData() {
  if (annotate_) PF_RETURN_IF_ERROR(annotations_.Commit());
  PF_RETURN_IF_ERROR(kept_.Commit());
  committed_ = true;
  return Status::Ok();
}

}  // namespace preflight::select
