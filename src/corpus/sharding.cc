#include "corpus/sharding.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/file.h"
#include "base/sha256.h"

namespace preflight::corpus {
namespace {

Status StatFile(ShardedFile& f) {
  struct stat st;
  if (::stat(f.path.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT) return Status::NotFound(f.path + ": no such file");
    return Status::InvalidArgument(f.path + ": cannot read (" + std::strerror(err) + ")");
  }
  f.size = static_cast<uint64_t>(st.st_size);
  f.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return Status::Ok();
}

// A Parquet file over `split_bytes` is cut between row groups: each shard takes row groups while
// its span stays within `split_bytes`, and at least one.
void AddParquetShards(Sharding& sharding, uint32_t file_index, uint64_t split_bytes) {
  ShardedFile& f = sharding.files[file_index];
  const std::vector<parquet::RowGroupInfo>& groups = f.row_groups;
  const int n = static_cast<int>(groups.size());
  const bool cut = split_bytes > 0 && f.size > split_bytes;
  int g = 0;
  do {
    Shard s;
    s.file = file_index;
    s.first_group = g;
    s.begin = n > 0 ? groups[g].begin : 0;
    s.end = n > 0 ? groups[g].end : f.size;
    s.hashes_file = g == 0;
    for (++g; g < n && (!cut || groups[g].end - s.begin <= split_bytes); ++g) s.end = groups[g].end;
    s.end_group = std::min(g, n);
    sharding.shards.push_back(s);
  } while (g < n);
  f.shards = static_cast<uint32_t>(sharding.shards.size()) - f.first_shard;
}

// A plain JSONL file over `split_bytes` is cut into ranges; a Parquet file between row groups;
// anything else is one shard.
void AddShards(Sharding& sharding, uint32_t file_index, uint64_t split_bytes) {
  ShardedFile& f = sharding.files[file_index];
  f.first_shard = static_cast<uint32_t>(sharding.shards.size());
  if (f.format == Format::kParquet) return AddParquetShards(sharding, file_index, split_bytes);
  const bool cut = IsSplittable(f.format) && split_bytes > 0 && f.size > split_bytes;
  const uint64_t step = cut ? split_bytes : (f.size > 0 ? f.size : 1);
  uint64_t begin = 0;
  do {
    Shard s;
    s.file = file_index;
    s.begin = begin;
    s.end = std::min(f.size, begin + step);
    s.hashes_file = begin == 0;
    sharding.shards.push_back(s);
    begin += step;
  } while (begin < f.size);
  f.shards = static_cast<uint32_t>(sharding.shards.size()) - f.first_shard;
}

}  // namespace

Result<Sharding> ShardInputs(const std::vector<std::string>& paths, uint64_t split_bytes) {
  Sharding sharding;
  for (uint32_t i = 0; i < paths.size(); ++i) {
    if (!PathExists(paths[i])) return Status::NotFound(paths[i] + ": no such file");
    ShardedInput input;
    input.path = paths[i];
    input.folder = IsDirectory(paths[i]);
    input.first_file = static_cast<uint32_t>(sharding.files.size());
    PF_ASSIGN_OR_RETURN(std::vector<InputFile> files, ListInputFiles(paths[i]));
    for (InputFile& in : files) {
      ShardedFile f;
      f.input = i;
      f.path = std::move(in.path);
      f.rel = std::move(in.rel);
      f.format = in.format;
      f.row_groups = std::move(in.row_groups);
      PF_RETURN_IF_ERROR(StatFile(f));
      sharding.disk_bytes += f.size;
      sharding.files.push_back(std::move(f));
      AddShards(sharding, static_cast<uint32_t>(sharding.files.size() - 1), split_bytes);
    }
    input.files = static_cast<uint32_t>(sharding.files.size()) - input.first_file;
    sharding.inputs.push_back(std::move(input));
  }
  return sharding;
}

std::string FolderSha256(const std::vector<std::string>& rels,
                         const std::vector<std::string>& file_sha256) {
  Sha256 sha;
  for (size_t i = 0; i < rels.size(); ++i) {
    sha.Update(rels[i]);
    sha.Update(std::string_view("\0", 1));
    sha.Update(file_sha256[i]);
    sha.Update(std::string_view("\0", 1));
  }
  return sha.HexDigest();
}

}  // namespace preflight::corpus
