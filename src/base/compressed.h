#pragma once
// Whole-file reading of text that may be gzip- or zstd-compressed, told by content (the magic
// bytes, not the name). For the files read whole, a ledger above all: ledger/ and cost/ (`fit
// --ledger`) may use only base (doc/design.md), and a ledger is read wherever a pool may be, so
// the small decompressing reader lives here; corpus/'s ChunkReader is the streaming reader of
// pools.

#include <string>
#include <string_view>

#include "base/status.h"

namespace preflight {

enum class Compression { kNone, kGzip, kZstd };

// By the first bytes: 1f 8b is gzip, 28 b5 2f fd zstd; anything else (fewer bytes too) none.
Compression CompressionOf(std::string_view head);

// "gzip", "zstd" or "none".
const char* CompressionName(Compression compression);

// `bytes` (the contents of `path`) decompressed, every gzip member or zstd frame in turn, when
// they are compressed; unchanged otherwise. Corruption naming `path` for a damaged or cut-off
// stream.
Result<std::string> Decompress(const std::string& path, std::string bytes);

// The file's text: ReadFileToString (base/file.h), then Decompress.
Result<std::string> ReadFileDecompressed(const std::string& path);

}  // namespace preflight
