#pragma once
// How an input is read, decided from its first bytes and its name (doc/corpus-format.md).
//
// Content first: gzip (1f 8b) and zstd (28 b5 2f fd) streams are decompressed and read as JSONL
// whatever their name; "PAR1" is Parquet (read by parquet/reader.h). Encrypted Parquet ("PARE"),
// Arrow/Feather ("ARROW1", "FEA1", an Arrow IPC stream's ff ff ff ff), other compressors and
// archives, and anything with NUL bytes or that is not UTF-8 are refused with InvalidArgument
// naming the format and a one-line command that converts it: a binary file is never read as
// text. Then the name: .parquet/.parq/.pq are Parquet (so that the reader names the damage),
// .jsonl/.json/.ndjson JSONL, .txt/.md/.text plain text; another name is JSONL when its first
// character is '{'.
//
// A folder is walked recursively (names starting with '.' are skipped), its files sorted by
// relative path. It holds one kind of file: JSONL files (plain or compressed), Parquet files, or
// plain-text files. A Hugging Face save_to_disk folder is refused as a whole.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "parquet/reader.h"

namespace preflight::corpus {

enum class Format {
  kJsonl,      // One JSON object per line.
  kJsonlGzip,  // JSONL in a gzip stream (one or more members).
  kJsonlZstd,  // JSONL in a zstd stream (one or more frames).
  kPlainText,  // UTF-8 text: the whole file is one document (id: its path in the folder).
  kParquet,    // Rows of a Parquet file: the text column, the other scalar columns carried.
};

// "JSONL", "gzip JSONL", ...
std::string_view FormatName(Format format);
// Whether a byte range of the file can be read on its own (only uncompressed JSONL can; a
// Parquet file is cut by row groups instead: corpus/sharding.h).
bool IsSplittable(Format format);

// The format of a file from its first bytes (`head`, up to kSniffBytes) and its name. Refusals
// name `path`. Pure: the fuzzers and tests call it on bytes.
inline constexpr size_t kSniffBytes = 8192;
Result<Format> DetectFormat(const std::string& path, std::string_view head);
// The same refusals for the first decompressed bytes of a gzip or zstd file (a Parquet file or a
// tar archive that was gzipped is still not text). Named "<path> (decompressed)".
Status CheckDecompressedHead(const std::string& path, std::string_view head);
// Reads the head of `path` and calls DetectFormat. NotFound if there is no such file.
Result<Format> DetectFileFormat(const std::string& path);

// One file to read of an input: the input itself, or a file inside an input folder.
struct InputFile {
  std::string path;  // Path to open (the folder joined with `rel` for a folder's file).
  std::string rel;   // Path relative to the folder; empty for a file input.
  Format format = Format::kJsonl;
  // A Parquet file's row groups (rows, first row, byte span), from its footer.
  std::vector<parquet::RowGroupInfo> row_groups;
};

// The files of an input (a file or a folder), each with its format, in reading order. Every
// file's format is checked here, before any document is read, so that a refused file deep in a
// folder fails at once; a Parquet file's footer is read and checked too (a truncated or corrupt
// file, encryption), but not its columns, which depend on what is read of it.
Result<std::vector<InputFile>> ListInputFiles(const std::string& path);

}  // namespace preflight::corpus
