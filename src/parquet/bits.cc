#include "parquet/bits.h"

#include <algorithm>

namespace preflight::parquet {

bool ReadUleb(const uint8_t** p, const uint8_t* end, uint64_t* value) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*p >= end) return false;
    const uint8_t byte = *(*p)++;
    if (shift == 63 && byte > 1) return false;
    v |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *value = v;
      return true;
    }
  }
  return false;
}

void RleDecoder::Init(const uint8_t* data, size_t size, int bit_width) {
  p_ = data;
  end_ = data + size;
  width_ = bit_width;
  repeat_left_ = packed_left_ = packed_pos_ = 0;
  corrupt_ = false;
}

bool RleDecoder::NextRun() {
  if (p_ >= end_) return false;  // The data ended where a run could start.
  uint64_t header = 0;
  if (!ReadUleb(&p_, end_, &header)) {
    corrupt_ = true;
    return false;
  }
  const size_t available = static_cast<size_t>(end_ - p_);
  if (header & 1) {
    // Bit-packed: groups of 8 values. A last run cut short keeps the values its bytes hold.
    const uint64_t groups = std::min<uint64_t>(header >> 1, uint64_t{1} << 56);
    size_t bytes = 0;
    uint64_t values = groups * 8;
    if (width_ > 0) {
      bytes = groups > available / width_ ? available : static_cast<size_t>(groups) * width_;
      values = std::min<uint64_t>(values, uint64_t{bytes} * 8 / width_);
    }
    packed_ = p_;
    packed_bytes_ = bytes;
    packed_pos_ = 0;
    packed_left_ = values;
    p_ += bytes;
    return true;
  }
  const size_t value_bytes = (width_ + 7) / 8;
  if (available < value_bytes) {
    corrupt_ = true;
    return false;
  }
  uint32_t value = 0;
  for (size_t i = 0; i < value_bytes; ++i) value |= uint32_t{p_[i]} << (8 * i);
  p_ += value_bytes;
  if (width_ < 32 && (value >> width_) != 0) {
    corrupt_ = true;  // A repeated value wider than the bit width.
    return false;
  }
  repeat_left_ = header >> 1;
  repeat_value_ = value;
  return true;
}

size_t RleDecoder::Get(uint32_t* out, size_t n) {
  size_t done = 0;
  while (done < n) {
    if (repeat_left_ > 0) {
      const size_t k = static_cast<size_t>(std::min<uint64_t>(n - done, repeat_left_));
      std::fill(out + done, out + done + k, repeat_value_);
      repeat_left_ -= k;
      done += k;
    } else if (packed_left_ > 0) {
      const size_t k = static_cast<size_t>(std::min<uint64_t>(n - done, packed_left_));
      uint64_t bit = packed_pos_ * width_;
      for (size_t i = 0; i < k; ++i, bit += width_) {
        out[done + i] = static_cast<uint32_t>(ReadBits(packed_, packed_bytes_, bit, width_));
      }
      packed_pos_ += k;
      packed_left_ -= k;
      done += k;
    } else if (!NextRun()) {
      break;
    }
  }
  return done;
}

bool DeltaDecoder::Init(const uint8_t* data, size_t size, std::string* error) {
  start_ = p_ = data;
  end_ = data + size;
  corrupt_ = false;
  uint64_t first = 0;
  if (!ReadUleb(&p_, end_, &block_size_) || !ReadUleb(&p_, end_, &miniblocks_) ||
      !ReadUleb(&p_, end_, &total_) || !ReadUleb(&p_, end_, &first)) {
    *error = "DELTA_BINARY_PACKED header is truncated or malformed";
    return false;
  }
  if (block_size_ == 0 || block_size_ % 128 != 0 || block_size_ > (uint64_t{1} << 31) ||
      miniblocks_ == 0 || block_size_ % miniblocks_ != 0 || (block_size_ / miniblocks_) % 32 != 0) {
    *error = "DELTA_BINARY_PACKED header has block size " + std::to_string(block_size_) + " and " +
             std::to_string(miniblocks_) + " miniblocks";
    return false;
  }
  per_miniblock_ = block_size_ / miniblocks_;
  left_ = total_;
  first_pending_ = total_ > 0;
  last_ = (first >> 1) ^ (~(first & 1) + 1);  // zigzag
  miniblock_ = miniblocks_;                   // The first miniblock needs a block header.
  mb_pos_ = mb_count_ = 0;
  return true;
}

bool DeltaDecoder::NextMiniblock() {
  if (miniblock_ >= miniblocks_) {
    uint64_t delta = 0;
    if (!ReadUleb(&p_, end_, &delta)) return false;
    min_delta_ = (delta >> 1) ^ (~(delta & 1) + 1);
    if (static_cast<uint64_t>(end_ - p_) < miniblocks_) return false;
    widths_ = p_;
    p_ += miniblocks_;
    miniblock_ = 0;
  }
  const int width = widths_[miniblock_++];
  if (width > 64) return false;
  // A full miniblock is padded to its whole size; tolerate a last one cut after its values.
  const uint64_t used = std::min(per_miniblock_, left_);
  const size_t available = static_cast<size_t>(end_ - p_);
  if ((used * width + 7) / 8 > available) return false;
  mb_data_ = p_;
  mb_bytes_ = static_cast<size_t>(std::min<uint64_t>(per_miniblock_ * width / 8, available));
  p_ += mb_bytes_;
  mb_width_ = width;
  mb_pos_ = 0;
  mb_count_ = per_miniblock_;
  return true;
}

bool DeltaDecoder::Measure(size_t* bytes, std::string* error) const {
  DeltaDecoder walk = *this;
  if (walk.first_pending_) {
    walk.first_pending_ = false;
    --walk.left_;
  }
  walk.left_ -= std::min(walk.left_, walk.mb_count_ - walk.mb_pos_);
  while (walk.left_ > 0) {
    if (!walk.NextMiniblock()) {
      *error = "DELTA_BINARY_PACKED data is truncated or malformed";
      return false;
    }
    walk.left_ -= std::min(walk.left_, walk.per_miniblock_);
  }
  *bytes = static_cast<size_t>(walk.p_ - start_);
  return true;
}

size_t DeltaDecoder::Get(int64_t* out, size_t n) {
  size_t done = 0;
  while (done < n && left_ > 0) {
    if (first_pending_) {
      out[done++] = static_cast<int64_t>(last_);
      first_pending_ = false;
      --left_;
      continue;
    }
    if (mb_pos_ == mb_count_ && !NextMiniblock()) {
      corrupt_ = true;
      break;
    }
    const size_t k =
        static_cast<size_t>(std::min({uint64_t{n - done}, mb_count_ - mb_pos_, left_}));
    uint64_t bit = mb_pos_ * mb_width_;
    for (size_t i = 0; i < k; ++i, bit += mb_width_) {
      last_ += min_delta_ + ReadBits(mb_data_, mb_bytes_, bit, mb_width_);
      out[done + i] = static_cast<int64_t>(last_);
    }
    mb_pos_ += k;
    left_ -= k;
    done += k;
  }
  return done;
}

}  // namespace preflight::parquet
