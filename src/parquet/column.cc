#include "parquet/column.h"

#include <algorithm>
#include <cstring>

#include "parquet/format.h"

namespace preflight::parquet {

namespace {

uint32_t LoadLe32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

size_t FixedWidth(const Column& c) {
  switch (c.physical) {
    case kInt32:
    case kFloat:
      return 4;
    case kInt64:
    case kDouble:
      return 8;
    case kInt96:
      return 12;
    case kFixedLenByteArray:
      return static_cast<size_t>(c.type_length);
    default:
      return 0;
  }
}

}  // namespace

void ColumnReader::Start(const Column& column, const ChunkSpec& spec, int64_t num_rows) {
  column_ = &column;
  pages_.Reset(spec);
  rows_left_ = num_rows;
  page_left_ = 0;
  page_offset_ = spec.begin;
  width_ = FixedWidth(column);
  has_dictionary_ = false;
  dictionary_size_ = 0;
  encoding_ = kPlain;
  previous_ = {};
}

Status ColumnReader::PageError(const std::string& what) const {
  return Status::Corruption(pages_.spec().where + ": page at byte " + std::to_string(page_offset_) +
                            ": " + what);
}

Status ColumnReader::LevelError() const {
  return PageError("its definition levels end before its values or are corrupt");
}

Status ColumnReader::LoadPage() {
  // DELTA_BYTE_ARRAY: the last value outlives its page, for the writers that let the next page's
  // first value share a prefix with it (parquet-mr before PARQUET-246 was fixed).
  if (encoding_ == kDeltaByteArray) {
    carried_.assign(previous_);
    previous_ = carried_;
  }
  while (true) {
    Page page;
    PF_ASSIGN_OR_RETURN(bool got, pages_.Next(&page, &data_buffer_, &dictionary_buffer_));
    page_offset_ = page.offset;
    if (!got) {
      return Status::Corruption(pages_.spec().where + ": the column chunk ends " +
                                std::to_string(rows_left_) + " rows short of its row group");
    }
    if (page.header.type == kDictionaryPage) {
      PF_RETURN_IF_ERROR(LoadDictionary(page));
      continue;
    }
    if (!page.header.has_data_v1 && !page.header.has_data_v2) {
      return PageError("a data page without its data page header");
    }
    const int64_t n = page.header.num_values;
    if (n < 0 || n > rows_left_) {
      return PageError("it holds " + std::to_string(n) + " values where " +
                       std::to_string(rows_left_) + " rows are left in the row group");
    }
    if (n == 0) continue;
    const uint8_t* p = page.data;
    const uint8_t* end = page.data + page.size;
    PF_RETURN_IF_ERROR(StartLevels(page, &p, end));
    PF_RETURN_IF_ERROR(StartValues(page.header.encoding, p, end));
    rows_left_ -= n;
    page_left_ = static_cast<uint64_t>(n);
    return Status::Ok();
  }
}

Status ColumnReader::LoadDictionary(const Page& page) {
  const int32_t n = page.header.num_values;
  const int32_t encoding = page.header.encoding;
  if (!page.header.has_dictionary || n < 0) return PageError("a malformed dictionary page header");
  if (encoding != kPlain && encoding != kPlainDictionary) {
    return PageError("a dictionary in encoding " + EncodingName(encoding));
  }
  const size_t count = static_cast<size_t>(n);
  dictionary_strings_.clear();
  if (column_->physical == kByteArray) {
    if (count > page.size / 4) return PageError("a dictionary of more values than its bytes hold");
    dictionary_strings_.reserve(count);
    const uint8_t* p = page.data;
    const uint8_t* end = page.data + page.size;
    for (size_t i = 0; i < count; ++i) {
      const uint32_t len = static_cast<size_t>(end - p) >= 4 ? LoadLe32(p) : UINT32_MAX;
      if (len > static_cast<size_t>(end - p) - 4 || static_cast<size_t>(end - p) < 4) {
        return PageError("dictionary value " + std::to_string(i) + " runs past the page's end");
      }
      dictionary_strings_.emplace_back(reinterpret_cast<const char*>(p + 4), len);
      p += 4 + len;
    }
  } else if (width_ > 0) {
    if (count > page.size / width_)
      return PageError("a dictionary of more values than its bytes hold");
    dictionary_fixed_ = page.data;
  } else {
    return PageError("a dictionary for a BOOLEAN column");
  }
  dictionary_size_ = count;
  has_dictionary_ = true;
  return Status::Ok();
}

Status ColumnReader::StartLevels(const Page& page, const uint8_t** p, const uint8_t* end) {
  const PageHeader& h = page.header;
  has_levels_ = column_->max_definition > 0;
  levels_ok_ = true;
  level_pos_ = level_len_ = 0;
  legacy_levels_ = false;
  if (h.type == kDataPageV2) {
    if (h.num_nulls < 0 || h.num_nulls > h.num_values) return PageError("a wrong null count");
    *p += h.repetition_levels_byte_length;
    const size_t bytes = static_cast<size_t>(h.definition_levels_byte_length);
    // A page of no nulls whose writer left its levels out is all defined.
    if (bytes == 0 && h.num_nulls == 0) has_levels_ = false;
    if (has_levels_) levels_.Init(*p, bytes, 1);
    *p += bytes;
    return Status::Ok();
  }
  if (!has_levels_) return Status::Ok();
  const size_t left = static_cast<size_t>(end - *p);
  if (h.definition_level_encoding == kRle) {
    const size_t bytes = left >= 4 ? LoadLe32(*p) : SIZE_MAX;
    if (left < 4 || bytes > left - 4) return PageError("its definition levels run past its end");
    levels_.Init(*p + 4, bytes, 1);
    *p += 4 + bytes;
  } else if (h.definition_level_encoding == kBitPacked) {
    const size_t bytes = (static_cast<size_t>(h.num_values) + 7) / 8;
    if (bytes > left) return PageError("its definition levels run past its end");
    legacy_levels_ = true;
    legacy_ = *p;
    legacy_bit_ = 0;
    *p += bytes;
  } else {
    return PageError("definition levels in encoding " + EncodingName(h.definition_level_encoding));
  }
  return Status::Ok();
}

uint32_t ColumnReader::NextLevel() {
  if (legacy_levels_) {
    const uint64_t bit = legacy_bit_++;
    return (legacy_[bit >> 3] >> (7 - (bit & 7))) & 1;
  }
  if (level_pos_ == level_len_) {
    level_len_ = levels_.Get(level_batch_, std::min<uint64_t>(kBatch, page_left_ + 1));
    level_pos_ = 0;
    if (level_len_ == 0) {
      levels_ok_ = false;
      return 0;
    }
  }
  return level_batch_[level_pos_++];
}

Status ColumnReader::StartValues(int32_t encoding, const uint8_t* p, const uint8_t* end) {
  encoding_ = encoding;
  p_ = p;
  end_ = end;
  const int32_t type = column_->physical;
  switch (encoding) {
    case kPlain:
      bit_ = 0;
      return Status::Ok();
    case kPlainDictionary:
    case kRleDictionary: {
      if (!has_dictionary_) return PageError("dictionary-encoded, but the chunk has no dictionary");
      const int width = p < end ? *p : 0;
      if (width > 32) return PageError("dictionary indices of " + std::to_string(width) + " bits");
      indices_.Init(p < end ? p + 1 : p, p < end ? static_cast<size_t>(end - p - 1) : 0, width);
      index_pos_ = index_len_ = 0;
      return Status::Ok();
    }
    case kRle: {
      const size_t left = static_cast<size_t>(end - p);
      const size_t bytes = left >= 4 ? LoadLe32(p) : SIZE_MAX;
      if (type != kBoolean) break;
      if (left < 4 || bytes > left - 4) return PageError("its RLE values run past its end");
      indices_.Init(p + 4, bytes, 1);
      index_pos_ = index_len_ = 0;
      return Status::Ok();
    }
    case kDeltaBinaryPacked:
      if (type != kInt32 && type != kInt64) break;
      return StartDelta(encoding, p, end);
    case kDeltaLengthByteArray:
      if (type != kByteArray) break;
      return StartDelta(encoding, p, end);
    case kDeltaByteArray:
      if (type != kByteArray && type != kFixedLenByteArray) break;
      return StartDelta(encoding, p, end);
    case kByteStreamSplit: {
      const size_t bytes = static_cast<size_t>(end - p);
      if (width_ == 0) break;
      if (bytes % width_ != 0) return PageError("BYTE_STREAM_SPLIT values of a partial width");
      split_count_ = bytes / width_;
      split_index_ = 0;
      return Status::Ok();
    }
    default:
      break;
  }
  return PageError("values in encoding " + EncodingName(encoding) + ", which a " +
                   PhysicalTypeName(type) + " column cannot have (or this reader does not know)");
}

Status ColumnReader::StartDelta(int32_t encoding, const uint8_t* p, const uint8_t* end) {
  std::string error;
  size_t bytes = 0;
  delta_pos_ = delta_len_ = suffix_pos_ = suffix_len_ = 0;
  if (!deltas_.Init(p, static_cast<size_t>(end - p), &error)) return PageError(error);
  if (encoding == kDeltaBinaryPacked) return Status::Ok();
  if (!deltas_.Measure(&bytes, &error)) return PageError(error);
  p_ = p + bytes;
  if (encoding == kDeltaLengthByteArray) return Status::Ok();
  // DELTA_BYTE_ARRAY: prefix lengths, then the suffixes as DELTA_LENGTH_BYTE_ARRAY.
  if (!suffixes_.Init(p_, static_cast<size_t>(end - p_), &error)) return PageError(error);
  if (!suffixes_.Measure(&bytes, &error)) return PageError(error);
  p_ += bytes;
  return Status::Ok();
}

void ColumnReader::FromFixed(const uint8_t* p, Value* value) const {
  switch (column_->physical) {
    case kInt32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      value->i = v;
      return;
    }
    case kInt64:
      std::memcpy(&value->i, p, 8);
      return;
    case kFloat: {
      float f;
      std::memcpy(&f, p, 4);
      value->d = f;
      return;
    }
    case kDouble:
      std::memcpy(&value->d, p, 8);
      return;
    default:
      value->s = std::string_view(reinterpret_cast<const char*>(p), width_);
  }
}

Status ColumnReader::Decode(Value* value) {
  switch (encoding_) {
    case kPlain:
      return DecodePlain(value);
    case kPlainDictionary:
    case kRleDictionary:
      return DecodeDictionary(value);
    case kRle: {
      if (index_pos_ == index_len_) {
        index_len_ = indices_.Get(index_batch_, kBatch);
        index_pos_ = 0;
        if (index_len_ == 0) return PageError("its RLE booleans end before its rows");
      }
      value->i = index_batch_[index_pos_++] != 0;
      return Status::Ok();
    }
    case kDeltaBinaryPacked: {
      if (delta_pos_ == delta_len_) {
        delta_len_ = deltas_.Get(delta_batch_, kBatch);
        delta_pos_ = 0;
        if (delta_len_ == 0) return PageError("its DELTA_BINARY_PACKED values end before its rows");
      }
      const int64_t v = delta_batch_[delta_pos_++];
      value->i = column_->physical == kInt32 ? static_cast<int32_t>(static_cast<uint32_t>(v)) : v;
      return Status::Ok();
    }
    case kDeltaLengthByteArray:
      return DecodeDeltaLength(value);
    case kDeltaByteArray:
      return DecodeDeltaBytes(value);
    default:
      return DecodeSplit(value);
  }
}

Status ColumnReader::DecodePlain(Value* value) {
  const size_t left = static_cast<size_t>(end_ - p_);
  if (column_->physical == kByteArray) {
    const size_t len = left >= 4 ? LoadLe32(p_) : SIZE_MAX;
    if (left < 4 || len > left - 4) return PageError("a value runs past the page's end");
    value->s = std::string_view(reinterpret_cast<const char*>(p_ + 4), len);
    p_ += 4 + len;
    return Status::Ok();
  }
  if (column_->physical == kBoolean) {
    if (bit_ >= uint64_t{left} * 8) return PageError("its values end before its rows");
    value->i = (p_[bit_ >> 3] >> (bit_ & 7)) & 1;
    ++bit_;
    return Status::Ok();
  }
  if (left < width_) return PageError("its values end before its rows");
  FromFixed(p_, value);
  p_ += width_;
  return Status::Ok();
}

Status ColumnReader::DecodeDictionary(Value* value) {
  if (index_pos_ == index_len_) {
    index_len_ = indices_.Get(index_batch_, std::min<uint64_t>(kBatch, page_left_ + 1));
    index_pos_ = 0;
    if (index_len_ == 0) return PageError("its dictionary indices end before its rows");
  }
  const uint32_t index = index_batch_[index_pos_++];
  if (index >= dictionary_size_) {
    return PageError("dictionary index " + std::to_string(index) + " past the dictionary's " +
                     std::to_string(dictionary_size_) + " values");
  }
  if (column_->physical == kByteArray) {
    value->s = dictionary_strings_[index];
  } else {
    FromFixed(dictionary_fixed_ + size_t{index} * width_, value);
  }
  return Status::Ok();
}

Status ColumnReader::DecodeDeltaLength(Value* value) {
  if (delta_pos_ == delta_len_) {
    delta_len_ = deltas_.Get(delta_batch_, kBatch);
    delta_pos_ = 0;
    if (delta_len_ == 0) return PageError("its value lengths end before its rows");
  }
  const int64_t len = delta_batch_[delta_pos_++];
  if (len < 0 || static_cast<uint64_t>(len) > static_cast<uint64_t>(end_ - p_)) {
    return PageError("a value length of " + std::to_string(len) + " bytes runs past its end");
  }
  value->s = std::string_view(reinterpret_cast<const char*>(p_), static_cast<size_t>(len));
  p_ += len;
  return Status::Ok();
}

Status ColumnReader::DecodeDeltaBytes(Value* value) {
  if (delta_pos_ == delta_len_) {
    delta_len_ = deltas_.Get(delta_batch_, kBatch);
    delta_pos_ = 0;
  }
  if (suffix_pos_ == suffix_len_) {
    suffix_len_ = suffixes_.Get(suffix_batch_, kBatch);
    suffix_pos_ = 0;
  }
  if (delta_len_ == 0 || suffix_len_ == 0)
    return PageError("its value lengths end before its rows");
  const int64_t prefix = delta_batch_[delta_pos_++];
  const int64_t suffix = suffix_batch_[suffix_pos_++];
  if (prefix < 0 || static_cast<uint64_t>(prefix) > previous_.size()) {
    return PageError("a prefix of " + std::to_string(prefix) +
                     " bytes, longer than the value before");
  }
  if (suffix < 0 || static_cast<uint64_t>(suffix) > static_cast<uint64_t>(end_ - p_)) {
    return PageError("a suffix of " + std::to_string(suffix) + " bytes runs past its end");
  }
  const std::string_view tail(reinterpret_cast<const char*>(p_), static_cast<size_t>(suffix));
  p_ += suffix;
  if (prefix == 0) {
    previous_ = tail;
  } else {
    std::string& next = assembled_[current_ ^= 1];  // the other buffer: previous_ may be in one
    next.assign(previous_.data(), static_cast<size_t>(prefix));
    next.append(tail);
    previous_ = next;
  }
  if (column_->physical == kFixedLenByteArray && previous_.size() != width_) {
    return PageError("a FIXED_LEN_BYTE_ARRAY value of " + std::to_string(previous_.size()) +
                     " bytes");
  }
  value->s = previous_;
  return Status::Ok();
}

Status ColumnReader::DecodeSplit(Value* value) {
  if (split_index_ >= split_count_) return PageError("its values end before its rows");
  const uint8_t* at = p_ + split_index_++;
  if (column_->physical == kFixedLenByteArray || column_->physical == kInt96) {
    std::string& bytes = assembled_[0];
    bytes.resize(width_);
    for (size_t k = 0; k < width_; ++k) bytes[k] = static_cast<char>(at[k * split_count_]);
    value->s = bytes;
    return Status::Ok();
  }
  uint8_t bytes[8];
  for (size_t k = 0; k < width_; ++k) bytes[k] = at[k * split_count_];
  FromFixed(bytes, value);
  return Status::Ok();
}

}  // namespace preflight::parquet
