#pragma once
// Decodes one flat column chunk row by row: definition levels (RLE/bit-packed hybrid, or the
// legacy BIT_PACKED), then the value of each non-null row in the page's encoding:
//   PLAIN (every type); PLAIN_DICTIONARY / RLE_DICTIONARY (every type but BOOLEAN), the
//   dictionary page first and plain pages possibly after dictionary ones (the writers' fallback
//   when a dictionary grows too big); RLE (BOOLEAN); DELTA_BINARY_PACKED (INT32, INT64);
//   DELTA_LENGTH_BYTE_ARRAY (BYTE_ARRAY); DELTA_BYTE_ARRAY (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY);
//   BYTE_STREAM_SPLIT (FLOAT, DOUBLE, INT32, INT64, FIXED_LEN_BYTE_ARRAY).
// Data pages v1 and v2. Memory: one page, the dictionary and fixed batches of levels and
// indices; nothing grows with a page's value count.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "parquet/bits.h"
#include "parquet/buffer.h"
#include "parquet/chunk.h"
#include "parquet/schema.h"

namespace preflight::parquet {

class ColumnReader {
 public:
  // Starts a column chunk of `num_rows` rows. `column` must outlive the reader's use of it.
  void Start(const Column& column, const ChunkSpec& spec, int64_t num_rows);
  // The next row's value (or null). Errors are Corruption naming the chunk and page.
  Status Next(Value* value) {
    if (page_left_ == 0) PF_RETURN_IF_ERROR(LoadPage());
    --page_left_;
    if (has_levels_ && NextLevel() == 0) {
      if (!levels_ok_) return LevelError();
      value->null = true;
      return Status::Ok();
    }
    value->null = false;
    return Decode(value);
  }
  // The file offset of the next page header, for progress.
  uint64_t offset() const { return pages_.offset(); }

 private:
  static constexpr size_t kBatch = 1024;

  Status LoadPage();
  Status LoadDictionary(const Page& page);
  Status StartLevels(const Page& page, const uint8_t** p, const uint8_t* end);
  Status StartValues(int32_t encoding, const uint8_t* p, const uint8_t* end);
  Status StartDelta(int32_t encoding, const uint8_t* p, const uint8_t* end);
  uint32_t NextLevel();
  Status LevelError() const;
  Status Decode(Value* value);
  Status DecodePlain(Value* value);
  Status DecodeDictionary(Value* value);
  Status DecodeDeltaLength(Value* value);
  Status DecodeDeltaBytes(Value* value);
  Status DecodeSplit(Value* value);
  void FromFixed(const uint8_t* p, Value* value) const;
  Status PageError(const std::string& what) const;

  const Column* column_ = nullptr;
  PageReader pages_;
  Buffer data_buffer_, dictionary_buffer_;
  int64_t rows_left_ = 0;   // rows of the chunk not yet in a loaded page
  uint64_t page_left_ = 0;  // values of the current page not yet returned
  uint64_t page_offset_ = 0;
  size_t width_ = 0;  // bytes of a fixed-width value (0: BOOLEAN, BYTE_ARRAY)

  // Definition levels.
  bool has_levels_ = false;
  bool levels_ok_ = true;
  bool legacy_levels_ = false;  // BIT_PACKED: one bit per level, most significant first
  const uint8_t* legacy_ = nullptr;
  uint64_t legacy_bit_ = 0;
  RleDecoder levels_;
  uint32_t level_batch_[kBatch];
  size_t level_pos_ = 0, level_len_ = 0;

  // The dictionary.
  bool has_dictionary_ = false;
  std::vector<std::string_view> dictionary_strings_;  // BYTE_ARRAY
  const uint8_t* dictionary_fixed_ = nullptr;         // fixed-width values
  size_t dictionary_size_ = 0;

  // The current page's values.
  int32_t encoding_ = 0;
  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  uint64_t bit_ = 0;    // PLAIN BOOLEAN
  RleDecoder indices_;  // dictionary indices; RLE booleans
  uint32_t index_batch_[kBatch];
  size_t index_pos_ = 0, index_len_ = 0;
  DeltaDecoder deltas_, suffixes_;  // DELTA_*: values or lengths; DELTA_BYTE_ARRAY's suffixes
  int64_t delta_batch_[kBatch], suffix_batch_[kBatch];
  size_t delta_pos_ = 0, delta_len_ = 0, suffix_pos_ = 0, suffix_len_ = 0;
  std::string assembled_[2];  // DELTA_BYTE_ARRAY: the value being built and the previous one
  int current_ = 0;
  std::string_view previous_;
  std::string carried_;                       // the previous page's last value
  size_t split_count_ = 0, split_index_ = 0;  // BYTE_STREAM_SPLIT
};

}  // namespace preflight::parquet
