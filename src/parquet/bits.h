#pragma once
// The bit-level encodings of Parquet pages, decoded in batches so that memory never grows with
// a page's value count (a page of a million nulls is a few bytes of RLE):
//   - the RLE / bit-packed hybrid (definition levels, dictionary indices, RLE booleans);
//   - DELTA_BINARY_PACKED (integers, and the lengths inside DELTA_LENGTH_BYTE_ARRAY and
//     DELTA_BYTE_ARRAY).
// Every read is bounded by the bytes given; a run that claims more than there is ends the data.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace preflight::parquet {

// `width` (0..64) bits starting at bit `bit` of `data` (`size` bytes), least significant bit
// first; bits past the end read as zero.
inline uint64_t ReadBits(const uint8_t* data, size_t size, uint64_t bit, int width) {
  if (width == 0) return 0;
  const size_t byte = bit >> 3;
  const int shift = static_cast<int>(bit & 7);
  uint8_t window[16] = {};
  const uint8_t* p = window;
  if (byte + 9 <= size) {
    p = data + byte;
  } else if (byte < size) {
    std::memcpy(window, data + byte, size - byte);
  }
  uint64_t v;
  std::memcpy(&v, p, 8);
  v >>= shift;
  if (shift != 0 && width + shift > 64) v |= uint64_t{p[8]} << (64 - shift);
  return width == 64 ? v : v & ((uint64_t{1} << width) - 1);
}

// Reads an unsigned LEB128 varint at *p (below `end`); false when malformed or cut.
bool ReadUleb(const uint8_t** p, const uint8_t* end, uint64_t* value);

// The RLE / bit-packed hybrid, without a length prefix (the caller strips it).
class RleDecoder {
 public:
  // `bit_width` must be 0..32 (checked by the caller).
  void Init(const uint8_t* data, size_t size, int bit_width);
  // Decodes up to `n` values into `out`; fewer when the data ends (or is corrupt: corrupt()).
  size_t Get(uint32_t* out, size_t n);
  bool corrupt() const { return corrupt_; }

 private:
  bool NextRun();

  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  int width_ = 0;
  uint64_t repeat_left_ = 0;  // values left in the current RLE run
  uint32_t repeat_value_ = 0;
  const uint8_t* packed_ = nullptr;  // the current bit-packed run
  size_t packed_bytes_ = 0;
  uint64_t packed_pos_ = 0, packed_left_ = 0;
  bool corrupt_ = false;
};

// DELTA_BINARY_PACKED, streamed.
class DeltaDecoder {
 public:
  // Reads the header at `data`. False with `*error` set when it is malformed.
  bool Init(const uint8_t* data, size_t size, std::string* error);
  // The number of values the stream holds (from its header).
  uint64_t total() const { return total_; }
  // The stream's length in bytes: through the last miniblock that holds a value. Walks the
  // block headers without decoding; false with `*error` when they run past the end.
  bool Measure(size_t* bytes, std::string* error) const;
  // Decodes up to `n` next values; fewer at the end or on corruption (corrupt()).
  size_t Get(int64_t* out, size_t n);
  bool corrupt() const { return corrupt_; }

 private:
  bool NextMiniblock();

  const uint8_t* start_ = nullptr;
  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  uint64_t block_size_ = 0, miniblocks_ = 0, per_miniblock_ = 0;
  uint64_t total_ = 0, left_ = 0;
  bool first_pending_ = false;
  uint64_t last_ = 0;
  uint64_t min_delta_ = 0;
  const uint8_t* widths_ = nullptr;  // the current block's miniblock bit widths
  uint64_t miniblock_ = 0;           // index of the current miniblock in its block
  const uint8_t* mb_data_ = nullptr;
  size_t mb_bytes_ = 0;
  int mb_width_ = 0;
  uint64_t mb_pos_ = 0, mb_count_ = 0;  // values read from / held by the current miniblock
  bool corrupt_ = false;
};

}  // namespace preflight::parquet
