#include "parquet/format.h"

namespace preflight::parquet {

namespace {
std::string Named(int32_t value, const char* const* names, int32_t count, const char* what) {
  if (value >= 0 && value < count && names[value] != nullptr) return names[value];
  return std::string(what) + " " + std::to_string(value);
}
}  // namespace

std::string PhysicalTypeName(int32_t type) {
  static const char* const kNames[] = {"BOOLEAN", "INT32",  "INT64",      "INT96",
                                       "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
  return Named(type, kNames, 8, "type");
}

std::string CodecName(int32_t codec) {
  static const char* const kNames[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
                                       "BROTLI",       "LZ4",    "ZSTD", "LZ4_RAW"};
  return Named(codec, kNames, 8, "codec");
}

std::string EncodingName(int32_t encoding) {
  static const char* const kNames[] = {"PLAIN",
                                       nullptr,
                                       "PLAIN_DICTIONARY",
                                       "RLE",
                                       "BIT_PACKED",
                                       "DELTA_BINARY_PACKED",
                                       "DELTA_LENGTH_BYTE_ARRAY",
                                       "DELTA_BYTE_ARRAY",
                                       "RLE_DICTIONARY",
                                       "BYTE_STREAM_SPLIT"};
  return Named(encoding, kNames, 10, "encoding");
}

std::string PageTypeName(int32_t type) {
  static const char* const kNames[] = {"DATA_PAGE", "INDEX_PAGE", "DICTIONARY_PAGE",
                                       "DATA_PAGE_V2"};
  return Named(type, kNames, 4, "page type");
}

}  // namespace preflight::parquet
