#include "corpus/shard_scan.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "base/sha256.h"
#include "corpus/chunk_reader.h"
#include "corpus/parquet_rows.h"
#include "corpus/text_document.h"

namespace preflight::corpus {
namespace {

// A chunk and the bytes its records point into. Held by pointer so that the views stay valid.
struct LoadedChunk {
  uint32_t slot = 0;  // Position of its shard in ScanRequest::shards.
  Chunk chunk;
  std::vector<char> bytes;  // Recycled from chunk to chunk: no allocation once warm.
  std::string reason;       // A bad plain-text document's.
  ParquetBatch rows;        // A Parquet shard's rows (recycled likewise).
};

// Reads one shard in order, chunk by chunk. Used by one thread at a time.
class ShardSource {
 public:
  virtual ~ShardSource() = default;
  // Loads the next chunk into `out`; false at the end of the shard.
  virtual Result<bool> Next(LoadedChunk& out) = 0;
  virtual uint64_t disk_bytes_read() const = 0;
  // After the end: what was read (counts, the file's hash when asked).
  virtual Status Finish(ShardRead& read) = 0;
};

// Feeds [from, end of file) of `path` to `sha`; returns the file's size.
Result<uint64_t> HashRest(const std::string& path, uint64_t from, Sha256& sha) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return Status::IOError(path + ": cannot open (" + std::strerror(errno) + ")");
  std::vector<char> buf(1 << 20);
  uint64_t at = from;
  while (true) {
    const ssize_t n = ::pread(fd, buf.data(), buf.size(), static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      return Status::IOError(path + ": read failed at byte " + std::to_string(at) + " (" + why +
                             ")");
    }
    if (n == 0) break;
    sha.Update(std::string_view(buf.data(), static_cast<size_t>(n)));
    at += static_cast<uint64_t>(n);
  }
  ::close(fd);
  return at;
}

class JsonlSource final : public ShardSource {
 public:
  JsonlSource(const ShardedFile& file, const Shard& shard, uint32_t shard_id, int64_t lines_before,
              bool hash)
      : file_(file),
        shard_(shard),
        shard_id_(shard_id),
        line_no_(lines_before),
        hash_(hash && shard.hashes_file) {}

  Status Open(const ReadOptions& options) {
    const bool to_end = shard_.end >= file_.size;
    PF_ASSIGN_OR_RETURN(
        reader_, ChunkReader::OpenAs(file_.path, file_.format, MaxLineBytes(options), shard_.begin,
                                     to_end ? UINT64_MAX : shard_.end));
    if (hash_) {
      reader_->HashInto(&sha_);
    } else {
      reader_->SkipHash();
    }
    return Status::Ok();
  }

  Result<bool> Next(LoadedChunk& out) override {
    PF_ASSIGN_OR_RETURN(size_t size, reader_->NextInto(&out.bytes));
    if (size == 0) return false;
    out.chunk.shard = shard_id_;
    out.chunk.seq = seq_++;
    out.chunk.first_record = records_;
    Split(std::string_view(out.bytes.data(), size), out.chunk.records);
    return true;
  }

  uint64_t disk_bytes_read() const override { return reader_->disk_bytes_read(); }

  Status Finish(ShardRead& read) override {
    read.records = records_;
    read.lines = lines_;
    read.blank = blank_;
    read.disk_bytes = reader_->disk_bytes_read();
    read.skipped_bom = reader_->skipped_bom();
    if (!hash_) return Status::Ok();
    read.file_bytes = read.disk_bytes;
    if (shard_.end < file_.size) {  // The first range of a cut file hashes the rest too.
      PF_ASSIGN_OR_RETURN(read.file_bytes, HashRest(file_.path, read.disk_bytes, sha_));
    }
    read.file_sha256 = sha_.HexDigest();
    return Status::Ok();
  }

 private:
  // The chunk's non-blank lines, numbered.
  void Split(std::string_view data, std::vector<ChunkRecord>& out) {
    out.clear();
    const char* p = data.data();
    const char* end = p + data.size();
    while (p < end) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
      const char* line_end = nl ? nl : end;
      const std::string_view line(p, line_end - p);
      ++line_no_;
      ++lines_;
      if (IsBlank(line)) {
        ++blank_;
      } else {
        ChunkRecord r;
        r.line = line;
        r.line_no = line_no_;
        out.push_back(r);
        ++records_;
      }
      p = nl ? nl + 1 : end;
    }
  }

  const ShardedFile& file_;
  const Shard& shard_;
  uint32_t shard_id_;
  int64_t line_no_;
  bool hash_;
  std::unique_ptr<ChunkReader> reader_;
  Sha256 sha_;
  uint32_t seq_ = 0;
  uint64_t records_ = 0, lines_ = 0, blank_ = 0;
};

// A plain-text file: one document, one chunk.
class TextSource final : public ShardSource {
 public:
  TextSource(const ShardedFile& file, uint32_t shard_id, const ReadOptions& options, bool hash)
      : file_(file), shard_id_(shard_id), options_(options), hash_(hash) {}

  Result<bool> Next(LoadedChunk& out) override {
    if (done_) return false;
    done_ = true;
    PF_ASSIGN_OR_RETURN(TextDocument doc,
                        ReadTextDocument(file_.path, file_.rel.empty() ? file_.path : file_.rel,
                                         options_, [this](std::string_view bytes) {
                                           if (hash_) sha_.Update(bytes);
                                         }));
    disk_ = doc.file_bytes;
    bom_ = doc.bom;
    const size_t text_bytes = doc.content.size();
    out.bytes.assign(doc.content.begin(), doc.content.end());
    out.bytes.insert(out.bytes.end(), doc.line.begin(), doc.line.end());
    out.reason = std::move(doc.reason);
    ChunkRecord r;
    r.has_text = true;
    r.text = std::string_view(out.bytes.data(), text_bytes);
    r.line = std::string_view(out.bytes.data() + text_bytes, out.bytes.size() - text_bytes);
    r.preset_bad = out.reason;
    out.chunk.shard = shard_id_;
    out.chunk.seq = 0;
    out.chunk.first_record = 0;
    out.chunk.records.assign(1, r);
    return true;
  }

  uint64_t disk_bytes_read() const override { return disk_; }

  Status Finish(ShardRead& read) override {
    read.records = read.lines = done_ ? 1 : 0;
    read.disk_bytes = disk_;
    read.skipped_bom = bom_;
    if (hash_) {
      read.file_bytes = disk_;
      read.file_sha256 = sha_.HexDigest();
    }
    return Status::Ok();
  }

 private:
  const ShardedFile& file_;
  uint32_t shard_id_;
  const ReadOptions& options_;
  bool hash_;
  Sha256 sha_;
  bool done_ = false, bom_ = false;
  uint64_t disk_ = 0;
};

// A Parquet shard: its row groups' rows, a chunk of about ChunkReader::kChunkBytes of text (and
// lines) at a time, copied out of the reader's pages. The shard that hashes the file reads the
// whole file once more at its end, in order, for its SHA-256 (the reader reads only the columns
// it needs, footer first).
class ParquetSource final : public ShardSource {
 public:
  ParquetSource(const ShardedFile& file, const Shard& shard, uint32_t shard_id,
                int64_t lines_before, bool hash)
      : file_(file),
        shard_(shard),
        shard_id_(shard_id),
        line_no_(lines_before),
        hash_(hash && shard.hashes_file) {}

  Status Open(const ScanRequest& req) {
    lines_ = req.lines;
    PF_ASSIGN_OR_RETURN(rows_, ParquetRows::Open(file_.path, *req.read, lines_, shard_.first_group,
                                                 shard_.end_group));
    if (lines_ && req.wants_line) {
      want_ = [this, &req](uint64_t row) { return req.wants_line(shard_id_, row); };
    }
    return Status::Ok();
  }

  Result<bool> Next(LoadedChunk& out) override {
    PF_RETURN_IF_ERROR(rows_->NextBatch(&out.rows, ChunkReader::kChunkBytes, kMaxRows, want_));
    if (out.rows.rows.empty()) return false;
    out.chunk.shard = shard_id_;
    out.chunk.seq = seq_++;
    out.chunk.first_record = records_;
    out.chunk.records.clear();
    for (const ParquetBatch::Row& row : out.rows.rows) {
      ChunkRecord r;
      r.line = row.line;
      r.text = row.text;
      r.line_no = ++line_no_;
      r.preset_bad = row.bad;
      r.has_text = !lines_;
      r.row_group = row.row_group;
      r.row_in_group = row.row_in_group;
      out.chunk.records.push_back(r);
    }
    records_ += out.rows.rows.size();
    return true;
  }

  uint64_t disk_bytes_read() const override { return rows_->progress_bytes(); }

  Status Finish(ShardRead& read) override {
    read.records = read.lines = records_;
    read.disk_bytes = rows_->progress_bytes();
    if (!hash_) return Status::Ok();
    Sha256 sha;
    PF_ASSIGN_OR_RETURN(read.file_bytes, HashRest(file_.path, 0, sha));
    read.file_sha256 = sha.HexDigest();
    return Status::Ok();
  }

 private:
  static constexpr size_t kMaxRows = 1 << 16;  // Per chunk, for files of tiny rows.

  const ShardedFile& file_;
  const Shard& shard_;
  uint32_t shard_id_;
  int64_t line_no_;
  bool hash_;
  bool lines_ = false;
  std::unique_ptr<ParquetRows> rows_;
  ParquetRows::WantLine want_;
  uint32_t seq_ = 0;
  uint64_t records_ = 0;
};

Result<std::unique_ptr<ShardSource>> OpenSource(const ScanRequest& req, uint32_t shard_id) {
  const Sharding& sharding = *req.sharding;
  const Shard& shard = sharding.shards[shard_id];
  const ShardedFile& file = sharding.files[shard.file];
  if (file.format == Format::kPlainText) {
    return std::unique_ptr<ShardSource>(new TextSource(file, shard_id, *req.read, req.hash));
  }
  const int64_t before = req.lines_before.empty() ? 0 : req.lines_before[shard_id];
  if (file.format == Format::kParquet) {
    auto source = std::make_unique<ParquetSource>(file, shard, shard_id, before, req.hash);
    PF_RETURN_IF_ERROR(source->Open(req));
    return std::unique_ptr<ShardSource>(std::move(source));
  }
  auto source = std::make_unique<JsonlSource>(file, shard, shard_id, before, req.hash);
  PF_RETURN_IF_ERROR(source->Open(*req.read));
  return std::unique_ptr<ShardSource>(std::move(source));
}

// A shard's progress through the scan (guarded by the scanner's mutex, but for `source`, which
// only the thread reading the shard touches).
struct ShardState {
  std::unique_ptr<ShardSource> source;
  bool reading = false, at_end = false, done = false;
  uint32_t pending = 0;  // Loaded chunks not yet processed.
  uint64_t disk_reported = 0;
  bool failed = false;
  uint32_t failure_seq = 0;  // The chunk of the first failure (a later load: the next seq).
  ScanFailure failure;
  std::vector<BadRecord> bad;
  ShardRead read;
};

class Scanner {
 public:
  Scanner(const ScanRequest& req, ShardSink& sink)
      : req_(req), sink_(sink), states_(req.shards.size()) {
    threads_ = std::max(1, req.threads);
    max_buffers_ = 2 * static_cast<size_t>(threads_) + 2;
    for (uint32_t s : req.shards) disk_total_ += req.sharding->shards[s].disk_bytes();
  }

  std::optional<ScanFailure> Run() {
    std::vector<std::thread> helpers;
    for (int t = 1; t < threads_; ++t) helpers.emplace_back([this, t] { Work(t); });
    Work(0);
    for (std::thread& h : helpers) h.join();
    for (ShardState& s : states_) {
      if (s.failed) return s.failure;
    }
    return std::nullopt;
  }

 private:
  void Work(int thread);
  void Process(std::unique_ptr<LoadedChunk> c, int thread, DocumentParser& parser,
               std::unique_lock<std::mutex>& lock);
  void Load(uint32_t slot, std::unique_lock<std::mutex>& lock);
  int PickReadable();
  void Fail(uint32_t slot, uint32_t seq, ScanFailure failure);
  void Close(ShardState& s);
  void MaybeFinish(uint32_t slot, std::unique_lock<std::mutex>& lock);
  bool AllDone() const;

  const ScanRequest& req_;
  ShardSink& sink_;
  int threads_ = 1;
  size_t max_buffers_ = 4;
  std::vector<ShardState> states_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::unique_ptr<LoadedChunk>> ready_;
  std::vector<std::unique_ptr<LoadedChunk>> free_;
  size_t buffers_in_use_ = 0;
  uint32_t next_open_ = 0;      // The next slot to open.
  uint32_t open_ = 0;           // Slots opened and not at their end.
  uint32_t stop_ = UINT32_MAX;  // The first failed slot: nothing after it counts.
  uint64_t disk_done_ = 0, disk_total_ = 0;
};

void Scanner::Work(int thread) {
  DocumentParser parser(*req_.read);
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    if (!ready_.empty()) {
      std::unique_ptr<LoadedChunk> c = std::move(ready_.front());
      ready_.pop_front();
      Process(std::move(c), thread, parser, lock);
      continue;
    }
    const int slot = PickReadable();
    if (slot >= 0) {
      Load(static_cast<uint32_t>(slot), lock);
      continue;
    }
    if (AllDone()) break;
    cv_.wait(lock);
  }
  cv_.notify_all();
}

void Scanner::Process(std::unique_ptr<LoadedChunk> c, int thread, DocumentParser& parser,
                      std::unique_lock<std::mutex>& lock) {
  const uint32_t slot = c->slot;
  const bool wanted = slot <= stop_;
  lock.unlock();
  Status st;
  std::vector<BadRecord> bad;
  if (wanted) {
    ChunkWork work(thread, c->chunk, parser, bad);
    st = sink_.OnChunk(work);
    std::sort(bad.begin(), bad.end(),
              [](const BadRecord& a, const BadRecord& b) { return a.record < b.record; });
  }
  lock.lock();
  ShardState& s = states_[slot];
  if (!st.ok()) {
    Fail(slot, c->chunk.seq, {c->chunk.shard, st, std::nullopt});
  } else if (!bad.empty() && !req_.read->skip_bad) {
    Fail(slot, c->chunk.seq, {c->chunk.shard, Status::Ok(), bad.front()});
  } else {
    s.bad.insert(s.bad.end(), std::make_move_iterator(bad.begin()),
                 std::make_move_iterator(bad.end()));
  }
  --s.pending;
  free_.push_back(std::move(c));
  --buffers_in_use_;
  MaybeFinish(slot, lock);
  cv_.notify_all();
}

// Reads the next chunk of the shard at `slot` (opening it first), outside the lock.
void Scanner::Load(uint32_t slot, std::unique_lock<std::mutex>& lock) {
  ShardState& s = states_[slot];
  s.reading = true;
  std::unique_ptr<LoadedChunk> c;
  if (!free_.empty()) {
    c = std::move(free_.back());
    free_.pop_back();
  } else {
    c = std::make_unique<LoadedChunk>();
  }
  ++buffers_in_use_;
  c->slot = slot;
  const uint32_t shard_id = req_.shards[slot];
  lock.unlock();
  Status st;
  bool got = false;
  if (!s.source) {
    auto opened = OpenSource(req_, shard_id);
    if (opened.ok()) s.source = std::move(*opened);
    st = opened.status();
  }
  if (st.ok()) {
    auto next = s.source->Next(*c);
    st = next.status();
    got = next.ok() && *next;
  }
  ShardRead read;
  if (st.ok() && !got) st = s.source->Finish(read);
  const uint64_t disk = s.source ? s.source->disk_bytes_read() : 0;
  lock.lock();
  s.reading = false;
  disk_done_ += disk - s.disk_reported;
  s.disk_reported = disk;
  if (req_.progress) {
    req_.progress({.stage = "read", .done = disk_done_, .total = disk_total_, .unit = "B"});
  }
  if (got && st.ok() && !s.failed) {
    ++s.pending;
    ready_.push_back(std::move(c));
  } else {
    free_.push_back(std::move(c));
    --buffers_in_use_;
    if (!st.ok()) Fail(slot, UINT32_MAX, {shard_id, st, std::nullopt});
    Close(s);
    read.shard = shard_id;
    s.read = std::move(read);
    MaybeFinish(slot, lock);
  }
  cv_.notify_all();
}

// The lowest open shard that is free to read, else the next shard to open; -1 if none (or no
// buffer is free).
int Scanner::PickReadable() {
  if (buffers_in_use_ >= max_buffers_) return -1;
  for (uint32_t slot = 0; slot < next_open_ && slot <= stop_; ++slot) {
    const ShardState& s = states_[slot];
    if (!s.at_end && !s.reading && !s.failed) return static_cast<int>(slot);
  }
  if (next_open_ < states_.size() && next_open_ <= stop_ &&
      open_ < static_cast<uint32_t>(threads_)) {
    ++open_;
    return static_cast<int>(next_open_++);
  }
  return -1;
}

void Scanner::Fail(uint32_t slot, uint32_t seq, ScanFailure failure) {
  ShardState& s = states_[slot];
  if (!s.failed || seq < s.failure_seq) {
    s.failed = true;
    s.failure_seq = seq;
    s.failure = std::move(failure);
  }
  stop_ = std::min(stop_, slot);
  if (!s.reading) Close(s);  // Else the thread reading it closes it.
}

void Scanner::Close(ShardState& s) {
  if (s.at_end) return;
  s.at_end = true;
  s.source.reset();
  --open_;
}

void Scanner::MaybeFinish(uint32_t slot, std::unique_lock<std::mutex>& lock) {
  ShardState& s = states_[slot];
  if (!s.at_end || s.pending > 0 || s.done) return;
  if (s.failed || slot > stop_) {
    s.done = true;
    return;
  }
  s.read.bad = std::move(s.bad);
  std::sort(s.read.bad.begin(), s.read.bad.end(),
            [](const BadRecord& a, const BadRecord& b) { return a.record < b.record; });
  lock.unlock();
  Status st = sink_.OnShardDone(s.read);
  lock.lock();
  if (!st.ok()) Fail(slot, UINT32_MAX, {req_.shards[slot], st, std::nullopt});
  s.done = true;
}

bool Scanner::AllDone() const {
  if (states_.empty()) return true;
  const size_t last = std::min<size_t>(stop_, states_.size() - 1);
  for (size_t slot = 0; slot <= last; ++slot) {
    if (!states_[slot].done) return false;
  }
  return true;
}

}  // namespace

bool ChunkWork::Text(size_t i, std::string_view* text) {
  const ChunkRecord& r = chunk_.records[i];
  std::string reason(r.preset_bad);
  if (reason.empty()) {
    if (r.has_text) {
      *text = r.text;
      return true;
    }
    if (parser_.Parse(r.line, /*padded=*/true, text, &reason)) return true;
  }
  bad_.push_back({chunk_.shard, chunk_.first_record + i, r.line_no, std::move(reason)});
  return false;
}

std::optional<ScanFailure> ScanShards(const ScanRequest& request, ShardSink& sink) {
  Scanner scanner(request, sink);
  return scanner.Run();
}

BadLine ToBadLine(const BadRecord& bad, const Sharding& sharding, int64_t lines_before,
                  uint64_t global_index) {
  const ShardedFile& file = sharding.FileOf(bad.shard);
  BadLine line;
  line.file = file.path;
  line.line_no = bad.line_no > 0 ? bad.line_no + lines_before : 0;
  line.index = global_index;
  line.reason = bad.reason;
  if (file.format == Format::kParquet && line.line_no > 0) {
    // Line n of a Parquet file is its row n - 1: find its row group.
    const uint64_t row = static_cast<uint64_t>(line.line_no - 1);
    const auto& groups = file.row_groups;
    auto it = std::upper_bound(
        groups.begin(), groups.end(), row,
        [](uint64_t r, const parquet::RowGroupInfo& g) { return r < g.first_row; });
    if (it != groups.begin()) {
      --it;
      line.row_group = static_cast<int32_t>(it - groups.begin());
      line.row_in_group = row - it->first_row;
    }
  }
  return line;
}

Status FailureStatus(const ScanFailure& failure, const Sharding& sharding,
                     const std::vector<int64_t>& lines_before) {
  if (!failure.bad) return failure.status;
  const int64_t before = lines_before.empty() ? 0 : lines_before[failure.shard];
  return Status::InvalidArgument(ToBadLine(*failure.bad, sharding, before, 0).Message());
}

}  // namespace preflight::corpus
