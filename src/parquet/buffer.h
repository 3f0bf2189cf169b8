#pragma once
// A reusable byte buffer that grows without initialising (a page is written over whole by a
// decompressor or a read), so that decoding page after page allocates only while pages grow.
// Eight zero bytes always follow the end, so a decoder may load a word that straddles it.
//
// Large buffers (1 MiB and more) are recycled through a process-wide pool instead of going back
// to the system: a reader holds a page, a read window and a dictionary per column, often tens of
// MB, and readers are opened once per shard and pass; memory the system maps afresh costs a page
// fault for every 4 KiB touched.
// The pool keeps at most kPoolBytes.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace preflight::parquet {

class Buffer {
 public:
  static constexpr size_t kPadding = 8;
  static constexpr size_t kPooledBytes = size_t{1} << 20;  // Capacities pooled from here up.
  static constexpr size_t kPoolBytes = size_t{512} << 20;  // What the pool keeps at most.

  Buffer() = default;
  Buffer(Buffer&& other) noexcept { *this = std::move(other); }
  Buffer& operator=(Buffer&& other) noexcept {
    if (this != &other) {
      Release();
      data_ = std::move(other.data_);
      size_ = std::exchange(other.size_, 0);
      capacity_ = std::exchange(other.capacity_, 0);
    }
    return *this;
  }
  ~Buffer() { Release(); }

  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }

  // Sets the size to `n`; the contents are undefined unless `keep` (then the first min(size, n)
  // bytes are kept).
  uint8_t* Resize(size_t n, bool keep = false) {
    if (n > capacity_ || data_ == nullptr) {
      size_t grown = capacity_ + capacity_ / 2;
      size_t capacity = n > grown ? n : grown;
      std::unique_ptr<uint8_t[]> bigger = Take(&capacity);
      if (keep && size_ > 0) std::memcpy(bigger.get(), data_.get(), size_);
      Give(std::move(data_), capacity_);
      data_ = std::move(bigger);
      capacity_ = capacity;
    }
    size_ = n;
    std::memset(data_.get() + n, 0, kPadding);
    return data_.get();
  }

  // Frees the memory (a large buffer to the pool).
  void Release() {
    Give(std::move(data_), capacity_);
    size_ = capacity_ = 0;
  }

 private:
  struct Pool {
    std::mutex mu;
    std::vector<std::pair<size_t, std::unique_ptr<uint8_t[]>>> free;  // (capacity, bytes)
    size_t bytes = 0;
  };
  static Pool& ThePool() {
    static Pool* pool = new Pool();  // Never destroyed: buffers may be released at exit.
    return *pool;
  }

  // A buffer of at least `*capacity` bytes (plus padding); `*capacity` becomes its own.
  static std::unique_ptr<uint8_t[]> Take(size_t* capacity) {
    if (*capacity >= kPooledBytes) {
      Pool& pool = ThePool();
      std::lock_guard<std::mutex> lock(pool.mu);
      auto best = pool.free.end();
      for (auto it = pool.free.begin(); it != pool.free.end(); ++it) {
        if (it->first >= *capacity && (best == pool.free.end() || it->first < best->first)) {
          best = it;
        }
      }
      if (best != pool.free.end()) {
        *capacity = best->first;
        std::unique_ptr<uint8_t[]> bytes = std::move(best->second);
        pool.bytes -= best->first;
        pool.free.erase(best);
        return bytes;
      }
    }
    return std::unique_ptr<uint8_t[]>(new uint8_t[*capacity + kPadding]);
  }

  // Keeps a large buffer for a later Take, while the pool holds under kPoolBytes (its smallest
  // buffers make room for a larger one).
  static void Give(std::unique_ptr<uint8_t[]> bytes, size_t capacity) {
    if (bytes == nullptr || capacity < kPooledBytes || capacity > kPoolBytes) return;
    Pool& pool = ThePool();
    std::lock_guard<std::mutex> lock(pool.mu);
    std::sort(pool.free.begin(), pool.free.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
    while (!pool.free.empty() && pool.bytes + capacity > kPoolBytes &&
           pool.free.back().first < capacity) {
      pool.bytes -= pool.free.back().first;
      pool.free.pop_back();
    }
    if (pool.bytes + capacity > kPoolBytes) return;
    pool.bytes += capacity;
    pool.free.emplace_back(capacity, std::move(bytes));
  }

  std::unique_ptr<uint8_t[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace preflight::parquet
