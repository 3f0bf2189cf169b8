#pragma once
// A reusable byte buffer that grows without initialising (a page is written over whole by a
// decompressor or a read), so that decoding page after page allocates only while pages grow.
// Eight zero bytes always follow the end, so a decoder may load a word that straddles it.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

namespace preflight::parquet {

class Buffer {
 public:
  static constexpr size_t kPadding = 8;

  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }

  // Sets the size to `n`; the contents are undefined unless `keep` (then the first min(size, n)
  // bytes are kept).
  uint8_t* Resize(size_t n, bool keep = false) {
    if (n > capacity_ || data_ == nullptr) {
      size_t grown = capacity_ + capacity_ / 2;
      const size_t capacity = n > grown ? n : grown;
      std::unique_ptr<uint8_t[]> bigger(new uint8_t[capacity + kPadding]);
      if (keep && size_ > 0) std::memcpy(bigger.get(), data_.get(), size_);
      data_ = std::move(bigger);
      capacity_ = capacity;
    }
    size_ = n;
    std::memset(data_.get() + n, 0, kPadding);
    return data_.get();
  }

  // Frees the memory.
  void Release() {
    data_.reset();
    size_ = capacity_ = 0;
  }

 private:
  std::unique_ptr<uint8_t[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace preflight::parquet
