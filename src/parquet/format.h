#pragma once
// The Parquet format's enumerations, as their numbers appear in the Thrift footer and page
// headers (parquet-format's parquet.thrift), and their names for messages. Values outside the
// known ones are kept as numbers so that a message can name them ("codec 9").

#include <cstdint>
#include <string>

namespace preflight::parquet {

// Physical types (SchemaElement.type, ColumnMetaData.type).
enum PhysicalType : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};

// Compression codecs (ColumnMetaData.codec).
enum Codec : int32_t {
  kUncompressed = 0,
  kSnappy = 1,
  kGzip = 2,
  kLzo = 3,
  kBrotli = 4,
  kLz4 = 5,  // deprecated: Hadoop-framed LZ4 (or, from old writers, the LZ4 frame format)
  kZstd = 6,
  kLz4Raw = 7,
};

// Encodings of values and levels.
enum Encoding : int32_t {
  kPlain = 0,
  kPlainDictionary = 2,
  kRle = 3,
  kBitPacked = 4,
  kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6,
  kDeltaByteArray = 7,
  kRleDictionary = 8,
  kByteStreamSplit = 9,
};

enum PageType : int32_t {
  kDataPage = 0,
  kIndexPage = 1,
  kDictionaryPage = 2,
  kDataPageV2 = 3,
};

enum Repetition : int32_t { kRequired = 0, kOptional = 1, kRepeated = 2 };

// ConvertedType, the annotation older writers use (and newer ones write beside LogicalType).
enum ConvertedType : int32_t {
  kConvertedUtf8 = 0,
  kConvertedMap = 1,
  kConvertedMapKeyValue = 2,
  kConvertedList = 3,
  kConvertedEnum = 4,
  kConvertedDecimal = 5,
  kConvertedDate = 6,
  kConvertedTimeMillis = 7,
  kConvertedTimeMicros = 8,
  kConvertedTimestampMillis = 9,
  kConvertedTimestampMicros = 10,
  kConvertedUint8 = 11,
  kConvertedUint16 = 12,
  kConvertedUint32 = 13,
  kConvertedUint64 = 14,
  kConvertedInt8 = 15,
  kConvertedInt16 = 16,
  kConvertedInt32 = 17,
  kConvertedInt64 = 18,
  kConvertedJson = 19,
  kConvertedBson = 20,
  kConvertedInterval = 21,
};

std::string PhysicalTypeName(int32_t type);  // "BYTE_ARRAY", or "type 12"
std::string CodecName(int32_t codec);        // "ZSTD", or "codec 9"
std::string EncodingName(int32_t encoding);  // "RLE_DICTIONARY", or "encoding 11"
std::string PageTypeName(int32_t type);      // "DATA_PAGE_V2", or "page type 7"

}  // namespace preflight::parquet
