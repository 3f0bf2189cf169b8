#pragma once
// How a selection's outputs are compressed: by their name's ending (".zst" zstd, ".gz" gzip,
// anything else plain), one frame per chunk of content. Concatenated zstd frames (gzip members)
// are one valid stream that decompresses to the concatenated contents, so pieces compressed on
// different threads join by concatenation. Deterministic: the same content gives the same bytes
// (zstd level 3, one thread; gzip level 6, no name, time 0).

#include <string>
#include <string_view>

#include "base/status.h"

namespace preflight::select {

enum class Compression { kNone, kZstd, kGzip };
// By the name: "x.zst" zstd, "x.gz" gzip, anything else plain.
Compression CompressionFor(const std::string& path);
const char* CompressionName(Compression c);  // "none", "zstd", "gzip"

// Appends `content` to `out` as one frame (kNone: as is). `what` names the output in errors.
Status AppendFrame(Compression c, std::string_view content, const std::string& what,
                   std::string* out);

}  // namespace preflight::select
