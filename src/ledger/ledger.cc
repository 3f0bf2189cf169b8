#include "ledger/ledger.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string_view>

#include "base/clock.h"
#include "base/compressed.h"
#include "base/file.h"
#include "base/sha256.h"
#include "base/version.h"
#include "ledger/receipt.h"
#include "ledger/verified_mark.h"
#include "ledger/writable.h"

namespace preflight::ledger {
namespace {

using nlohmann::json;

constexpr const char* kCallerFields[] = {"kind", "inputs", "config", "result", "cost"};
constexpr const char* kFilledFields[] = {"created_at", "tool", "prev", "hash"};

std::string ErrnoText() { return std::strerror(errno); }

std::string Short(const std::string& hash) { return hash.substr(0, 16) + "..."; }

bool IsHexHash(const json& v) {
  if (!v.is_string()) return false;
  const std::string& s = v.get_ref<const std::string&>();
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// An open file descriptor holding a flock(2); both are released on destruction.
class LockedFd {
 public:
  LockedFd() = default;
  LockedFd(const LockedFd&) = delete;
  LockedFd& operator=(const LockedFd&) = delete;
  ~LockedFd() {
    if (fd_ >= 0) ::close(fd_);  // Closing the last descriptor releases the lock.
  }

  // NotFound if `flags` lacks O_CREAT and the file does not exist.
  Status Open(const std::string& path, int flags, int lock_op) {
    fd_ = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      if (errno == ENOENT && !(flags & O_CREAT)) {
        return Status::NotFound(path +
                                ": no ledger here (nothing recorded yet?); pass the "
                                "ledger's path with --ledger PATH");
      }
      return Status::IOError(path + ": cannot open ledger (" + ErrnoText() + ")");
    }
    int rc;
    do {
      rc = ::flock(fd_, lock_op);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) return Status::IOError(path + ": cannot lock ledger (" + ErrnoText() + ")");
    return Status::Ok();
  }
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
};

// The ledger is appended to in place: a FIFO or a device would swallow or block its lines.
Status RegularFile(int fd, const std::string& path) {
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    return Status::InvalidArgument(path +
                                   ": the ledger is not a regular file; choose another "
                                   "--ledger");
  }
  return Status::Ok();
}

Status PreadAll(int fd, char* buf, size_t n, off_t offset, const std::string& path) {
  while (n > 0) {
    ssize_t got = ::pread(fd, buf, n, offset);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return Status::IOError(path + ": read failed (" + ErrnoText() + ")");
    buf += got, n -= got, offset += got;
  }
  return Status::Ok();
}

Result<off_t> SizeOf(int fd, const std::string& path) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return Status::IOError(path + ": stat failed (" + ErrnoText() + ")");
  return st.st_size;
}

// The whole ledger's text, read under a shared lock so that no Append is half-way through; a
// gzip- or zstd-compressed ledger (an archived one) decompressed (base/compressed.h).
Result<std::string> ReadLocked(const std::string& path) {
  LockedFd file;
  PF_RETURN_IF_ERROR(file.Open(path, O_RDONLY, LOCK_SH));
  PF_ASSIGN_OR_RETURN(off_t size, SizeOf(file.fd(), path));
  std::string contents(static_cast<size_t>(size), '\0');
  PF_RETURN_IF_ERROR(PreadAll(file.fd(), contents.data(), contents.size(), 0, path));
  return Decompress(path, std::move(contents));
}

bool EndsWith(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A compressed ledger is read, never appended to: InvalidArgument when `path` is named as one
// (.gz, .zst) or its first bytes are gzip's or zstd's.
Status CheckNotCompressed(const std::string& path) {
  Compression c = EndsWith(path, ".gz")    ? Compression::kGzip
                  : EndsWith(path, ".zst") ? Compression::kZstd
                                           : Compression::kNone;
  if (c == Compression::kNone && PathExists(path) && !IsDirectory(path)) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd >= 0) {
      char head[4];
      const ssize_t got = ::pread(fd, head, sizeof head, 0);
      ::close(fd);
      if (got > 0) c = CompressionOf(std::string_view(head, static_cast<size_t>(got)));
    }
  }
  if (c == Compression::kNone) return Status::Ok();
  return Status::InvalidArgument(
      path + ": a " + CompressionName(c) +
      "-compressed ledger is read-only (verify, show, --calibrate and fit read it); receipts are "
      "appended to a plain .jsonl ledger: give another --ledger, or decompress this one first");
}

// Lines without their "\n". `complete` is false when the file does not end in "\n": its last
// line was cut off mid-write.
std::vector<std::string_view> SplitLines(std::string_view contents, bool* complete) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < contents.size()) {
    size_t nl = contents.find('\n', start);
    if (nl == std::string_view::npos) {
      lines.push_back(contents.substr(start));
      *complete = false;
      return lines;
    }
    lines.push_back(contents.substr(start, nl - start));
    start = nl + 1;
  }
  *complete = true;
  return lines;
}

std::string IncompleteReason() {
  return "incomplete: the file ends without a newline, so the last write was cut off "
         "(a crash or a full disk?)";
}

// Parses one line; on failure returns the reason the line is bad.
Result<json> ParseLine(std::string_view line) {
  try {
    json j = json::parse(line);
    if (!j.is_object()) return Status::Corruption("not a JSON object");
    return j;
  } catch (const json::parse_error& e) {
    return Status::Corruption("not JSON (syntax error at byte " + std::to_string(e.byte) + ")");
  } catch (const json::out_of_range&) {
    // A number no double can hold ("1e999"): valid JSON grammar, but never one a receipt has.
    return Status::Corruption("not a receipt (a number too large to read)");
  }
}

// Why `receipt` (the receipt on line `line_no`) breaks the chain after `prev_hash`, or "".
std::string CheckLine(const json& receipt, int64_t line_no, const std::string& prev_hash) {
  for (const char* field : kCallerFields) {
    if (!receipt.contains(field)) return std::string("missing field '") + field + "'";
  }
  for (const char* field : kFilledFields) {
    if (!receipt.contains(field)) return std::string("missing field '") + field + "'";
  }
  if (!IsHexHash(receipt["hash"])) return "field 'hash' is not 64 lower-case hex digits";
  if (!IsHexHash(receipt["prev"])) return "field 'prev' is not 64 lower-case hex digits";
  const std::string& stored = receipt["hash"].get_ref<const std::string&>();
  std::string computed = ReceiptHash(receipt);
  if (stored != computed) {
    return "hash mismatch: the line records " + Short(stored) + " but its content hashes to " +
           Short(computed) + " (the line was altered)";
  }
  const std::string& prev = receipt["prev"].get_ref<const std::string&>();
  if (prev != prev_hash) {
    if (line_no == 1) {
      return "broken link to previous: the first line's prev must be 64 zeros but is " +
             Short(prev) + " (lines before it were removed)";
    }
    return "broken link to previous: prev is " + Short(prev) + " but line " +
           std::to_string(line_no - 1) + "'s hash is " + Short(prev_hash) +
           " (a line was removed, inserted or reordered)";
  }
  return "";
}

Status Invalid(const std::string& what) { return Status::InvalidArgument("receipt: " + what); }

Status CheckNonNegativeInteger(const json& v, const std::string& where) {
  if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<int64_t>() < 0)) {
    return Invalid("'" + where + "' must be a non-negative integer");
  }
  return Status::Ok();
}

Status CheckNonNegativeNumber(const json& v, const std::string& where) {
  if (!v.is_number() || v.get<double>() < 0) {
    return Invalid("'" + where + "' must be a non-negative number");
  }
  return Status::Ok();
}

Status ValidateCallerReceipt(const json& r) {
  if (!r.is_object()) return Invalid("must be a JSON object");
  for (const char* field : kFilledFields) {
    if (r.contains(field)) {
      return Invalid(std::string("already has '") + field + "'; Append fills it");
    }
  }
  for (const auto& [key, value] : r.items()) {
    (void)value;
    if (std::find(std::begin(kCallerFields), std::end(kCallerFields), key) ==
        std::end(kCallerFields)) {
      return Invalid("unknown field '" + key + "' (allowed: kind, inputs, config, result, cost)");
    }
  }
  for (const char* field : kCallerFields) {
    if (!r.contains(field)) return Invalid(std::string("missing field '") + field + "'");
  }
  const json& kind = r["kind"];
  const std::vector<std::string>& kinds = AllKindNames();  // receipt.h: the one list
  if (!kind.is_string() ||
      std::find(kinds.begin(), kinds.end(), kind.get_ref<const std::string&>()) == kinds.end()) {
    std::string names;
    for (const std::string& k : kinds) names += (names.empty() ? "" : ", ") + k;
    return Invalid("'kind' must be one of " + names + "; got " + CanonicalJson(kind));
  }
  const json& inputs = r["inputs"];
  if (!inputs.is_array()) return Invalid("'inputs' must be an array");
  for (size_t i = 0; i < inputs.size(); ++i) {
    const json& in = inputs[i];
    std::string at = "inputs/" + std::to_string(i);
    if (!in.is_object()) return Invalid("'" + at + "' must be an object");
    if (!in.contains("path") || !in["path"].is_string()) {
      return Invalid("'" + at + "/path' must be a string");
    }
    if (!in.contains("sha256") || !IsHexHash(in["sha256"])) {
      return Invalid("'" + at + "/sha256' must be 64 lower-case hex digits");
    }
    if (!in.contains("docs")) return Invalid("'" + at + "/docs' is missing");
    PF_RETURN_IF_ERROR(CheckNonNegativeInteger(in["docs"], at + "/docs"));
    if (!in.contains("bytes")) return Invalid("'" + at + "/bytes' is missing");
    PF_RETURN_IF_ERROR(CheckNonNegativeInteger(in["bytes"], at + "/bytes"));
  }
  if (!r["config"].is_object()) return Invalid("'config' must be an object");
  if (!r["result"].is_object()) return Invalid("'result' must be an object");
  const json& cost = r["cost"];
  if (!cost.is_object()) return Invalid("'cost' must be an object");
  for (const char* field : {"core_seconds", "flops"}) {
    if (!cost.contains(field)) return Invalid(std::string("'cost/") + field + "' is missing");
    PF_RETURN_IF_ERROR(CheckNonNegativeNumber(cost[field], std::string("cost/") + field));
  }
  return CheckCanonicalizable(r);
}

// Counts "\n" in the first `size` bytes: the number of complete lines.
Result<int64_t> CountNewlines(int fd, off_t size, const std::string& path) {
  int64_t count = 0;
  std::string buf(1 << 16, '\0');
  for (off_t off = 0; off < size;) {
    size_t n = static_cast<size_t>(std::min<off_t>(size - off, buf.size()));
    PF_RETURN_IF_ERROR(PreadAll(fd, buf.data(), n, off, path));
    count += std::count(buf.begin(), buf.begin() + n, '\n');
    off += n;
  }
  return count;
}

// The hash on the last line of a ledger of `size` > 0 bytes, read backwards from the end.
Result<std::string> TipHash(int fd, off_t size, const std::string& path) {
  const std::string verify_hint = "; run `preflight ledger verify --ledger " + path +
                                  "` and repair the ledger before "
                                  "appending to it";
  char last = 0;
  PF_RETURN_IF_ERROR(PreadAll(fd, &last, 1, size - 1, path));
  if (last != '\n') {
    PF_ASSIGN_OR_RETURN(int64_t complete, CountNewlines(fd, size, path));
    return Status::Corruption(path + ": line " + std::to_string(complete + 1) + " is " +
                              IncompleteReason() + verify_hint);
  }
  // tail holds bytes [start, size); grow it backwards until it holds the whole last line.
  std::string tail;
  off_t start = size;
  size_t line_begin = std::string::npos;
  while (true) {
    off_t chunk_start = std::max<off_t>(0, start - (1 << 16));
    std::string chunk(static_cast<size_t>(start - chunk_start), '\0');
    PF_RETURN_IF_ERROR(PreadAll(fd, chunk.data(), chunk.size(), chunk_start, path));
    tail = chunk + tail;
    start = chunk_start;
    size_t nl = tail.size() >= 2 ? tail.rfind('\n', tail.size() - 2) : std::string::npos;
    if (nl != std::string::npos) {
      line_begin = nl + 1;
      break;
    }
    if (start == 0) {
      line_begin = 0;
      break;
    }
  }
  std::string_view line(tail.data() + line_begin, tail.size() - line_begin - 1);
  Result<json> parsed = ParseLine(line);
  std::string problem;
  if (!parsed.ok()) {
    problem = parsed.status().message();
  } else if (!parsed->contains("hash") || !IsHexHash((*parsed)["hash"])) {
    problem = "has no valid 'hash'";
  }
  if (!problem.empty()) {
    PF_ASSIGN_OR_RETURN(int64_t lines, CountNewlines(fd, size, path));
    return Status::Corruption(path + ": line " + std::to_string(lines) + " (the last) is " +
                              problem + verify_hint);
  }
  return (*parsed)["hash"].get<std::string>();
}

// Hashes the bytes [0, end) into `digest`, counting their newlines.
Status HashPrefix(int fd, off_t end, const std::string& path, Sha256& digest, int64_t* newlines) {
  std::string buf(1 << 20, '\0');
  for (off_t off = 0; off < end;) {
    const size_t n = static_cast<size_t>(std::min<off_t>(end - off, buf.size()));
    PF_RETURN_IF_ERROR(PreadAll(fd, buf.data(), n, off, path));
    const std::string_view chunk(buf.data(), n);
    digest.Update(chunk);
    *newlines += std::count(chunk.begin(), chunk.end(), '\n');
    off += static_cast<off_t>(n);
  }
  return Status::Ok();
}

// The chain of a ledger of `size` bytes, checked before a line is appended to it, and its tip's
// hash (the new line's prev). The bytes still covered by the verified mark (verified_mark.h) are
// hashed, not parsed; every line after them is checked as Verify checks it. `digest` has hashed
// the ledger's bytes [0, size) on return (the next mark is made from it). Corruption naming the
// first bad line, and saying that nothing is appended to a ledger that fails verification.
Result<std::string> CheckChainBeforeAppend(int fd, off_t size, const std::string& path,
                                           Sha256& digest) {
  if (size == 0) return std::string(kGenesisHash);
  // A cut-off or unreadable last line is named as it always was.
  PF_RETURN_IF_ERROR(TipHash(fd, size, path).status());
  off_t verified_to = 0, hashed_to = 0;
  int64_t lines_before = 0;
  if (std::optional<VerifiedMark> mark = ReadVerifiedMark(path); mark && mark->bytes <= size) {
    PF_RETURN_IF_ERROR(HashPrefix(fd, mark->bytes, path, digest, &lines_before));
    hashed_to = mark->bytes;
    if (digest.HexDigestSoFar() == mark->sha256) {
      verified_to = mark->bytes;
    } else {
      lines_before = 0;  // changed since it was verified: every line is checked
    }
  }
  std::string rest(static_cast<size_t>(size - verified_to), '\0');
  PF_RETURN_IF_ERROR(PreadAll(fd, rest.data(), rest.size(), verified_to, path));
  digest.Update(std::string_view(rest).substr(static_cast<size_t>(hashed_to - verified_to)));
  std::string prev = kGenesisHash;
  if (verified_to > 0) {
    PF_ASSIGN_OR_RETURN(prev, TipHash(fd, verified_to, path));
  }
  bool complete = true;
  const std::vector<std::string_view> lines = SplitLines(rest, &complete);
  for (size_t i = 0; i < lines.size(); ++i) {
    const int64_t line_no = lines_before + static_cast<int64_t>(i) + 1;
    Result<json> parsed = ParseLine(lines[i]);
    const std::string reason =
        parsed.ok() ? CheckLine(*parsed, line_no, prev) : parsed.status().message();
    if (!reason.empty()) {
      return Status::Corruption(path + ": line " + std::to_string(line_no) + " is bad: " + reason +
                                "; a ledger that fails verification is not extended: run "
                                "`preflight ledger verify --ledger " +
                                path + "`, then repair it or move it aside");
    }
    prev = (*parsed)["hash"].get<std::string>();
  }
  return prev;
}

Status WriteAll(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::IOError(path + ": cannot append to ledger (" + ErrnoText() + ")");
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

}  // namespace

std::string DefaultLedgerPath() { return ".preflight/ledger.jsonl"; }

void to_json(nlohmann::json& j, const InputFile& f) {
  j = json{{"path", f.path}, {"sha256", f.sha256}, {"docs", f.docs}, {"bytes", f.bytes}};
}

void from_json(const nlohmann::json& j, InputFile& f) {
  j.at("path").get_to(f.path);
  j.at("sha256").get_to(f.sha256);
  j.at("docs").get_to(f.docs);
  j.at("bytes").get_to(f.bytes);
}

std::string ReceiptHash(const nlohmann::json& receipt) {
  json without_hash = receipt;
  if (without_hash.is_object()) without_hash.erase("hash");
  return Sha256::Hex(CanonicalJson(without_hash));
}

Result<nlohmann::json> Append(const std::string& ledger_path, nlohmann::json receipt) {
  PF_RETURN_IF_ERROR(ValidateCallerReceipt(receipt));
  PF_RETURN_IF_ERROR(CheckNotCompressed(ledger_path));
  PF_RETURN_IF_ERROR(MakeDirectories(DirName(ledger_path)));

  LockedFd file;
  PF_RETURN_IF_ERROR(file.Open(ledger_path, O_RDWR | O_CREAT | O_APPEND, LOCK_EX));
  PF_RETURN_IF_ERROR(RegularFile(file.fd(), ledger_path));
  PF_ASSIGN_OR_RETURN(off_t size, SizeOf(file.fd(), ledger_path));
  Sha256 digest;  // of the whole ledger, for the next verified mark
  PF_ASSIGN_OR_RETURN(std::string prev,
                      CheckChainBeforeAppend(file.fd(), size, ledger_path, digest));
  // Stamped under the lock, so created_at never decreases down the file.
  receipt["created_at"] = UtcNowRfc3339();
  receipt["tool"] = json{{"version", kVersion}, {"git_commit", kGitCommit}};
  receipt["prev"] = prev;
  receipt["hash"] = ReceiptHash(receipt);
  const std::string line = CanonicalJson(receipt) + "\n";

  Status st = WriteAll(file.fd(), line, ledger_path);
  if (st.ok() && ::fsync(file.fd()) != 0) {
    st = Status::IOError(ledger_path + ": fsync failed (" + ErrnoText() + ")");
  }
  if (!st.ok()) {
    // Cut off whatever part of the line got out, so the ledger ends on a whole line again.
    if (::ftruncate(file.fd(), size) == 0) ::fsync(file.fd());
    return st;
  }
  if (size == 0) {
    // A new file: make its folder entry durable too (best effort, as in base/file.cc).
    int dir = ::open(DirName(ledger_path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      ::fsync(dir);
      ::close(dir);
    }
  }
  // Best effort: without the mark the next append checks every line (verified_mark.h).
  digest.Update(line);
  (void)WriteVerifiedMark(
      ledger_path,
      {static_cast<int64_t>(size) + static_cast<int64_t>(line.size()), digest.HexDigest()});
  return receipt;
}

Status CheckAppendable(const std::string& ledger_path) {
  PF_RETURN_IF_ERROR(CheckNotCompressed(ledger_path));
  PF_RETURN_IF_ERROR(CheckAppendableFile(ledger_path, "--ledger"));
  if (!PathExists(ledger_path)) return Status::Ok();
  LockedFd file;
  PF_RETURN_IF_ERROR(file.Open(ledger_path, O_RDONLY, LOCK_SH));
  PF_ASSIGN_OR_RETURN(off_t size, SizeOf(file.fd(), ledger_path));
  Sha256 digest;
  return CheckChainBeforeAppend(file.fd(), size, ledger_path, digest).status();
}

Result<VerifyReport> Verify(const std::string& ledger_path) {
  PF_ASSIGN_OR_RETURN(std::string contents, ReadLocked(ledger_path));
  bool complete = true;
  std::vector<std::string_view> lines = SplitLines(contents, &complete);
  VerifyReport report;
  report.lines = static_cast<int64_t>(lines.size());
  std::string prev_hash = kGenesisHash;
  for (size_t i = 0; i < lines.size(); ++i) {
    const int64_t line_no = static_cast<int64_t>(i) + 1;
    std::string reason;
    if (!complete && i + 1 == lines.size()) {
      reason = IncompleteReason();
    } else if (Result<json> parsed = ParseLine(lines[i]); !parsed.ok()) {
      reason = parsed.status().message();
    } else {
      reason = CheckLine(*parsed, line_no, prev_hash);
      if (reason.empty()) prev_hash = (*parsed)["hash"].get<std::string>();
    }
    if (!reason.empty()) {
      report.ok = false;
      report.first_bad_line = line_no;
      report.reason = reason;
      return report;
    }
  }
  return report;
}

Result<StoredReceipt> FindReceipt(const std::string& ledger_path, const std::string& hash,
                                  ReceiptKind kind) {
  PF_ASSIGN_OR_RETURN(std::string contents, ReadLocked(ledger_path));
  const std::string needle = "\"hash\":\"" + hash + "\"";
  const std::string_view text = contents;
  for (size_t at = text.find(needle); !hash.empty() && at != std::string_view::npos;
       at = text.find(needle, at + 1)) {
    const size_t newline = text.rfind('\n', at);
    const size_t begin = newline == std::string_view::npos ? 0 : newline + 1;
    const size_t end = std::min(text.find('\n', at), text.size());
    const int64_t line_no = 1 + std::count(text.begin(), text.begin() + begin, '\n');
    Result<json> parsed = ParseLine(text.substr(begin, end - begin));
    if (!parsed.ok()) {
      return Status::Corruption(ledger_path + ": line " + std::to_string(line_no) + " is " +
                                parsed.status().message());
    }
    const auto field = parsed->find("hash");
    if (field == parsed->end() || *field != hash) continue;  // the text is inside another field
    const std::optional<ReceiptKind> found = KindOf(*parsed);
    if (found != kind) {
      const auto k = parsed->find("kind");
      return Status::NotFound(ledger_path + ": receipt " + hash + " (line " +
                              std::to_string(line_no) + ") is " +
                              (k != parsed->end() && k->is_string() ? "a " + k->get<std::string>()
                                                                    : std::string("of no kind")) +
                              " receipt, not a " + KindName(kind) + " receipt");
    }
    return StoredReceipt{kind, hash, line_no, std::move(parsed).value()};
  }
  return Status::NotFound(ledger_path + ": no " + std::string(KindName(kind)) +
                          " receipt has hash " + (hash.empty() ? "\"\"" : hash));
}

Result<std::vector<nlohmann::json>> ReadAll(const std::string& ledger_path) {
  PF_ASSIGN_OR_RETURN(std::string contents, ReadLocked(ledger_path));
  bool complete = true;
  std::vector<std::string_view> lines = SplitLines(contents, &complete);
  std::vector<json> receipts;
  receipts.reserve(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string where = ledger_path + ": line " + std::to_string(i + 1) + " is ";
    const std::string hint = "; run `preflight ledger verify --ledger " + ledger_path + "`";
    if (!complete && i + 1 == lines.size()) {
      return Status::Corruption(where + IncompleteReason() + hint);
    }
    Result<json> parsed = ParseLine(lines[i]);
    if (!parsed.ok()) return Status::Corruption(where + parsed.status().message() + hint);
    receipts.push_back(std::move(parsed).value());
  }
  return receipts;
}

}  // namespace preflight::ledger
