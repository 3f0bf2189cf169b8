#include "select/piece.h"

namespace preflight::select {

Status PieceWriter::Add(uint32_t seq, std::string content) {
  Ready ready;
  if (compression_ != Compression::kNone && !content.empty()) {
    PF_RETURN_IF_ERROR(AppendFrame(compression_, content, path_, &ready.frame));
  }
  ready.content = std::move(content);
  std::lock_guard<std::mutex> lock(mu_);
  waiting_.emplace(seq, std::move(ready));
  return WriteInOrder();
}

Status PieceWriter::WriteInOrder() {
  if (!opened_) {
    PF_RETURN_IF_ERROR(file_.OpenScratch(path_));
    opened_ = true;
  }
  for (auto it = waiting_.find(next_); it != waiting_.end(); it = waiting_.find(next_)) {
    Ready& r = it->second;
    const std::string& bytes = compression_ == Compression::kNone ? r.content : r.frame;
    file_sha_.Update(bytes);
    if (compression_ != Compression::kNone) content_sha_.Update(r.content);
    content_bytes_ += r.content.size();
    PF_RETURN_IF_ERROR(file_.Write(bytes));
    waiting_.erase(it);
    ++next_;
  }
  return Status::Ok();
}

Result<PieceFacts> PieceWriter::Finish() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!opened_) {
    PF_RETURN_IF_ERROR(file_.OpenScratch(path_));
    opened_ = true;
  }
  if (!waiting_.empty()) return Status::Internal(path_ + ": a chunk of the piece is missing");
  if (compression_ != Compression::kNone && content_bytes_ == 0) {
    // No content: one empty frame, so that the piece alone is a valid stream.
    std::string frame;
    PF_RETURN_IF_ERROR(AppendFrame(compression_, "", path_, &frame));
    file_sha_.Update(frame);
    PF_RETURN_IF_ERROR(file_.Write(frame));
  }
  PieceFacts f;
  f.path = path_;
  f.file_bytes = file_.bytes_written();
  f.content_bytes = content_bytes_;
  PF_RETURN_IF_ERROR(file_.Commit());
  f.file_sha256 = file_sha_.HexDigest();
  f.content_sha256 = compression_ == Compression::kNone ? f.file_sha256 : content_sha_.HexDigest();
  return f;
}

}  // namespace preflight::select
